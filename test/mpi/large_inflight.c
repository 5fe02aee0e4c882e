/* large_inflight.c: many very large messages in flight at once. Ranks 0 and 1 each post 32
 * Irecvs and 32 Isends of 10 MiB + k MiB + k bytes (k = 0..31, 10 to 41 MiB, odd sizes), the
 * receives in the opposite order to the sends and with mixed tags, then complete everything
 * with one Waitall; every byte is checked. About 0.9 GB each way. */
#include "mtest.h"

#include <stdlib.h>

#define NMSG 32
#define MIB (1u << 20)

static size_t len_of(int k)
{
    return 10 * (size_t)MIB + (size_t)k * MIB + (size_t)k;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size < 2) {
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    } else if (mtest_rank < 2) {
        int peer = 1 - mtest_rank;
        char *sb[NMSG], *rb[NMSG];
        MPI_Request reqs[2 * NMSG];
        MPI_Status sts[2 * NMSG];
        for (int k = 0; k < NMSG; k++) {
            sb[k] = mtest_malloc(len_of(k));
            rb[k] = mtest_malloc(len_of(k) + 64);
            mtest_fill_bytes(sb[k], len_of(k), 100 * mtest_rank + k);
            mtest_fill_guard_range(rb[k], len_of(k), len_of(k) + 64);
        }
        /* receives for k = 31..0, each tagged k; rank 0 posts its receives first, rank 1 its
         * sends first, so both arrival orders occur */
        for (int phase = 0; phase < 2; phase++) {
            if ((phase == 0) == (mtest_rank == 0)) {
                for (int k = NMSG - 1; k >= 0; k--) {
                    int rc = MPI_Irecv(rb[k], (int)len_of(k) + 64, MPI_BYTE, peer, k,
                                       MPI_COMM_WORLD, &reqs[NMSG + k]);
                    MTEST_CHECK_RC(errs, rc, "MPI_Irecv #%d", k);
                }
            } else {
                for (int k = 0; k < NMSG; k++) {
                    int rc = MPI_Isend(sb[k], (int)len_of(k), MPI_BYTE, peer, k, MPI_COMM_WORLD,
                                       &reqs[k]);
                    MTEST_CHECK_RC(errs, rc, "MPI_Isend #%d", k);
                }
            }
        }
        int rc = MPI_Waitall(2 * NMSG, reqs, sts);
        MTEST_CHECK_RC(errs, rc, "MPI_Waitall of 64 large requests");
        for (int k = 0; k < NMSG; k++) {
            char what[64];
            snprintf(what, sizeof what, "message #%d of %zu bytes", k, len_of(k));
            errs += mtest_check_status(&sts[NMSG + k], peer, k, MPI_BYTE, (int)len_of(k), what);
            errs += mtest_check_bytes(rb[k], len_of(k), 100 * peer + k, what);
            errs += mtest_check_guard(rb[k], len_of(k), len_of(k) + 64, what);
            free(sb[k]);
            free(rb[k]);
        }
    }
    return MTest_Finalize(errs);
}
