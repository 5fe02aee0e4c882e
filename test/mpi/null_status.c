/* null_status.c: a NULL status (not MPI_STATUS_IGNORE) or a NULL array of statuses is
 * MPI_ERR_ARG in every call that fills one, checked before the call does anything: the message
 * it would have received is still there, the requests it would have completed still pending.
 * Each rank talks to itself, so any number of ranks. */
#include "mtest.h"

static int errs;

static void expect_arg_error(int rc, const char *what)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
        MTEST_FAIL(errs, "%s with a NULL status: error class %d, expected MPI_ERR_ARG", what, cls);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm w = MPI_COMM_WORLD;
    int me = mtest_rank, v = 7, got = 0, flag = 0, index = -1, outcount = -1, indices[2];
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Request s, r[2];
    MPI_Message m;

    /* One message to ourselves, which every refused call must leave alone. */
    MPI_Isend(&v, 1, MPI_INT, me, 5, w, &s);
    expect_arg_error(MPI_Recv(&got, 1, MPI_INT, me, 5, w, NULL), "MPI_Recv");
    expect_arg_error(MPI_Probe(me, 5, w, NULL), "MPI_Probe");
    expect_arg_error(MPI_Iprobe(me, 5, w, &flag, NULL), "MPI_Iprobe");
    expect_arg_error(MPI_Mprobe(me, 5, w, &m, NULL), "MPI_Mprobe");
    expect_arg_error(MPI_Improbe(me, 5, w, &flag, &m, NULL), "MPI_Improbe");
    expect_arg_error(
        MPI_Sendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &got, 1, MPI_INT, me, 5, w, NULL),
        "MPI_Sendrecv");
    MPI_Status st;
    MPI_Mprobe(me, 5, w, &m, &st);
    expect_arg_error(MPI_Mrecv(&got, 1, MPI_INT, &m, NULL), "MPI_Mrecv");
    if (m == MPI_MESSAGE_NULL)
        MTEST_FAIL(errs, "MPI_Mrecv with a NULL status took the message");
    else
        MPI_Mrecv(&got, 1, MPI_INT, &m, &st);
    MTEST_CHECK_INT(errs, 7, got, "the message after the refused calls");

    /* Requests: the completion calls. */
    expect_arg_error(MPI_Wait(&s, NULL), "MPI_Wait");
    expect_arg_error(MPI_Test(&s, &flag, NULL), "MPI_Test");
    expect_arg_error(MPI_Request_get_status(s, &flag, NULL), "MPI_Request_get_status");
    expect_arg_error(MPI_Waitany(1, &s, &index, NULL), "MPI_Waitany");
    expect_arg_error(MPI_Testany(1, &s, &index, &flag, NULL), "MPI_Testany");
    if (s == MPI_REQUEST_NULL)
        MTEST_FAIL(errs, "a refused completion call freed the request");
    MPI_Wait(&s, MPI_STATUS_IGNORE);

    MPI_Irecv(&got, 1, MPI_INT, me, 6, w, &r[0]);
    MPI_Isend(&v, 1, MPI_INT, me, 6, w, &r[1]);
    expect_arg_error(MPI_Waitall(2, r, NULL), "MPI_Waitall");
    expect_arg_error(MPI_Testall(2, r, &flag, NULL), "MPI_Testall");
    expect_arg_error(MPI_Waitsome(2, r, &outcount, indices, NULL), "MPI_Waitsome");
    expect_arg_error(MPI_Testsome(2, r, &outcount, indices, NULL), "MPI_Testsome");
    if (r[0] == MPI_REQUEST_NULL || r[1] == MPI_REQUEST_NULL)
        MTEST_FAIL(errs, "a refused MPI_Waitall/Testall/-some freed a request");
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    /* No request, no status written: NULL is fine there. */
    if (MPI_Waitall(0, NULL, NULL) != MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Waitall of 0 requests with NULL statuses failed");

    MPI_Comm_set_errhandler(w, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
