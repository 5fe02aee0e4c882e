/* part_errors.c: the partitioned calls refuse bad input through the error handler
 * (MPI_ERRORS_RETURN here) with the error class named below, leave the request as it was, and
 * the pair then completes its round with the right data.  MPI_Psend_init / MPI_Precv_init:
 * MPI_ANY_SOURCE and MPI_ANY_TAG (forbidden, MPI-4.0 sec. 4.2.1), negative partitions or count,
 * a bad rank, tag, communicator or datatype, a NULL request.  MPI_Pready, _range, _list: an
 * inactive request, a receive request, an ordinary request, MPI_REQUEST_NULL, a partition out of
 * range or ready already (an error in a range or list marks none of it).  MPI_Parrived: a send
 * request, an ordinary request, a partition out of range; MPI_REQUEST_NULL and an inactive
 * request give flag true.  MPI_Start of an active request, MPI_Request_free and MPI_Cancel of an
 * active one (erroneous, sec. 4.2.1).  A receive smaller than the sender's data: MPI_ERR_TRUNCATE
 * (and a larger one completes with the data's size).
 *
 * Under another library (MPICH 4.0.2 validates the test) a different class, or a success, is
 * printed as a note and not counted, and the erroneous calls that a library may accept and act
 * on (mark partitions, free or cancel the request, so that the rest of the round means nothing)
 * are made only against Ferry, which promises to refuse them; under Ferry every check counts. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define N 4   /* partitions on either side */
#define CNT 5 /* ints per partition */
#define TAG 9

#ifdef FERRY_VERSION
#define STRICT 1
#else
#define STRICT 0
#endif
#define STRICT_ONLY(stmt)                                                                          \
    do {                                                                                           \
        if (STRICT)                                                                                \
            stmt;                                                                                  \
    } while (0)
/* MPICH before 4.1 refuses MPI_Parrived of an inactive request and crashes on MPI_REQUEST_NULL
 * (the standard says flag = true for both; pmodels/mpich#6361, fixed in 4.1): against those
 * versions the two calls are not made, and a note says so. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define KNOWN_PARRIVED_INACTIVE_BUG 1
#else
#define KNOWN_PARRIVED_INACTIVE_BUG 0
#endif

/* One error if rc's class is not cls; "lax": under another library, a success is a note. */
static int expect(int rc, int cls, int lax, const char *what)
{
    int errs = 0, got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got == cls)
        return 0;
    if (lax && !STRICT) {
        printf("[%d] note: %s: %s instead of %s (this library's choice), not counted\n", mtest_rank,
               what, mtest_classname(got), mtest_classname(cls));
        return 0;
    }
    MTEST_FAIL(errs, "%s: error class %s, expected %s", what, mtest_classname(got),
               mtest_classname(cls));
    return errs;
}

static int init_errors(int next, int prev)
{
    int errs = 0, buf[N * CNT];
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Info none = MPI_INFO_NULL;
    errs += expect(MPI_Precv_init(buf, N, CNT, MPI_INT, MPI_ANY_SOURCE, TAG, w, none, &req),
                   MPI_ERR_RANK, 1, "MPI_Precv_init from MPI_ANY_SOURCE");
    errs += expect(MPI_Precv_init(buf, N, CNT, MPI_INT, prev, MPI_ANY_TAG, w, none, &req),
                   MPI_ERR_TAG, 1, "MPI_Precv_init with MPI_ANY_TAG");
    errs += expect(MPI_Psend_init(buf, -1, CNT, MPI_INT, next, TAG, w, none, &req), MPI_ERR_ARG, 0,
                   "MPI_Psend_init with -1 partitions");
    errs += expect(MPI_Precv_init(buf, N, -1, MPI_INT, prev, TAG, w, none, &req), MPI_ERR_COUNT, 0,
                   "MPI_Precv_init with count -1");
    errs += expect(MPI_Psend_init(buf, N, CNT, MPI_INT, mtest_size, TAG, w, none, &req),
                   MPI_ERR_RANK, 0, "MPI_Psend_init to rank size");
    errs += expect(MPI_Psend_init(buf, N, CNT, MPI_INT, next, -3, w, none, &req), MPI_ERR_TAG, 0,
                   "MPI_Psend_init with tag -3");
    errs += expect(MPI_Psend_init(buf, N, CNT, MPI_INT, next, TAG, MPI_COMM_NULL, none, &req),
                   MPI_ERR_COMM, 0, "MPI_Psend_init on MPI_COMM_NULL");
    errs += expect(MPI_Precv_init(buf, N, CNT, MPI_DATATYPE_NULL, prev, TAG, w, none, &req),
                   MPI_ERR_TYPE, 0, "MPI_Precv_init of MPI_DATATYPE_NULL");
    errs += expect(MPI_Psend_init(buf, N, CNT, MPI_INT, next, TAG, w, none, NULL), MPI_ERR_ARG, 1,
                   "MPI_Psend_init with a NULL request");
    MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "no request made by a refused init");
    return errs;
}

