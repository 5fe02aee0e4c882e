/* request_completion.c: completion calls on null, pending and completed requests. Wait, Test,
 * Waitany, Waitall and Testall on MPI_REQUEST_NULL (index MPI_UNDEFINED, "empty" status:
 * MPI_ANY_SOURCE, MPI_ANY_TAG, count 0), on mixtures of null and live requests, Test/Testall
 * that must say "not yet" because the peer provably has not sent, Waitany returning each
 * completed request exactly once, and MPI_Request_free of active send requests. Rank 0 and 1
 * work together; "go" messages from rank 0 decide when rank 1 may send. */
#include "mtest.h"

#include <stdlib.h>

#define GO_TAG 999

static int check_empty(const MPI_Status *st, const char *what)
{
    int errs = 0;
    MTEST_CHECK_INT(errs, MPI_ANY_SOURCE, st->MPI_SOURCE, "%s: empty status MPI_SOURCE", what);
    MTEST_CHECK_INT(errs, MPI_ANY_TAG, st->MPI_TAG, "%s: empty status MPI_TAG", what);
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    MTEST_CHECK_INT(errs, 0, n, "%s: Get_count of an empty status", what);
    return errs;
}

static void poison(MPI_Status *st)
{
    st->MPI_SOURCE = 4242;
    st->MPI_TAG = 2424;
}

static void go(void)
{
    MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
}
static void wait_go(void)
{
    MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Tests that need no peer. */
static int local_tests(void)
{
    int errs = 0, rc, idx, flag;
    MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Status st, sts[3];

    poison(&st);
    rc = MPI_Wait(&req, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Wait(MPI_REQUEST_NULL)");
    errs += check_empty(&st, "Wait(REQUEST_NULL)");

    poison(&st);
    flag = 0;
    rc = MPI_Test(&req, &flag, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Test(MPI_REQUEST_NULL)");
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Test(MPI_REQUEST_NULL) flag");
    errs += check_empty(&st, "Test(REQUEST_NULL)");

    poison(&st);
    idx = 77;
    rc = MPI_Waitany(3, reqs, &idx, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitany of 3 null requests");
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, idx, "MPI_Waitany of 3 null requests: index");
    errs += check_empty(&st, "Waitany(all null)");

    idx = 77;
    rc = MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitany of 0 requests");
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, idx, "MPI_Waitany of 0 requests: index");

    for (int i = 0; i < 3; i++)
        poison(&sts[i]);
    rc = MPI_Waitall(3, reqs, sts);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall of 3 null requests");
    for (int i = 0; i < 3; i++)
        errs += check_empty(&sts[i], "Waitall(all null)");
    rc = MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall of 0 requests");

    flag = 0;
    for (int i = 0; i < 3; i++)
        poison(&sts[i]);
    rc = MPI_Testall(3, reqs, &flag, sts);
    MTEST_CHECK_RC(errs, rc, "MPI_Testall of 3 null requests");
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Testall of 3 null requests: flag");
    for (int i = 0; i < 3; i++)
        errs += check_empty(&sts[i], "Testall(all null)");

    /* a completed self message among nulls */
    {
        int v = 5, w = 0;
        reqs[0] = reqs[2] = MPI_REQUEST_NULL;
        MPI_Irecv(&w, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &reqs[1]);
        MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_SELF);
        rc = MPI_Waitany(3, reqs, &idx, &st);
        MTEST_CHECK_INT(errs, 1, idx, "Waitany(null, self receive, null): index");
        errs += mtest_check_status(&st, 0, 3, MPI_INT, 1, "Waitany(null, self receive, null)");
        MTEST_CHECK_INT(errs, 5, w, "data of the self receive");
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[1], "request completed by Waitany");
    }
    return errs;
}

