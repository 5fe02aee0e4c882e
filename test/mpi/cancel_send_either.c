/* cancel_send_either.c: MPI_Cancel of sends (MPI-4.1 3.8.4), as any MPI may answer it (the
 * standard-only companion of cancel_send.c, which requires Ferry's cancel to succeed).  Either
 * the cancellation succeeds or the send does, never both: a send reported cancelled
 * (MPI_Test_cancelled true) must never be received, not by a receive posted meanwhile nor by a
 * later one (a marker sent after it on the same tag arrives instead); a send reported not
 * cancelled must be received whole.  Both answers are correct when nothing had matched yet, so
 * both are accepted; a send that the receiver had already received cannot be cancelled.  Sizes
 * from empty to rendezvous-sized, standard and synchronous mode, completion by MPI_Wait and by
 * an MPI_Test loop.  Ranks 0 and 1 take part. */
#include "mtest.h"

#include <stdlib.h>

#define NOTE_TAG 900
#define MARKER_SEED 4242

static int cancelled_of(const MPI_Status *st)
{
    int flag = -1;
    MPI_Test_cancelled(st, &flag);
    return flag;
}

static int complete(MPI_Request *req, MPI_Status *st, int use_test, const char *what)
{
    int errs = 0, rc;
    if (!use_test) {
        rc = MPI_Wait(req, st);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Wait", what);
        return errs;
    }
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < 60) {
        rc = MPI_Test(req, &flag, st);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Test", what);
        if (rc != MPI_SUCCESS)
            break;
    }
    MTEST_CHECK_INT(errs, 1, flag, "%s: MPI_Test loop completed within 60 s", what);
    return errs;
}

/* The sender cancels before the receiver has posted anything; the receiver posts its receive
 * only once MPI_Cancel has returned, then learns the outcome. */