static int request_errors(int next, int prev, int round)
{
    int errs = 0, sbuf[N * CNT] = {0}, rbuf[N * CNT], flag = 0;
    MPI_Request s, r, ord;
    MPI_Comm w = MPI_COMM_WORLD;
    MPI_Psend_init(sbuf, N, CNT, MPI_INT, next, TAG, w, MPI_INFO_NULL, &s);
    MPI_Precv_init(rbuf, N, CNT, MPI_INT, prev, TAG, w, MPI_INFO_NULL, &r);
    /* Ordinary request to be handed to the partitioned calls: a receive nobody sends to. */
    MPI_Irecv(rbuf, 1, MPI_INT, prev, TAG + 1, w, &ord);

    /* Inactive. */
    errs += expect(MPI_Pready(0, s), MPI_ERR_REQUEST, 1, "MPI_Pready before MPI_Start");
    if (KNOWN_PARRIVED_INACTIVE_BUG) {
        if (round == 0)
            printf("[%d] note: MPI_Parrived of an inactive request and of MPI_REQUEST_NULL not "
                   "called: known bug of MPICH < 4.1 (pmodels/mpich#6361)\n",
                   mtest_rank);
    } else {
        flag = 0;
        MTEST_CHECK_RC(errs, MPI_Parrived(r, 0, &flag), "MPI_Parrived before MPI_Start");
        MTEST_CHECK_INT(errs, 1, flag, "MPI_Parrived before MPI_Start: flag");
        flag = 0;
        MTEST_CHECK_RC(errs, MPI_Parrived(MPI_REQUEST_NULL, 0, &flag),
                       "MPI_Parrived(MPI_REQUEST_NULL)");
        MTEST_CHECK_INT(errs, 1, flag, "MPI_Parrived(MPI_REQUEST_NULL): flag");
    }

    for (int i = 0; i < N * CNT; i++) {
        sbuf[i] = round * 1000 + mtest_rank * 100 + i;
        rbuf[i] = -1;
    }
    MPI_Start(&s);
    MPI_Start(&r);
    errs += expect(MPI_Start(&s), MPI_ERR_REQUEST, 1, "MPI_Start of an active send");
    errs += expect(MPI_Pready(N, s), MPI_ERR_ARG, 1, "MPI_Pready(N)");
    errs += expect(MPI_Pready(-1, s), MPI_ERR_ARG, 1, "MPI_Pready(-1)");
    errs += expect(MPI_Pready(0, r), MPI_ERR_REQUEST, 1, "MPI_Pready of a receive request");
    errs += expect(MPI_Pready(0, ord), MPI_ERR_REQUEST, 1, "MPI_Pready of an MPI_Irecv request");
    errs += expect(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST, 1,
                   "MPI_Pready of MPI_REQUEST_NULL");
    errs += expect(MPI_Pready_range(2, 1, s), MPI_ERR_ARG, 1, "MPI_Pready_range(2, 1)");
    int dup[3] = {1, 2, 1}, neg[2] = {0, -2};
    /* These may mark the partitions before the bad one elsewhere. */
    STRICT_ONLY(errs +=
                expect(MPI_Pready_range(1, N, s), MPI_ERR_ARG, 0, "MPI_Pready_range(1, N)"));
    STRICT_ONLY(errs +=
                expect(MPI_Pready_list(3, dup, s), MPI_ERR_ARG, 0, "MPI_Pready_list {1, 2, 1}"));
    STRICT_ONLY(errs +=
                expect(MPI_Pready_list(2, neg, s), MPI_ERR_ARG, 0, "MPI_Pready_list {0, -2}"));
    errs += expect(MPI_Pready_list(-1, dup, s), MPI_ERR_ARG, 1, "MPI_Pready_list of length -1");
    errs += expect(MPI_Parrived(s, 0, &flag), MPI_ERR_REQUEST, 1, "MPI_Parrived of a send");
    errs += expect(MPI_Parrived(ord, 0, &flag), MPI_ERR_REQUEST, 1,
                   "MPI_Parrived of an MPI_Irecv request");
    errs += expect(MPI_Parrived(r, N, &flag), MPI_ERR_ARG, 1, "MPI_Parrived(N)");
    STRICT_ONLY(errs += expect(MPI_Request_free(&s), MPI_ERR_REQUEST, 0,
                               "MPI_Request_free of an active send"));
    STRICT_ONLY(errs +=
                expect(MPI_Cancel(&r), MPI_ERR_REQUEST, 0, "MPI_Cancel of an active receive"));
    if (!STRICT && round == 0)
        printf("[%d] note: not tried here (erroneous calls another library may act on): "
               "MPI_Pready_range and _list with a bad partition among good ones, MPI_Pready of a "
               "ready partition, MPI_Request_free and MPI_Cancel of an active request, a "
               "receive smaller than the data\n",
               mtest_rank);

    /* None of the refused calls marked a partition: each one is ready exactly once now. */
    MTEST_CHECK_RC(errs, MPI_Pready(1, s), "MPI_Pready(1) after the refused calls");
    STRICT_ONLY(errs += expect(MPI_Pready(1, s), MPI_ERR_ARG, 0, "MPI_Pready(1) a second time"));
    int rest[2] = {3, 2};
    MTEST_CHECK_RC(errs, MPI_Pready_list(2, rest, s), "MPI_Pready_list {3, 2}");
    MTEST_CHECK_RC(errs, MPI_Pready_range(0, 0, s), "MPI_Pready_range(0, 0)");
    MPI_Status st;
    MTEST_CHECK_RC(errs, MPI_Wait(&s, MPI_STATUS_IGNORE), "MPI_Wait of the send");
    MTEST_CHECK_RC(errs, MPI_Wait(&r, &st), "MPI_Wait of the receive");
    errs += mtest_check_status(&st, prev, TAG, MPI_INT, N * CNT, "the receive's status");
    for (int i = 0; i < N * CNT; i++) {
        int want = round * 1000 + prev * 100 + i;
        if (rbuf[i] != want) {
            MTEST_FAIL(errs, "int %d: expected %d, saw %d", i, want, rbuf[i]);
            break;
        }
    }
    errs += expect(MPI_Pready(0, s), MPI_ERR_REQUEST, 1, "MPI_Pready after the round");
    MTEST_CHECK_RC(errs, MPI_Request_free(&s), "MPI_Request_free of the inactive send");
    MTEST_CHECK_RC(errs, MPI_Request_free(&r), "MPI_Request_free of the inactive receive");
    MPI_Cancel(&ord);
    MPI_Wait(&ord, MPI_STATUS_IGNORE);
    return errs;
}

