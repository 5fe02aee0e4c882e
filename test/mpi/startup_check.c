/* startup_check.c: a job starts whole and every pair of ranks can talk at once. Argument: the
 * number of processes the launcher was asked for. Checks that the world has that size (N
 * processes started as N singletons would each report success), that the ranks are distinct
 * processes with distinct ranks, and that every rank reaches every other: each sends each peer a
 * run of small messages (shm's per-pair rings, which a receiver polls only once the sender has
 * joined, shm_ring.h) mixed with larger ones (shm's cells), received per source in order. With
 * more than 64 ranks on a node the joins cross a word of the receiver's bitmap. */
#include "mtest.h"

#include <stdlib.h>
#include <unistd.h>

#define NMSG 5
#define SMALL 24
#define LARGE 17408 /* above the largest ring entry (16 KiB with 2 ranks): a cell */

/* Small, small, large, small, small: the receiver must order a cell between ring entries. */
static size_t len_of(int k)
{
    return k == 2 ? LARGE : SMALL;
}

static int seed_of(int from, int to, int k)
{
    return (from * 131 + to) * NMSG + k;
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    int n = mtest_size, me = mtest_rank;
    int want = argc > 1 ? atoi(argv[1]) : -1;

    MTEST_CHECK_INT(errs, want, n, "MPI_COMM_WORLD size (the argument is the -n given)");

    /* Every rank says who it is: ranks 0..n-1 once each, all different processes. */
    long mine[2] = {me, (long)getpid()};
    long *all = malloc(2 * (size_t)n * sizeof(long));
    if (!all) {
        MTEST_FAIL(errs, "out of memory for %d ranks", n);
        return MTest_Finalize(errs);
    }
    rc = MPI_Allgather(mine, 2, MPI_LONG, all, 2, MPI_LONG, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "MPI_Allgather of rank and pid");
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++) {
        MTEST_CHECK_INT(errs, r, all[2 * r], "rank reported by the process at index %d", r);
        for (int q = 0; q < r; q++)
            if (all[2 * q + 1] == all[2 * r + 1])
                MTEST_FAIL(errs, "ranks %d and %d are the same process (pid %ld)", q, r,
                           all[2 * r + 1]);
    }
    free(all);

    /* Every rank to every other at once: NMSG messages per pair, received in order. */
    char **sb = calloc((size_t)n * NMSG, sizeof(char *)),
         **rb = calloc((size_t)n * NMSG, sizeof(char *));
    MPI_Request *reqs = malloc(2 * (size_t)n * NMSG * sizeof(MPI_Request));
    MPI_Status *sts = malloc(2 * (size_t)n * NMSG * sizeof(MPI_Status));
    if (!sb || !rb || !reqs || !sts) {
        MTEST_FAIL(errs, "out of memory for %d requests", 2 * n * NMSG);
        return MTest_Finalize(errs);
    }
    int nreq = 0;
    for (int p = 0; p < n; p++) {
        if (p == me)
            continue;
        for (int k = 0; k < NMSG; k++) {
            char *b = rb[p * NMSG + k] = mtest_malloc(len_of(k) + 16);
            mtest_fill_guard(b, len_of(k) + 16);
            /* Any tag: the order of arrival from one source must be the order sent. */
            rc = MPI_Irecv(b, (int)len_of(k) + 16, MPI_BYTE, p, MPI_ANY_TAG, MPI_COMM_WORLD,
                           &reqs[nreq++]);
            MTEST_CHECK_RC(errs, rc, "MPI_Irecv %d from %d", k, p);
        }
    }
    for (int k = 0; k < NMSG; k++) {
        for (int j = 1; j < n; j++) {
            int p = (me + j) % n; /* a different first peer per rank */
            char *b = sb[p * NMSG + k] = mtest_malloc(len_of(k));
            mtest_fill_bytes(b, len_of(k), seed_of(me, p, k));
            rc = MPI_Isend(b, (int)len_of(k), MPI_BYTE, p, k, MPI_COMM_WORLD, &reqs[nreq++]);
            MTEST_CHECK_RC(errs, rc, "MPI_Isend %d to %d", k, p);
        }
    }
    rc = MPI_Waitall(nreq, reqs, sts);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall over %d requests", nreq);
    int i = 0;
    for (int p = 0; p < n && rc == MPI_SUCCESS; p++) {
        if (p == me)
            continue;
        for (int k = 0; k < NMSG; k++, i++) {
            char *b = rb[p * NMSG + k];
            char what[64];
            snprintf(what, sizeof what, "message %d from %d", k, p);
            errs += mtest_check_status(&sts[i], p, k, MPI_BYTE, (int)len_of(k), what);
            errs += mtest_check_bytes(b, len_of(k), seed_of(p, me, k), what);
            errs += mtest_check_guard(b, len_of(k), len_of(k) + 16, what);
        }
    }
    for (int j = 0; j < n * NMSG; j++) {
        free(sb[j]);
        free(rb[j]);
    }
    free(sb);
    free(rb);
    free(reqs);
    free(sts);
    return MTest_Finalize(errs);
}
