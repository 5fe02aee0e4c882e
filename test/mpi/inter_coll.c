/* inter_coll.c: the collectives on intercommunicators (MPI-4.1 ch. 6), each blocking, nonblocking
 * and persistent (its request started twice, with new data each time): Reduce (MPI_SUM and a
 * non-commutative user operation, which must combine the sending group in rank order), Gather,
 * Gatherv, Scatter, Scatterv, Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw (derived
 * datatypes on both sides), Reduce_scatter_block and Reduce_scatter.  Data goes from one group to
 * the other and every value is checked against the one computed from its sender's group, rank and
 * position.  The rooted ones run with each group as the root's in turn, the root being the last
 * rank of its group (MPI_ROOT) and its group's other ranks passing MPI_PROC_NULL and NULL buffers,
 * which must not be touched.  The groups send different counts where the standard lets them
 * (Allgather, Alltoall), the v forms have zero counts and blocks in reverse order with gaps that
 * must stay as they were.  Two intercommunicators: the even against the odd ranks, and rank 0
 * against the others.  Any number of ranks (one rank: nothing to check). */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define UNSET (-7) /* what a receive buffer holds before the call */

typedef struct {
    MPI_Comm comm;
    const char *name;
    int side;       /* 0: the group of world rank 0; 1: the other */
    int rank, size; /* in the local group */
    int rsize;      /* of the remote group */
} ictx_t;

typedef enum { BLOCKING, NONBLOCKING, PERSISTENT } form_t;
static const char *const form_name[] = {"blocking", "nonblocking", "persistent"};
/* pmodels/mpich#7078 (fixed by #7081, 2024): MPICH's persistent gathers, and the intercommunicator
 * collectives built on them, send the data the buffer held at the first start again at later
 * starts; there a persistent request is started once only. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40300000
#define PERSISTENT_STARTS 1
#else
#define PERSISTENT_STARTS 2
#endif
#define ROUNDS(form) ((form) == PERSISTENT ? PERSISTENT_STARTS : 1)
#if MPI_VERSION >= 4
#define LAST_FORM PERSISTENT
#define INIT_FORM(call) (call)
#else /* an MPI-3 library (Open MPI 4.1) has no persistent collectives: those runs are left out */
#define LAST_FORM NONBLOCKING
#define INIT_FORM(call) MPI_ERR_OTHER
#endif

/* pmodels/mpich#6351, fixed in 4.1: MPICH refuses a NULL send buffer at the MPI_ROOT rank of an
 * intercommunicator Reduce, where the standard ignores it; that rank passes a dummy one there. */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#define ROOT_SENDBUF_NOTE 1
#else
#define ROOT_SENDBUF_NOTE 0
#endif

static int errs;

/* The value at position (a, b) of the data of rank `rank` of group `side`, in round `round`. */
static int val(int side, int rank, int a, int b, int round)
{
    return side * 1000000 + rank * 10000 + a * 100 + b + 50 * round;
}

/* For the reductions, small enough that the sum over a group fits an int. */
static int rval(int side, int rank, int i, int round)
{
    return side * 100000 + rank * 1000 + 3 * i + round;
}

/* Hands the call's return code over and completes the call in its form: nothing more for a
 * blocking one, a wait for a nonblocking one; a persistent one (made in round 0) is started and
 * waited for, and freed after its last round. */
static void complete(form_t form, int round, MPI_Request *req, int rc, const char *what,
                     const ictx_t *x)
{
    char w[200];
    snprintf(w, sizeof w, "%s %s on %s", form_name[form], what, x->name);
    MTEST_CHECK_RC(errs, rc, "%s", w);
    if (rc != MPI_SUCCESS)
        return;
    if (form == PERSISTENT)
        MTEST_CHECK_RC(errs, MPI_Start(req), "MPI_Start of %s", w);
    if (form != BLOCKING)
        MTEST_CHECK_RC(errs, MPI_Wait(req, MPI_STATUS_IGNORE), "MPI_Wait of %s", w);
    if (form == PERSISTENT && round == ROUNDS(form) - 1)
        MPI_Request_free(req);
}

/* One call in the chosen form: the persistent request is made in round 0 only. */
#define CALL(form, round, req, what, x, BLOCK, NB, INIT)                                           \
    complete(form, round, &(req),                                                                  \
             (form) == BLOCKING      ? (BLOCK)                                                     \
             : (form) == NONBLOCKING ? (NB)                                                        \
             : (round) == 0          ? INIT_FORM(INIT)                                             \
                                     : MPI_SUCCESS,                                                         \
             what, x)

