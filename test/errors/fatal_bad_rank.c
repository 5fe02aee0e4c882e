/* fatal_bad_rank.c: a send to a rank outside the communicator under the default handler; what
 * the rank printed before (not flushed) must still reach mpiexec's output. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int x = 1;
    MPI_Init(&argc, &argv);
    printf("printed before the bad send\n");
    MPI_Send(&x, 1, MPI_INT, 99, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