static int cancel_unmatched(size_t len, int sync, int use_test, int tag, int *ncancelled)
{
    int errs = 0, rc, outcome = -1;
    char what[128];
    snprintf(what, sizeof what, "unmatched %s of %zu bytes (%s)", sync ? "MPI_Issend" : "MPI_Isend",
             len, use_test ? "MPI_Test" : "MPI_Wait");
    char *buf = mtest_malloc(len ? len : 1);
    MPI_Request req;
    MPI_Status st;

    if (mtest_rank == 0) {
        mtest_fill_bytes(buf, len, tag);
        rc = sync ? MPI_Issend(buf, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req)
                  : MPI_Isend(buf, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
        MTEST_CHECK_RC(errs, rc, "%s: send", what);
        rc = MPI_Cancel(&req);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Cancel", what);
        MPI_Send(NULL, 0, MPI_BYTE, 1, NOTE_TAG, MPI_COMM_WORLD);
        errs += complete(&req, &st, use_test, what);
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "%s: request after completion", what);
        outcome = cancelled_of(&st);
        if (outcome != 0 && outcome != 1)
            MTEST_FAIL(errs, "%s: MPI_Test_cancelled gave %d", what, outcome);
        MPI_Send(&outcome, 1, MPI_INT, 1, NOTE_TAG, MPI_COMM_WORLD);
        if (outcome == 1) {
            /* The marker takes the cancelled message's place in the order on this tag; it goes
             * only once rank 1 has cancelled the receive it posted, which it must not match. */
            MPI_Recv(NULL, 0, MPI_BYTE, 1, NOTE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            mtest_fill_bytes(buf, len, MARKER_SEED);
            MPI_Send(buf, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
        }
    } else {
        MPI_Request rreq;
        MPI_Status rst;
        MPI_Recv(NULL, 0, MPI_BYTE, 0, NOTE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        mtest_fill_guard(buf, len);
        rc = MPI_Irecv(buf, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rreq);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Irecv", what);
        MPI_Recv(&outcome, 1, MPI_INT, 0, NOTE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (outcome == 1) {
            /* Cancelled: our receive must not have matched it.  Cancel the receive; if it had
             * matched, its cancel fails and it completes with the message. */
            MPI_Cancel(&rreq);
            rc = MPI_Wait(&rreq, &rst);
            MTEST_CHECK_RC(errs, rc, "%s: MPI_Wait of the receive", what);
            if (cancelled_of(&rst) != 1)
                MTEST_FAIL(errs,
                           "%s: the send was reported cancelled, but the receive "
                           "posted after MPI_Cancel matched it",
                           what);
            else if (len && mtest_check_guard(buf, 0, len, what))
                MTEST_FAIL(errs,
                           "%s: the send was reported cancelled, but the buffer of the "
                           "receive posted after MPI_Cancel was written",
                           what);
            /* Our receive is out of the way: the marker may come. */
            MPI_Send(NULL, 0, MPI_BYTE, 0, NOTE_TAG, MPI_COMM_WORLD);
            /* A later receive on the tag gets the marker, not the cancelled message. */
            rc = MPI_Recv(buf, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rst);
            MTEST_CHECK_RC(errs, rc, "%s: receive of the marker", what);
            if (len && mtest_check_bytes(buf, len, MARKER_SEED, what))
                MTEST_FAIL(errs,
                           "%s: the send was reported cancelled, but a later receive "
                           "got it instead of the marker sent after it",
                           what);
        } else {
            /* Not cancelled: the send completed normally, so the message is received whole. */
            rc = MPI_Wait(&rreq, &rst);
            MTEST_CHECK_RC(errs, rc, "%s: MPI_Wait of the receive", what);
            MTEST_CHECK_INT(errs, 0, cancelled_of(&rst), "%s: receive's MPI_Test_cancelled", what);
            errs += mtest_check_status(&rst, 0, tag, MPI_BYTE, (int)len, what);
            if (len && mtest_check_bytes(buf, len, tag, what))
                MTEST_FAIL(errs, "%s: the send was not cancelled, but its data is wrong", what);
        }
    }
    *ncancelled += outcome == 1;
    /* Nothing of this case may be left over for the next one. */
    int pending = 0;
    MPI_Iprobe(mtest_rank == 0 ? 1 : 0, tag, MPI_COMM_WORLD, &pending, MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, 0, pending, "%s: a message left on the tag", what);
    free(buf);
    return errs;
}

/* The receiver has the whole message before the sender cancels: the cancel must fail. */
static int cancel_received(size_t len, int sync, int tag)
{
    int errs = 0, rc;
    char what[128];
    snprintf(what, sizeof what, "received %s of %zu bytes", sync ? "MPI_Issend" : "MPI_Isend", len);
    char *buf = mtest_malloc(len ? len : 1);
    if (mtest_rank == 0) {
        MPI_Request req;
        MPI_Status st;
        mtest_fill_bytes(buf, len, tag);
        rc = sync ? MPI_Issend(buf, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req)
                  : MPI_Isend(buf, (int)len, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
        MTEST_CHECK_RC(errs, rc, "%s: send", what);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, NOTE_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        rc = MPI_Cancel(&req);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Cancel", what);
        rc = MPI_Wait(&req, &st);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Wait", what);
        MTEST_CHECK_INT(errs, 0, cancelled_of(&st),
                        "%s: MPI_Test_cancelled of a send already received", what);
    } else {
        MPI_Status rst;
        rc = MPI_Recv(buf, (int)len, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rst);
        MTEST_CHECK_RC(errs, rc, "%s: MPI_Recv", what);
        errs += mtest_check_status(&rst, 0, tag, MPI_BYTE, (int)len, what);
        if (len && mtest_check_bytes(buf, len, tag, what))
            MTEST_FAIL(errs, "%s: data wrong", what);
        MPI_Send(NULL, 0, MPI_BYTE, 0, NOTE_TAG, MPI_COMM_WORLD);
    }
    free(buf);
    return errs;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {0, 8, 1000, 100000, 4u << 20};
    int errs = 0, tag = 1, ncancelled = 0, nunmatched = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size < 2) {
        if (mtest_rank == 0)
            printf("cancel_send needs 2 processes\n");
        return MTest_Finalize(1);
    }
    if (mtest_rank <= 1) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            for (int sync = 0; sync <= 1; sync++) {
                errs += cancel_unmatched(sizes[s], sync, 0, tag++, &ncancelled);
                errs += cancel_unmatched(sizes[s], sync, 1, tag++, &ncancelled);
                errs += cancel_received(sizes[s], sync, tag++);
                nunmatched += 2;
            }
        }
        /* Both answers are correct; which one this MPI gives is worth seeing. */
        if (mtest_rank == 0)
            printf("%d of %d sends cancelled before any receive was posted\n", ncancelled,
                   nunmatched);
    }
    return MTest_Finalize(errs);
}
