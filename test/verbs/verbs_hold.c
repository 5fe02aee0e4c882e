/* verbs_hold.c: ranks 0 and 1 keep talking (a small message each way every 20 ms) until the
 * file named by argv[1] exists, then check what they got and finish: the job strangers knock on
 * while it runs (test/verbs/vm.sh). */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, errs = 0, stop = 0, rounds = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    while (!stop && rank < 2) {
        int out = rounds, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, 1 - rank, 0, &in, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        errs += in != rounds;
        /* Rank 0 decides, so both stop after the same round. */
        stop = rank == 0 && argc > 1 && access(argv[1], F_OK) == 0;
        MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        rounds++;
        usleep(20000);
    }
    int all = 0;
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? " Found %d errors\n" : " No Errors\n", all);
    MPI_Finalize();
    return all != 0;
}
