/* ssend_sync.c: synchronous-mode sends complete only once the matching receive has started.
 * An Issend must still be incomplete (MPI_Test false) while the receiver provably has not posted
 * the receive: first while the receiver is blocked waiting for a separate message, then after
 * the receiver has Probed the message (it arrived, but a probe is not a receive). A blocking
 * Ssend lasts at least as long as the receiver waits before posting (a lower bound only, so a
 * slow machine cannot make it fail). Also Ssend/Issend to self with the receive posted first.
 * Sizes from 0 bytes to 4 MiB. Rank 0 sends, rank 1 receives. */
#include "mtest.h"

#include <stdlib.h>

#define DELAY 0.3
#define NTESTS 200

static const size_t sizes[] = {0, 8, 100000, 4u << 20};
#define NSIZES ((int)(sizeof sizes / sizeof sizes[0]))

static int test_stays_false(MPI_Request *req, const char *when, size_t n)
{
    int errs = 0;
    for (int k = 0; k < NTESTS; k++) {
        int flag = 0;
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            MTEST_FAIL(errs, "Issend of %zu bytes completed %s (MPI_Test #%d said true)", n, when,
                       k);
            break;
        }
        if (k % 50 == 49)
            mtest_sleep(0.002); /* let the receiver run: it must still not have posted */
    }
    return errs;
}

static int sender(void)
{
    int errs = 0, rc;
    char *buf = mtest_malloc(sizes[NSIZES - 1]);
    for (int i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        MPI_Request req;
        mtest_fill_bytes(buf, n, i);
        rc = MPI_Issend(buf, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req);
        MTEST_CHECK_RC(errs, rc, "MPI_Issend of %zu bytes", n);
        errs += test_stays_false(&req, "while the receiver waits for another message", n);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* "probed" */
        if (req != MPI_REQUEST_NULL)
            errs += test_stays_false(&req, "after the receiver only probed it", n);
        MPI_Send(NULL, 0, MPI_BYTE, 1, 2, MPI_COMM_WORLD); /* "go" */
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait of the Issend of %zu bytes", n);

        /* blocking Ssend: the receiver sleeps DELAY after our "start" before posting */
        double t0 = MPI_Wtime();
        MPI_Send(NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
        rc = MPI_Ssend(buf, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
        double dt = MPI_Wtime() - t0;
        MTEST_CHECK_RC(errs, rc, "MPI_Ssend of %zu bytes", n);
        if (dt < DELAY * 0.95)
            MTEST_FAIL(errs,
                       "MPI_Ssend of %zu bytes returned after %.3f s, before the receiver "
                       "posted its receive (it waited %.3f s first)",
                       n, dt, DELAY);
    }
    free(buf);
    return errs;
}

static int receiver(void)
{
    int errs = 0, rc;
    char *buf = mtest_malloc(sizes[NSIZES - 1] + 64);
    for (int i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        MPI_Status st;
        rc = MPI_Probe(0, 1, MPI_COMM_WORLD, &st);
        errs += mtest_check_status(&st, 0, 1, MPI_BYTE, (int)n, "Probe of the Issend message");
        MPI_Send(NULL, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mtest_fill_guard(buf, n + 64);
        rc = MPI_Recv(buf, (int)n + 64, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv of the Issend message");
        errs += mtest_check_status(&st, 0, 1, MPI_BYTE, (int)n, "Issend message");
        errs += mtest_check_bytes(buf, n, i, "Issend message");
        errs += mtest_check_guard(buf, n, n + 64, "Issend message");

        MPI_Recv(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mtest_sleep(DELAY);
        mtest_fill_guard(buf, n + 64);
        rc = MPI_Recv(buf, (int)n + 64, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Recv of the Ssend message");
        errs += mtest_check_status(&st, 0, 5, MPI_BYTE, (int)n, "Ssend message");
        errs += mtest_check_bytes(buf, n, i, "Ssend message");
    }
    free(buf);
    return errs;
}

static int self_tests(void)
{
    int errs = 0, rc;
    char sb[1000], rb[1000];
    MPI_Request rreq, sreq;
    MPI_Status st;
    int flag;

    /* Ssend to self is legal when the receive is already posted */
    mtest_fill_bytes(sb, sizeof sb, 42);
    MPI_Irecv(rb, sizeof rb, MPI_BYTE, 0, 1, MPI_COMM_SELF, &rreq);
    rc = MPI_Ssend(sb, sizeof sb, MPI_BYTE, 0, 1, MPI_COMM_SELF);
    MTEST_CHECK_RC(errs, rc, "MPI_Ssend to self with the receive posted");
    MPI_Wait(&rreq, &st);
    errs += mtest_check_status(&st, 0, 1, MPI_BYTE, sizeof sb, "Ssend to self");
    errs += mtest_check_bytes(rb, sizeof sb, 42, "Ssend to self");

    /* Issend to self stays incomplete until the receive is posted */
    rc = MPI_Issend(sb, sizeof sb, MPI_BYTE, 0, 2, MPI_COMM_SELF, &sreq);
    MTEST_CHECK_RC(errs, rc, "MPI_Issend to self");
    errs += test_stays_false(&sreq, "to self before any receive was posted", sizeof sb);
    rc = MPI_Recv(rb, sizeof rb, MPI_BYTE, 0, 2, MPI_COMM_SELF, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Recv of the Issend to self");
    flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 60)
        MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, 1, flag, "Issend to self completes after its receive (60 s limit)");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    errs += self_tests();
    if (mtest_size < 2)
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    else if (mtest_rank == 0)
        errs += sender();
    else if (mtest_rank == 1)
        errs += receiver();
    return MTest_Finalize(errs);
}
