/* unexp_limit.c: a receiver that posts its receives late is not flooded with eager data past
 * FERRY_UNEXP_LIMIT (adi/flow.c).  Every rank but 1 sends NMSG messages of MSG bytes (eager
 * sized) to rank 1 with MPI_Isend, in batches of BATCH: after each batch it waits for rank 1's
 * tick, which rank 1 sends once it has seen the batch's last envelope (MPI_Probe) without
 * receiving anything.  So the data arrives as it would from a steady producer, and a PAUSE rank 1
 * sends reaches the sender before its next batch.  Then rank 1 takes every message newest first
 * and checks its data, and, the kept data gone and the senders resumed, a second stream of small
 * blocking sends arrives in order.  Any MPI passes the program itself; the testlist's line sets
 * the limit and checks Ferry's counters: rank 1 paused and resumed its senders, and the most it
 * held stayed under the limit plus a batch per sender.  2 ranks or more; the first argument, if
 * any, is the number of messages per sender (2048: 16 MiB).  With a second argument "burst" each
 * sender issues all its MPI_Isends at once, without a call that polls in between, and rank 1
 * waits for the last one with MPI_Probe: a sender must see a PAUSE while it sends.  With "late"
 * rank 1 also sleeps a while first, so the sends the methods cannot take wait in the senders, and
 * those a PAUSE finds there must go by rendezvous (the counter eager_to_rndv). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mtest.h"

static int NMSG = 2048; /* messages per sender: argv[1] (a multiple of BATCH) */
#define MSG (8 * 1024) /* eager over shm (8 KiB by default) and tcp */
#define BATCH 64
#define TICK 1000000
#define NSMALL 64

static unsigned char pattern(int src, int tag, size_t i)
{
    return (unsigned char)(src * 31 + tag * 7 + i);
}

int main(int argc, char **argv)
{
    int errs = 0, tick = 0;
    MTest_Init(&argc, &argv);
    if (argc > 1)
        NMSG = atoi(argv[1]) / BATCH * BATCH;
    int late = argc > 2 && strcmp(argv[2], "late") == 0;
    int burst = late || (argc > 2 && strcmp(argv[2], "burst") == 0);
    if (mtest_size < 2 || NMSG < BATCH) {
        MTEST_FAIL(errs, "needs 2 ranks or more, and %d messages or more", BATCH);
        return MTest_Finalize(errs);
    }
    if (mtest_rank != 1) {
        unsigned char *buf = malloc((size_t)NMSG * MSG);
        MPI_Request *reqs = malloc(NMSG * sizeof *reqs);
        for (int t = 0; t < NMSG; t++) {
            unsigned char *b = buf + (size_t)t * MSG;
            for (size_t i = 0; i < MSG; i++)
                b[i] = pattern(mtest_rank, t, i);
            MPI_Isend(b, MSG, MPI_BYTE, 1, t, MPI_COMM_WORLD, &reqs[t]);
            if (!burst && t % BATCH == BATCH - 1)
                MPI_Recv(&tick, 1, MPI_INT, 1, TICK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE);
        free(reqs);
        free(buf);
    } else {
        if (late)
            usleep(300000);
        for (int last = burst ? NMSG - 1 : BATCH - 1; last < NMSG; last += BATCH)
            for (int src = 0; src < mtest_size; src++)
                if (src != 1) {
                    MPI_Probe(src, last, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    if (!burst)
                        MPI_Send(&tick, 1, MPI_INT, src, TICK, MPI_COMM_WORLD);
                }
        unsigned char *b = malloc(MSG);
        for (int src = 0; src < mtest_size; src++) {
            if (src == 1)
                continue;
            for (int t = NMSG - 1; t >= 0; t--) {
                MPI_Status st;
                int count = -1;
                memset(b, 0, MSG);
                MPI_Recv(b, MSG, MPI_BYTE, src, t, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_BYTE, &count);
                if (count != MSG) {
                    MTEST_FAIL(errs, "message %d from %d: %d bytes, not %d", t, src, count, MSG);
                    continue;
                }
                for (size_t i = 0; i < MSG; i++)
                    if (b[i] != pattern(src, t, i)) {
                        MTEST_FAIL(errs, "message %d from %d: byte %zu wrong", t, src, i);
                        break;
                    }
            }
        }
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* The second stream, eager again (the counters say whether the senders were resumed). */
    int small[NSMALL];
    if (mtest_rank != 1) {
        for (int t = 0; t < NSMALL; t++) {
            int v = mtest_rank * 1000 + t;
            MPI_Send(&v, 1, MPI_INT, 1, t, MPI_COMM_WORLD);
        }
    } else {
        for (int src = 0; src < mtest_size; src++) {
            if (src == 1)
                continue;
            for (int t = 0; t < NSMALL; t++) {
                MPI_Recv(&small[t], 1, MPI_INT, src, MPI_ANY_TAG, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
                MTEST_CHECK_INT(errs, src * 1000 + t, small[t], "second stream, message %d", t);
            }
        }
    }
    return MTest_Finalize(errs);
}
