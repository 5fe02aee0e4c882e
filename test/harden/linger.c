/* linger.c: starts MPI, waits ARG seconds inside it, finishes (a job that stays up while a test
 * looks at its launcher from outside). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