static void check(int want, int seen, const char *what, const ictx_t *x, form_t form, int round,
                  int index)
{
    if (want != seen)
        MTEST_FAIL(errs, "%s %s on %s, round %d, [%d]: expected %d, saw %d", form_name[form], what,
                   x->name, round, index, want, seen);
}

static void unset(int *buf, int n)
{
    for (int i = 0; i < n; i++)
        buf[i] = UNSET;
}

/* The root's rank in its group (its last), and what this rank passes as root when group rs
 * holds the root. */
static int root_rank(const ictx_t *x, int rs)
{
    return (rs == x->side ? x->size : x->rsize) - 1;
}

static int root_arg(const ictx_t *x, int rs)
{
    if (rs != x->side)
        return root_rank(x, rs);
    return x->rank == root_rank(x, rs) ? MPI_ROOT : MPI_PROC_NULL;
}

/* ---- Reduce ---- */

/* Digits in base 16: (value, digit count) pairs concatenated, in rank order only. */
static void concat_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    long long *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        b[2 * i] = (a[2 * i] << (4 * b[2 * i + 1])) + b[2 * i];
        b[2 * i + 1] += a[2 * i + 1];
    }
}

static void case_reduce(const ictx_t *x, form_t form, MPI_Op concat, MPI_Datatype pair)
{
    for (int rs = 0; rs < 2; rs++) {
        int root = root_arg(x, rs), other = 1 - x->side;
        int sbuf[3], rbuf[3];
        long long cs[2], cr[2];
        MPI_Request req[2];
        for (int round = 0; round < ROUNDS(form); round++) {
            for (int i = 0; i < 3; i++)
                sbuf[i] = rval(x->side, x->rank, i, round);
            cs[0] = (x->rank + round) % 16; /* a digit */
            cs[1] = 1;
            unset(rbuf, 3);
            cr[0] = cr[1] = UNSET;
            int *sb = root >= 0 ? sbuf : NULL, *rb = root == MPI_ROOT ? rbuf : NULL;
            long long *csb = root >= 0 ? cs : NULL, *crb = root == MPI_ROOT ? cr : NULL;
            if (ROOT_SENDBUF_NOTE && root == MPI_ROOT) {
                sb = sbuf;
                csb = cs;
            }
            MPI_Comm c = x->comm;
            CALL(form, round, req[0], "Reduce(MPI_SUM)", x,
                 MPI_Reduce(sb, rb, 3, MPI_INT, MPI_SUM, root, c),
                 MPI_Ireduce(sb, rb, 3, MPI_INT, MPI_SUM, root, c, &req[0]),
                 MPI_Reduce_init(sb, rb, 3, MPI_INT, MPI_SUM, root, c, MPI_INFO_NULL, &req[0]));
            CALL(form, round, req[1], "Reduce(non-commutative)", x,
                 MPI_Reduce(csb, crb, 1, pair, concat, root, c),
                 MPI_Ireduce(csb, crb, 1, pair, concat, root, c, &req[1]),
                 MPI_Reduce_init(csb, crb, 1, pair, concat, root, c, MPI_INFO_NULL, &req[1]));
            if (root != MPI_ROOT)
                continue;
            long long digits = 0;
            for (int r = 0; r < x->rsize; r++)
                digits = (digits << 4) + (r + round) % 16;
            for (int i = 0; i < 3; i++) {
                int want = 0;
                for (int r = 0; r < x->rsize; r++)
                    want += rval(other, r, i, round);
                check(want, rbuf[i], "Reduce(MPI_SUM)", x, form, round, i);
            }
            if (cr[0] != digits || cr[1] != x->rsize)
                MTEST_FAIL(errs,
                           "%s Reduce(non-commutative) on %s, round %d: expected digits %llx "
                           "(%d), saw %llx (%lld): not the sending group's rank order",
                           form_name[form], x->name, round, digits, x->rsize, cr[0], cr[1]);
        }
    }
}

/* ---- Gather, Gatherv, Scatter, Scatterv ---- */