/* The sender's data is larger than the receive buffer: the receive fails with
 * MPI_ERR_TRUNCATE (the send completes); a sender's data smaller than the buffer: the receive
 * completes with the data's size. */
static int truncation(int next, int prev)
{
    int errs = 0, sbuf[N * CNT] = {0}, rbuf[N * CNT];
    MPI_Request req[2];
    MPI_Psend_init(sbuf, N, CNT, MPI_INT, next, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
    MPI_Precv_init(rbuf, N - 1, CNT, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
    MPI_Startall(2, req);
    MPI_Pready_range(0, N - 1, req[0]);
    MTEST_CHECK_RC(errs, MPI_Wait(&req[0], MPI_STATUS_IGNORE), "the larger send");
    errs += expect(MPI_Wait(&req[1], MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, 0,
                   "a partitioned receive smaller than the data");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    /* A receive larger than the data completes with the sender's bytes (doc/api.md). */
    int big[(N + 1) * CNT];
    MPI_Status st;
    MPI_Psend_init(sbuf, N, CNT, MPI_INT, next, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]);
    MPI_Precv_init(big, N + 1, CNT, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]);
    MPI_Startall(2, req);
    MPI_Pready_range(0, N - 1, req[0]);
    MTEST_CHECK_RC(errs, MPI_Wait(&req[0], MPI_STATUS_IGNORE), "the smaller send");
    MTEST_CHECK_RC(errs, MPI_Wait(&req[1], &st), "a partitioned receive larger than the data");
    errs += mtest_check_status(&st, prev, TAG, MPI_INT, N * CNT, "the larger receive's status");
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int next = (mtest_rank + 1) % mtest_size, prev = (mtest_rank + mtest_size - 1) % mtest_size;
    errs += init_errors(next, prev);
    for (int round = 0; round < 2; round++)
        errs += request_errors(next, prev, round);
    STRICT_ONLY(errs += truncation(next, prev));
    errs += request_errors(next, prev, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
