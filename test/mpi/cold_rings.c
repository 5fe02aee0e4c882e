/* cold_rings.c: messages from local peers whose shm rings have gone quiet.  Every rank first
 * sends once to every other (so each has every peer's ring to poll); then rank 0 makes many
 * empty MPI_Iprobe calls while the others wait for it, long enough for shm to poll the quiet
 * rings only now and then (doc/methods/shm.md, "Hot and cold rings"); then each other rank
 * sends 5 messages to rank 0, which receives them with MPI_ANY_SOURCE and checks that all came,
 * in each sender's order; finally two rounds where one sender at a time, after a quiet spell,
 * sends to rank 0 while it waits in MPI_Recv (a blocking wait, which on an oversubscribed node
 * may sleep on the doorbell).  Any size; meant for 8 ranks on one node. */
#include "mtest.h"

#include <stdlib.h>

#define TAG_ALL 0
#define TAG_GO 1
#define TAG_DATA 2
#define PER_SENDER 5
#define IDLE_PROBES 20000

int main(int argc, char **argv)
{
    int errs = 0, flag, one = 1, got;
    MTest_Init(&argc, &argv);
    int n = mtest_size, me = mtest_rank;

    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        MPI_Sendrecv(&me, 1, MPI_INT, to, TAG_ALL, &got, 1, MPI_INT, from, TAG_ALL, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, from, got, "all pairs: value from rank %d", from);
    }

    if (me == 0) {
        for (int i = 0; i < IDLE_PROBES; i++) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            if (flag)
                MTEST_FAIL(errs, "a data message arrived before rank 0 said go");
        }
        for (int r = 1; r < n; r++)
            MPI_Send(&one, 1, MPI_INT, r, TAG_GO, MPI_COMM_WORLD);
        int *next = calloc((size_t)n, sizeof(int));
        for (int i = 0; i < (n - 1) * PER_SENDER; i++) {
            int msg[2];
            MPI_Status st;
            MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &st);
            MTEST_CHECK_INT(errs, st.MPI_SOURCE, msg[0], "data: sender named in the message");
            if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < n) {
                MTEST_CHECK_INT(errs, next[st.MPI_SOURCE], msg[1], "data: order from rank %d",
                                st.MPI_SOURCE);
                next[st.MPI_SOURCE] = msg[1] + 1;
            }
        }
        for (int r = 1; r < n; r++)
            MTEST_CHECK_INT(errs, PER_SENDER, next[r], "data: messages from rank %d", r);
        free(next);
    } else {
        MPI_Recv(&got, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < PER_SENDER; i++) {
            int msg[2] = {me, i};
            MPI_Send(msg, 2, MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }

    /* One sender at a time, the others quiet: rank 0 waits in MPI_Recv for rank r, whose ring
     * may be cold by then; r sends after rank 0 has been waiting a while. */
    for (int round = 0; round < 2; round++) {
        for (int r = 1; r < n; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (me == 0) {
                MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MTEST_CHECK_INT(errs, r * 100 + round, got, "round %d: value from rank %d", round,
                                r);
            } else if (me == r) {
                mtest_sleep(0.02);
                int v = r * 100 + round;
                MPI_Send(&v, 1, MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD);
            }
        }
    }
    return MTest_Finalize(errs);
}
