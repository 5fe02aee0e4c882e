/* order_nonovertaking.c: MPI's non-overtaking rule between one pair of ranks. Many messages with
 * the same (source, tag) and mixed sizes (tiny, medium, 1 MiB: different protocols) sent with
 * Isend and Issend are received in the order sent, whether the receives were posted early
 * (Irecv) or late (Recv), named the source or used MPI_ANY_SOURCE, named the tag or used
 * MPI_ANY_TAG. Pairs (0,1), (2,3) ... run at the same time.
 *   order_nonovertaking [dense]
 * dense: the sizes mix densely around the usual protocol boundaries instead (a method's eager
 * limit, a provider's own eager size: 0 to 70000 bytes, 4 KiB to 32 KiB closely), big and small
 * interleaved, so a transport that completes a large message after later small ones shows. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define NMSG 200
#define NPOSTED 60 /* receives posted before the sender starts */
#define MAXLEN ((1u << 20) + NMSG)

static int dense;
static const size_t dense_sizes[] = {0,     8,     100,   1000,  2000,  4000,  4095,
                                     4096,  4097,  6000,  8192,  10000, 12000, 16000,
                                     16300, 16384, 20000, 32000, 40000, 70000};
#define NDENSE (sizeof(dense_sizes) / sizeof(dense_sizes[0]))

static size_t msglen(int i)
{
    if (dense) /* 7 is prime to 20: consecutive messages jump across the list */
        return dense_sizes[((size_t)i * 7) % NDENSE];
    if (i % 10 == 9)
        return (1u << 20) + (size_t)i; /* large: rendezvous in most implementations */
    if (i % 10 == 4)
        return 65536 + (size_t)i;
    return (size_t)(i % 37); /* includes zero-byte messages */
}

/* phase p uses tags from tag_of(p, i); phases 0 and 1 use one tag, phase 2 cycles through 5 */
static int tag_of(int phase, int i)
{
    return phase == 2 ? 100 + i % 5 : 7;
}

static int sender(int peer, int phase)
{
    int errs = 0;
    char **bufs = malloc(NMSG * sizeof(char *));
    MPI_Request *reqs = malloc(NMSG * sizeof(MPI_Request));
    for (int i = 0; i < NMSG; i++) {
        bufs[i] = mtest_malloc(msglen(i));
        mtest_fill_bytes(bufs[i], msglen(i), phase * NMSG + i);
        int rc;
        /* synchronous-mode sends must not overtake nor be overtaken either */
        if (i % 3 == 2)
            rc = MPI_Issend(bufs[i], (int)msglen(i), MPI_BYTE, peer, tag_of(phase, i),
                            MPI_COMM_WORLD, &reqs[i]);
        else
            rc = MPI_Isend(bufs[i], (int)msglen(i), MPI_BYTE, peer, tag_of(phase, i),
                           MPI_COMM_WORLD, &reqs[i]);
        MTEST_CHECK_RC(errs, rc, "send #%d of phase %d", i, phase);
    }
    int rc = MPI_Waitall(NMSG, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall of the sends of phase %d", phase);
    for (int i = 0; i < NMSG; i++)
        free(bufs[i]);
    free(bufs);
    free(reqs);
    return errs;
}

static int check_msg(const MPI_Status *st, const char *buf, int peer, int phase, int i,
                     const char *how)
{
    int errs = 0;
    char what[160];
    snprintf(what, sizeof what, "phase %d (%s): message #%d", phase, how, i);
    errs += mtest_check_status(st, peer, tag_of(phase, i), MPI_BYTE, (int)msglen(i), what);
    errs += mtest_check_bytes(buf, msglen(i), phase * NMSG + i, what);
    errs += mtest_check_guard(buf, msglen(i), msglen(i) + 16, what);
    return errs;
}

static int receiver(int peer, int phase)
{
    int errs = 0;
    int src = phase == 1 ? MPI_ANY_SOURCE : peer;
    int tag = phase == 2 ? MPI_ANY_TAG : 7;
    const char *how = phase == 0   ? "named source and tag"
                      : phase == 1 ? "ANY_SOURCE"
                                   : "ANY_TAG, tags cycling";
    char **bufs = malloc(NPOSTED * sizeof(char *));
    MPI_Request *reqs = malloc(NPOSTED * sizeof(MPI_Request));
    MPI_Status *sts = malloc(NPOSTED * sizeof(MPI_Status));

    /* the first receives are posted before the sender is told to start */
    for (int i = 0; i < NPOSTED; i++) {
        bufs[i] = mtest_malloc(MAXLEN + 16);
        mtest_fill_guard(bufs[i], MAXLEN + 16);
        MPI_Irecv(bufs[i], MAXLEN, MPI_BYTE, src, tag, MPI_COMM_WORLD, &reqs[i]);
    }
    MPI_Send(NULL, 0, MPI_BYTE, peer, 1000 + phase, MPI_COMM_WORLD);

    /* the rest are posted one at a time while messages keep arriving */
    char *rbuf = mtest_malloc(MAXLEN + 16);
    for (int i = NPOSTED; i < NMSG; i++) {
        MPI_Status st;
        mtest_fill_guard(rbuf, msglen(i) + 16);
        int rc = MPI_Recv(rbuf, MAXLEN, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv #%d", i);
        errs += check_msg(&st, rbuf, peer, phase, i, how);
    }
    int rc = MPI_Waitall(NPOSTED, reqs, sts);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall of the pre-posted receives");
    for (int i = 0; i < NPOSTED; i++) {
        errs += check_msg(&sts[i], bufs[i], peer, phase, i, how);
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
    dense = argc > 1 && strcmp(argv[1], "dense") == 0;

    int peer = mtest_rank ^ 1;
    if (peer < mtest_size) {
        for (int phase = 0; phase < 3; phase++) {
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
