/* startup_empty.c: MPI_Init and MPI_Finalize and nothing else, for bench/startup.sh: the cost of
 * starting and ending a job, which launchers and the start-up protocol decide. */
#include <mpi.h>

int main(int argc, char **argv)
{
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    return MPI_Finalize() == MPI_SUCCESS ? 0 : 1;
}
