/* before_init.c: an MPI call before MPI_Init must say so, not crash. */
#include <mpi.h>

int main(void)
{
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return 0;
}