static int rank0(void)
{
    int errs = 0, rc, idx, flag;
    int a = -1, b = -1, c = -1;
    MPI_Request reqs[4];
    MPI_Status st, sts[4];

    /* Waitany with some nulls: only B is sent first, so B must be the one returned */
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&a, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &reqs[1]);
    reqs[2] = MPI_REQUEST_NULL;
    MPI_Irecv(&b, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &reqs[3]);
    go();
    rc = MPI_Waitany(4, reqs, &idx, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitany(null, A, null, B)");
    MTEST_CHECK_INT(errs, 3, idx, "Waitany(null, A, null, B) with only B sent: index");
    errs += mtest_check_status(&st, 1, 11, MPI_INT, 1, "Waitany: B");
    MTEST_CHECK_INT(errs, 111, b, "Waitany: data of B");
    MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[3], "Waitany: B's request afterwards");

    /* A is still pending, its sender waits for go: Test and Testall must say no */
    flag = 1;
    rc = MPI_Test(&reqs[1], &flag, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Test on a pending receive");
    MTEST_CHECK_INT(errs, 0, flag, "MPI_Test flag for a receive whose message is not sent yet");
    if (reqs[1] == MPI_REQUEST_NULL)
        MTEST_FAIL(errs, "MPI_Test that returned flag=false freed the request");
    flag = 1;
    rc = MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE);
    MTEST_CHECK_INT(errs, 0, flag, "MPI_Testall flag with one receive not yet sent");
    if (reqs[1] == MPI_REQUEST_NULL)
        MTEST_FAIL(errs, "MPI_Testall that returned flag=false freed a request");
    go();
    rc = MPI_Waitany(4, reqs, &idx, &st);
    MTEST_CHECK_INT(errs, 1, idx, "second Waitany: index of A");
    errs += mtest_check_status(&st, 1, 10, MPI_INT, 1, "Waitany: A");
    MTEST_CHECK_INT(errs, 110, a, "Waitany: data of A");
    poison(&st);
    rc = MPI_Waitany(4, reqs, &idx, &st);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, idx, "third Waitany, all null now: index");
    errs += check_empty(&st, "third Waitany, all null now");

    /* Waitall with nulls between a receive and a send */
    a = -1;
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&a, 1, MPI_INT, 1, 12, MPI_COMM_WORLD, &reqs[1]);
    reqs[2] = MPI_REQUEST_NULL;
    c = 300;
    MPI_Isend(&c, 1, MPI_INT, 1, 13, MPI_COMM_WORLD, &reqs[3]);
    for (int i = 0; i < 4; i++)
        poison(&sts[i]);
    rc = MPI_Waitall(4, reqs, sts);
    MTEST_CHECK_RC(errs, rc, "MPI_Waitall(null, recv, null, send)");
    errs += check_empty(&sts[0], "Waitall(null, recv, null, send): [0]");
    errs += check_empty(&sts[2], "Waitall(null, recv, null, send): [2]");
    errs += mtest_check_status(&sts[1], 1, 12, MPI_INT, 1, "Waitall: the receive");
    MTEST_CHECK_INT(errs, 112, a, "Waitall: data of the receive");
    for (int i = 0; i < 4; i++)
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[i], "Waitall: request %d afterwards", i);

    /* Test loop on a receive that will complete */
    a = -1;
    MPI_Irecv(&a, 1, MPI_INT, 1, 14, MPI_COMM_WORLD, &reqs[0]);
    go();
    flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 60)
        MPI_Test(&reqs[0], &flag, &st);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Test loop on a receive that was sent (60 s limit)");
    if (flag) {
        errs += mtest_check_status(&st, 1, 14, MPI_INT, 1, "Test loop");
        MTEST_CHECK_INT(errs, 114, a, "Test loop: data");
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[0], "request after a successful MPI_Test");
    }

    /* Testall loop until all done */
    int v[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++)
        MPI_Irecv(&v[i], 1, MPI_INT, 1, 20 + i, MPI_COMM_WORLD, &reqs[i]);
    go();
    flag = 0;
    t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 60)
        MPI_Testall(3, reqs, &flag, sts);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Testall loop (60 s limit)");
    if (flag) {
        for (int i = 0; i < 3; i++) {
            errs += mtest_check_status(&sts[i], 1, 20 + i, MPI_INT, 1, "Testall loop");
            MTEST_CHECK_INT(errs, 120 + i, v[i], "Testall loop: data %d", i);
            MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[i], "Testall: request %d afterwards", i);
        }
    }

    /* Waitany over many receives: the sender sends in a scrambled order; each request is
     * returned exactly once and its status belongs to it */
    {
        enum { N = 64 };
        MPI_Request r[N];
        int vals[N], seen[N] = {0};
        for (int i = 0; i < N; i++)
            MPI_Irecv(&vals[i], 1, MPI_INT, 1, 100 + i, MPI_COMM_WORLD, &r[i]);
        go();
        for (int k = 0; k < N; k++) {
            rc = MPI_Waitany(N, r, &idx, &st);
            if (idx < 0 || idx >= N) {
                MTEST_FAIL(errs, "Waitany #%d returned index %d", k, idx);
                break;
            }
            seen[idx]++;
            errs += mtest_check_status(&st, 1, 100 + idx, MPI_INT, 1, "Waitany over 64");
            MTEST_CHECK_INT(errs, 1000 + idx, vals[idx], "Waitany over 64: data of request %d",
                            idx);
        }
        rc = MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, MPI_UNDEFINED, idx, "Waitany after all 64 completed: index");
        for (int i = 0; i < N; i++)
            MTEST_CHECK_INT(errs, 1, seen[i], "times Waitany returned request %d", i);
    }

    /* the peer frees its active send requests: the messages still arrive intact */
    {
        size_t lens[3] = {8, 100000, 4u << 20};
        for (int i = 0; i < 3; i++) {
            char *buf = mtest_malloc(lens[i]);
            rc = MPI_Recv(buf, (int)lens[i], MPI_BYTE, 1, 30 + i, MPI_COMM_WORLD, &st);
            MTEST_CHECK_RC(errs, rc, "receive of a message whose send request was freed");
            errs += mtest_check_status(&st, 1, 30 + i, MPI_BYTE, (int)lens[i],
                                       "message sent with a freed request");
            errs += mtest_check_bytes(buf, lens[i], 30 + i, "message sent with a freed request");
            free(buf);
        }
        /* tell the sender its buffers may go */
        go();
    }
    return errs;
}

