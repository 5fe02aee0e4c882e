/* order_mixed_sizes.c: MPI's non-overtaking rule for a stream of messages whose sizes mix densely
 * around the usual protocol boundaries (a method's eager limit, a provider's own eager size,
 * 4 KiB .. 64 KiB), big and small interleaved, all with one (source, tag).  Every message is
 * checked for its place in the order (its length and its pattern name its index) and its
 * payload.  Phase 0: receives posted before the stream starts; phase 1: the stream arrives
 * first (unexpected), the receives follow.  Pairs (0,1), (2,3) ... run at the same time. */
#include "mtest.h"

#include <stdlib.h>

#define NMSG 400
#define NPOSTED 100 /* phase 0: receives posted before the sender starts */

static const size_t sizes[] = {0,    8,     100,   1000,  2000,  4000,  4095,  4096,  4097,  6000,
                               8192, 10000, 12000, 16000, 16300, 16384, 20000, 32000, 40000, 70000};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXLEN 70000

/* Consecutive messages jump across the list (7 is prime to 20): a big one is followed by small
 * ones that a reordering transport would deliver first. */
static size_t msglen(int i)
{
    return sizes[((size_t)i * 7) % NSIZES];
}

static int sender(int peer, int phase)
{
    int errs = 0;
    char **bufs = malloc(NMSG * sizeof(char *));
    MPI_Request *reqs = malloc(NMSG * sizeof(MPI_Request));
    for (int i = 0; i < NMSG; i++) {
        bufs[i] = mtest_malloc(msglen(i) + 1);
        mtest_fill_bytes(bufs[i], msglen(i), phase * NMSG + i);
        int rc = MPI_Isend(bufs[i], (int)msglen(i), MPI_BYTE, peer, 5, MPI_COMM_WORLD, &reqs[i]);
        MTEST_CHECK_RC(errs, rc, "MPI_Isend #%d of phase %d", i, phase);
    }
    int rc = MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall of the sends of phase %d", phase);
    for (int i = 0; i < NMSG; i++)
        free(bufs[i]);
    free(bufs);
    free(reqs);
    return errs;
}

static int check_msg(const MPI_Status *st, const char *buf, int peer, int phase, int i)
{
    int errs = 0;
    char what[96];
    snprintf(what, sizeof what, "phase %d: message #%d (%zu bytes)", phase, i, msglen(i));
    errs += mtest_check_status(st, peer, 5, MPI_BYTE, (int)msglen(i), what);
    errs += mtest_check_bytes(buf, msglen(i), phase * NMSG + i, what);
    errs += mtest_check_guard(buf, msglen(i), msglen(i) + 16, what);
    return errs;
}

static int receiver(int peer, int phase)
{
    int errs = 0;
    int nposted = phase == 0 ? NPOSTED : 0;
    char **bufs = malloc(NPOSTED * sizeof(char *));
    MPI_Request *reqs = malloc(NPOSTED * sizeof(MPI_Request));
    MPI_Status *sts = malloc(NPOSTED * sizeof(MPI_Status));
    for (int i = 0; i < nposted; i++) {
        bufs[i] = mtest_malloc(MAXLEN + 16);
        mtest_fill_guard(bufs[i], MAXLEN + 16);
        MPI_Irecv(bufs[i], MAXLEN, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &reqs[i]);
    }
    MPI_Send(NULL, 0, MPI_BYTE, peer, 1000 + phase, MPI_COMM_WORLD);
    if (phase == 1)
        mtest_sleep(0.3); /* let the stream arrive before any receive is posted */

    char *rbuf = mtest_malloc(MAXLEN + 16);
    for (int i = nposted; i < NMSG; i++) {
        MPI_Status st;
        mtest_fill_guard(rbuf, msglen(i) + 16);
        int rc = MPI_Recv(rbuf, MAXLEN, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv #%d of phase %d", i, phase);
        errs += check_msg(&st, rbuf, peer, phase, i);
    }
    if (nposted) {
        int rc = MPI_Waitall(nposted, reqs, sts);
        MTEST_CHECK_RC(errs, rc, "MPI_Waitall of the pre-posted receives");
    }
    for (int i = 0; i < nposted; i++) {
        errs += check_msg(&sts[i], bufs[i], peer, phase, i);
        free(bufs[i]);
    }
    free(rbuf);
    free(bufs);
    free(reqs);
    free(sts);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);

    int peer = mtest_rank ^ 1;
    if (peer < mtest_size) {
        for (int phase = 0; phase < 2; phase++) {
            if (mtest_rank & 1) {
                errs += receiver(peer, phase);
            } else {
                MPI_Recv(NULL, 0, MPI_BYTE, peer, 1000 + phase, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                errs += sender(peer, phase);
            }
        }
    }

    return MTest_Finalize(errs);
}
