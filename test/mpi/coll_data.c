/* coll_data.c: the data-moving collectives over point-to-point (MPI-4.1 secs. 6.5-6.8):
 * Gather, Gatherv, Scatter, Scatterv, Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw,
 * each with every root where it has one, with MPI_IN_PLACE where the standard allows it, with
 * counts that differ per rank (zero for rank 1) and displacements out of rank order.  Every
 * element received is checked against the value its sender must have put there; slots nobody
 * writes keep their guard value. */
#include "mtest.h"

#include <stdlib.h>

#define GUARD (-7)

/* The value of element i of the block that rank `from` sends to rank `to`. */
static int val(int from, int to, int i)
{
    return from * 10000 + to * 100 + i;
}

/* Rank r's block size in the v-forms: zero for rank 1, different for the others. */
static int vcount(int r)
{
    return r == 1 ? 0 : r % 3 + 1;
}

static int *ints(int n, int fill)
{
    int *p = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        p[i] = fill;
    return p;
}

/* Displacements in reverse rank order with a gap of one element after each block; *total_p is
 * the buffer length needed. */
static void reverse_displs(const int *counts, int *displs, int n, int *total_p)
{
    int at = 0;
    for (int r = n - 1; r >= 0; r--) {
        displs[r] = at;
        at += counts[r] + 1;
    }
    *total_p = at;
}

static int check_block(const int *buf, int n, int from, int to, const char *what)
{
    int errs = 0;
    for (int i = 0; i < n; i++)
        if (buf[i] != val(from, to, i)) {
            MTEST_FAIL(errs, "%s: element %d from rank %d is %d, expected %d", what, i, from,
                       buf[i], val(from, to, i));
            break;
        }
    return errs;
}

static int gathers(int root, int in_place)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    int *counts = ints(n, 0), *displs = ints(n, 0), total;
    for (int r = 0; r < n; r++)
        counts[r] = vcount(r);
    reverse_displs(counts, displs, n, &total);
    /* Gather: 3 ints per rank. */
    int send[3], *recv = ints(3 * n, GUARD);
    for (int i = 0; i < 3; i++)
        send[i] = val(me, root, i);
    if (in_place && me == root) {
        for (int i = 0; i < 3; i++)
            recv[3 * me + i] = send[i];
        MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, recv, 3, MPI_INT, root, MPI_COMM_WORLD);
    } else
        MPI_Gather(send, 3, MPI_INT, recv, 3, MPI_INT, root, MPI_COMM_WORLD);
    if (me == root)
        for (int r = 0; r < n; r++)
            errs += check_block(recv + 3 * r, 3, r, root, "MPI_Gather");
    free(recv);
    /* Gatherv. */
    int vsend[4];
    for (int i = 0; i < vcount(me); i++)
        vsend[i] = val(me, root, i);
    recv = ints(total, GUARD);
    if (in_place && me == root) {
        for (int i = 0; i < vcount(me); i++)
            recv[displs[me] + i] = vsend[i];
        MPI_Gatherv(MPI_IN_PLACE, 0, MPI_INT, recv, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
    } else
        MPI_Gatherv(vsend, vcount(me), MPI_INT, recv, counts, displs, MPI_INT, root,
                    MPI_COMM_WORLD);
    if (me == root)
        for (int r = 0; r < n; r++) {
            errs += check_block(recv + displs[r], counts[r], r, root, "MPI_Gatherv");
            MTEST_CHECK_INT(errs, GUARD, recv[displs[r] + counts[r]],
                            "MPI_Gatherv: the gap after rank %d's block", r);
        }
    free(recv);
    free(counts);
    free(displs);
    return errs;
}

