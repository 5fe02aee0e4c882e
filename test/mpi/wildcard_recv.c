/* wildcard_recv.c: MPI_ANY_SOURCE, MPI_ANY_TAG and both, with receives posted before the message
 * arrives, messages that arrived before the receive is posted, and both mixed; a message
 * matches the earliest posted receive it fits, and a receive takes the earliest arrived message
 * it fits (per sender). Rank 0 receives from each other rank in turn; small and large messages. */
#include "mtest.h"

#include <stdlib.h>

#define GO_TAG 99
#define BUFLEN 300000

/* Message length and pattern seed as a function of (sender, tag): odd tags are large so that
 * wildcard matching is also exercised for messages that may go by rendezvous. */
static size_t msglen(int tag)
{
    return (tag % 2) ? 200000 + (size_t)tag : 16 + (size_t)tag;
}
static int seed_of(int src, int tag)
{
    return src * 1000 + tag;
}

static char *bufs[4];

static int check(const MPI_Status *st, int k, int src, int tag, const char *how)
{
    int errs = 0;
    char what[160];
    snprintf(what, sizeof what, "%s (expecting tag %d from %d)", how, tag, src);
    errs += mtest_check_status(st, src, tag, MPI_BYTE, (int)msglen(tag), what);
    if (st->MPI_SOURCE == src && st->MPI_TAG == tag) {
        errs += mtest_check_bytes(bufs[k], msglen(tag), seed_of(src, tag), what);
        errs += mtest_check_guard(bufs[k], msglen(tag), BUFLEN, what);
    }
    return errs;
}

static void send_msg(int tag, MPI_Request *req, char *buf)
{
    mtest_fill_bytes(buf, msglen(tag), seed_of(mtest_rank, tag));
    if (req)
        MPI_Isend(buf, (int)msglen(tag), MPI_BYTE, 0, tag, MPI_COMM_WORLD, req);
    else
        MPI_Send(buf, (int)msglen(tag), MPI_BYTE, 0, tag, MPI_COMM_WORLD);
}

static void go(int p)
{
    MPI_Send(NULL, 0, MPI_BYTE, p, GO_TAG, MPI_COMM_WORLD);
}
static void wait_go(void)
{
    MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static int receiver_round(int p)
{
    int errs = 0;
    MPI_Request r[3];
    MPI_Status st[3];

    /* 1. receives posted before the messages exist: the sender waits for "go" */
    for (int k = 0; k < 3; k++)
        mtest_fill_guard(bufs[k], BUFLEN);
    MPI_Irecv(bufs[0], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(bufs[1], BUFLEN, MPI_BYTE, p, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(bufs[2], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[2]);
    go(p);
    MPI_Waitall(3, r, st);
    /* the sender sends tags 10, 11, 12 in that order: 10 fits the first receive, 11 the
     * (p, ANY_TAG) one, 12 the last */
    errs += check(&st[0], 0, p, 10, "posted Irecv(ANY_SOURCE, 10)");
    errs += check(&st[1], 1, p, 11, "posted Irecv(p, ANY_TAG)");
    errs += check(&st[2], 2, p, 12, "posted Irecv(ANY_SOURCE, ANY_TAG)");

    /* 2. messages that arrived before the receives: Probe waits for the last of them */
    for (int k = 0; k < 3; k++)
        mtest_fill_guard(bufs[k], BUFLEN);
    go(p);
    MPI_Probe(p, 22, MPI_COMM_WORLD, &st[0]);
    MPI_Recv(bufs[1], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, 21, MPI_COMM_WORLD, &st[1]);
    errs += check(&st[1], 1, p, 21, "arrived, Recv(ANY_SOURCE, 21)");
    MPI_Recv(bufs[0], BUFLEN, MPI_BYTE, p, MPI_ANY_TAG, MPI_COMM_WORLD, &st[0]);
    errs += check(&st[0], 0, p, 20, "arrived, Recv(p, ANY_TAG)");
    MPI_Recv(bufs[2], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st[2]);
    errs += check(&st[2], 2, p, 22, "arrived, Recv(ANY_SOURCE, ANY_TAG)");

    /* 3. mixed: one message arrived before the receives are posted, one after */
    for (int k = 0; k < 3; k++)
        mtest_fill_guard(bufs[k], BUFLEN);
    go(p);
    MPI_Probe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &st[0]);
    MPI_Irecv(bufs[0], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(bufs[1], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &r[1]);
    MPI_Irecv(bufs[2], BUFLEN, MPI_BYTE, p, 32, MPI_COMM_WORLD, &r[2]);
    go(p);
    MPI_Waitall(3, r, st);
    errs += check(&st[0], 0, p, 31, "arrived before Irecv(ANY_SOURCE, ANY_TAG)");
    errs += check(&st[1], 1, p, 33, "arrived after Irecv(ANY_SOURCE, ANY_TAG)");
    errs += check(&st[2], 2, p, 32, "arrived after Irecv(p, 32)");
    return errs;
}

static void sender_round(void)
{
    MPI_Request r[3];
    wait_go();
    send_msg(10, NULL, bufs[0]);
    send_msg(11, NULL, bufs[1]);
    send_msg(12, NULL, bufs[2]);

    /* Isend: the receiver posts nothing until all three have arrived */
    wait_go();
    send_msg(20, &r[0], bufs[0]);
    send_msg(21, &r[1], bufs[1]);
    send_msg(22, &r[2], bufs[2]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);

    wait_go();
    send_msg(31, &r[0], bufs[0]);
    wait_go();
    /* tag 32 goes to the receive that names it even though two wildcard receives were posted
     * before it: those were taken by 31 and 33 */
    send_msg(33, &r[1], bufs[1]);
    send_msg(32, &r[2], bufs[2]);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    for (int k = 0; k < 4; k++)
        bufs[k] = mtest_malloc(BUFLEN);

    if (mtest_size < 2) {
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    } else if (mtest_rank == 0) {
        for (int p = 1; p < mtest_size; p++)
            errs += receiver_round(p);
    } else {
        sender_round();
    }

    /* every other rank sends one message at once; ANY_SOURCE receives get each exactly once.
     * The senders wait for "go" so that none of these messages can reach a wildcard receive of
     * the rounds above. */
    if (mtest_rank == 0) {
        for (int p = 1; p < mtest_size; p++)
            go(p);
        int *seen = calloc((size_t)mtest_size, sizeof(int));
        for (int k = 1; k < mtest_size; k++) {
            MPI_Status st;
            mtest_fill_guard(bufs[0], BUFLEN);
            MPI_Recv(bufs[0], BUFLEN, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE;
            if (src < 1 || src >= mtest_size) {
                MTEST_FAIL(errs, "ANY_SOURCE receive: status.MPI_SOURCE %d out of range", src);
                continue;
            }
            seen[src]++;
            errs += check(&st, 0, src, 40 + (src % 2), "simultaneous senders, Recv(ANY, ANY)");
        }
        for (int p = 1; p < mtest_size; p++)
            MTEST_CHECK_INT(errs, 1, seen[p], "messages received from rank %d", p);
        free(seen);
    } else {
        wait_go();
        send_msg(40 + (mtest_rank % 2), NULL, bufs[3]);
    }

    for (int k = 0; k < 4; k++)
        free(bufs[k]);
    return MTest_Finalize(errs);
}
