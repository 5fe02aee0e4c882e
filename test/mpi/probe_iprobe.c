/* probe_iprobe.c: MPI_Probe and MPI_Iprobe report source, tag and count of a pending message
 * without receiving it; a receive built from that status gets exactly that message. Covers
 * named and wildcard probes, probing twice, zero-byte and 1 MiB messages, an Iprobe that must
 * say "no message" (the sender has provably not sent yet) and an Iprobe polling loop. Rank 0
 * probes, rank 1 sends; other ranks sit out. */
#include "mtest.h"

#include <stdlib.h>

#define GO_TAG 999

static size_t len_of(int tag)
{
    switch (tag % 4) {
    case 0:
        return 0;
    case 1:
        return 13;
    case 2:
        return 1u << 20;
    default:
        return 4096 + (size_t)tag;
    }
}

/* Receives the message described by st into a buffer of exactly its size (plus guard) and
 * checks it came from (src, tag) with the expected contents. */
static int recv_probed(const MPI_Status *pst, int src, int tag, const char *how)
{
    int errs = 0, count = -1;
    char what[128];
    snprintf(what, sizeof what, "%s, tag %d", how, tag);
    errs += mtest_check_status(pst, src, tag, MPI_BYTE, (int)len_of(tag), what);
    MPI_Get_count(pst, MPI_BYTE, &count);
    if (count < 0 || count > (1 << 21))
        return errs + 1;
    char *buf = mtest_malloc((size_t)count + 32);
    mtest_fill_guard(buf, (size_t)count + 32);
    MPI_Status st;
    int rc = MPI_Recv(buf, count, MPI_BYTE, pst->MPI_SOURCE, pst->MPI_TAG, MPI_COMM_WORLD, &st);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Recv of the probed message", what);
    errs += mtest_check_status(&st, src, tag, MPI_BYTE, (int)len_of(tag), what);
    errs += mtest_check_bytes(buf, len_of(tag), tag, what);
    errs += mtest_check_guard(buf, (size_t)count, (size_t)count + 32, what);
    free(buf);
    return errs;
}

static int prober(int peer)
{
    int errs = 0, flag, rc;
    MPI_Status st;

    /* nothing has been sent yet: the sender waits for GO */
    flag = -1;
    rc = MPI_Iprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK_RC(errs, rc, "MPI_Iprobe before any send");
    MTEST_CHECK_INT(errs, 0, flag, "MPI_Iprobe flag before the sender started");
    rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK_INT(errs, 0, flag,
                    "MPI_Iprobe(ANY_SOURCE, ANY_TAG) flag before the sender started");
    MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD);

    /* the sender sent tags 0..7 in order; probe them named, then wildcard */
    for (int tag = 0; tag < 4; tag++) {
        rc = MPI_Probe(peer, tag, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Probe(peer, %d)", tag);
        /* probing again finds the same message: probe does not consume it */
        MPI_Status st2;
        rc = MPI_Probe(peer, tag, MPI_COMM_WORLD, &st2);
        errs += mtest_check_status(&st2, peer, tag, MPI_BYTE, (int)len_of(tag), "second Probe");
        errs += recv_probed(&st, peer, tag, "Probe(peer, tag)");
    }
    for (int tag = 4; tag < 8; tag++) {
        rc = MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "MPI_Probe(ANY_SOURCE, ANY_TAG)");
        /* non-overtaking: the first pending message from the only sender is tag `tag` */
        errs += recv_probed(&st, peer, tag, "Probe(ANY_SOURCE, ANY_TAG)");
    }

    /* tags 8..11: Iprobe polling, with ANY_SOURCE and a named tag, and the reverse */
    MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD);
    for (int tag = 11; tag >= 8; tag--) {
        double t0 = MPI_Wtime();
        flag = 0;
        int polls = 0;
        while (!flag) {
            if (tag % 2)
                rc = MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
            else
                rc = MPI_Iprobe(peer, tag, MPI_COMM_WORLD, &flag, &st);
            polls++;
            if (rc != MPI_SUCCESS) {
                MTEST_FAIL(errs, "MPI_Iprobe returned %d", rc);
                break;
            }
            if (!flag && MPI_Wtime() - t0 > 60) {
                MTEST_FAIL(errs, "MPI_Iprobe for tag %d still false after 60 s (%d polls)", tag,
                           polls);
                break;
            }
        }
        if (flag)
            errs += recv_probed(&st, peer, tag, "Iprobe loop");
    }

    /* a probe for a tag that has no message says so, while another tag's message waits */
    MPI_Send(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD);
    MPI_Probe(peer, 12, MPI_COMM_WORLD, &st);
    rc = MPI_Iprobe(peer, 13, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK_INT(errs, 0, flag, "MPI_Iprobe(peer, 13) while only tag 12 is pending");
    rc = MPI_Iprobe(peer, 12, MPI_COMM_WORLD, &flag, &st);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Iprobe(peer, 12) with tag 12 pending");
    if (flag)
        errs += recv_probed(&st, peer, 12, "Iprobe");
    rc = MPI_Iprobe(peer, 12, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, 0, flag, "MPI_Iprobe(peer, 12) after receiving the only tag-12 message");
    return errs;
}

static int sender(int peer)
{
    int errs = 0;
    MPI_Request reqs[12];
    char *bufs[12];
    for (int tag = 0; tag < 12; tag++)
        bufs[tag] = NULL;
    MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int tag = 0; tag < 12; tag++) {
        if (tag == 8) {
            MPI_Waitall(8, reqs, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        bufs[tag] = mtest_malloc(len_of(tag));
        mtest_fill_bytes(bufs[tag], len_of(tag), tag);
        int rc =
            MPI_Isend(bufs[tag], (int)len_of(tag), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &reqs[tag]);
        MTEST_CHECK_RC(errs, rc, "MPI_Isend tag %d", tag);
    }
    MPI_Waitall(4, reqs + 8, MPI_STATUSES_IGNORE);
    MPI_Recv(NULL, 0, MPI_BYTE, peer, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *b12 = mtest_malloc(len_of(12));
    mtest_fill_bytes(b12, len_of(12), 12);
    MPI_Send(b12, (int)len_of(12), MPI_BYTE, peer, 12, MPI_COMM_WORLD);
    free(b12);
    for (int tag = 0; tag < 12; tag++)
        free(bufs[tag]);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_size < 2)
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    else if (mtest_rank == 0)
        errs += prober(1);
    else if (mtest_rank == 1)
        errs += sender(0);
    return MTest_Finalize(errs);
}
