/* coll_bcast_barrier.c: MPI_Bcast of every predefined type, counts 0 to 100000 and 8 MiB of
 * bytes, from the first, last and middle rank: every rank gets the root's data and nothing past
 * the count is written. MPI_Barrier does not let any rank out before the last one entered
 * (checked with a lower bound on time: the last rank is told to start and then sleeps, so a
 * slow machine cannot break it). With more ranks than cores the combinations are thinned out. */
#include "mtest.h"

#include <stdlib.h>

#define DELAY 0.2
#define GUARD 64

static const struct mtest_type *find_type(MPI_Datatype dt)
{
    for (int k = 0; k < mtest_ntypes; k++)
        if (mtest_types[k].dt == dt)
            return &mtest_types[k];
    return NULL;
}

static int bcast_one(const struct mtest_type *t, size_t count, int root, int seed, char *buf)
{
    int errs = 0;
    char what[128];
    snprintf(what, sizeof what, "MPI_Bcast(%s, count %zu, root %d)", t->name, count, root);
    size_t bytes = count * t->extent;
    if (mtest_rank == root)
        t->fill(buf, count, seed);
    else
        mtest_fill_guard(buf, bytes + GUARD);
    int rc = MPI_Bcast(buf, (int)count, t->dt, root, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "%s", what);
    errs += t->check(buf, count, seed, what);
    if (mtest_rank != root)
        errs += mtest_check_guard(buf, bytes, bytes + GUARD, what);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int last = mtest_size - 1;

    /* Barrier: rank 0 tells the last rank to start, which sleeps DELAY before entering; rank 0
     * cannot leave the barrier earlier than DELAY after it sent the message */
    for (int round = 0; round < 2; round++) {
        double t0 = MPI_Wtime();
        if (mtest_size > 1) {
            if (mtest_rank == 0)
                MPI_Send(NULL, 0, MPI_BYTE, last, 1, MPI_COMM_WORLD);
            if (mtest_rank == last) {
                MPI_Recv(NULL, 0, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                mtest_sleep(DELAY);
            }
        }
        int rc = MPI_Barrier(MPI_COMM_WORLD);
        MTEST_CHECK_RC(errs, rc, "MPI_Barrier");
        double dt = MPI_Wtime() - t0;
        if (mtest_rank == 0 && mtest_size > 1 && dt < DELAY * 0.95)
            MTEST_FAIL(errs,
                       "rank 0 left MPI_Barrier %.3f s after the start, but the last rank "
                       "entered only after %.3f s",
                       dt, DELAY);
    }

    const int light = mtest_size > 4;
    const MPI_Datatype some[] = {MPI_BYTE,        MPI_INT,      MPI_DOUBLE,
                                 MPI_LONG_DOUBLE, MPI_INT64_T,  MPI_C_DOUBLE_COMPLEX,
                                 MPI_DOUBLE_INT,  MPI_SHORT_INT};
    const int nsome = (int)(sizeof some / sizeof some[0]);
    const size_t counts[] = {1, 7, 1000, 100000, 0};
    const int roots[] = {0, last, mtest_size / 2};
    char *buf = mtest_malloc((8u << 20) + GUARD);
    int combo = 0;
    for (int k = 0; k < (light ? nsome : mtest_ntypes); k++) {
        const struct mtest_type *t = light ? find_type(some[k]) : &mtest_types[k];
        for (int c = 0; c < 5; c++) {
            combo++;
            if (light) {
                /* one root per (type, count), in rotation */
                errs += bcast_one(t, counts[c], roots[combo % 3], combo, buf);
            } else {
                for (int r = 0; r < 3; r++)
                    errs += bcast_one(t, counts[c], roots[r], combo * 3 + r, buf);
            }
        }
    }
    /* one big broadcast from the last rank */
    errs += bcast_one(find_type(MPI_BYTE), 8u << 20, last, 4242, buf);
    free(buf);
    return MTest_Finalize(errs);
}
