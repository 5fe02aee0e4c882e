/* comm_dup_isolation.c: a communicator from MPI_Comm_dup is a separate matching space. A message
 * sent on the dup never matches a receive (even MPI_ANY_SOURCE/MPI_ANY_TAG) or probe on the
 * original and vice versa, although source and tag are equal and it arrived first; ten dups
 * carrying the same (source, tag) each deliver their own message; dup of a dup and of
 * MPI_COMM_SELF; MPI_Comm_free sets the handle to MPI_COMM_NULL and communicators created after
 * frees work. Ranks 0 and 1 exchange; every rank takes part in the dups. */
#include "mtest.h"

#include <stdlib.h>

#define NDUP 10

/* Checks that comm has the same rank and size as MPI_COMM_WORLD. */
static int check_shape(MPI_Comm comm, const char *what)
{
    int errs = 0, r = -1, s = -1;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &s);
    MTEST_CHECK_INT(errs, mtest_rank, r, "%s: rank", what);
    MTEST_CHECK_INT(errs, mtest_size, s, "%s: size", what);
    return errs;
}

/* Receiver side: a wildcard receive posted on `a` must not take the message sent first on `b`.
 * `ctl` carries the go-ahead so that it cannot disturb a or b. */
static int isolation_receiver(MPI_Comm a, MPI_Comm b, MPI_Comm ctl, const char *an, const char *bn)
{
    int errs = 0, flag, va = -1, vb = -1;
    MPI_Request ra;
    MPI_Status st;
    MPI_Irecv(&va, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, a, &ra);
    MPI_Send(NULL, 0, MPI_BYTE, 0, 1, ctl);
    /* the message on b is there ... */
    MPI_Probe(0, 5, b, &st);
    /* ... and neither the posted receive nor a probe on a sees it */
    flag = 1;
    MPI_Test(&ra, &flag, &st);
    if (flag)
        MTEST_FAIL(errs, "wildcard receive on %s matched a message sent on %s (value %d, tag %d)",
                   an, bn, va, st.MPI_TAG);
    flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, a, &flag, &st);
    MTEST_CHECK_INT(errs, 0, flag, "Iprobe(any, any) on %s while a message waits on %s", an, bn);
    MPI_Recv(&vb, 1, MPI_INT, 0, 5, b, &st);
    MTEST_CHECK_INT(errs, 222, vb, "value of the message on %s", bn);
    errs += mtest_check_status(&st, 0, 5, MPI_INT, 1, bn);
    MPI_Send(NULL, 0, MPI_BYTE, 0, 2, ctl);
    if (!flag) {
        MPI_Wait(&ra, &st);
        MTEST_CHECK_INT(errs, 111, va, "value of the message on %s", an);
        errs += mtest_check_status(&st, 0, 5, MPI_INT, 1, an);
    }
    return errs;
}