static void case_gather(const ictx_t *x, form_t form, int vector)
{
    const char *what = vector ? "Gatherv" : "Gather";
    int rn = x->rsize, other = 1 - x->side;
    int *rbuf = malloc(sizeof(int) * 3 * rn), *counts = malloc(sizeof(int) * rn),
        *displs = malloc(sizeof(int) * rn);
    /* Gatherv: remote rank r sends r % 3 ints, placed in reverse rank order 3 apart. */
    for (int r = 0; r < rn; r++) {
        counts[r] = r % 3;
        displs[r] = 3 * (rn - 1 - r);
    }
    for (int rs = 0; rs < 2; rs++) {
        int root = root_arg(x, rs), sbuf[2], scount = vector ? x->rank % 3 : 2;
        MPI_Request req;
        for (int round = 0; round < ROUNDS(form); round++) {
            for (int j = 0; j < 2; j++)
                sbuf[j] = val(x->side, x->rank, 0, j, round);
            unset(rbuf, 3 * rn);
            int *sb = root >= 0 ? sbuf : NULL, *rb = root == MPI_ROOT ? rbuf : NULL;
            MPI_Comm c = x->comm;
            if (vector)
                CALL(form, round, req, what, x,
                     MPI_Gatherv(sb, scount, MPI_INT, rb, counts, displs, MPI_INT, root, c),
                     MPI_Igatherv(sb, scount, MPI_INT, rb, counts, displs, MPI_INT, root, c, &req),
                     MPI_Gatherv_init(sb, scount, MPI_INT, rb, counts, displs, MPI_INT, root, c,
                                      MPI_INFO_NULL, &req));
            else
                CALL(form, round, req, what, x, MPI_Gather(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c),
                     MPI_Igather(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c, &req),
                     MPI_Gather_init(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c, MPI_INFO_NULL, &req));
            if (root != MPI_ROOT)
                continue;
            for (int r = 0; r < rn; r++) {
                int n = vector ? counts[r] : 2, d = vector ? displs[r] : 2 * r;
                for (int j = 0; j < 3 && (vector || j < 2); j++) /* Gatherv: the gap too */
                    check(j < n ? val(other, r, 0, j, round) : UNSET, rbuf[d + j], what, x, form,
                          round, d + j);
            }
        }
    }
    free(rbuf);
    free(counts);
    free(displs);
}

static void case_scatter(const ictx_t *x, form_t form, int vector)
{
    const char *what = vector ? "Scatterv" : "Scatter";
    int rn = x->rsize, other = 1 - x->side;
    int *sbuf = malloc(sizeof(int) * 3 * rn), *counts = malloc(sizeof(int) * rn),
        *displs = malloc(sizeof(int) * rn);
    for (int r = 0; r < rn; r++) {
        counts[r] = r % 3;
        displs[r] = 3 * (rn - 1 - r);
    }
    for (int rs = 0; rs < 2; rs++) {
        int root = root_arg(x, rs), rbuf[3], rcount = vector ? x->rank % 3 : 2;
        MPI_Request req;
        for (int round = 0; round < ROUNDS(form); round++) {
            /* Block r is for remote rank r, and says so. */
            for (int r = 0; r < rn; r++)
                for (int j = 0; j < (vector ? 3 : 2); j++)
                    sbuf[vector ? displs[r] + j : 2 * r + j] = val(x->side, r, 1, j, round);
            unset(rbuf, 3);
            int *sb = root == MPI_ROOT ? sbuf : NULL, *rb = root >= 0 ? rbuf : NULL;
            MPI_Comm c = x->comm;
            if (vector)
                CALL(form, round, req, what, x,
                     MPI_Scatterv(sb, counts, displs, MPI_INT, rb, rcount, MPI_INT, root, c),
                     MPI_Iscatterv(sb, counts, displs, MPI_INT, rb, rcount, MPI_INT, root, c, &req),
                     MPI_Scatterv_init(sb, counts, displs, MPI_INT, rb, rcount, MPI_INT, root, c,
                                       MPI_INFO_NULL, &req));
            else
                CALL(
                    form, round, req, what, x, MPI_Scatter(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c),
                    MPI_Iscatter(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c, &req),
                    MPI_Scatter_init(sb, 2, MPI_INT, rb, 2, MPI_INT, root, c, MPI_INFO_NULL, &req));
            if (root < 0)
                continue;
            for (int j = 0; j < 3; j++)
                check(j < rcount ? val(other, x->rank, 1, j, round) : UNSET, rbuf[j], what, x, form,
                      round, j);
        }
    }
    free(sbuf);
    free(counts);
    free(displs);
}

/* ---- Allgather, Allgatherv ---- */

