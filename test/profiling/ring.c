/* ring.c: the program count_calls.c watches. Per rank: 3 Isend + Recv + Wait around the ring,
 * one blocking Send and Recv (even ranks send first), one Bcast, one Sendrecv (which must count
 * as neither a Send nor a Recv: the library does not call its own MPI_ names), then
 * MPI_Finalize. Expected counts: Send=1 Recv=4 Isend=3 Wait=3 Bcast=1. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int i = 0; i < 3; i++) {
        MPI_Request r;
        MPI_Isend(&rank, 1, MPI_INT, right, i, MPI_COMM_WORLD, &r);
        MPI_Recv(&v, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    if (rank % 2 == 0) {
        MPI_Send(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&rank, 1, MPI_INT, right, 5, MPI_COMM_WORLD);
    }
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 9, &v, 1, MPI_INT, left, 9, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
