/* sendrecv_allpairs.c: every rank exchanges with every other rank through MPI_Sendrecv (shift k:
 * send to rank+k, receive from rank-k, for k = 1 .. size-1), with message sizes that differ per
 * pair and per direction (0 bytes to 1 MiB), then the same pattern with Isend/Irecv to all
 * peers at once. Checks data, source, tag and count; exercises a connection between every pair
 * and Sendrecv never deadlocking whatever the message size. */
#include "mtest.h"

#include <stdlib.h>

#define MAXLEN ((1u << 20) + 64)

static size_t len_of(int from, int to)
{
    switch ((from * 7 + to * 3) % 5) {
    case 0:
        return 0;
    case 1:
        return 1 + (size_t)from;
    case 2:
        return 4096 + (size_t)to;
    case 3:
        return 65536 + 3 * (size_t)from;
    default:
        return (1u << 20) - (size_t)to;
    }
}
static int seed_of(int from, int to)
{
    return from * 1000 + to;
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    int n = mtest_size, me = mtest_rank;
    char *sbuf = mtest_malloc(MAXLEN), *rbuf = mtest_malloc(MAXLEN + 16);

    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        MPI_Status st;
        mtest_fill_bytes(sbuf, len_of(me, to), seed_of(me, to));
        mtest_fill_guard(rbuf, len_of(from, me) + 16);
        rc = MPI_Sendrecv(sbuf, (int)len_of(me, to), MPI_BYTE, to, k, rbuf, MAXLEN, MPI_BYTE, from,
                          k, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Sendrecv shift %d", k);
        char what[64];
        snprintf(what, sizeof what, "Sendrecv shift %d from %d", k, from);
        errs += mtest_check_status(&st, from, k, MPI_BYTE, (int)len_of(from, me), what);
        errs += mtest_check_bytes(rbuf, len_of(from, me), seed_of(from, me), what);
        errs += mtest_check_guard(rbuf, len_of(from, me), len_of(from, me) + 16, what);
    }

    /* everyone to everyone at once */
    {
        char **sb = malloc((size_t)n * sizeof(char *)), **rb = malloc((size_t)n * sizeof(char *));
        MPI_Request *reqs = malloc(2 * (size_t)n * sizeof(MPI_Request));
        MPI_Status *sts = malloc(2 * (size_t)n * sizeof(MPI_Status));
        for (int p = 0; p < n; p++) {
            sb[p] = mtest_malloc(len_of(me, p) + 1);
            rb[p] = mtest_malloc(len_of(p, me) + 16);
            mtest_fill_bytes(sb[p], len_of(me, p), seed_of(me, p) + 7);
            mtest_fill_guard(rb[p], len_of(p, me) + 16);
            MPI_Irecv(rb[p], (int)len_of(p, me) + 16, MPI_BYTE, p, 77, MPI_COMM_WORLD, &reqs[p]);
        }
        for (int k = 0; k < n; k++) {
            int p = (me + k) % n; /* includes a message to self */
            MPI_Isend(sb[p], (int)len_of(me, p), MPI_BYTE, p, 77, MPI_COMM_WORLD, &reqs[n + p]);
        }
        rc = MPI_Waitall(2 * n, reqs, sts);
        MTEST_CHECK_RC(errs, rc, "MPI_Waitall of the all-to-all exchange");
        for (int p = 0; p < n; p++) {
            char what[64];
            snprintf(what, sizeof what, "all-to-all message from %d", p);
            errs += mtest_check_status(&sts[p], p, 77, MPI_BYTE, (int)len_of(p, me), what);
            errs += mtest_check_bytes(rb[p], len_of(p, me), seed_of(p, me) + 7, what);
            errs += mtest_check_guard(rb[p], len_of(p, me), len_of(p, me) + 16, what);
            free(sb[p]);
            free(rb[p]);
        }
        free(sb);
        free(rb);
        free(reqs);
        free(sts);
    }
    free(sbuf);
    free(rbuf);
    return MTest_Finalize(errs);
}
