/* segv_then_abort.c: rank 2 dies from SIGSEGV (or, with a third argument "exit", exits with
 * code 3 without finalizing), then (300 ms later) rank 0 calls MPI_Abort, as a rank does that
 * finds its peer lost.  Both start when the file named by argv[1] appears, which the test creates
 * while mpiexec is stopped (SIGSTOP), so mpiexec wakes to both at once: the job's status must
 * still be rank 2's failure, the first one (11, or 3). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && argc > 2) {
        FILE *f = fopen(argv[2], "w"); /* tells the test the ranks are ready */
        if (f)
            fclose(f);
    }
    while (argc > 1 && access(argv[1], F_OK) != 0)
        usleep(10000);
    if (rank == 2 && argc > 3 && strcmp(argv[3], "exit") == 0)
        exit(3);
    if (rank == 2)
        raise(SIGSEGV);
    usleep(300000);
    if (rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 5);
    sleep(30);
    MPI_Finalize();
    return 0;
}