static void case_allgather(const ictx_t *x, form_t form, int vector)
{
    const char *what = vector ? "Allgatherv" : "Allgather";
    int rn = x->rsize, other = 1 - x->side;
    /* Allgather: group 0 sends 1 int a rank, group 1 sends 2.  Allgatherv: rank r sends r % 3,
     * placed in reverse rank order 3 apart. */
    int scount = vector ? x->rank % 3 : 1 + x->side, rcount = 1 + other;
    int sbuf[3], *rbuf = malloc(sizeof(int) * 3 * rn), *counts = malloc(sizeof(int) * rn),
                 *displs = malloc(sizeof(int) * rn);
    for (int r = 0; r < rn; r++) {
        counts[r] = r % 3;
        displs[r] = 3 * (rn - 1 - r);
    }
    MPI_Request req;
    for (int round = 0; round < ROUNDS(form); round++) {
        for (int j = 0; j < 3; j++)
            sbuf[j] = val(x->side, x->rank, 2, j, round);
        unset(rbuf, 3 * rn);
        MPI_Comm c = x->comm;
        if (vector)
            CALL(form, round, req, what, x,
                 MPI_Allgatherv(sbuf, scount, MPI_INT, rbuf, counts, displs, MPI_INT, c),
                 MPI_Iallgatherv(sbuf, scount, MPI_INT, rbuf, counts, displs, MPI_INT, c, &req),
                 MPI_Allgatherv_init(sbuf, scount, MPI_INT, rbuf, counts, displs, MPI_INT, c,
                                     MPI_INFO_NULL, &req));
        else
            CALL(form, round, req, what, x,
                 MPI_Allgather(sbuf, scount, MPI_INT, rbuf, rcount, MPI_INT, c),
                 MPI_Iallgather(sbuf, scount, MPI_INT, rbuf, rcount, MPI_INT, c, &req),
                 MPI_Allgather_init(sbuf, scount, MPI_INT, rbuf, rcount, MPI_INT, c, MPI_INFO_NULL,
                                    &req));
        for (int r = 0; r < rn; r++) {
            int n = vector ? counts[r] : rcount, d = vector ? displs[r] : rcount * r;
            for (int j = 0; j < (vector ? 3 : n); j++)
                check(j < n ? val(other, r, 2, j, round) : UNSET, rbuf[d + j], what, x, form, round,
                      d + j);
        }
    }
    free(rbuf);
    free(counts);
    free(displs);
}

/* ---- Alltoall, Alltoallv, Alltoallw ---- */

static void case_alltoall(const ictx_t *x, form_t form, int vector)
{
    const char *what = vector ? "Alltoallv" : "Alltoall";
    int rn = x->rsize, me = x->rank, other = 1 - x->side;
    /* Alltoall: group 0 sends 1 int to each remote rank, group 1 sends 2.  Alltoallv: rank a
     * sends (a + b) % 3 ints to rank b of the other group, from blocks in reverse order 3 apart,
     * into blocks in rank order 3 apart. */
    int scount = 1 + x->side, rcount = 1 + other;
    int *sbuf = malloc(sizeof(int) * 3 * rn), *rbuf = malloc(sizeof(int) * 3 * rn);
    int *sc = malloc(sizeof(int) * rn), *sd = malloc(sizeof(int) * rn);
    int *rc = malloc(sizeof(int) * rn), *rd = malloc(sizeof(int) * rn);
    for (int r = 0; r < rn; r++) {
        sc[r] = rc[r] = (me + r) % 3;
        sd[r] = 3 * (rn - 1 - r);
        rd[r] = 3 * r;
    }
    MPI_Request req;
    for (int round = 0; round < ROUNDS(form); round++) {
        for (int r = 0; r < rn; r++)
            for (int j = 0; j < 3; j++)
                if (vector)
                    sbuf[sd[r] + j] = val(x->side, me, r, j, round);
                else if (j < scount)
                    sbuf[scount * r + j] = val(x->side, me, r, j, round);
        unset(rbuf, 3 * rn);
        MPI_Comm c = x->comm;
        if (vector)
            CALL(form, round, req, what, x,
                 MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, c),
                 MPI_Ialltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, c, &req),
                 MPI_Alltoallv_init(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, c, MPI_INFO_NULL,
                                    &req));
        else
            CALL(form, round, req, what, x,
                 MPI_Alltoall(sbuf, scount, MPI_INT, rbuf, rcount, MPI_INT, c),
                 MPI_Ialltoall(sbuf, scount, MPI_INT, rbuf, rcount, MPI_INT, c, &req),
                 MPI_Alltoall_init(sbuf, scount, MPI_INT, rbuf, rcount, MPI_INT, c, MPI_INFO_NULL,
                                   &req));
        for (int r = 0; r < rn; r++) {
            int n = vector ? rc[r] : rcount, d = vector ? rd[r] : rcount * r;
            for (int j = 0; j < (vector ? 3 : n); j++)
                check(j < n ? val(other, r, me, j, round) : UNSET, rbuf[d + j], what, x, form,
                      round, d + j);
        }
    }
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
}

