/* abort_rank1.c: rank 1 calls MPI_Abort(7) while the others wait in a receive that never comes;
 * what it printed before (not flushed) must still reach mpiexec's output. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        usleep(100000);
        printf("rank 1 printed this before MPI_Abort\n");
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
