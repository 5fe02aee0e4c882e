/* cancel_recv.c: MPI_Cancel of receives. A posted receive that no message can match is
 * cancelled (MPI_Test_cancelled true after Wait or a Test loop), leaves its buffer untouched and
 * does not swallow a later message with the same signature; a receive that already matched is
 * not cancelled (Test_cancelled false, data delivered); 100 cancelled receives at once; wildcard
 * receives; receives on MPI_COMM_SELF. Rank 1 sends only when rank 0 says "go". */
#include "mtest.h"

#include <stdlib.h>

#define GO_TAG 999
#define LEN 4096

static int cancelled_of(const MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

static void go(void)
{
    MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
}
static void wait_go(void)
{
    MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Posts a receive nothing matches yet, cancels it, completes it with Wait or a Test loop. */
static int cancel_one(MPI_Comm comm, int src, int tag, int use_test, const char *what)
{
    int errs = 0, rc;
    char *buf = mtest_malloc(LEN);
    MPI_Request req;
    MPI_Status st;
    mtest_fill_guard(buf, LEN);
    rc = MPI_Irecv(buf, LEN, MPI_BYTE, src, tag, comm, &req);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Irecv", what);
    rc = MPI_Cancel(&req);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Cancel", what);
    if (use_test) {
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 60)
            MPI_Test(&req, &flag, &st);
        MTEST_CHECK_INT(errs, 1, flag, "%s: Test loop after Cancel completed (60 s limit)", what);
    } else {
        rc = MPI_Wait(&req, &st);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Wait after Cancel", what);
    }
    MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "%s: request after completion", what);
    MTEST_CHECK_INT(errs, 1, cancelled_of(&st), "%s: MPI_Test_cancelled", what);
    errs += mtest_check_guard(buf, 0, LEN, what);
    free(buf);
    return errs;
}

static int rank0(void)
{
    int errs = 0, rc;
    MPI_Status st;
    MPI_Request req;
    char *buf = mtest_malloc(LEN);

    errs += cancel_one(MPI_COMM_WORLD, 1, 5, 0, "named receive, Wait");
    errs += cancel_one(MPI_COMM_WORLD, 1, 5, 1, "named receive, Test loop");
    errs += cancel_one(MPI_COMM_WORLD, MPI_ANY_SOURCE, 5, 0, "ANY_SOURCE receive");
    errs +=
        cancel_one(MPI_COMM_WORLD, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, "ANY_SOURCE+ANY_TAG receive");

    /* the cancelled receives did not take the message sent now with the same tag */
    go();
    mtest_fill_guard(buf, LEN);
    rc = MPI_Recv(buf, LEN, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &st);
    MTEST_CHECK_RC(errs, rc, "receive after the cancellations");
    errs += mtest_check_status(&st, 1, 5, MPI_BYTE, 100, "message sent after cancellations");
    errs += mtest_check_bytes(buf, 100, 5, "message sent after cancellations");
    MTEST_CHECK_INT(errs, 0, cancelled_of(&st), "Test_cancelled of a normal receive");

    /* a receive that has matched cannot be cancelled any more. Rank 1 sends two messages with
     * the same tag; once the second one has been received by the Recv, the first one has
     * certainly been matched by the earlier Irecv (non-overtaking). */
    mtest_fill_guard(buf, LEN);
    MPI_Irecv(buf, LEN, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &req);
    go();
    char second[16];
    MPI_Recv(second, sizeof second, MPI_BYTE, 1, 6, MPI_COMM_WORLD, &st);
    errs += mtest_check_status(&st, 1, 6, MPI_BYTE, 9, "the second message of tag 6");
    rc = MPI_Cancel(&req);
    MTEST_CHECK_RC(errs, rc, "MPI_Cancel of a matched receive");
    rc = MPI_Wait(&req, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Wait of a matched receive after Cancel");
    MTEST_CHECK_INT(errs, 0, cancelled_of(&st), "Test_cancelled of a receive that had matched");
    errs += mtest_check_status(&st, 1, 6, MPI_BYTE, 200, "receive that had matched before Cancel");
    errs += mtest_check_bytes(buf, 200, 6, "receive that had matched before Cancel");

    /* 100 receives cancelled together, then the one message they would all have matched */
    {
        enum { N = 100 };
        MPI_Request reqs[N];
        MPI_Status sts[N];
        int vals[N];
        for (int i = 0; i < N; i++) {
            vals[i] = -7;
            MPI_Irecv(&vals[i], 1, MPI_INT, i % 2 ? MPI_ANY_SOURCE : 1, 7, MPI_COMM_WORLD,
                      &reqs[i]);
        }
        for (int i = N - 1; i >= 0; i--)
            MPI_Cancel(&reqs[i]);
        rc = MPI_Waitall(N, reqs, sts);
        MTEST_CHECK_RC(errs, rc, "MPI_Waitall of 100 cancelled receives");
        int ncancelled = 0, untouched = 0;
        for (int i = 0; i < N; i++) {
            ncancelled += cancelled_of(&sts[i]) == 1;
            untouched += vals[i] == -7;
        }
        MTEST_CHECK_INT(errs, N, ncancelled, "cancelled receives among 100");
        MTEST_CHECK_INT(errs, N, untouched, "buffers untouched among 100 cancelled receives");
        go();
        int v = -1;
        MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &st);
        MTEST_CHECK_INT(errs, 777, v, "the message after 100 cancelled receives");
    }

    free(buf);
    return errs;
}

static void rank1(void)
{
    char *buf = mtest_malloc(LEN);
    wait_go();
    mtest_fill_bytes(buf, 100, 5);
    MPI_Send(buf, 100, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
    wait_go();
    mtest_fill_bytes(buf, 200, 6);
    MPI_Send(buf, 200, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
    MPI_Send(buf, 9, MPI_BYTE, 0, 6, MPI_COMM_WORLD);
    wait_go();
    int v = 777;
    MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    free(buf);
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);

    /* on MPI_COMM_SELF nobody else can send */
    errs += cancel_one(MPI_COMM_SELF, 0, 1, 0, "receive on MPI_COMM_SELF");
    errs += cancel_one(MPI_COMM_SELF, MPI_ANY_SOURCE, MPI_ANY_TAG, 1, "wildcard receive on SELF");

    if (mtest_size < 2)
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    else if (mtest_rank == 0)
        errs += rank0();
    else if (mtest_rank == 1)
        rank1();
    return MTest_Finalize(errs);
}
