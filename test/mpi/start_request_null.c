/* start_request_null.c: MPI_Start and MPI_Startall on a request that no MPI_*_init call made
 * (MPI_REQUEST_NULL, as OSU 7.5's osu_reduce_scatter_block_persistent leaves it after calling
 * the blocking MPI_Reduce_scatter_block where the _init form belongs), on a freed persistent
 * request and on a nonpersistent one: each is MPI_ERR_REQUEST, and the text says which case it
 * is (it printed "Request 0x2c000000 is not a persistent request" for MPI_REQUEST_NULL), with
 * the array index for MPI_Startall; nothing is started, and the job goes on. */
#include "mtest.h"

#include <string.h>

/* rc must be of class MPI_ERR_REQUEST and, with Ferry (the texts are the implementation's),
 * its string must contain `words`. */
static int expect_request_error(int rc, const char *words, const char *what)
{
    int errs = mtest_check_class(rc, MPI_ERR_REQUEST, what);
    if (rc == MPI_SUCCESS)
        return errs;
#ifdef FERRY_VERSION
    char s[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, s, &len);
    if (!strstr(s, words))
        MTEST_FAIL(errs, "%s: error string \"%s\" does not say \"%s\"", what, s, words);
#else
    (void)words;
#endif
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    rank = mtest_rank;
    size = mtest_size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* OSU's sequence: the blocking collective, then a start of the never-made request */
    int in[8], out[8];
    for (int i = 0; i < 8; i++)
        in[i] = rank + i;
    int rc = MPI_Reduce_scatter_block(in, out, 8 / size, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "MPI_Reduce_scatter_block");
    MPI_Request never = MPI_REQUEST_NULL;
    errs +=
        expect_request_error(MPI_Start(&never), "MPI_REQUEST_NULL", "MPI_Start(MPI_REQUEST_NULL)");
    MPI_Status st;
    rc = MPI_Wait(&never, &st); /* a null request completes at once */
    MTEST_CHECK_RC(errs, rc, "MPI_Wait(MPI_REQUEST_NULL)");

    /* a persistent request, freed: its variable is MPI_REQUEST_NULL again */
    MPI_Request pr;
    rc = MPI_Reduce_scatter_block_init(in, out, 8 / size, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                       MPI_INFO_NULL, &pr);
    MTEST_CHECK_RC(errs, rc, "MPI_Reduce_scatter_block_init");
    rc = MPI_Start(&pr);
    MTEST_CHECK_RC(errs, rc, "MPI_Start(persistent reduce_scatter_block)");
    rc = MPI_Wait(&pr, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Wait(persistent reduce_scatter_block)");
    for (int i = 0; i < 8 / size; i++) {
        int want = 0;
        for (int r = 0; r < size; r++)
            want += r + rank * (8 / size) + i;
        MTEST_CHECK_INT(errs, want, out[i], "reduce_scatter_block_init result [%d]", i);
    }
    rc = MPI_Request_free(&pr);
    MTEST_CHECK_RC(errs, rc, "MPI_Request_free");
    errs += expect_request_error(MPI_Start(&pr), "MPI_REQUEST_NULL", "MPI_Start(freed request)");

    /* MPI_Startall names the offending entry and starts none of them */
    int peer = (rank + 1) % size, from = (rank + size - 1) % size, rbuf = -1, sbuf = rank;
    MPI_Request two[2];
    rc = MPI_Recv_init(&rbuf, 1, MPI_INT, from, 5, MPI_COMM_WORLD, &two[0]);
    MTEST_CHECK_RC(errs, rc, "MPI_Recv_init");
    two[1] = MPI_REQUEST_NULL;
    errs += expect_request_error(MPI_Startall(2, two), "array_of_requests[1]",
                                 "MPI_Startall({recv, MPI_REQUEST_NULL})");

    /* a nonpersistent request is named as such */
    MPI_Request isend;
    rc = MPI_Isend(&sbuf, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &isend);
    MTEST_CHECK_RC(errs, rc, "MPI_Isend");
    errs += expect_request_error(MPI_Start(&isend), "is not a persistent request",
                                 "MPI_Start(Isend request)");

    /* the refused Startall started nothing: the receive starts now and gets the Isend */
    rc = MPI_Start(&two[0]);
    MTEST_CHECK_RC(errs, rc, "MPI_Start(recv)");
    rc = MPI_Wait(&two[0], &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Wait(recv)");
    MTEST_CHECK_INT(errs, from, rbuf, "value received after the refused MPI_Startall");
    rc = MPI_Wait(&isend, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Wait(Isend)");
    MPI_Request_free(&two[0]);
    return MTest_Finalize(errs);
}
