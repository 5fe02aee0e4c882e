/* sendrecv_types.c: every predefined datatype, counts 0, 1 and powers of two up to 8 MiB of
 * data, sent both ways between rank pairs (0,1), (2,3) ...; checks MPI_Type_size, the data, the
 * status source/tag/count and that nothing is written past the received elements. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (8u << 20)
/* extra elements past the message in the receive buffer, all guard bytes */
#define GUARD_ELEMS 4

static int exchange(const struct mtest_type *t, size_t count, int tag, int sender, int receiver,
                    void *sbuf, void *rbuf)
{
    int errs = 0;
    int seed = tag * 3 + sender;
    if (mtest_rank == sender) {
        t->fill(sbuf, count, seed);
        int rc = MPI_Send(count ? sbuf : NULL, (int)count, t->dt, receiver, tag, MPI_COMM_WORLD);
        MTEST_CHECK_RC(errs, rc, "MPI_Send %s count %zu", t->name, count);
    } else if (mtest_rank == receiver) {
        size_t bytes = (count + GUARD_ELEMS) * t->extent;
        mtest_fill_guard(rbuf, bytes);
        MPI_Status st;
        int rc = MPI_Recv(rbuf, (int)count, t->dt, sender, tag, MPI_COMM_WORLD, &st);
        char what[128];
        snprintf(what, sizeof what, "recv %s count %zu from %d", t->name, count, sender);
        MTEST_CHECK_RC(errs, rc, "%s", what);
        errs += mtest_check_status(&st, sender, tag, t->dt, (int)count, what);
        errs += t->check(rbuf, count, seed, what);
        errs += mtest_check_guard(rbuf, count * t->extent, bytes, what);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);

    for (int k = 0; k < mtest_ntypes; k++) {
        const struct mtest_type *t = &mtest_types[k];
        int sz = -1;
        int rc = MPI_Type_size(t->dt, &sz);
        MTEST_CHECK_RC(errs, rc, "MPI_Type_size(%s)", t->name);
        MTEST_CHECK_INT(errs, t->size, sz, "MPI_Type_size(%s)", t->name);
    }

    int partner = mtest_rank ^ 1;
    if (partner < mtest_size) {
        void *sbuf = mtest_malloc(MAX_BYTES + 64);
        void *rbuf = mtest_malloc(MAX_BYTES + 64 * GUARD_ELEMS);
        int tag = 0;
        for (int k = 0; k < mtest_ntypes; k++) {
            const struct mtest_type *t = &mtest_types[k];
            size_t counts[64];
            int n = 0;
            counts[n++] = 0;
            for (size_t c = 1; c * (size_t)t->size <= MAX_BYTES; c *= 2)
                counts[n++] = c;
            for (int i = 0; i < n; i++) {
                int lo = mtest_rank & ~1, hi = lo + 1;
                errs += exchange(t, counts[i], tag, lo, hi, sbuf, rbuf);
                errs += exchange(t, counts[i], tag + 1, hi, lo, sbuf, rbuf);
                tag += 2;
            }
        }
        free(sbuf);
        free(rbuf);
    }

    return MTest_Finalize(errs);
}