static int scatters(int root, int in_place)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    int *counts = ints(n, 0), *displs = ints(n, 0), total;
    for (int r = 0; r < n; r++)
        counts[r] = vcount(r);
    reverse_displs(counts, displs, n, &total);
    int *send = ints(3 * n, GUARD), recv[4] = {GUARD, GUARD, GUARD, GUARD};
    if (me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 3; i++)
                send[3 * r + i] = val(root, r, i);
    if (in_place && me == root)
        MPI_Scatter(send, 3, MPI_INT, MPI_IN_PLACE, 3, MPI_INT, root, MPI_COMM_WORLD);
    else {
        MPI_Scatter(send, 3, MPI_INT, recv, 3, MPI_INT, root, MPI_COMM_WORLD);
        errs += check_block(recv, 3, root, me, "MPI_Scatter");
        MTEST_CHECK_INT(errs, GUARD, recv[3], "MPI_Scatter: the element after the block");
    }
    free(send);
    send = ints(total, GUARD);
    if (me == root)
        for (int r = 0; r < n; r++)
            for (int i = 0; i < counts[r]; i++)
                send[displs[r] + i] = val(root, r, i);
    for (int i = 0; i < 4; i++)
        recv[i] = GUARD;
    if (in_place && me == root)
        MPI_Scatterv(send, counts, displs, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, MPI_COMM_WORLD);
    else {
        MPI_Scatterv(send, counts, displs, MPI_INT, recv, vcount(me), MPI_INT, root,
                     MPI_COMM_WORLD);
        errs += check_block(recv, vcount(me), root, me, "MPI_Scatterv");
        MTEST_CHECK_INT(errs, GUARD, recv[vcount(me)], "MPI_Scatterv: the element after");
    }
    free(send);
    free(counts);
    free(displs);
    return errs;
}

/* Allgather(v) and Alltoall(v,w); the block rank r sends to everyone is val(r, 0, i) for the
 * gathers, val(r, to, i) for the all-to-alls. */
