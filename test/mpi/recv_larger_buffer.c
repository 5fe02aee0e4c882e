/* recv_larger_buffer.c: a receive buffer larger than the message. MPI_Get_count gives the number
 * of elements sent (not the buffer size), the data is right and the bytes past it are
 * untouched; Get_count with a datatype whose size does not divide the bytes received gives
 * MPI_UNDEFINED. Pairs (0,1), (2,3) ... and, on one rank, messages to self. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static const struct mtest_type *find_type(MPI_Datatype dt)
{
    for (int k = 0; k < mtest_ntypes; k++)
        if (mtest_types[k].dt == dt)
            return &mtest_types[k];
    return NULL;
}

static int one(MPI_Comm comm, int me, int peer, const struct mtest_type *t, size_t count,
               size_t room, int tag, void *sbuf, void *rbuf, int sending_first)
{
    int errs = 0;
    char what[160];
    snprintf(what, sizeof what, "%zu x %s into room for %zu", count, t->name, room);
    MPI_Request sreq = MPI_REQUEST_NULL;
    MPI_Status st;
    int seed = tag + 17 * me;
    int peer_seed = tag + 17 * peer;
    t->fill(sbuf, count, seed);
    mtest_fill_guard(rbuf, room * t->extent);
    /* both sides send and receive; the send is nonblocking so neither waits on the other */
    if (sending_first)
        MPI_Isend(sbuf, (int)count, t->dt, peer, tag, comm, &sreq);
    int rc = MPI_Recv(rbuf, (int)room, t->dt, peer, tag, comm, &st);
    if (!sending_first)
        MPI_Isend(sbuf, (int)count, t->dt, peer, tag, comm, &sreq);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Recv", what);
    errs += mtest_check_status(&st, peer, tag, t->dt, (int)count, what);
    errs += t->check(rbuf, count, peer_seed, what);
    errs += mtest_check_guard(rbuf, count * t->extent, room * t->extent, what);
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);
    return errs;
}

static int run(MPI_Comm comm, int me, int peer, const char *cname)
{
    int errs = 0;
    const MPI_Datatype dts[] = {MPI_BYTE,
                                MPI_CHAR,
                                MPI_INT,
                                MPI_DOUBLE,
                                MPI_LONG_DOUBLE,
                                MPI_INT64_T,
                                MPI_C_DOUBLE_COMPLEX,
                                MPI_DOUBLE_INT,
                                MPI_SHORT_INT};
    const size_t counts[] = {0, 1, 100, 70001, 300000};
    const int ndt = (int)(sizeof dts / sizeof dts[0]), nc = (int)(sizeof counts / sizeof counts[0]);
    void *sbuf = mtest_malloc(300000 * 32), *rbuf = mtest_malloc(600000 * 32);
    int tag = 0;
    for (int d = 0; d < ndt; d++) {
        const struct mtest_type *t = find_type(dts[d]);
        if (!t) {
            MTEST_FAIL(errs, "type %d missing from mtest_types", d);
            continue;
        }
        for (int c = 0; c < nc; c++) {
            /* a little more room, and twice the room */
            /* the lower rank receives first in one exchange, sends first in the other; to
             * self the send must come first */
            int first = me < peer;
            errs += one(comm, me, peer, t, counts[c], counts[c] + 3, tag++, sbuf, rbuf,
                        first || me == peer);
            errs += one(comm, me, peer, t, counts[c], 2 * counts[c] + 1, tag++, sbuf, rbuf,
                        !first || me == peer);
        }
    }

    /* Get_count with a datatype that does not divide the message: MPI_UNDEFINED */
    {
        MPI_Request sreq;
        MPI_Status st;
        mtest_fill_bytes(sbuf, 6, 5);
        MPI_Isend(sbuf, 6, MPI_BYTE, peer, 5000, comm, &sreq);
        MPI_Recv(rbuf, 64, MPI_BYTE, peer, 5000, comm, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        int n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        MTEST_CHECK_INT(errs, MPI_UNDEFINED, n, "%s: Get_count(MPI_INT) of a 6-byte message",
                        cname);
        MPI_Get_count(&st, MPI_SHORT, &n);
        MTEST_CHECK_INT(errs, 3, n, "%s: Get_count(MPI_SHORT) of a 6-byte message", cname);
        MPI_Get_count(&st, MPI_BYTE, &n);
        MTEST_CHECK_INT(errs, 6, n, "%s: Get_count(MPI_BYTE) of a 6-byte message", cname);
        MPI_Get_count(&st, MPI_DOUBLE, &n);
        MTEST_CHECK_INT(errs, MPI_UNDEFINED, n, "%s: Get_count(MPI_DOUBLE) of a 6-byte message",
                        cname);
    }
    free(sbuf);
    free(rbuf);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int peer = mtest_rank ^ 1;
    if (peer < mtest_size)
        errs += run(MPI_COMM_WORLD, mtest_rank, peer, "MPI_COMM_WORLD");
    if (mtest_rank == 0)
        errs += run(MPI_COMM_SELF, 0, 0, "MPI_COMM_SELF");
    return MTest_Finalize(errs);
}
