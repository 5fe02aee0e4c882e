/* coll_count_mismatch.c: a collective whose ranks give different counts is an erroneous program,
 * but a common mistake: it must end on every rank (no rank left waiting for a message that will
 * never come), leave nothing behind that a later collective could take, and, in Ferry, every rank
 * whose data does not fit what arrived, or that is downstream of one, returns
 * MPI_ERR_TRUNCATE or MPI_ERR_COUNT.
 *
 * Rank 0 gives one count, the others another, both ways round, with short and with long
 * messages (the long ones go by rendezvous), for the blocking, nonblocking and persistent forms.
 * After each mismatched call a correct one of the same kind must give the right result.  The
 * standard does not require an MPI to detect the mismatch or even to return (MPICH 4.0.2 hangs
 * in several of these calls), so compiled against another MPI the program checks nothing. */
#include <stdlib.h>
#include "mtest.h"

static int errs;

typedef enum { BCAST, REDUCE, ALLREDUCE, GATHER, SCATTER, ALLGATHER, ALLTOALL, NKINDS } kind_t;
static const char *names[NKINDS] = {"Bcast",   "Reduce",    "Allreduce", "Gather",
                                    "Scatter", "Allgather", "Alltoall"};
typedef enum { BLOCKING, NONBLOCKING, PERSISTENT, NFORMS } form_t;
static const char *form_names[NFORMS] = {"", " (nonblocking)", " (persistent)"};

/* Starts (or runs) one collective with count n per block; returns the call's error. */
static int call(kind_t k, form_t f, int *sbuf, int *rbuf, int n, MPI_Request *req)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (k) {
    case BCAST:
        return f == BLOCKING      ? MPI_Bcast(rbuf, n, MPI_INT, 0, w)
               : f == NONBLOCKING ? MPI_Ibcast(rbuf, n, MPI_INT, 0, w, req)
                                  : MPI_Bcast_init(rbuf, n, MPI_INT, 0, w, MPI_INFO_NULL, req);
    case REDUCE:
        return f == BLOCKING ? MPI_Reduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, w)
               : f == NONBLOCKING
                   ? MPI_Ireduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, w, req)
                   : MPI_Reduce_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, 0, w, MPI_INFO_NULL, req);
    case ALLREDUCE:
        return f == BLOCKING ? MPI_Allreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, w)
               : f == NONBLOCKING
                   ? MPI_Iallreduce(sbuf, rbuf, n, MPI_INT, MPI_SUM, w, req)
                   : MPI_Allreduce_init(sbuf, rbuf, n, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, req);
    case GATHER:
        return f == BLOCKING ? MPI_Gather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, w)
               : f == NONBLOCKING
                   ? MPI_Igather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, w, req)
                   : MPI_Gather_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, w, MPI_INFO_NULL, req);
    case SCATTER:
        return f == BLOCKING ? MPI_Scatter(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, w)
               : f == NONBLOCKING
                   ? MPI_Iscatter(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, w, req)
                   : MPI_Scatter_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, 0, w, MPI_INFO_NULL, req);
    case ALLGATHER:
        return f == BLOCKING ? MPI_Allgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, w)
               : f == NONBLOCKING
                   ? MPI_Iallgather(sbuf, n, MPI_INT, rbuf, n, MPI_INT, w, req)
                   : MPI_Allgather_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, w, MPI_INFO_NULL, req);
    case ALLTOALL:
        return f == BLOCKING ? MPI_Alltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, w)
               : f == NONBLOCKING
                   ? MPI_Ialltoall(sbuf, n, MPI_INT, rbuf, n, MPI_INT, w, req)
                   : MPI_Alltoall_init(sbuf, n, MPI_INT, rbuf, n, MPI_INT, w, MPI_INFO_NULL, req);
    default:
        return MPI_ERR_ARG;
    }
}

