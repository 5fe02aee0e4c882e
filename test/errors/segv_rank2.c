/* segv_rank2.c: rank 2 dies from SIGSEGV while the others wait in a barrier. */
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 2) {
        usleep(100000);
        raise(SIGSEGV);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
