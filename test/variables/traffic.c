/* traffic.c: a known amount of traffic, so that the counters and messages the FERRY_ variables
 * change can be checked exactly: rank 0 sends COUNT messages of SIZE bytes to rank 1, the
 * first after sleeping DELAY seconds (so rank 1 waits in MPI_Recv), and rank 1 checks them.
 *   traffic COUNT SIZE [DELAY]       (2 ranks; built with test/mpi/mtest.c)
 * No other message is sent (MTest_Finalize's reduction would add one): rank 1 prints
 * " No Errors" and exits 0 when everything arrived intact. */
#include "mtest.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
    if (argc < 3 || mtest_size < 2) {
        if (mtest_rank == 0)
            fprintf(stderr, "usage: traffic COUNT SIZE [DELAY] on 2 ranks or more\n");
        MPI_Finalize();
        return 2;
    }
    int count = atoi(argv[1]);
    size_t size = strtoul(argv[2], NULL, 0);
    double delay = argc > 3 ? atof(argv[3]) : 0;
    char *buf = mtest_malloc(size ? size : 1);
    /* Ranks past 1 only wait in MPI_Finalize's barrier. */
    for (int i = 0; i < count && mtest_rank < 2; i++) {
        if (mtest_rank == 0) {
            if (i == 0 && delay > 0)
                mtest_sleep(delay);
            mtest_fill_bytes(buf, size, i);
            MPI_Send(buf, (int)size, MPI_BYTE, 1, i, MPI_COMM_WORLD);
        } else {
            MPI_Status st;
            MPI_Recv(buf, (int)size, MPI_BYTE, 0, i, MPI_COMM_WORLD, &st);
            errs += mtest_check_status(&st, 0, i, MPI_BYTE, (int)size, "traffic");
            if (mtest_check_bytes(buf, size, i, "traffic"))
                errs++;
        }
    }
    free(buf);
    MPI_Finalize();
    if (mtest_rank == 1 && errs == 0)
        printf(" No Errors\n");
    return errs != 0;
}
