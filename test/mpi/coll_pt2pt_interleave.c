/* coll_pt2pt_interleave.c: collectives and user point-to-point traffic on the same communicator
 * do not mix. Every rank posts Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG) before a series of Barrier,
 * Bcast (small and 1 MiB), Reduce and Allreduce calls; those receives must still be pending
 * afterwards (no user message was sent yet), and an Iprobe(ANY, ANY) must see nothing. User
 * messages sent before the collectives (Isend) and after them then arrive intact in those
 * receives, and the collectives' results are right. */
#include "mtest.h"

#include <stdlib.h>

#define BIG (1u << 20)

static int collectives(int round, char *big)
{
    int errs = 0, rc;
    int root = round % mtest_size;
    rc = MPI_Barrier(MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "MPI_Barrier");
    int v = mtest_rank == root ? 1000 + round : -1;
    MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, 1000 + round, v, "small MPI_Bcast from %d", root);
    if (mtest_rank == root)
        mtest_fill_bytes(big, BIG, round);
    MPI_Bcast(big, BIG, MPI_BYTE, root, MPI_COMM_WORLD);
    errs += mtest_check_bytes(big, BIG, round, "1 MiB MPI_Bcast");
    int one = mtest_rank + 1, sum = -1;
    MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (mtest_rank == root)
        MTEST_CHECK_INT(errs, mtest_size * (mtest_size + 1) / 2, sum, "MPI_Reduce sum at %d", root);
    double d = mtest_rank, mx = -1;
    MPI_Allreduce(&d, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, mtest_size - 1, (int)mx, "MPI_Allreduce max");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int right = (mtest_rank + 1) % mtest_size;
    int left = (mtest_rank + mtest_size - 1) % mtest_size;
    char *big = mtest_malloc(BIG);
    int rounds = mtest_size > 4 ? 3 : 10;

    for (int round = 0; round < rounds; round++) {
        int in[3] = {-1, -1, -1}, out[3];
        MPI_Request rreq[3], sreq[3];
        MPI_Status sts[3];
        for (int k = 0; k < 3; k++)
            MPI_Irecv(&in[k], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[k]);
        /* the receives must not be matched by collective traffic */
        errs += collectives(round, big);
        int flag = 1;
        MPI_Testall(3, rreq, &flag, MPI_STATUSES_IGNORE);
        if (flag)
            MTEST_FAIL(errs,
                       "round %d: wildcard receives completed by collective traffic "
                       "(values %d %d %d)",
                       round, in[0], in[1], in[2]);
        flag = 1;
        MPI_Status pst;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &pst);
        if (flag)
            MTEST_FAIL(errs,
                       "round %d: Iprobe(ANY, ANY) sees a message (source %d, tag %d) though "
                       "no user message was sent",
                       round, pst.MPI_SOURCE, pst.MPI_TAG);
        if (errs) {
            /* the receives are in an unknown state and the other ranks would wait for us */
            printf("[%d] aborting after %d errors\n", mtest_rank, errs);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        /* nobody may send before everyone has checked that nothing arrived */
        MPI_Barrier(MPI_COMM_WORLD);

        /* one user message sent before the next collectives, two after */
        out[0] = 10 * mtest_rank + 0;
        MPI_Isend(&out[0], 1, MPI_INT, right, 100, MPI_COMM_WORLD, &sreq[0]);
        errs += collectives(round + 1000, big);
        out[1] = 10 * mtest_rank + 1;
        MPI_Isend(&out[1], 1, MPI_INT, right, 101, MPI_COMM_WORLD, &sreq[1]);
        out[2] = 10 * mtest_rank + 2;
        MPI_Isend(&out[2], 1, MPI_INT, right, 102, MPI_COMM_WORLD, &sreq[2]);
        MPI_Waitall(3, rreq, sts);
        MPI_Waitall(3, sreq, MPI_STATUSES_IGNORE);
        /* same source, posted in order: they match in send order */
        for (int k = 0; k < 3; k++) {
            char what[64];
            snprintf(what, sizeof what, "round %d, user message %d", round, k);
            errs += mtest_check_status(&sts[k], left, 100 + k, MPI_INT, 1, what);
            MTEST_CHECK_INT(errs, 10 * left + k, in[k], "%s: data", what);
        }
    }
    free(big);
    return MTest_Finalize(errs);
}
