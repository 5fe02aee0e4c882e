/* fatal_truncate.c: a truncated receive under the default MPI_ERRORS_ARE_FATAL ends the job. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, big[100] = {0}, small[10];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        MPI_Send(big, 100, MPI_INT, 1, 3, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(small, 10, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
