/* memory_reuse.c: large messages from and into memory that is unmapped and mapped again at the
 * same address, freed and allocated again, or given back with madvise, between sends: each
 * message carries its own data. A registration cache that kept the old registration (pinning
 * the old pages) would move stale bytes: the sender's old pages, or a receive landing in pages
 * the receiver no longer sees. Ranks 0 and 1 take part; others only finish. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LEN (1u << 20) /* above every eager limit: rendezvous */
#define ROUNDS 4

enum { REUSE_MMAP, REUSE_MALLOC, REUSE_MADVISE, NREUSE };
static const char *reuse_name[NREUSE] = {"munmap+mmap", "free+malloc", "madvise(DONTNEED)"};

/* Memory for round r of a kind, placed where the previous round's was when the system allows
 * (mmap with the old address as a hint; malloc reuses what free returned). */
static char *get_buf(int kind, char *prev)
{
    if (kind == REUSE_MALLOC)
        return malloc(LEN);
    if (kind == REUSE_MADVISE && prev)
        return prev;
    void *p = mmap(prev, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void put_buf(int kind, char *p)
{
    if (kind == REUSE_MALLOC)
        free(p);
    else if (kind == REUSE_MADVISE)
        madvise(p, LEN, MADV_DONTNEED); /* the next touch maps fresh zero pages */
    else
        munmap(p, LEN);
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size < 2) {
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
        return MTest_Finalize(errs);
    }
    if (mtest_rank < 2) {
        int peer = 1 - mtest_rank;
        for (int kind = 0; kind < NREUSE; kind++) {
            char *buf = NULL, *first = NULL;
            int same = 0;
            for (int r = 0; r < ROUNDS; r++) {
                buf = get_buf(kind, buf);
                if (!buf) {
                    MTEST_FAIL(errs, "%s: no memory for round %d", reuse_name[kind], r);
                    break;
                }
                if (r == 0)
                    first = buf;
                same += r > 0 && buf == first;
                int seed = 1000 * kind + 10 * r + mtest_rank;
                /* Both directions each round: rank 0 sends then receives, rank 1 the
                 * reverse, so either side's buffer is at times the source of a read and
                 * at times the destination. */
                for (int dir = 0; dir < 2; dir++) {
                    int sending = (dir == 0) == (mtest_rank == 0);
                    if (sending) {
                        mtest_fill_bytes(buf, LEN, seed);
                        MTEST_CHECK_RC(errs, MPI_Send(buf, LEN, MPI_BYTE, peer, r, MPI_COMM_WORLD),
                                       "%s round %d send", reuse_name[kind], r);
                    } else {
                        memset(buf, 0xEE, LEN);
                        MTEST_CHECK_RC(errs,
                                       MPI_Recv(buf, LEN, MPI_BYTE, peer, r, MPI_COMM_WORLD,
                                                MPI_STATUS_IGNORE),
                                       "%s round %d receive", reuse_name[kind], r);
                        char what[96];
                        snprintf(what, sizeof(what), "%s round %d, from rank %d (stale data?)",
                                 reuse_name[kind], r, peer);
                        errs += mtest_check_bytes(buf, LEN, 1000 * kind + 10 * r + peer, what);
                    }
                }
                put_buf(kind, buf);
            }
            if (kind == REUSE_MADVISE)
                munmap(buf, LEN);
            /* Not an error (the system chooses addresses), but the test means less: say so. */
            if (same == 0 && kind != REUSE_MADVISE)
                printf("note: rank %d: %s never gave the same address again\n", mtest_rank,
                       reuse_name[kind]);
        }
    }
    return MTest_Finalize(errs);
}
