/* pingpong_stream.c: the traffic of a latency and bandwidth benchmark, with every message
 * checked: for each size of 8 bytes to 16 KiB (powers of two), many blocking ping-pongs, then
 * windows of 64 Isends answered by one ack, then windows both ways at once.  Each message
 * carries its own pattern (size, iteration and slot in the seed), so a message lost, duplicated,
 * reordered, torn or built of another message's bytes is caught.  Many small messages in a row
 * are the point: a transport whose control words (a ring's tail or head) race with the peer's
 * reads is caught here, where a few large messages pass (the verbs ring channel's torn tail
 * read, issue 9).  2 ranks (more: the others wait). */
#include "mtest.h"

#include <stdlib.h>

#define MIN_BYTES 8
#define MAX_BYTES (16 * 1024)
#define WINDOW 64
#define PINGPONGS 400 /* per size up to 1 KiB; halved per doubling above, at least 25 */
#define WINDOWS 6     /* per size and direction pattern */

static int seed_of(size_t size, int iter, int slot, int from)
{
    return (int)((size * 7919u + (size_t)iter * 131u + (size_t)slot * 17u + (size_t)from) &
                 0x7fffffff);
}

static int pingpongs(size_t size, int peer, char *sbuf, char *rbuf)
{
    int errs = 0, iters = PINGPONGS;
    for (size_t s = 1024; s < size && iters > 25; s *= 2)
        iters /= 2;
    for (int i = 0; i < iters; i++) {
        for (int leg = 0; leg < 2; leg++) {
            int sender = leg == 0 ? 0 : 1;
            int seed = seed_of(size, i, leg, sender);
            char what[96];
            if (mtest_rank == sender) {
                mtest_fill_bytes(sbuf, size, seed);
                MTEST_CHECK_RC(errs, MPI_Send(sbuf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD),
                               "MPI_Send of %zu bytes", size);
            } else {
                MPI_Status st;
                MTEST_CHECK_RC(errs,
                               MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st),
                               "MPI_Recv of %zu bytes", size);
                snprintf(what, sizeof what, "ping-pong %d leg %d of %zu bytes", i, leg, size);
                errs += mtest_check_status(&st, peer, 1, MPI_BYTE, (int)size, what);
                errs += mtest_check_bytes(rbuf, size, seed, what);
            }
            if (errs > 10)
                return errs;
        }
    }
    return errs;
}

/* Windows of WINDOW messages: one way (rank 0 sends, rank 1 acks each window) or both ways. */
static int windows(size_t size, int peer, int both, char *sbufs, char *rbufs)
{
    int errs = 0;
    MPI_Request req[2 * WINDOW];
    MPI_Status st[2 * WINDOW];
    int sends = both || mtest_rank == 0, recvs = both || mtest_rank == 1;
    for (int w = 0; w < WINDOWS; w++) {
        int n = 0;
        if (recvs)
            for (int k = 0; k < WINDOW; k++)
                MTEST_CHECK_RC(errs,
                               MPI_Irecv(rbufs + (size_t)k * size, (int)size, MPI_BYTE, peer, 2,
                                         MPI_COMM_WORLD, &req[n++]),
                               "MPI_Irecv of %zu bytes", size);
        if (sends)
            for (int k = 0; k < WINDOW; k++) {
                char *b = sbufs + (size_t)k * size;
                mtest_fill_bytes(b, size, seed_of(size, w, k, mtest_rank));
                MTEST_CHECK_RC(
                    errs, MPI_Isend(b, (int)size, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[n++]),
                    "MPI_Isend of %zu bytes", size);
            }
        MTEST_CHECK_RC(errs, MPI_Waitall(n, req, st), "MPI_Waitall of %d requests", n);
        if (recvs)
            for (int k = 0; k < WINDOW; k++) {
                char what[96];
                snprintf(what, sizeof what, "%s window %d message %d of %zu bytes",
                         both ? "two-way" : "one-way", w, k, size);
                /* Receives are matched in order: message k of the window is the k-th sent. */
                errs += mtest_check_status(&st[k], peer, 2, MPI_BYTE, (int)size, what);
                errs += mtest_check_bytes(rbufs + (size_t)k * size, size, seed_of(size, w, k, peer),
                                          what);
            }
        if (!both) {
            int ack = w;
            if (mtest_rank == 1)
                MTEST_CHECK_RC(errs, MPI_Send(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD),
                               "MPI_Send of the ack");
            else
                MTEST_CHECK_RC(
                    errs, MPI_Recv(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Recv of the ack");
        }
        if (errs > 10)
            return errs;
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_rank < 2 && mtest_size >= 2) {
        int peer = 1 - mtest_rank;
        char *sbufs = mtest_malloc((size_t)WINDOW * MAX_BYTES);
        char *rbufs = mtest_malloc((size_t)WINDOW * MAX_BYTES);
        for (size_t size = MIN_BYTES; size <= MAX_BYTES && errs <= 10; size *= 2) {
            errs += pingpongs(size, peer, sbufs, rbufs);
            errs += windows(size, peer, 0, sbufs, rbufs);
            errs += windows(size, peer, 1, sbufs, rbufs);
        }
        free(sbufs);
        free(rbufs);
    }
    return MTest_Finalize(errs);
}
