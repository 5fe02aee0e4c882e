/* sendrecv_sizes.c: messages of 0, 1, 2^k and 2^k +- 1 bytes up to 8 MiB between rank pairs
 * (0,1), (2,3) ..., by blocking ping-pong, by simultaneous Isend/Irecv both ways, and by
 * Sendrecv; checks data, status source/tag/count and guard bytes past each message. The sizes
 * around powers of two cross every eager/rendezvous threshold an implementation may pick.
 *   sendrecv_sizes [max=BYTES]
 * max=: stop at BYTES (a power of two up to 8 MiB; the verbs list runs its variants to 1 MiB,
 * where the VM spends most of its time on the largest sizes). */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (8u << 20)
#define GUARD 64

static char *sbuf, *rbuf;

static int check_recv(const MPI_Status *st, int src, int tag, size_t n, int seed, const char *how)
{
    int errs = 0;
    char what[160];
    snprintf(what, sizeof what, "%s of %zu bytes from %d", how, n, src);
    errs += mtest_check_status(st, src, tag, MPI_BYTE, (int)n, what);
    errs += mtest_check_bytes(rbuf, n, seed, what);
    errs += mtest_check_guard(rbuf, n, n + GUARD, what);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    size_t max_bytes = MAX_BYTES;
    for (int a = 1; a < argc; a++) {
        char *end;
        unsigned long v = strncmp(argv[a], "max=", 4) == 0 ? strtoul(argv[a] + 4, &end, 0) : 0;
        if (v < 2 || v > MAX_BYTES || (v & (v - 1)) != 0 || *end != '\0') {
            fprintf(stderr, "sendrecv_sizes: bad argument '%s' (max=BYTES, a power of two "
                            "from 2 to %u)\n", argv[a], MAX_BYTES);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        max_bytes = v;
    }

    int partner = mtest_rank ^ 1;
    if (partner < mtest_size) {
        int lo = (mtest_rank & 1) == 0;
        sbuf = mtest_malloc(MAX_BYTES + 1);
        rbuf = mtest_malloc(MAX_BYTES + 1 + GUARD);
        size_t sizes[80];
        int nsizes = 0;
        sizes[nsizes++] = 0;
        sizes[nsizes++] = 1;
        for (size_t s = 2; s <= max_bytes; s *= 2) {
            sizes[nsizes++] = s - 1;
            sizes[nsizes++] = s;
            sizes[nsizes++] = s + 1;
        }
        for (int i = 0; i < nsizes; i++) {
            size_t n = sizes[i];
            int tag = i;
            MPI_Status st;
            int rc;
            /* blocking ping-pong: the low rank sends first, the high rank echoes with a new
             * pattern */
            for (int leg = 0; leg < 2; leg++) {
                int i_send = (leg == 0) == lo;
                int seed = 1000 * leg + i;
                if (i_send) {
                    mtest_fill_bytes(sbuf, n, seed);
                    rc = MPI_Send(sbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD);
                    MTEST_CHECK_RC(errs, rc, "MPI_Send of %zu bytes", n);
                } else {
                    mtest_fill_guard(rbuf, n + GUARD);
                    rc = MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st);
                    MTEST_CHECK_RC(errs, rc, "MPI_Recv of %zu bytes", n);
                    errs += check_recv(&st, partner, tag, n, seed, "Send/Recv");
                }
            }

            /* both directions at once with nonblocking calls (send posted before receive, so
             * the implementation must not need the receive to complete the send) */
            {
                int seed_out = 5000 + 2 * i + lo, seed_in = 5000 + 2 * i + !lo;
                MPI_Request req[2];
                MPI_Status sts[2];
                mtest_fill_bytes(sbuf, n, seed_out);
                mtest_fill_guard(rbuf, n + GUARD);
                rc = MPI_Isend(sbuf, (int)n, MPI_BYTE, partner, tag + 100, MPI_COMM_WORLD, &req[0]);
                MTEST_CHECK_RC(errs, rc, "MPI_Isend of %zu bytes", n);
                rc = MPI_Irecv(rbuf, (int)n, MPI_BYTE, partner, tag + 100, MPI_COMM_WORLD, &req[1]);
                MTEST_CHECK_RC(errs, rc, "MPI_Irecv of %zu bytes", n);
                rc = MPI_Waitall(2, req, sts);
                MTEST_CHECK_RC(errs, rc, "MPI_Waitall Isend/Irecv of %zu bytes", n);
                errs += check_recv(&sts[1], partner, tag + 100, n, seed_in, "Isend/Irecv");
            }

            /* Sendrecv exchange */
            {
                int seed_out = 9000 + 2 * i + lo, seed_in = 9000 + 2 * i + !lo;
                mtest_fill_bytes(sbuf, n, seed_out);
                mtest_fill_guard(rbuf, n + GUARD);
                rc = MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, partner, tag + 200, rbuf, (int)n,
                                  MPI_BYTE, partner, tag + 200, MPI_COMM_WORLD, &st);
                MTEST_CHECK_RC(errs, rc, "MPI_Sendrecv of %zu bytes", n);
                errs += check_recv(&st, partner, tag + 200, n, seed_in, "Sendrecv");
            }
        }
        free(sbuf);
        free(rbuf);
    }

    return MTest_Finalize(errs);
}