/* Runs the collective to its end in form f; returns its error. */
static int run(kind_t k, form_t f, int *sbuf, int *rbuf, int n)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = call(k, f, sbuf, rbuf, n, &req);
    if (rc != MPI_SUCCESS || f == BLOCKING)
        return rc;
    if (f == PERSISTENT && (rc = MPI_Start(&req)) != MPI_SUCCESS) {
        MPI_Request_free(&req);
        return rc;
    }
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (f == PERSISTENT)
        MPI_Request_free(&req);
    return rc;
}

/* Whether this rank must see the mismatch (in Ferry): rank 0 is the root of the rooted ones. */
static int must_detect(kind_t k, int me)
{
    switch (k) {
    case BCAST:
    case SCATTER:
        return me != 0;
    case REDUCE:
    case GATHER:
        return me == 0;
    default:
        return 1;
    }
}

/* The correct call after a mismatched one: every rank contributes rank+1 per element. */
static void check_correct(kind_t k, form_t f, int *sbuf, int *rbuf, int n, int me, int np)
{
    int blocks = (k == GATHER || k == ALLGATHER || k == ALLTOALL || k == SCATTER) ? np : 1;
    for (int i = 0; i < n * blocks; i++) {
        sbuf[i] = k == SCATTER ? i / n + 1 : me + 1;
        rbuf[i] = k == BCAST && me == 0 ? 1 : -1;
    }
    int rc = run(k, f, sbuf, rbuf, n);
    if (rc != MPI_SUCCESS) {
        MTEST_FAIL(errs, "MPI_%s%s after the mismatch, with matching counts: error %d", names[k],
                   form_names[f], rc);
        return;
    }
    int has_result = !((k == REDUCE || k == GATHER) && me != 0);
    int rblocks = k == SCATTER ? 1 : blocks;
    for (int i = 0; has_result && i < n * rblocks; i++) {
        int want;
        switch (k) {
        case BCAST:
            want = 1;
            break;
        case REDUCE:
        case ALLREDUCE:
            want = np * (np + 1) / 2;
            break;
        case SCATTER:
            want = me + 1;
            break;
        default: /* the gathers and Alltoall: block r from rank r */
            want = i / n + 1;
            break;
        }
        if (rbuf[i] != want) {
            MTEST_FAIL(errs,
                       "MPI_%s%s after the mismatch, with matching counts: element %d is %d, "
                       "expected %d",
                       names[k], form_names[f], i, rbuf[i], want);
            return;
        }
    }
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    int me = mtest_rank, np = mtest_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
#ifndef FERRY_VERSION
    np = 1; /* (see the top) */
#endif
    if (np < 2)
        return MTest_Finalize(errs);
    const int sizes[2][2] = {{1, 10}, {20, 30000}}; /* short and long (rendezvous) messages */
    int maxn = 30000 + 1;
    int *sbuf = malloc(sizeof(int) * (size_t)maxn * np),
        *rbuf = malloc(sizeof(int) * (size_t)maxn * np);
    for (kind_t k = 0; k < NKINDS; k++) {
        for (form_t f = 0; f < NFORMS; f++)
            for (int sz = 0; sz < 2; sz++)
                for (int way = 0; way < 2; way++) {
                    int n = (me == 0) == (way == 0) ? sizes[sz][0] : sizes[sz][1];
                    for (int i = 0; i < maxn * np; i++)
                        sbuf[i] = rbuf[i] = me;
                    int rc = run(k, f, sbuf, rbuf, n), cls = MPI_SUCCESS;
                    if (rc != MPI_SUCCESS)
                        MPI_Error_class(rc, &cls);
                    if (must_detect(k, me) && cls != MPI_ERR_TRUNCATE && cls != MPI_ERR_COUNT)
                        MTEST_FAIL(errs,
                                   "MPI_%s%s, count %d here and %d at rank 0: error class %d, "
                                   "expected MPI_ERR_TRUNCATE (%d) or MPI_ERR_COUNT (%d)",
                                   names[k], form_names[f], n,
                                   way == 0 ? sizes[sz][0] : sizes[sz][1], cls, MPI_ERR_TRUNCATE,
                                   MPI_ERR_COUNT);
                    check_correct(k, f, sbuf, rbuf, 5, me, np);
                }
    }
    free(sbuf);
    free(rbuf);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