/* Alltoallw: to an even remote rank b, rank a sends (a + b) % 3 elements of a vector type (2
 * ints 2 apart, extent 3 ints), to an odd one twice as many MPI_INTs; it receives from an even
 * remote rank into MPI_INTs, from an odd one into pairs of ints (a contiguous type).  Byte
 * displacements: 12 ints a block on the send side, 8 on the receive side. */
#define W_SEND 12
#define W_RECV 8

/* Where a sender's k-th int of the message to rank b sits in its block. */
static int w_pos(int b, int k)
{
    return b % 2 == 0 ? (k / 2) * 3 + (k % 2) * 2 : k;
}

static void case_alltoallw(const ictx_t *x, form_t form, MPI_Datatype vec, MPI_Datatype two)
{
    int rn = x->rsize, me = x->rank, other = 1 - x->side;
    int *sbuf = malloc(sizeof(int) * W_SEND * rn), *rbuf = malloc(sizeof(int) * W_RECV * rn);
    int *sc = malloc(sizeof(int) * rn), *sd = malloc(sizeof(int) * rn);
    int *rc = malloc(sizeof(int) * rn), *rd = malloc(sizeof(int) * rn);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * rn), *rt = malloc(sizeof(MPI_Datatype) * rn);
    for (int r = 0; r < rn; r++) {
        int k = (me + r) % 3; /* pairs of ints between me and r */
        sc[r] = r % 2 == 0 ? k : 2 * k;
        st[r] = r % 2 == 0 ? vec : MPI_INT;
        sd[r] = (int)sizeof(int) * W_SEND * r;
        rc[r] = r % 2 == 0 ? 2 * k : k;
        rt[r] = r % 2 == 0 ? MPI_INT : two;
        rd[r] = (int)sizeof(int) * W_RECV * r;
    }
    MPI_Request req;
    for (int round = 0; round < ROUNDS(form); round++) {
        for (int r = 0; r < rn; r++)
            for (int p = 0; p < W_SEND; p++)
                sbuf[W_SEND * r + p] = val(x->side, me, r, p, round);
        unset(rbuf, W_RECV * rn);
        MPI_Comm c = x->comm;
        CALL(form, round, req, "Alltoallw", x, MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, c),
             MPI_Ialltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, c, &req),
             MPI_Alltoallw_init(sbuf, sc, sd, st, rbuf, rc, rd, rt, c, MPI_INFO_NULL, &req));
        for (int r = 0; r < rn; r++) {
            int n = 2 * ((me + r) % 3);
            for (int k = 0; k < W_RECV; k++)
                check(k < n ? val(other, r, me, w_pos(me, k), round) : UNSET, rbuf[W_RECV * r + k],
                      "Alltoallw", x, form, round, W_RECV * r + k);
        }
    }
    free(sbuf);
    free(rbuf);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(st);
    free(rt);
}

/* ---- Reduce_scatter_block, Reduce_scatter ---- */

/* Each group's vectors have size * rsize ints (the same number in both groups, as the standard
 * requires); a group receives the sum of the other group's, in blocks of rsize ints a rank
 * (Reduce_scatter_block), or (Reduce_scatter) in blocks of its recvcounts: rank 0 none, rank 1
 * two blocks' worth, the others one. */
