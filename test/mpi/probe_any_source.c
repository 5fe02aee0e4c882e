/* probe_any_source.c: the usual "probe, allocate, receive" loop with many senders. Every rank
 * but 0 sends a sequence of messages of varying tag and size (0 bytes to 100 KB) to rank 0,
 * which alternates MPI_Probe(ANY_SOURCE, ANY_TAG) and an MPI_Iprobe polling loop, allocates a
 * buffer of exactly the probed size and receives from the probed source and tag. That receive
 * must get exactly the probed message (it is the oldest pending one from that source), and each
 * source's messages must come in the order sent. */
#include "mtest.h"

#include <stdlib.h>

static int nmsg = 200;

static size_t len_of(int src, int k)
{
    if ((k + src) % 9 == 4)
        return 100000 + (size_t)k;
    return (size_t)((k * 13 + src) % 300);
}
static int tag_of(int src, int k)
{
    return (k * 5 + src) % 7;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size > 8)
        nmsg = 60;
    if (mtest_size < 2) {
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    } else if (mtest_rank == 0) {
        int total = nmsg * (mtest_size - 1);
        int *next = calloc((size_t)mtest_size, sizeof(int));
        for (int r = 0; r < total && errs < 20; r++) {
            MPI_Status pst, st;
            if (r % 2) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &pst);
            } else {
                int flag = 0;
                double t0 = MPI_Wtime();
                while (!flag && MPI_Wtime() - t0 < 60)
                    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &pst);
                if (!flag) {
                    MTEST_FAIL(errs, "no message found by Iprobe within 60 s (%d received)", r);
                    break;
                }
            }
            int src = pst.MPI_SOURCE, count = -1;
            MPI_Get_count(&pst, MPI_BYTE, &count);
            if (src < 1 || src >= mtest_size || next[src] >= nmsg || count < 0) {
                MTEST_FAIL(errs, "probe #%d: source %d, tag %d, count %d is not a pending message",
                           r, src, pst.MPI_TAG, count);
                break;
            }
            int k = next[src]++;
            char what[96];
            snprintf(what, sizeof what, "probe #%d: message #%d from %d", r, k, src);
            errs +=
                mtest_check_status(&pst, src, tag_of(src, k), MPI_BYTE, (int)len_of(src, k), what);
            char *buf = mtest_malloc((size_t)count + 8);
            mtest_fill_guard(buf, (size_t)count + 8);
            int rc = MPI_Recv(buf, count, MPI_BYTE, src, pst.MPI_TAG, MPI_COMM_WORLD, &st);
            MTEST_CHECK_RC(errs, rc, "%s: MPI_Recv", what);
            errs +=
                mtest_check_status(&st, src, tag_of(src, k), MPI_BYTE, (int)len_of(src, k), what);
            errs += mtest_check_bytes(buf, (size_t)count, src * 1000 + k, what);
            errs += mtest_check_guard(buf, (size_t)count, (size_t)count + 8, what);
            free(buf);
        }
        for (int s = 1; s < mtest_size && !errs; s++)
            MTEST_CHECK_INT(errs, nmsg, next[s], "messages received from %d", s);
        free(next);
        if (errs) {
            printf("[0] aborting: the senders may still be blocked\n");
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        char *buf = mtest_malloc(100000 + (size_t)nmsg);
        for (int k = 0; k < nmsg; k++) {
            mtest_fill_bytes(buf, len_of(mtest_rank, k), mtest_rank * 1000 + k);
            int rc = MPI_Send(buf, (int)len_of(mtest_rank, k), MPI_BYTE, 0, tag_of(mtest_rank, k),
                              MPI_COMM_WORLD);
            MTEST_CHECK_RC(errs, rc, "MPI_Send #%d", k);
        }
        free(buf);
    }
    return MTest_Finalize(errs);
}
