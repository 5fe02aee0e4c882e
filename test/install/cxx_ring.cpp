// cxx_ring.cpp: a C++ program built with mpicxx (test/install_check.sh): the C bindings from C++,
// with standard containers.  Each rank passes a vector around the ring with Isend/Irecv, then
// all agree on a sum with Allreduce; it prints "No Errors" on rank 0 when every value is right.
#include <mpi.h>

#include <cstdio>
#include <numeric>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    const int n = 1000;
    std::vector<double> out(n), in(n, -1.0);
    for (int i = 0; i < n; i++)
        out[i] = rank * 10000.0 + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request reqs[2];
    MPI_Irecv(in.data(), n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &reqs[0]);
    MPI_Isend(out.data(), n, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    int errors = 0;
    for (int i = 0; i < n; i++)
        if (in[i] != left * 10000.0 + i)
            errors++;
    long mine = static_cast<long>(std::accumulate(in.begin(), in.end(), 0.0)), total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    long expect = 0;
    for (int r = 0; r < size; r++)
        expect += r * 10000L * n + static_cast<long>(n) * (n - 1) / 2;
    if (total != expect)
        errors++;
    int all = 0;
    MPI_Reduce(&errors, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all == 0)
            std::printf(" No Errors\n");
        else
            std::printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return all != 0;
}
