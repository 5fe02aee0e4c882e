/* truncate_recv.c: a message longer than the receive buffer. Under MPI_ERRORS_RETURN the receive
 * reports an error of class MPI_ERR_TRUNCATE (from MPI_Recv, MPI_Wait, MPI_Test, MPI_Sendrecv,
 * and as MPI_ERR_IN_STATUS with the class in status.MPI_ERROR from MPI_Waitall), nothing is
 * written past the receive buffer, the sender completes normally, and later traffic is fine.
 * Small and large (1 MiB, 8 MiB) messages; receive posted before and after the message
 * arrived. Rank 0 receives, rank 1 sends. */
#include "mtest.h"

#include <stdlib.h>

#define GO_TAG 1000
#define GUARD 4096

enum mode { POSTED_FIRST, ARRIVED_FIRST, BLOCKING, WAITALL, TESTLOOP, SENDRECV, NMODES };
static const char *mode_name[] = {"Irecv posted first + Wait", "Probe then Recv",   "Recv",
                                  "Irecv + Waitall",           "Irecv + Test loop", "Sendrecv"};

struct tcase {
    size_t len;   /* bytes sent */
    size_t count; /* bytes the receive allows */
};
static const struct tcase cases[] = {
    {100, 40}, {100, 0}, {1, 0}, {1u << 20, 1u << 19}, {1u << 20, 100}, {(8u << 20) + 3, 1u << 20},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static char *sbuf, *rbuf;

static int check_after(int rc, const MPI_Status *st, const struct tcase *c, int tag,
                       const char *what, int check_status)
{
    int errs = 0;
    errs += mtest_check_class(rc, MPI_ERR_TRUNCATE, what);
    if (check_status) {
        /* the message was matched, so the status names it */
        MTEST_CHECK_INT(errs, 1, st->MPI_SOURCE, "%s: status.MPI_SOURCE", what);
        MTEST_CHECK_INT(errs, tag, st->MPI_TAG, "%s: status.MPI_TAG", what);
    }
    errs += mtest_check_guard(rbuf, c->count, c->count + GUARD, what);
    return errs;
}

static int receiver(void)
{
    int errs = 0;
    for (int m = 0; m < NMODES; m++) {
        for (int i = 0; i < NCASES; i++) {
            const struct tcase *c = &cases[i];
            int tag = m * 100 + i;
            char what[160];
            snprintf(what, sizeof what, "%s: %zu-byte message into %zu-byte buffer", mode_name[m],
                     c->len, c->count);
            MPI_Status st, sts[2];
            MPI_Request req, reqs[2];
            char small[16];
            int rc = MPI_SUCCESS, flag = 0;
            mtest_fill_guard(rbuf, c->count + GUARD);
            switch (m) {
            case POSTED_FIRST:
                MPI_Irecv(rbuf, (int)c->count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
                MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
                rc = MPI_Wait(&req, &st);
                errs += check_after(rc, &st, c, tag, what, 1);
                break;
            case ARRIVED_FIRST:
                MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
                MPI_Probe(1, tag, MPI_COMM_WORLD, &st);
                /* the probe reports the full length, not what fits */
                errs += mtest_check_status(&st, 1, tag, MPI_BYTE, (int)c->len, what);
                rc = MPI_Recv(rbuf, (int)c->count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &st);
                errs += check_after(rc, &st, c, tag, what, 1);
                break;
            case BLOCKING:
                MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
                rc = MPI_Recv(rbuf, (int)c->count, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &st);
                errs += check_after(rc, &st, c, tag, what, 1);
                break;
            case WAITALL:
                /* a well-sized receive alongside; it must succeed */
                MPI_Irecv(rbuf, (int)c->count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &reqs[0]);
                MPI_Irecv(small, (int)sizeof small, MPI_BYTE, 1, tag + 50, MPI_COMM_WORLD,
                          &reqs[1]);
                MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
                sts[0].MPI_ERROR = sts[1].MPI_ERROR = -1;
                rc = MPI_Waitall(2, reqs, sts);
                /* the code itself, not only its class: programs compare it with == */
                if (rc != MPI_ERR_IN_STATUS) {
                    printf("%s: Waitall returned %d, not MPI_ERR_IN_STATUS (%d)\n", what, rc,
                           MPI_ERR_IN_STATUS);
                    errs++;
                }
                errs += check_after(sts[0].MPI_ERROR, &sts[0], c, tag, what, 1);
                /* the standard lets Waitall return before the other request completes, with
                 * MPI_ERR_PENDING in its status; it is then still active and is waited here */
                if (sts[1].MPI_ERROR == MPI_ERR_PENDING) {
                    rc = MPI_Wait(&reqs[1], &sts[1]);
                    MTEST_CHECK_RC(errs, rc, "Wait on the request left pending by Waitall");
                } else {
                    errs +=
                        mtest_check_class(sts[1].MPI_ERROR, MPI_SUCCESS,
                                          "Waitall: status.MPI_ERROR of the well-sized receive");
                }
                errs += mtest_check_status(&sts[1], 1, tag + 50, MPI_BYTE, 8,
                                           "Waitall: the other, well-sized receive");
                errs += mtest_check_bytes(small, 8, tag + 50, "Waitall: the well-sized receive");
                break;
            case TESTLOOP: {
                MPI_Irecv(rbuf, (int)c->count, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &req);
                MPI_Send(NULL, 0, MPI_BYTE, 1, GO_TAG, MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                while (!flag && MPI_Wtime() - t0 < 60) {
                    rc = MPI_Test(&req, &flag, &st);
                    if (rc != MPI_SUCCESS)
                        break;
                }
                if (rc == MPI_SUCCESS && !flag)
                    MTEST_FAIL(errs, "%s: MPI_Test still false after 60 s", what);
                else
                    errs += check_after(rc, &st, c, tag, what, 1);
                break;
            }
            case SENDRECV:
                mtest_fill_bytes(small, 8, tag);
                rc = MPI_Sendrecv(small, 8, MPI_BYTE, 1, tag + 50, rbuf, (int)c->count, MPI_BYTE, 1,
                                  tag, MPI_COMM_WORLD, &st);
                errs += check_after(rc, &st, c, tag, what, 1);
                break;
            }
        }
    }

    /* the connection still works: a normal large message after all those errors */
    mtest_fill_guard(rbuf, (2u << 20) + GUARD);
    MPI_Status st;
    int rc = MPI_Recv(rbuf, 2u << 20, MPI_BYTE, 1, 9999, MPI_COMM_WORLD, &st);
    MTEST_CHECK_RC(errs, rc, "normal receive after the truncations");
    errs +=
        mtest_check_status(&st, 1, 9999, MPI_BYTE, 2u << 20, "normal receive after truncations");
    errs += mtest_check_bytes(rbuf, 2u << 20, 9999, "normal receive after truncations");
    return errs;
}

static int sender(void)
{
    int errs = 0;
    for (int m = 0; m < NMODES; m++) {
        for (int i = 0; i < NCASES; i++) {
            const struct tcase *c = &cases[i];
            int tag = m * 100 + i;
            int rc;
            mtest_fill_bytes(sbuf, c->len, tag);
            if (m == SENDRECV) {
                char small[16];
                rc = MPI_Sendrecv(sbuf, (int)c->len, MPI_BYTE, 0, tag, small, (int)sizeof small,
                                  MPI_BYTE, 0, tag + 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MTEST_CHECK_RC(errs, rc, "sender's MPI_Sendrecv, %s, %zu bytes", mode_name[m],
                               c->len);
                continue;
            }
            MPI_Recv(NULL, 0, MPI_BYTE, 0, GO_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            /* the sender is not told about the truncation: its send succeeds */
            rc = MPI_Send(sbuf, (int)c->len, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
            MTEST_CHECK_RC(errs, rc, "MPI_Send, %s, %zu bytes", mode_name[m], c->len);
            if (m == WAITALL) {
                mtest_fill_bytes(sbuf, 8, tag + 50);
                rc = MPI_Send(sbuf, 8, MPI_BYTE, 0, tag + 50, MPI_COMM_WORLD);
                MTEST_CHECK_RC(errs, rc, "MPI_Send of the well-sized message");
            }
        }
    }
    mtest_fill_bytes(sbuf, 2u << 20, 9999);
    int rc = MPI_Send(sbuf, 2u << 20, MPI_BYTE, 0, 9999, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "normal send after the truncations");
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    sbuf = mtest_malloc((8u << 20) + 16);
    rbuf = mtest_malloc((8u << 20) + GUARD);

    if (mtest_size < 2)
        MTEST_FAIL(errs, "needs at least 2 ranks, got %d", mtest_size);
    else if (mtest_rank == 0)
        errs += receiver();
    else if (mtest_rank == 1)
        errs += sender();

    /* truncation of a message to self */
    {
        MPI_Request req;
        MPI_Status st;
        mtest_fill_bytes(sbuf, 300000, 77);
        mtest_fill_guard(rbuf, 1000 + GUARD);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Isend(sbuf, 300000, MPI_BYTE, 0, 77, MPI_COMM_SELF, &req);
        int rc = MPI_Recv(rbuf, 1000, MPI_BYTE, 0, 77, MPI_COMM_SELF, &st);
        errs += mtest_check_class(rc, MPI_ERR_TRUNCATE, "300000 bytes to self into 1000");
        errs += mtest_check_guard(rbuf, 1000, 1000 + GUARD, "300000 bytes to self into 1000");
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK_RC(errs, rc, "MPI_Wait on the Isend to self that was truncated");
    }

    free(sbuf);
    free(rbuf);
    return MTest_Finalize(errs);
}
