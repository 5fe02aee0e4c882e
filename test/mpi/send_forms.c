/* send_forms.c: the send and receive forms send_modes.c leaves out (MPI-4.1 secs. 3.4-3.10,
 * 13.2): Irsend, Rsend_init, Ibsend, Bsend_init with Buffer_flush and Buffer_iflush,
 * Sendrecv_replace, Isendrecv, Isendrecv_replace, over a ring (rank r sends to r + 1 and
 * receives from r - 1; one rank talks to itself), with messages of 4 bytes and 200 KiB (eager
 * and rendezvous by default); and Status_set_elements_x / _c read back through a generalized
 * request's status. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define BIG (200 * 1024 / 4)

static int right, left;

static void fill(int *buf, int n, int from, int salt)
{
    for (int i = 0; i < n; i++)
        buf[i] = from * 1000003 + salt * 7919 + i;
}

static int check(const int *buf, int n, int from, int salt, const char *what)
{
    int errs = 0;
    for (int i = 0; i < n; i++)
        if (buf[i] != from * 1000003 + salt * 7919 + i) {
            MTEST_FAIL(errs, "%s (%d ints): element %d is %d, expected %d", what, n, i, buf[i],
                       from * 1000003 + salt * 7919 + i);
            break;
        }
    return errs;
}

static int check_status(const MPI_Status *st, int n, int src, int tag, const char *what)
{
    int errs = 0, count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    MTEST_CHECK_INT(errs, n, count, "%s: count", what);
    MTEST_CHECK_INT(errs, src, st->MPI_SOURCE, "%s: source", what);
    MTEST_CHECK_INT(errs, tag, st->MPI_TAG, "%s: tag", what);
    return errs;
}

/* Ready sends: the receive is posted, then the sender is told to go. */
static int ready(int n)
{
    int errs = 0, *s = malloc(sizeof(int) * n), *r = malloc(sizeof(int) * n);
    MPI_Request rr, sr;
    MPI_Status st;
    for (int round = 0; round < 3; round++) {
        fill(s, n, mtest_rank, round);
        memset(r, 0, sizeof(int) * n);
        MPI_Irecv(r, n, MPI_INT, left, 30, MPI_COMM_WORLD, &rr);
        MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 31, NULL, 0, MPI_BYTE, right, 31, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (round == 0)
            MPI_Irsend(s, n, MPI_INT, right, 30, MPI_COMM_WORLD, &sr);
        else if (round == 1)
            MPI_Rsend_init(s, n, MPI_INT, right, 30, MPI_COMM_WORLD, &sr);
        if (round >= 1)
            MPI_Start(&sr);
        MPI_Wait(&rr, &st);
        MPI_Wait(&sr, MPI_STATUS_IGNORE);
        const char *what = round == 0 ? "MPI_Irsend" : "MPI_Rsend_init";
        errs += check(r, n, left, round, what);
        errs += check_status(&st, n, left, 30, what);
        /* The persistent request is started twice; a barrier keeps the next round's ready
         * send behind its receive. */
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Request_free(&sr);
    free(s);
    free(r);
    return errs;
}

/* Buffered sends, completed locally before any receive is posted; Buffer_flush and
 * Buffer_iflush return once the buffer holds none of them. */
static int buffered(int n)
{
    int errs = 0, psize;
    MPI_Pack_size(n, MPI_INT, MPI_COMM_WORLD, &psize);
    int bsize = 2 * (psize + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc(bsize);
    int *s1 = malloc(sizeof(int) * n), *s2 = malloc(sizeof(int) * n);
    int *r = malloc(sizeof(int) * n);
    MPI_Buffer_attach(bbuf, bsize);
    for (int round = 0; round < 2; round++) {
        MPI_Request a, b;
        fill(s1, n, mtest_rank, 10 + round);
        fill(s2, n, mtest_rank, 20 + round);
        MPI_Ibsend(s1, n, MPI_INT, right, 40, MPI_COMM_WORLD, &a);
        MPI_Bsend_init(s2, n, MPI_INT, right, 41, MPI_COMM_WORLD, &b);
        MPI_Start(&b);
        /* Both complete without a receive: the data is in the attached buffer. */
        MPI_Wait(&a, MPI_STATUS_IGNORE);
        MPI_Wait(&b, MPI_STATUS_IGNORE);
        MPI_Request_free(&b);
        memset(s1, 0, sizeof(int) * n);
        memset(s2, 0, sizeof(int) * n);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Recv(r, n, MPI_INT, left, 41, MPI_COMM_WORLD, &st);
        errs += check(r, n, left, 20 + round, "MPI_Bsend_init");
        errs += check_status(&st, n, left, 41, "MPI_Bsend_init");
        MPI_Recv(r, n, MPI_INT, left, 40, MPI_COMM_WORLD, &st);
        errs += check(r, n, left, 10 + round, "MPI_Ibsend");
        errs += check_status(&st, n, left, 40, "MPI_Ibsend");
        if (round == 0)
            MTEST_CHECK_RC(errs, MPI_Buffer_flush(), "MPI_Buffer_flush");
        else {
            MPI_Request f;
            MTEST_CHECK_RC(errs, MPI_Buffer_iflush(&f), "MPI_Buffer_iflush");
            MPI_Wait(&f, MPI_STATUS_IGNORE);
        }
    }
    void *addr;
    int size = 0;
    MPI_Buffer_detach(&addr, &size);
    MTEST_CHECK_INT(errs, bsize, size, "MPI_Buffer_detach: size");
    if (addr != bbuf)
        MTEST_FAIL(errs, "MPI_Buffer_detach gave back another address");
    free(bbuf);
    free(s1);
    free(s2);
    free(r);
    return errs;
}

static int combined(int n)
{
    int errs = 0, *b = malloc(sizeof(int) * n), *s = malloc(sizeof(int) * n);
    MPI_Status st;
    fill(b, n, mtest_rank, 50);
    MPI_Sendrecv_replace(b, n, MPI_INT, right, 50, left, 50, MPI_COMM_WORLD, &st);
    errs += check(b, n, left, 50, "MPI_Sendrecv_replace");
    errs += check_status(&st, n, left, 50, "MPI_Sendrecv_replace");

    MPI_Request req;
    fill(s, n, mtest_rank, 51);
    memset(b, 0, sizeof(int) * n);
    MPI_Isendrecv(s, n, MPI_INT, right, 51, b, n, MPI_INT, MPI_ANY_SOURCE, 51, MPI_COMM_WORLD,
                  &req);
    MPI_Wait(&req, &st);
    errs += check(b, n, left, 51, "MPI_Isendrecv");
    errs += check_status(&st, n, left, 51, "MPI_Isendrecv");
    errs += check(s, n, mtest_rank, 51, "MPI_Isendrecv's send buffer afterwards");

    fill(b, n, mtest_rank, 52);
    MPI_Isendrecv_replace(b, n, MPI_INT, right, 52, left, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    errs += check(b, n, left, 52, "MPI_Isendrecv_replace");
    errs += check_status(&st, n, left, 52, "MPI_Isendrecv_replace");
    free(b);
    free(s);
    return errs;
}

/* A generalized request whose query function reports a count that only the large-count
 * interfaces can hold, set with Status_set_elements_x or _c. */
static int use_c;
static int query(void *extra, MPI_Status *st)
{
    MPI_Count big = (MPI_Count)3 << 31; /* 6 Gi bytes */
    if (use_c)
        MPI_Status_set_elements_c(st, MPI_BYTE, big);
    else
        MPI_Status_set_elements_x(st, MPI_BYTE, big);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra)
{
    return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete)
{
    return MPI_SUCCESS;
}

static int status_elements(void)
{
    int errs = 0;
    for (use_c = 0; use_c < 2; use_c++) {
        MPI_Request req;
        MPI_Status st;
        MPI_Grequest_start(query, free_fn, cancel_fn, NULL, &req);
        MPI_Grequest_complete(req);
        MPI_Wait(&req, &st);
        MPI_Count x = -1, c = -1, words = -1;
        int classic = 0;
        MPI_Get_elements_x(&st, MPI_BYTE, &x);
        MPI_Get_count_c(&st, MPI_BYTE, &c);
        MPI_Get_count_c(&st, MPI_INT, &words);
        MPI_Get_count(&st, MPI_BYTE, &classic);
        const char *how = use_c ? "MPI_Status_set_elements_c" : "MPI_Status_set_elements_x";
        MTEST_CHECK_INT(errs, (MPI_Count)3 << 31, x, "%s: MPI_Get_elements_x", how);
        MTEST_CHECK_INT(errs, (MPI_Count)3 << 31, c, "%s: MPI_Get_count_c", how);
        MTEST_CHECK_INT(errs, ((MPI_Count)3 << 31) / 4, words, "%s: MPI_Get_count_c in ints", how);
        /* Too large for an int: MPI_UNDEFINED (MPI-4.1 sec. 3.2.5). */
        MTEST_CHECK_INT(errs, MPI_UNDEFINED, classic, "%s: MPI_Get_count", how);
    }
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    right = (mtest_rank + 1) % mtest_size;
    left = (mtest_rank + mtest_size - 1) % mtest_size;
    const int sizes[2] = {1, BIG};
    for (int i = 0; i < 2; i++) {
        errs += ready(sizes[i]);
        errs += buffered(sizes[i]);
        errs += combined(sizes[i]);
    }
    errs += status_elements();
    return MTest_Finalize(errs);
}
