/* session_buffer.c: MPI-4.1's session buffers for buffered sends (sec. 3.6.1), beside the
 * world model:
 *   - a communicator made from a session's group, and those derived from it (dup, split), use
 *     the session's buffer, not the process's: a message that fits the process's buffer but not
 *     the session's is MPI_ERR_BUFFER; MPI_COMM_WORLD keeps using the process's;
 *   - a communicator's own buffer comes before its session's;
 *   - detached, the session's communicators fall back to the process's buffer;
 *   - attaching twice, or detaching or flushing a session without a buffer, is MPI_ERR_BUFFER,
 *     raised on the session's handler (counted); MPI_SESSION_NULL is MPI_ERR_SESSION;
 *   - MPI_BUFFER_AUTOMATIC for a session: rendezvous-sized Bsends before the receiver posts;
 *     MPI_Session_iflush_buffer is not complete before the receiver took them, and is after;
 *     detach gives MPI_BUFFER_AUTOMATIC and 0;
 *   - MPI_Session_finalize with buffered sends still under way: they complete, the messages
 *     arrive.
 * Ranks 0 and 1 exchange; others take part in the collective calls only. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define BIG 40000 /* ints: rendezvous-sized on every method's default limits */
#define NBIG 6

static int eh_calls, eh_last_code;
static void count_errors(MPI_Session *session, int *code, ...)
{
    (void)session;
    eh_calls++;
    eh_last_code = *code;
}

static void fill(int *v, int n, int seed)
{
    for (int i = 0; i < n; i++)
        v[i] = seed + i;
}

static int check(const int *v, int n, int seed, const char *what)
{
    for (int i = 0; i < n; i++)
        if (v[i] != seed + i) {
            printf("%s: element %d is %d, expected %d\n", what, i, v[i], seed + i);
            return 1;
        }
    return 0;
}

/* A communicator over mpi://WORLD of session s, returning errors. */
static MPI_Comm world_of(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);
    MPI_Group_free(&g);
    return c;
}

/* Rank 0 Bsends n ints (seed) on comm expecting class want; rank 1 receives when it succeeded
 * (the outcome is shared first). */
