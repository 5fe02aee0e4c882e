/* before_init.c: an MPI call before MPI_Init must say so, not crash; what the program printed
 * before (not flushed: stdout is a file) must not be lost. */
#include <mpi.h>
#include <stdio.h>

int main(void)
{
    int rank;
    printf("printed before the call\n");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return 0;
}
