/* cancel_send.c: MPI_Cancel of sends (MPI-4.1 sec. 3.8.4). A send whose message has not matched
 * is cancelled: MPI_Test_cancelled is true and the message is never received (a later receive
 * with the same envelope gets the next message instead), for small (eager) and large
 * (rendezvous) messages, standard and synchronous, locally complete or not, and through a
 * persistent request (each case with its own tag). A send that has matched is not cancelled and its
 * data arrive. A freed active send still delivers its message. Rank 1 receives only after rank 0
 * says "go". */
#include "mtest.h"

#include <stdlib.h>

#define GO_TAG 999
#define BIG (1 << 20)

static int cancelled_of(const MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

/* Rank 0: sends n bytes with tag, cancels, waits; the message must be gone. Then sends a marker
 * with the same tag: rank 1's receive must get the marker (size 4), never the cancelled data. */
static int cancel_unmatched(int n, int mode, int tag, const char *what)
{
    int rank, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = mtest_malloc(n > 4 ? n : 4);
    if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        mtest_fill_bytes(buf, n, 5);
        if (mode == 0)
            MPI_Isend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
        else if (mode == 1)
            MPI_Issend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
        else {
            MPI_Send_init(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
            MPI_Start(&req);
        }
        if (mode == 0 && n <= 64) {
            /* Let the eager send complete locally first: a cancel must still reach it. */
            int flag = 0;
            for (int i = 0; i < 100 && !flag; i++)
                MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
        }
        MTEST_CHECK_RC(errs, MPI_Cancel(&req), "%s: MPI_Cancel", what);
        MTEST_CHECK_RC(errs, MPI_Wait(&req, &st), "%s: MPI_Wait", what);
        MTEST_CHECK_INT(errs, 1, cancelled_of(&st), "%s: MPI_Test_cancelled", what);
        if (mode == 2)
            MPI_Request_free(&req);
        /* The marker may be a rendezvous: not waited for before "go". */
        int marker = 4242;
        MPI_Request mreq;
        MPI_Isend(&marker, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &mreq);
        MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
        MPI_Wait(&mreq, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Status st;
        int count = -1;
        MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(buf, n > 4 ? n : 4, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        MTEST_CHECK_INT(errs, 4, count, "%s: the message after the cancelled one", what);
        MTEST_CHECK_INT(errs, 4242, *(int *)buf, "%s: the marker's value", what);
        int flag = 1;
        MPI_Iprobe(0, tag, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, 0, flag, "%s: a cancelled message still waits", what);
    }
    free(buf);
    return errs;
}

/* A matched send cannot be cancelled: the receive is posted and has completed first. */
static int cancel_matched(int n, const char *what)
{
    int rank, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = mtest_malloc(n);
    if (rank == 0) {
        MPI_Request req;
        MPI_Status st;
        mtest_fill_bytes(buf, n, 9);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Issend(buf, n, MPI_BYTE, 1, 8, MPI_COMM_WORLD, &req);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* received */
        MPI_Cancel(&req);
        MPI_Wait(&req, &st);
        MTEST_CHECK_INT(errs, 0, cancelled_of(&st), "%s: Test_cancelled of a matched send", what);
    } else if (rank == 1) {
        MPI_Request req;
        MPI_Irecv(buf, n, MPI_BYTE, 0, 8, MPI_COMM_WORLD, &req);
        MPI_Send(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        errs += mtest_check_bytes(buf, n, 9, what);
        MPI_Send(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD);
    }
    free(buf);
    return errs;
}

/* MPI_Request_free of an active send: the message is still delivered. */
static int free_active(int n)
{
    int rank, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *buf = mtest_malloc(n);
    if (rank == 0) {
        MPI_Request req;
        mtest_fill_bytes(buf, n, 11);
        MPI_Isend(buf, n, MPI_BYTE, 1, 9, MPI_COMM_WORLD, &req);
        MTEST_CHECK_RC(errs, MPI_Request_free(&req), "MPI_Request_free of an active send");
        MTEST_CHECK_INT(errs, (int)MPI_REQUEST_NULL, (int)req, "handle after Request_free");
        /* The buffer may be reused once the receiver says it has the data. */
        MPI_Recv(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
        MPI_Recv(buf, n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errs += mtest_check_bytes(buf, n, 11, "data of a freed send");
        MPI_Send(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD);
    }
    free(buf);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, size;
    MTest_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= 2) {
        const int sizes[] = {0, 8, 4000, BIG};
        for (int i = 0; i < 4; i++)
            for (int mode = 0; mode < 3; mode++) {
                char what[64];
                snprintf(what, sizeof(what), "%s of %d bytes",
                         mode == 0   ? "Isend"
                         : mode == 1 ? "Issend"
                                     : "persistent send",
                         sizes[i]);
                errs += cancel_unmatched(sizes[i], mode, 100 + 3 * i + mode, what);
            }
        errs += cancel_matched(8, "matched Issend of 8 bytes");
        errs += cancel_matched(BIG, "matched Issend of 1 MiB");
        errs += free_active(8);
        errs += free_active(BIG);
    }
    return MTest_Finalize(errs);
}