static void isolation_sender(MPI_Comm a, MPI_Comm b, MPI_Comm ctl)
{
    int va = 111, vb = 222;
    MPI_Recv(NULL, 0, MPI_BYTE, 1, 1, ctl, MPI_STATUS_IGNORE);
    MPI_Send(&vb, 1, MPI_INT, 1, 5, b);
    MPI_Recv(NULL, 0, MPI_BYTE, 1, 2, ctl, MPI_STATUS_IGNORE);
    MPI_Send(&va, 1, MPI_INT, 1, 5, a);
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    MPI_Comm dup = MPI_COMM_NULL, ctl = MPI_COMM_NULL, dup2 = MPI_COMM_NULL;

    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_dup(MPI_COMM_WORLD)");
    if (dup == MPI_COMM_NULL || dup == MPI_COMM_WORLD)
        MTEST_FAIL(errs, "MPI_Comm_dup returned handle %#x", (unsigned)dup);
    errs += check_shape(dup, "dup of MPI_COMM_WORLD");
    MPI_Comm_dup(MPI_COMM_WORLD, &ctl);
    MPI_Comm_dup(dup, &dup2);
    errs += check_shape(dup2, "dup of the dup");

    if (mtest_size >= 2 && mtest_rank == 1) {
        errs += isolation_receiver(MPI_COMM_WORLD, dup, ctl, "MPI_COMM_WORLD", "its dup");
        errs += isolation_receiver(dup, MPI_COMM_WORLD, ctl, "the dup", "MPI_COMM_WORLD");
        errs += isolation_receiver(dup, dup2, ctl, "the dup", "the dup of the dup");
    } else if (mtest_size >= 2 && mtest_rank == 0) {
        isolation_sender(MPI_COMM_WORLD, dup, ctl);
        isolation_sender(dup, MPI_COMM_WORLD, ctl);
        isolation_sender(dup, dup2, ctl);
    }

    /* ten dups, the same (source, tag) on each, sent in one order and received in the reverse */
    {
        MPI_Comm c[NDUP];
        for (int i = 0; i < NDUP; i++)
            MPI_Comm_dup(i % 2 ? dup : MPI_COMM_WORLD, &c[i]);
        int right = (mtest_rank + 1) % mtest_size;
        int left = (mtest_rank + mtest_size - 1) % mtest_size;
        MPI_Request sreq[NDUP];
        int out[NDUP], in[NDUP];
        for (int i = 0; i < NDUP; i++) {
            out[i] = 1000 * mtest_rank + i;
            MPI_Isend(&out[i], 1, MPI_INT, right, 9, c[i], &sreq[i]);
        }
        for (int i = NDUP - 1; i >= 0; i--) {
            MPI_Status st;
            in[i] = -1;
            MPI_Recv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c[i], &st);
            MTEST_CHECK_INT(errs, 1000 * left + i, in[i], "message received on dup #%d", i);
            errs += mtest_check_status(&st, left, 9, MPI_INT, 1, "ring on a dup");
        }
        MPI_Waitall(NDUP, sreq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < NDUP; i++) {
            rc = MPI_Comm_free(&c[i]);
            MTEST_CHECK_RC(errs, rc, "MPI_Comm_free of dup #%d", i);
            MTEST_CHECK_INT(errs, MPI_COMM_NULL, c[i], "handle after MPI_Comm_free of dup #%d", i);
        }
    }

    /* a dup of MPI_COMM_SELF is private too */
    {
        MPI_Comm sd;
        int a = 1, b = 2, x = -1, y = -1;
        MPI_Request r[2];
        MPI_Comm_dup(MPI_COMM_SELF, &sd);
        int r0 = -1, s0 = -1;
        MPI_Comm_rank(sd, &r0);
        MPI_Comm_size(sd, &s0);
        MTEST_CHECK_INT(errs, 0, r0, "rank in a dup of MPI_COMM_SELF");
        MTEST_CHECK_INT(errs, 1, s0, "size of a dup of MPI_COMM_SELF");
        MPI_Isend(&a, 1, MPI_INT, 0, 3, sd, &r[0]);
        MPI_Isend(&b, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &r[1]);
        MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, sd, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, 2, y, "message on MPI_COMM_SELF (its dup sent first)");
        MTEST_CHECK_INT(errs, 1, x, "message on the dup of MPI_COMM_SELF");
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        MPI_Comm_free(&sd);
        MTEST_CHECK_INT(errs, MPI_COMM_NULL, sd, "handle after freeing the dup of MPI_COMM_SELF");
    }

    /* collectives on a dup, then free everything and dup again */
    {
        int v = mtest_rank == 0 ? 4321 : 0;
        MPI_Bcast(&v, 1, MPI_INT, 0, dup2);
        MTEST_CHECK_INT(errs, 4321, v, "MPI_Bcast on the dup of the dup");
        MPI_Barrier(dup);
    }
    MPI_Comm_free(&dup2);
    MPI_Comm_free(&ctl);
    rc = MPI_Comm_free(&dup);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_free of the dup");
    MTEST_CHECK_INT(errs, MPI_COMM_NULL, dup, "handle after MPI_Comm_free");
    for (int round = 0; round < 50; round++) {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        int sum = 0, one = 1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
        if (sum != mtest_size) {
            MTEST_FAIL(errs, "Allreduce on dup #%d after frees: %d, expected %d", round, sum,
                       mtest_size);
            break;
        }
        MPI_Comm_free(&c);
        if (mtest_size > 4 && round >= 5)
            break; /* collectives are slow on an oversubscribed machine */
    }
    return MTest_Finalize(errs);
}