static int alls(int in_place)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    int *counts = ints(n, 0), *displs = ints(n, 0), total;
    for (int r = 0; r < n; r++)
        counts[r] = vcount(r);
    reverse_displs(counts, displs, n, &total);
    const char *how = in_place ? " (in place)" : "";
    char what[64];

    int send[4], *recv = ints(2 * n, GUARD);
    for (int i = 0; i < 4; i++)
        send[i] = val(me, 0, i);
    if (in_place) {
        recv[2 * me] = send[0];
        recv[2 * me + 1] = send[1];
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD);
    } else
        MPI_Allgather(send, 2, MPI_INT, recv, 2, MPI_INT, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "MPI_Allgather%s", how);
    for (int r = 0; r < n; r++)
        errs += check_block(recv + 2 * r, 2, r, 0, what);
    free(recv);

    recv = ints(total, GUARD);
    if (in_place) {
        for (int i = 0; i < counts[me]; i++)
            recv[displs[me] + i] = send[i];
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    } else
        MPI_Allgatherv(send, counts[me], MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "MPI_Allgatherv%s", how);
    for (int r = 0; r < n; r++) {
        errs += check_block(recv + displs[r], counts[r], r, 0, what);
        MTEST_CHECK_INT(errs, GUARD, recv[displs[r] + counts[r]], "%s: gap after rank %d", what, r);
    }
    free(recv);

    /* Alltoall: 2 ints to each rank. */
    int *asend = ints(2 * n, GUARD), *arecv = ints(2 * n, GUARD);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < 2; i++)
            (in_place ? arecv : asend)[2 * r + i] = val(me, r, i);
    MPI_Alltoall(in_place ? MPI_IN_PLACE : asend, 2, MPI_INT, arecv, 2, MPI_INT, MPI_COMM_WORLD);
    snprintf(what, sizeof(what), "MPI_Alltoall%s", how);
    for (int r = 0; r < n; r++)
        errs += check_block(arecv + 2 * r, 2, r, me, what);
    free(asend);
    free(arecv);

    /* Alltoallv: rank r sends vcount(to) + r % 2 elements to rank to; the receiver expects
     * vcount(me) + r % 2 from rank r. */
    int *sc = ints(n, 0), *sd = ints(n, 0), *rc = ints(n, 0), *rd = ints(n, 0), stot, rtot;
    for (int r = 0; r < n; r++) {
        sc[r] = vcount(r) + me % 2;
        rc[r] = vcount(me) + r % 2;
    }
    reverse_displs(sc, sd, n, &stot);
    reverse_displs(rc, rd, n, &rtot);
    int *vs = ints(stot, GUARD), *vr = ints(rtot, GUARD);
    if (in_place) {
        /* In place, the send layout is the receive layout: counts must be symmetric. */
        for (int r = 0; r < n; r++) {
            sc[r] = rc[r] = 2;
            sd[r] = rd[r] = 3 * (n - 1 - r);
        }
        free(vr);
        vr = ints(3 * n, GUARD);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 2; i++)
                vr[rd[r] + i] = val(me, r, i);
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, vr, rc, rd, MPI_INT, MPI_COMM_WORLD);
    } else {
        for (int r = 0; r < n; r++)
            for (int i = 0; i < sc[r]; i++)
                vs[sd[r] + i] = val(me, r, i);
        MPI_Alltoallv(vs, sc, sd, MPI_INT, vr, rc, rd, MPI_INT, MPI_COMM_WORLD);
    }
    snprintf(what, sizeof(what), "MPI_Alltoallv%s", how);
    for (int r = 0; r < n; r++) {
        errs += check_block(vr + rd[r], rc[r], r, me, what);
        MTEST_CHECK_INT(errs, GUARD, vr[rd[r] + rc[r]], "%s: gap after rank %d", what, r);
    }

    /* Alltoallw: the same exchange with byte displacements, and a type per peer (ints to
     * even ranks, pairs of ints as one contiguous type to odd ranks, the count halved). */
    if (!in_place) {
        MPI_Datatype pair, *st = malloc(sizeof(MPI_Datatype) * (size_t)n),
                           *rt = malloc(sizeof(MPI_Datatype) * (size_t)n);
        MPI_Type_contiguous(2, MPI_INT, &pair);
        MPI_Type_commit(&pair);
        int *wsc = ints(n, 0), *wsd = ints(n, 0), *wrc = ints(n, 0), *wrd = ints(n, 0);
        for (int r = 0; r < n; r++) {
            /* Even element counts so that a pair type divides them. */
            int sn = 2 * (vcount(r) + me % 2), rn = 2 * (vcount(me) + r % 2);
            st[r] = r % 2 ? pair : MPI_INT;
            wsc[r] = r % 2 ? sn / 2 : sn;
            rt[r] = me % 2 ? pair : MPI_INT;
            wrc[r] = me % 2 ? rn / 2 : rn;
            sc[r] = sn;
            rc[r] = rn;
        }
        reverse_displs(sc, sd, n, &stot);
        reverse_displs(rc, rd, n, &rtot);
        for (int r = 0; r < n; r++) {
            wsd[r] = sd[r] * (int)sizeof(int);
            wrd[r] = rd[r] * (int)sizeof(int);
        }
        free(vs);
        free(vr);
        vs = ints(stot, GUARD);
        vr = ints(rtot, GUARD);
        for (int r = 0; r < n; r++)
            for (int i = 0; i < sc[r]; i++)
                vs[sd[r] + i] = val(me, r, i);
        MPI_Alltoallw(vs, wsc, wsd, st, vr, wrc, wrd, rt, MPI_COMM_WORLD);
        for (int r = 0; r < n; r++) {
            errs += check_block(vr + rd[r], rc[r], r, me, "MPI_Alltoallw");
            MTEST_CHECK_INT(errs, GUARD, vr[rd[r] + rc[r]], "MPI_Alltoallw: gap after rank %d", r);
        }
        MPI_Type_free(&pair);
        free(st);
        free(rt);
        free(wsc);
        free(wsd);
        free(wrc);
        free(wrd);
    }
    free(vs);
    free(vr);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(counts);
    free(displs);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    for (int root = 0; root < mtest_size; root++)
        for (int in_place = 0; in_place < 2; in_place++) {
            errs += gathers(root, in_place);
            errs += scatters(root, in_place);
        }
    errs += alls(0);
    errs += alls(1);
    return MTest_Finalize(errs);
}
