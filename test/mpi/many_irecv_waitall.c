/* many_irecv_waitall.c: 1000 outstanding receives completed by one MPI_Waitall. Distinct tags
 * sent in a scrambled order while the receives are posted; messages that all arrived before the
 * receives were posted (in reverse order); and 1000 receives with MPI_ANY_SOURCE and one tag,
 * which must match the messages in send order. Sizes from 0 to 40000 bytes; every status and
 * every byte is checked. Pairs (0,1), (2,3) ... */
#include "mtest.h"

#include <stdlib.h>

#define N 1000
#define MAXLEN 40000

static size_t len_of(int i)
{
    return i % 50 == 7 ? (size_t)(MAXLEN - i) : (size_t)(i % 97);
}

/* A permutation of 0..N-1 (337 is coprime with 1000). */
static int perm(int k)
{
    return (k * 337 + 123) % N;
}

static char *bufs[N];
static MPI_Request reqs[N];
static MPI_Status sts[N];

static int check_all(int peer, int phase, int same_tag)
{
    int errs = 0;
    for (int i = 0; i < N; i++) {
        char what[96];
        snprintf(what, sizeof what, "phase %d, receive #%d", phase, i);
        int tag = same_tag ? 5 : i;
        errs += mtest_check_status(&sts[i], peer, tag, MPI_BYTE, (int)len_of(i), what);
        errs += mtest_check_bytes(bufs[i], len_of(i), phase * N + i, what);
        errs += mtest_check_guard(bufs[i], len_of(i), len_of(i) + 8, what);
        if (errs > 20)
            break;
    }
    return errs;
}

static void post_all(int peer, int reverse, int any)
{
    for (int k = 0; k < N; k++) {
        int i = reverse ? N - 1 - k : k;
        mtest_fill_guard(bufs[i], len_of(i) + 8);
        MPI_Irecv(bufs[i], (int)len_of(i) + 8, MPI_BYTE, any ? MPI_ANY_SOURCE : peer, any ? 5 : i,
                  MPI_COMM_WORLD, &reqs[i]);
    }
}

static void send_all(int peer, int phase, int scrambled, int same_tag)
{
    for (int k = 0; k < N; k++) {
        int i = scrambled ? perm(k) : k;
        mtest_fill_bytes(bufs[i], len_of(i), phase * N + i);
        MPI_Isend(bufs[i], (int)len_of(i), MPI_BYTE, peer, same_tag ? 5 : i, MPI_COMM_WORLD,
                  &reqs[i]);
    }
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    int peer = mtest_rank ^ 1;
    if (peer < mtest_size) {
        int recv_side = mtest_rank & 1;
        for (int i = 0; i < N; i++)
            bufs[i] = mtest_malloc(MAXLEN + 8);

        /* phase 0: receives posted, then a go; sends in scrambled order */
        if (recv_side) {
            post_all(peer, 0, 0);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 9999, MPI_COMM_WORLD);
            rc = MPI_Waitall(N, reqs, sts);
            MTEST_CHECK_RC(errs, rc, "MPI_Waitall of %d receives", N);
            errs += check_all(peer, 0, 0);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 9999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            send_all(peer, 0, 1, 0);
            rc = MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
            MTEST_CHECK_RC(errs, rc, "MPI_Waitall of %d sends", N);
        }

        /* phase 1: everything sent first (the receiver waits for a note sent after the
         * Isends), receives posted in reverse order */
        if (recv_side) {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 9998, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            post_all(peer, 1, 0);
            rc = MPI_Waitall(N, reqs, sts);
            MTEST_CHECK_RC(errs, rc, "MPI_Waitall of %d receives", N);
            errs += check_all(peer, 1, 0);
        } else {
            send_all(peer, 1, 1, 0);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 9998, MPI_COMM_WORLD);
            rc = MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
            MTEST_CHECK_RC(errs, rc, "MPI_Waitall of %d sends", N);
        }

        /* phase 2: one tag, ANY_SOURCE: receive i gets message i */
        if (recv_side) {
            post_all(peer, 0, 1);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 9997, MPI_COMM_WORLD);
            rc = MPI_Waitall(N, reqs, sts);
            MTEST_CHECK_RC(errs, rc, "MPI_Waitall of %d receives", N);
            errs += check_all(peer, 2, 1);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 9997, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            send_all(peer, 2, 0, 1);
            rc = MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
            MTEST_CHECK_RC(errs, rc, "MPI_Waitall of %d sends", N);
        }
        for (int i = 0; i < N; i++)
            free(bufs[i]);
    }
    return MTest_Finalize(errs);
}
