/* coll_count_c_large.c: collectives with counts above INT_MAX (MPI-4.1 sec. 6: the _c forms).
 * MPI_Bcast_c of 2^31 + 4097 MPI_BYTEs from the last rank, then MPI_Allreduce_c (in place) of
 * as many MPI_BYTEs with MPI_BOR, each rank giving its own bits of a pattern so that the result
 * is the whole pattern.  The data are checked at a few spots: the ends, around 2^31 (where an
 * int count or offset would turn negative) and every 64 MiB.  Needs about 6 GiB per rank on
 * Ferry (the allreduce keeps two temporary vectors), so it runs once from
 * test/mpi/testlist.large, at 2 ranks. */
#include "mtest.h"

#include <limits.h>
#include <stdlib.h>

#define N ((MPI_Count)INT_MAX + 4098) /* 2^31 + 4097 */

static unsigned char pattern(MPI_Count i)
{
    return (unsigned char)(i ^ (i >> 8) ^ (i >> 16) ^ (i >> 24) ^ (i >> 31));
}

/* The bits of the pattern that rank r of np gives to the allreduce (bit b from rank b % np). */
static unsigned char bits(int r, int np)
{
    unsigned char m = 0;
    for (int b = r; b < 8; b += np)
        m |= (unsigned char)(1u << b);
    return m;
}

static int check(const unsigned char *buf, unsigned char mask, const char *what)
{
    int errs = 0;
    const MPI_Count spots[] = {
        0, 1, INT_MAX - 1, INT_MAX, (MPI_Count)INT_MAX + 1, (MPI_Count)INT_MAX + 2, N - 2, N - 1};
    for (size_t k = 0; k < sizeof spots / sizeof spots[0]; k++) {
        MPI_Count i = spots[k];
        if (buf[i] != (pattern(i) & mask))
            MTEST_FAIL(errs, "%s: byte %lld is %d, expected %d", what, (long long)i, buf[i],
                       pattern(i) & mask);
    }
    for (MPI_Count i = 12345; i < N && errs < 5; i += (MPI_Count)64 << 20)
        if (buf[i] != (pattern(i) & mask))
            MTEST_FAIL(errs, "%s: byte %lld is %d, expected %d", what, (long long)i, buf[i],
                       pattern(i) & mask);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int me = mtest_rank, np = mtest_size, root = np - 1;
    unsigned char *buf = mtest_malloc((size_t)N);

    for (MPI_Count i = 0; i < N; i++)
        buf[i] = me == root ? pattern(i) : 0;
    MTEST_CHECK_RC(errs, MPI_Bcast_c(buf, N, MPI_BYTE, root, MPI_COMM_WORLD), "Bcast_c");
    errs += check(buf, 0xff, "Bcast_c");

    unsigned char mine = bits(me, np);
    for (MPI_Count i = 0; i < N; i++)
        buf[i] = pattern(i) & mine;
    MTEST_CHECK_RC(errs, MPI_Allreduce_c(MPI_IN_PLACE, buf, N, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD),
                   "Allreduce_c");
    errs += check(buf, 0xff, "Allreduce_c"); /* the ranks' bits together are all eight */
    free(buf);
    return MTest_Finalize(errs);
}
