/* shm_mpi_pingpong.c: 8-byte MPI ping-pong, built against another MPI (e.g. Debian's mpich) to
 * give shm_pingpong's latency a reference on the same machine.
 *   mpicc.mpich -O2 shm_mpi_pingpong.c -o mpi_pp && mpiexec.mpich -n 2 ./mpi_pp [roundtrips] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank;
    long iters = argc > 1 ? atol(argv[1]) : 100000, warm = iters / 10 + 100;
    double buf = 0, t0 = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < warm + iters; i++) {
        if (i == warm)
            t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(&buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("mpi pingpong: 8 B, %ld round trips: %.3f us one-way\n", iters,
               (MPI_Wtime() - t0) * 1e6 / (2.0 * iters));
    MPI_Finalize();
    return 0;
}
