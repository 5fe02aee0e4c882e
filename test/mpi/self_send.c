/* self_send.c: a rank sending to itself on MPI_COMM_WORLD and MPI_COMM_SELF: Isend then
 * blocking Recv, Irecv then blocking Send, Issend then Recv, Sendrecv to self, several Isends
 * to self received in order, Probe of a message to self, wildcard receives; small and large
 * messages (a blocking send to self is only legal when the receive is already posted). */
#include "mtest.h"

#include <stdlib.h>

#define MAX_BYTES (8u << 20)
#define GUARD 32

static char *sbuf, *rbuf;

static int check(const MPI_Status *st, int src, int tag, size_t n, int seed, const char *how,
                 const char *comm)
{
    int errs = 0;
    char what[160];
    snprintf(what, sizeof what, "%s on %s, %zu bytes", how, comm, n);
    errs += mtest_check_status(st, src, tag, MPI_BYTE, (int)n, what);
    errs += mtest_check_bytes(rbuf, n, seed, what);
    errs += mtest_check_guard(rbuf, n, n + GUARD, what);
    return errs;
}

static int run(MPI_Comm comm, const char *cname)
{
    int errs = 0, me, rc;
    MPI_Comm_rank(comm, &me);
    const size_t sizes[] = {0, 1, 7, 1024, 65536, 65537, 1u << 20, MAX_BYTES};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    MPI_Status st;
    MPI_Request req;

    for (int i = 0; i < nsizes; i++) {
        size_t n = sizes[i];

        /* Isend to self, then blocking Recv */
        mtest_fill_bytes(sbuf, n, 10 + i);
        mtest_fill_guard(rbuf, n + GUARD);
        rc = MPI_Isend(sbuf, (int)n, MPI_BYTE, me, 1, comm, &req);
        MTEST_CHECK_RC(errs, rc, "MPI_Isend to self on %s", cname);
        rc = MPI_Recv(rbuf, (int)n, MPI_BYTE, me, 1, comm, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv from self on %s", cname);
        errs += check(&st, me, 1, n, 10 + i, "Isend+Recv", cname);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait(Isend to self) on %s", cname);
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "request after MPI_Wait on %s", cname);

        /* Irecv posted first, then a blocking Send to self */
        mtest_fill_bytes(sbuf, n, 20 + i);
        mtest_fill_guard(rbuf, n + GUARD);
        rc = MPI_Irecv(rbuf, (int)n, MPI_BYTE, me, 2, comm, &req);
        MTEST_CHECK_RC(errs, rc, "MPI_Irecv from self on %s", cname);
        rc = MPI_Send(sbuf, (int)n, MPI_BYTE, me, 2, comm);
        MTEST_CHECK_RC(errs, rc, "MPI_Send to self on %s", cname);
        rc = MPI_Wait(&req, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait(Irecv from self) on %s", cname);
        errs += check(&st, me, 2, n, 20 + i, "Irecv+Send", cname);

        /* Issend to self completes once the Recv below matches it */
        mtest_fill_bytes(sbuf, n, 30 + i);
        mtest_fill_guard(rbuf, n + GUARD);
        rc = MPI_Issend(sbuf, (int)n, MPI_BYTE, me, 3, comm, &req);
        MTEST_CHECK_RC(errs, rc, "MPI_Issend to self on %s", cname);
        rc = MPI_Recv(rbuf, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv(ANY_SOURCE, ANY_TAG) on %s", cname);
        errs += check(&st, me, 3, n, 30 + i, "Issend+Recv(any,any)", cname);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait(Issend to self) on %s", cname);

        /* Sendrecv to self */
        mtest_fill_bytes(sbuf, n, 40 + i);
        mtest_fill_guard(rbuf, n + GUARD);
        rc = MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, me, 4, rbuf, (int)n, MPI_BYTE, me, 4, comm, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Sendrecv to self on %s", cname);
        errs += check(&st, me, 4, n, 40 + i, "Sendrecv", cname);

        /* Sendrecv to self with a wildcard receive and a larger receive buffer */
        mtest_fill_bytes(sbuf, n, 50 + i);
        mtest_fill_guard(rbuf, n + GUARD);
        rc = MPI_Sendrecv(sbuf, (int)n, MPI_BYTE, me, 5, rbuf, (int)n + GUARD / 2, MPI_BYTE,
                          MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Sendrecv(any,any, larger buffer) to self on %s", cname);
        errs += check(&st, me, 5, n, 50 + i, "Sendrecv(any,any, larger buffer)", cname);

        /* Probe sees the message to self with its size before it is received */
        mtest_fill_bytes(sbuf, n, 60 + i);
        mtest_fill_guard(rbuf, n + GUARD);
        rc = MPI_Isend(sbuf, (int)n, MPI_BYTE, me, 6, comm, &req);
        MTEST_CHECK_RC(errs, rc, "MPI_Isend to self on %s", cname);
        rc = MPI_Probe(me, 6, comm, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Probe of self message on %s", cname);
        {
            char what[96];
            snprintf(what, sizeof what, "Probe of self message on %s, %zu bytes", cname, n);
            errs += mtest_check_status(&st, me, 6, MPI_BYTE, (int)n, what);
        }
        rc = MPI_Recv(rbuf, (int)n, MPI_BYTE, me, 6, comm, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv after Probe on %s", cname);
        errs += check(&st, me, 6, n, 60 + i, "Probe+Recv", cname);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait(Isend to self) on %s", cname);
    }

    /* several messages to self with the same tag arrive in the order sent, mixing sizes */
    {
        enum { N = 12 };
        MPI_Request reqs[N];
        char *bufs[N];
        size_t lens[N];
        for (int k = 0; k < N; k++) {
            lens[k] = (k % 3 == 0) ? (size_t)(300000 + k) : (size_t)(k * 5);
            bufs[k] = mtest_malloc(lens[k]);
            mtest_fill_bytes(bufs[k], lens[k], 70 + k);
            rc = MPI_Isend(bufs[k], (int)lens[k], MPI_BYTE, me, 7, comm, &reqs[k]);
            MTEST_CHECK_RC(errs, rc, "MPI_Isend #%d to self on %s", k, cname);
        }
        for (int k = 0; k < N; k++) {
            mtest_fill_guard(rbuf, 400000);
            rc = MPI_Recv(rbuf, 400000, MPI_BYTE, MPI_ANY_SOURCE, 7, comm, &st);
            MTEST_CHECK_RC(errs, rc, "MPI_Recv #%d from self on %s", k, cname);
            char what[96];
            snprintf(what, sizeof what, "ordered self message #%d on %s", k, cname);
            errs += mtest_check_status(&st, me, 7, MPI_BYTE, (int)lens[k], what);
            errs += mtest_check_bytes(rbuf, lens[k], 70 + k, what);
            errs += mtest_check_guard(rbuf, lens[k], 400000, what);
        }
        rc = MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
        MTEST_CHECK_RC(errs, rc, "MPI_Waitall of Isends to self on %s", cname);
        for (int k = 0; k < N; k++)
            free(bufs[k]);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    sbuf = mtest_malloc(MAX_BYTES);
    rbuf = mtest_malloc(MAX_BYTES + GUARD);

    int self_rank = -1, self_size = -1;
    MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
    MPI_Comm_size(MPI_COMM_SELF, &self_size);
    MTEST_CHECK_INT(errs, 0, self_rank, "rank in MPI_COMM_SELF");
    MTEST_CHECK_INT(errs, 1, self_size, "size of MPI_COMM_SELF");

    errs += run(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    errs += run(MPI_COMM_SELF, "MPI_COMM_SELF");

    free(sbuf);
    free(rbuf);
    return MTest_Finalize(errs);
}