static void case_reduce_scatter(const ictx_t *x, form_t form, int vector)
{
    const char *what = vector ? "Reduce_scatter" : "Reduce_scatter_block";
    int n = x->size, rn = x->rsize, total = n * rn, other = 1 - x->side;
    int *sbuf = malloc(sizeof(int) * total), *rbuf = malloc(sizeof(int) * (2 * rn + 1));
    int *counts = malloc(sizeof(int) * n), start = 0;
    for (int k = 0; k < n; k++)
        counts[k] = rn;
    if (vector && n >= 2) {
        counts[0] = 0;
        counts[1] = 2 * rn;
    }
    for (int k = 0; vector && k < x->rank; k++)
        start += counts[k];
    int mine = vector ? counts[x->rank] : rn;
    MPI_Request req;
    for (int round = 0; round < ROUNDS(form); round++) {
        for (int i = 0; i < total; i++)
            sbuf[i] = rval(x->side, x->rank, i, round);
        unset(rbuf, 2 * rn + 1);
        MPI_Comm c = x->comm;
        if (vector)
            CALL(form, round, req, what, x,
                 MPI_Reduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, c),
                 MPI_Ireduce_scatter(sbuf, rbuf, counts, MPI_INT, MPI_SUM, c, &req),
                 MPI_Reduce_scatter_init(sbuf, rbuf, counts, MPI_INT, MPI_SUM, c, MPI_INFO_NULL,
                                         &req));
        else
            CALL(form, round, req, what, x,
                 MPI_Reduce_scatter_block(sbuf, rbuf, rn, MPI_INT, MPI_SUM, c),
                 MPI_Ireduce_scatter_block(sbuf, rbuf, rn, MPI_INT, MPI_SUM, c, &req),
                 MPI_Reduce_scatter_block_init(sbuf, rbuf, rn, MPI_INT, MPI_SUM, c, MPI_INFO_NULL,
                                               &req));
        if (!vector)
            start = x->rank * rn;
        for (int k = 0; k <= mine; k++) {
            int want = UNSET;
            if (k < mine) {
                want = 0;
                for (int r = 0; r < rn; r++)
                    want += rval(other, r, start + k, round);
            }
            check(want, rbuf[k], what, x, form, round, k);
        }
    }
    free(sbuf);
    free(rbuf);
    free(counts);
}

/* ---- The intercommunicators ---- */

/* An intercommunicator between the ranks of color 0 and those of color 1 of MPI_COMM_WORLD;
 * each group's leader is its lowest world rank, and side 0 is world rank 0's group. */
static void make_inter(ictx_t *x, const char *name, int color, int remote_leader)
{
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, mtest_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 17, &x->comm);
    MPI_Comm_free(&half);
    x->name = name;
    MPI_Comm_rank(x->comm, &x->rank);
    MPI_Comm_size(x->comm, &x->size);
    MPI_Comm_remote_size(x->comm, &x->rsize);
    int zero_here = mtest_rank == 0, zero_group;
    MPI_Allreduce(&zero_here, &zero_group, 1, MPI_INT, MPI_MAX, x->comm); /* the other group's */
    x->side = zero_group ? 1 : 0;
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    if (mtest_size < 2)
        return MTest_Finalize(0);
    if (ROOT_SENDBUF_NOTE && mtest_rank == 0)
        printf("note: MPICH before 4.1 refuses a NULL sendbuf at the root of an intercommunicator "
               "Reduce (pmodels/mpich#6351): the root passes one\n");
    if (PERSISTENT_STARTS == 1 && mtest_rank == 0)
        printf("note: MPICH before 4.3 sends the first start's data at every start of a persistent "
               "gather (pmodels/mpich#7078): each persistent request is started once only\n");
    MPI_Op concat;
    MPI_Op_create(concat_fn, 0, &concat);
    MPI_Datatype pair, vec, two;
    MPI_Type_contiguous(2, MPI_LONG_LONG, &pair);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_contiguous(2, MPI_INT, &two);
    MPI_Type_commit(&pair);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&two);
    ictx_t inter[2];
    make_inter(&inter[0], "even|odd", mtest_rank % 2, mtest_rank % 2 ? 0 : 1);
    make_inter(&inter[1], "0|rest", mtest_rank != 0, mtest_rank != 0 ? 0 : 1);
    for (int i = 0; i < 2; i++) {
        const ictx_t *x = &inter[i];
        MPI_Comm_set_errhandler(x->comm, MPI_ERRORS_RETURN);
        for (form_t form = BLOCKING; form <= LAST_FORM; form++) {
            case_reduce(x, form, concat, pair);
            for (int vector = 0; vector < 2; vector++) {
                case_gather(x, form, vector);
                case_scatter(x, form, vector);
                case_allgather(x, form, vector);
                case_alltoall(x, form, vector);
                case_reduce_scatter(x, form, vector);
            }
            case_alltoallw(x, form, vec, two);
        }
        MPI_Comm_free(&inter[i].comm);
    }
    MPI_Type_free(&pair);
    MPI_Type_free(&vec);
    MPI_Type_free(&two);
    MPI_Op_free(&concat);
    return MTest_Finalize(errs);
}
