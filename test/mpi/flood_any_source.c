/* flood_any_source.c: every rank but 0 sends many small and medium messages to rank 0 at once,
 * with several tags; rank 0 receives them all through a ring of pre-posted
 * Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) and checks that each sender's messages come in the order
 * sent (tag, size and data of the k-th message from each source) and that none is lost. */
#include "mtest.h"

#include <stdlib.h>

#define WINDOW 32 /* receives kept posted by rank 0 */
#define SEND_WINDOW 16

static int nmsg = 1000; /* per sender; fewer when many ranks share the 2 cores */

static size_t msglen(int src, int k)
{
    if ((k + src) % 8 == 7)
        return 20000 + (size_t)(k % 13); /* medium: above most eager limits */
    return (size_t)((k * 7 + src) % 64);
}
static int tag_of(int src, int k)
{
    return (k + src) % 4;
}
static int seed_of(int src, int k)
{
    return src * 100000 + k;
}
#define MAXLEN (20000 + 16)

static int sender(void)
{
    int errs = 0;
    char *bufs[SEND_WINDOW];
    MPI_Request reqs[SEND_WINDOW];
    for (int w = 0; w < SEND_WINDOW; w++) {
        bufs[w] = mtest_malloc(MAXLEN);
        reqs[w] = MPI_REQUEST_NULL;
    }
    /* odd ranks use blocking sends, even ranks keep a window of Isends in flight */
    for (int k = 0; k < nmsg; k++) {
        size_t n = msglen(mtest_rank, k);
        if (mtest_rank % 2) {
            mtest_fill_bytes(bufs[0], n, seed_of(mtest_rank, k));
            int rc = MPI_Send(bufs[0], (int)n, MPI_BYTE, 0, tag_of(mtest_rank, k), MPI_COMM_WORLD);
            MTEST_CHECK_RC(errs, rc, "MPI_Send #%d", k);
        } else {
            int w = k % SEND_WINDOW;
            int rc = MPI_Wait(&reqs[w], MPI_STATUS_IGNORE);
            MTEST_CHECK_RC(errs, rc, "MPI_Wait on send #%d", k - SEND_WINDOW);
            mtest_fill_bytes(bufs[w], n, seed_of(mtest_rank, k));
            rc = MPI_Isend(bufs[w], (int)n, MPI_BYTE, 0, tag_of(mtest_rank, k), MPI_COMM_WORLD,
                           &reqs[w]);
            MTEST_CHECK_RC(errs, rc, "MPI_Isend #%d", k);
        }
    }
    int rc = MPI_Waitall(SEND_WINDOW, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall of the last sends");
    for (int w = 0; w < SEND_WINDOW; w++)
        free(bufs[w]);
    return errs;
}

static int receiver(void)
{
    int errs = 0;
    int total = (mtest_size - 1) * nmsg;
    int *next = calloc((size_t)mtest_size, sizeof(int)); /* next expected k per source */
    char *bufs[WINDOW];
    MPI_Request reqs[WINDOW];
    int posted = 0;
    for (int w = 0; w < WINDOW; w++) {
        bufs[w] = mtest_malloc(MAXLEN);
        reqs[w] = MPI_REQUEST_NULL;
        if (posted < total) {
            MPI_Irecv(bufs[w], MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                      &reqs[w]);
            posted++;
        }
    }
    /* identical receives match in the order they were posted, so waiting on the oldest first
     * sees each source's messages in send order */
    for (int r = 0; r < total; r++) {
        int w = r % WINDOW;
        MPI_Status st;
        int rc = MPI_Wait(&reqs[w], &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait on receive #%d", r);
        int src = st.MPI_SOURCE;
        if (src < 1 || src >= mtest_size) {
            MTEST_FAIL(errs, "receive #%d: status.MPI_SOURCE %d is not a sender", r, src);
        } else if (next[src] >= nmsg) {
            MTEST_FAIL(errs, "receive #%d: one message more than the %d sent by rank %d", r, nmsg,
                       src);
        } else {
            int k = next[src]++;
            char what[96];
            snprintf(what, sizeof what, "message #%d from rank %d", k, src);
            errs +=
                mtest_check_status(&st, src, tag_of(src, k), MPI_BYTE, (int)msglen(src, k), what);
            errs += mtest_check_bytes(bufs[w], msglen(src, k), seed_of(src, k), what);
        }
        if (errs > 20) {
            MTEST_FAIL(errs, "too many errors, giving up (the senders are aborted)");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        if (posted < total) {
            MPI_Irecv(bufs[w], MAXLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                      &reqs[w]);
            posted++;
        }
    }
    for (int s = 1; s < mtest_size; s++)
        MTEST_CHECK_INT(errs, nmsg, next[s], "messages received from rank %d", s);
    for (int w = 0; w < WINDOW; w++)
        free(bufs[w]);
    free(next);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size > 8)
        nmsg = 400;
    if (mtest_size < 2)
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    else if (mtest_rank == 0)
        errs += receiver();
    else
        errs += sender();
    return MTest_Finalize(errs);
}