static int bsend_as(MPI_Comm comm, int n, int seed, int want, const char *what)
{
    int errs = 0, rank, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    int *v = malloc(sizeof(int) * (size_t)n);
    if (rank == 0) {
        fill(v, n, seed);
        rc = MPI_Bsend(v, n, MPI_INT, 1, seed, comm);
        errs += mtest_check_class(rc, want, what);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    if (rank == 1 && rc == MPI_SUCCESS) {
        MTEST_CHECK_RC(errs, MPI_Recv(v, n, MPI_INT, 0, seed, comm, MPI_STATUS_IGNORE),
                       "%s: receive", what);
        errs += check(v, n, seed, what);
    }
    /* The block is free again before the next check counts on the space. */
    MPI_Barrier(comm);
    free(v);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    MPI_Errhandler eh;
    MPI_Session_create_errhandler(count_errors, &eh);
    MPI_Session s;
    MTEST_CHECK_RC(errs, MPI_Session_init(MPI_INFO_NULL, eh, &s), "Session_init");
    MPI_Comm sc = world_of(s, "ferry.test.session_buffer");

    /* The process's buffer holds a 64-int message; the session's only a 4-int one. */
    int psize = 64 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    int ssize = 4 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *pbuf = malloc((size_t)psize), *sbuf = malloc((size_t)ssize);
    MTEST_CHECK_RC(errs, MPI_Buffer_attach(pbuf, psize), "Buffer_attach");
    errs += bsend_as(sc, 64, 100, MPI_SUCCESS, "session comm, no session buffer: the process's");
    MTEST_CHECK_RC(errs, MPI_Session_attach_buffer(s, sbuf, ssize), "Session_attach_buffer");
    eh_calls = 0;
    errs += mtest_check_class(MPI_Session_attach_buffer(s, sbuf, ssize), MPI_ERR_BUFFER,
                              "a second Session_attach_buffer");
    if (eh_calls != 1 || eh_last_code == MPI_SUCCESS)
        MTEST_FAIL(errs, "the session's handler was called %d times for the second attach",
                   eh_calls);
    errs += bsend_as(sc, 4, 200, MPI_SUCCESS, "session comm, 4 ints in the session's buffer");
    errs += bsend_as(sc, 64, 300, MPI_ERR_BUFFER,
                     "session comm, 64 ints: the session's buffer, too small");
    errs += bsend_as(MPI_COMM_WORLD, 64, 400, MPI_SUCCESS, "MPI_COMM_WORLD: the process's");

    /* Derived communicators are the session's too. */
    MPI_Comm dup, split;
    MPI_Comm_dup(sc, &dup);
    MPI_Comm_split(sc, rank < 2 ? 0 : MPI_UNDEFINED, rank, &split);
    errs += bsend_as(dup, 4, 500, MPI_SUCCESS, "dup of the session comm, 4 ints");
    errs += bsend_as(dup, 64, 600, MPI_ERR_BUFFER, "dup of the session comm, 64 ints");
    if (split != MPI_COMM_NULL)
        errs += bsend_as(split, 64, 700, MPI_ERR_BUFFER, "split of the session comm, 64 ints");

    /* A communicator's own buffer comes first. */
    int csize = 128 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    char *cbuf = malloc((size_t)csize);
    MTEST_CHECK_RC(errs, MPI_Comm_attach_buffer(dup, cbuf, csize), "Comm_attach_buffer");
    errs += bsend_as(dup, 128, 800, MPI_SUCCESS, "dup with its own buffer, 128 ints");
    void *got = NULL;
    int got_size = -1;
    MTEST_CHECK_RC(errs, MPI_Comm_detach_buffer(dup, &got, &got_size), "Comm_detach_buffer");

    /* Detached: back to the process's buffer. */
    MTEST_CHECK_RC(errs, MPI_Session_detach_buffer(s, &got, &got_size), "Session_detach_buffer");
    if (got != sbuf || got_size != ssize)
        MTEST_FAIL(errs, "Session_detach_buffer gave %p and %d, expected %p and %d", got, got_size,
                   (void *)sbuf, ssize);
    if (split != MPI_COMM_NULL)
        errs += bsend_as(split, 64, 900, MPI_SUCCESS, "split after the detach: the process's");
    eh_calls = 0;
    errs += mtest_check_class(MPI_Session_detach_buffer(s, &got, &got_size), MPI_ERR_BUFFER,
                              "Session_detach_buffer with none attached");
    errs += mtest_check_class(MPI_Session_flush_buffer(s), MPI_ERR_BUFFER,
                              "Session_flush_buffer with none attached");
    MPI_Request req = MPI_REQUEST_NULL;
    errs += mtest_check_class(MPI_Session_iflush_buffer(s, &req), MPI_ERR_BUFFER,
                              "Session_iflush_buffer with none attached");
    if (eh_calls != 3)
        MTEST_FAIL(errs, "the session's handler was called %d times for 3 errors", eh_calls);
    errs += mtest_check_class(MPI_Session_attach_buffer(MPI_SESSION_NULL, sbuf, ssize),
                              MPI_ERR_SESSION, "Session_attach_buffer(MPI_SESSION_NULL)");
    MPI_Count csz = 0;
    errs += mtest_check_class(MPI_Session_detach_buffer_c(s, &got, NULL), MPI_ERR_ARG,
                              "Session_detach_buffer_c with size NULL");

    /* MPI_BUFFER_AUTOMATIC: rendezvous-sized messages before the receiver posts; the iflush
     * completes only when they are taken. */
    int *big = malloc(sizeof(int) * BIG * NBIG);
    MTEST_CHECK_RC(errs, MPI_Session_attach_buffer_c(s, MPI_BUFFER_AUTOMATIC, 0),
                   "Session_attach_buffer_c(MPI_BUFFER_AUTOMATIC)");
    if (rank == 0) {
        for (int k = 0; k < NBIG; k++) {
            fill(big + k * BIG, BIG, 1000 * k);
            MTEST_CHECK_RC(errs, MPI_Bsend(big + k * BIG, BIG, MPI_INT, 1, k, sc),
                           "automatic Bsend %d", k);
        }
        memset(big, 0, sizeof(int) * BIG * NBIG); /* the messages are the buffer's now */
        MTEST_CHECK_RC(errs, MPI_Session_iflush_buffer(s, &req), "Session_iflush_buffer");
        int flag = -1;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (flag)
            MTEST_FAIL(errs, "Session_iflush_buffer complete before the receiver posted");
    }
    MPI_Barrier(sc);
    if (rank == 1)
        for (int k = 0; k < NBIG; k++) {
            MTEST_CHECK_RC(errs, MPI_Recv(big, BIG, MPI_INT, 0, k, sc, MPI_STATUS_IGNORE),
                           "automatic receive %d", k);
            errs += check(big, BIG, 1000 * k, "automatic Bsend");
        }
    if (rank == 0)
        MTEST_CHECK_RC(errs, MPI_Wait(&req, MPI_STATUS_IGNORE), "wait for the iflush");
    MTEST_CHECK_RC(errs, MPI_Session_flush_buffer(s), "Session_flush_buffer");
    MTEST_CHECK_RC(errs, MPI_Session_detach_buffer_c(s, &got, &csz), "detach automatic");
    if (got != MPI_BUFFER_AUTOMATIC || csz != 0)
        MTEST_FAIL(errs, "detach of the automatic buffer gave %p and %lld", got, (long long)csz);

    /* Finalized with buffered sends under way: they complete first. */
    MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0);
    if (rank == 0)
        for (int k = 0; k < NBIG; k++) {
            fill(big, BIG, 5000 + k);
            MTEST_CHECK_RC(errs, MPI_Bsend(big, BIG, MPI_INT, 1, 50 + k, sc),
                           "Bsend %d before Session_finalize", k);
        }
    MPI_Request rreq[NBIG];
    if (rank == 1)
        for (int k = 0; k < NBIG; k++)
            MPI_Irecv(big + k * BIG, BIG, MPI_INT, 0, 50 + k, sc, &rreq[k]);
    if (split != MPI_COMM_NULL)
        MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&sc);
    MTEST_CHECK_RC(errs, MPI_Session_finalize(&s), "Session_finalize");
    if (rank == 1) {
        MTEST_CHECK_RC(errs, MPI_Waitall(NBIG, rreq, MPI_STATUSES_IGNORE),
                       "receives of the finalized session's messages");
        for (int k = 0; k < NBIG; k++)
            errs += check(big + k * BIG, BIG, 5000 + k, "message sent before Session_finalize");
    }
    MPI_Errhandler_free(&eh);
    MPI_Buffer_detach(&got, &got_size);
    free(big);
    free(pbuf);
    free(sbuf);
    free(cbuf);
    return MTest_Finalize(errs);
}