static int rank1(void)
{
    int errs = 0, rc;
    int a = 110, b = 111;
    wait_go();
    MPI_Send(&b, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
    wait_go();
    MPI_Send(&a, 1, MPI_INT, 0, 10, MPI_COMM_WORLD);

    a = 112;
    int c = -1;
    MPI_Sendrecv(&a, 1, MPI_INT, 0, 12, &c, 1, MPI_INT, 0, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, 300, c, "data from rank 0's Isend");

    wait_go();
    a = 114;
    MPI_Send(&a, 1, MPI_INT, 0, 14, MPI_COMM_WORLD);

    wait_go();
    for (int i = 2; i >= 0; i--) {
        a = 120 + i;
        MPI_Send(&a, 1, MPI_INT, 0, 20 + i, MPI_COMM_WORLD);
    }

    wait_go();
    for (int k = 0; k < 64; k++) {
        int i = (k * 37 + 11) % 64; /* a permutation of 0..63 */
        a = 1000 + i;
        MPI_Send(&a, 1, MPI_INT, 0, 100 + i, MPI_COMM_WORLD);
    }

    {
        size_t lens[3] = {8, 100000, 4u << 20};
        char *bufs[3];
        for (int i = 0; i < 3; i++) {
            MPI_Request req;
            bufs[i] = mtest_malloc(lens[i]);
            mtest_fill_bytes(bufs[i], lens[i], 30 + i);
            MPI_Isend(bufs[i], (int)lens[i], MPI_BYTE, 0, 30 + i, MPI_COMM_WORLD, &req);
            rc = MPI_Request_free(&req);
            MTEST_CHECK_RC(errs, rc, "MPI_Request_free of an active send request");
            MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "request after MPI_Request_free");
        }
        /* the buffers may be released only once the receiver confirms */
        wait_go();
        for (int i = 0; i < 3; i++)
            free(bufs[i]);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    errs += local_tests();
    if (mtest_size < 2)
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    else if (mtest_rank == 0)
        errs += rank0();
    else if (mtest_rank == 1)
        errs += rank1();
    return MTest_Finalize(errs);
}
