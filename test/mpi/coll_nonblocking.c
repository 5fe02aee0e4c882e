/* coll_nonblocking.c: the nonblocking collectives (MPI_I...) and the persistent ones (..._init
 * with MPI_Start/MPI_Startall) give exactly what their blocking twins give (MPI-4.1 sec. 6.12,
 * 6.13), every byte of the receive buffers compared, including the holes of derived types and
 * the blocks a rank does not receive:
 * - every collective, with predefined and user-defined (non-commutative) operations, derived
 *   datatypes with holes, MPI_IN_PLACE, zero counts, counts that differ per rank;
 * - all of them outstanding at once on one communicator, started in one order on every rank,
 *   mixed with point-to-point traffic on the same communicator whose receives use
 *   MPI_ANY_SOURCE (a collective message must never match one), completed with MPI_Testsome,
 *   then again with MPI_Waitany, then waited for last-started first;
 * - the persistent forms started several times with new data each time (MPI_Startall, then
 *   MPI_Start one by one), and freed;
 * - Barrier, Bcast and Allreduce on an intercommunicator, the values checked too;
 * - an op and a datatype freed while a collective that uses them is under way;
 * - bad arguments: the error class, and no request made.
 * Written from the standard's text. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define BUF 1024 /* ints in each buffer: more than any case uses on 4 ranks */
#define PT2PT_TAG 5

typedef enum { BLOCKING, NONBLOCKING, PERSISTENT } form_t;

static MPI_Comm comm;
static int rank, size;
static MPI_Datatype vec_t;  /* 2 ints with a hole between them (extent 3 ints) */
static MPI_Datatype mat_t_; /* a 2x2 matrix of unsigned ints, contiguous */
static MPI_Op mat_op;       /* matrix product: associative, not commutative */

static void mat_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    unsigned *x = in, *y = inout;
    for (int i = 0; i < *len; i++, x += 4, y += 4) {
        unsigned r[4] = {x[0] * y[0] + x[1] * y[2], x[0] * y[1] + x[1] * y[3],
                         x[2] * y[0] + x[3] * y[2], x[2] * y[1] + x[3] * y[3]};
        memcpy(y, r, sizeof r);
    }
}

/* Per-rank counts and displacements the v forms use (filled in main). */
static int cnt_r[64], dsp_r[64];   /* gatherv/allgatherv/scatterv */
static int a2a_sc[64], a2a_sd[64]; /* alltoallv: what this rank sends to each */
static int a2a_rc[64], a2a_rd[64]; /* and receives from each */
static int w_sc[64], w_sd[64], w_rc[64], w_rd[64];
static MPI_Datatype w_st[64], w_rt[64];
static int rs_counts[64];

/* Each case runs its collective in one of the three forms: blocking (req unused), or started
 * (nonblocking: in flight on return; persistent: inactive, to be started). */
static int run_case(int k, form_t mode, int *send, int *recv, MPI_Request *req)
{
    MPI_Info info = MPI_INFO_NULL;
    int root;
#define FORM(B, I, P, ARGS, ...)                                                                   \
    (mode == BLOCKING      ? B ARGS                                                                \
     : mode == NONBLOCKING ? I(__VA_ARGS__, req)                                                   \
                           : P(__VA_ARGS__, info, req))
    switch (k) {
    case 0:
        return FORM(MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, (comm), comm);
    case 1:
        root = size - 1;
        return FORM(MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, (recv, 7, MPI_INT, root, comm), recv, 7,
                    MPI_INT, root, comm);
    case 2: /* derived type with holes */
        return FORM(MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, (recv, 5, vec_t, 0, comm), recv, 5,
                    vec_t, 0, comm);
    case 3:
        root = 1 % size;
        return FORM(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init,
                    (send, recv, 6, MPI_INT, MPI_SUM, root, comm), send, recv, 6, MPI_INT, MPI_SUM,
                    root, comm);
    case 4: /* user op, not commutative, at a root that is not 0 */
        root = size / 2;
        return FORM(MPI_Reduce, MPI_Ireduce, MPI_Reduce_init,
                    (send, recv, 3, mat_t_, mat_op, root, comm), send, recv, 3, mat_t_, mat_op,
                    root, comm);
    case 5:
        return FORM(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init,
                    (MPI_IN_PLACE, recv, 5, MPI_INT, MPI_SUM, comm), MPI_IN_PLACE, recv, 5, MPI_INT,
                    MPI_SUM, comm);
    case 6:
        return FORM(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init,
                    (send, recv, 4, MPI_UNSIGNED, MPI_PROD, comm), send, recv, 4, MPI_UNSIGNED,
                    MPI_PROD, comm);
    case 7:
        return FORM(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init,
                    (send, recv, 2, mat_t_, mat_op, comm), send, recv, 2, mat_t_, mat_op, comm);
    case 8: /* zero count */
        return FORM(MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init,
                    (send, recv, 0, MPI_INT, MPI_MAX, comm), send, recv, 0, MPI_INT, MPI_MAX, comm);
    case 9:
        root = size / 2;
        return FORM(MPI_Gather, MPI_Igather, MPI_Gather_init,
                    (send, 3, MPI_INT, recv, 3, MPI_INT, root, comm), send, 3, MPI_INT, recv, 3,
                    MPI_INT, root, comm);
    case 10: { /* in place at the root, zero counts, displacements out of rank order */
        const void *sb = rank == 0 ? MPI_IN_PLACE : send;
        return FORM(MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init,
                    (sb, cnt_r[rank], MPI_INT, recv, cnt_r, dsp_r, MPI_INT, 0, comm), sb,
                    cnt_r[rank], MPI_INT, recv, cnt_r, dsp_r, MPI_INT, 0, comm);
    }
    case 11:
        root = size - 1;
        return FORM(MPI_Scatter, MPI_Iscatter, MPI_Scatter_init,
                    (send, 2, MPI_INT, recv, 2, MPI_INT, root, comm), send, 2, MPI_INT, recv, 2,
                    MPI_INT, root, comm);
    case 12:
        return FORM(MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init,
                    (send, cnt_r, dsp_r, MPI_INT, recv, cnt_r[rank], MPI_INT, 0, comm), send, cnt_r,
                    dsp_r, MPI_INT, recv, cnt_r[rank], MPI_INT, 0, comm);
    case 13:
        return FORM(MPI_Allgather, MPI_Iallgather, MPI_Allgather_init,
                    (MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, 2, MPI_INT, comm), MPI_IN_PLACE, 0,
                    MPI_DATATYPE_NULL, recv, 2, MPI_INT, comm);
    case 14: /* a derived type on the send side */
        return FORM(MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init,
                    (send, cnt_r[rank] / 2, vec_t, recv, cnt_r, dsp_r, MPI_INT, comm), send,
                    cnt_r[rank] / 2, vec_t, recv, cnt_r, dsp_r, MPI_INT, comm);
    case 15:
        return FORM(MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init,
                    (send, 2, MPI_INT, recv, 2, MPI_INT, comm), send, 2, MPI_INT, recv, 2, MPI_INT,
                    comm);
    case 16:
        return FORM(MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init,
                    (MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recv, 3, MPI_INT, comm), MPI_IN_PLACE, 0,
                    MPI_DATATYPE_NULL, recv, 3, MPI_INT, comm);
    case 17:
        return FORM(MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init,
                    (send, a2a_sc, a2a_sd, MPI_INT, recv, a2a_rc, a2a_rd, MPI_INT, comm), send,
                    a2a_sc, a2a_sd, MPI_INT, recv, a2a_rc, a2a_rd, MPI_INT, comm);
    case 18:
        return FORM(MPI_Alltoallw, MPI_Ialltoallw, MPI_Alltoallw_init,
                    (send, w_sc, w_sd, w_st, recv, w_rc, w_rd, w_rt, comm), send, w_sc, w_sd, w_st,
                    recv, w_rc, w_rd, w_rt, comm);
    case 19:
        return FORM(MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                    MPI_Reduce_scatter_block_init, (send, recv, 2, MPI_INT, MPI_SUM, comm), send,
                    recv, 2, MPI_INT, MPI_SUM, comm);
    case 20:
        return FORM(MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init,
                    (MPI_IN_PLACE, recv, rs_counts, mat_t_, mat_op, comm), MPI_IN_PLACE, recv,
                    rs_counts, mat_t_, mat_op, comm);
    case 21:
        return FORM(MPI_Scan, MPI_Iscan, MPI_Scan_init, (send, recv, 4, MPI_INT, MPI_SUM, comm),
                    send, recv, 4, MPI_INT, MPI_SUM, comm);
    case 22:
        return FORM(MPI_Scan, MPI_Iscan, MPI_Scan_init,
                    (MPI_IN_PLACE, recv, 2, mat_t_, mat_op, comm), MPI_IN_PLACE, recv, 2, mat_t_,
                    mat_op, comm);
    case 23:
        return FORM(MPI_Exscan, MPI_Iexscan, MPI_Exscan_init, (send, recv, 3, mat_t_, mat_op, comm),
                    send, recv, 3, mat_t_, mat_op, comm);
    case 24:
        return FORM(MPI_Exscan, MPI_Iexscan, MPI_Exscan_init,
                    (send, recv, 5, MPI_INT, MPI_BXOR, comm), send, recv, 5, MPI_INT, MPI_BXOR,
                    comm);
    }
#undef FORM
    return MPI_ERR_OTHER;
}
#define NCASES 25

static const char *case_name[NCASES] = {
    "Barrier",
    "Bcast",
    "Bcast(vector)",
    "Reduce(SUM)",
    "Reduce(user)",
    "Allreduce(IN_PLACE)",
    "Allreduce(PROD)",
    "Allreduce(user)",
    "Allreduce(count 0)",
    "Gather",
    "Gatherv(IN_PLACE)",
    "Scatter",
    "Scatterv",
    "Allgather(IN_PLACE)",
    "Allgatherv(vector)",
    "Alltoall",
    "Alltoall(IN_PLACE)",
    "Alltoallv",
    "Alltoallw",
    "Reduce_scatter_block",
    "Reduce_scatter(user, IN_PLACE)",
    "Scan(SUM)",
    "Scan(user, IN_PLACE)",
    "Exscan(user)",
    "Exscan(BXOR)",
};

/* fill's values, for any rank. */
static int send_val(int k, int seed, int r, int i)
{
    return seed * 1000003 + r * 1009 + k * 97 + i * 7 + 1;
}

static int recv_val(int k, int seed, int r, int i)
{
    return -(seed * 31 + r * 131 + k * 17 + i);
}

/* The inputs of one run: send data, and recv data that is also the MPI_IN_PLACE input (and
 * marks the bytes nobody writes), both depending on the rank, the case and a seed. */
static void fill(int k, int seed, int *send, int *recv)
{
    for (int i = 0; i < BUF; i++) {
        send[i] = send_val(k, seed, rank, i);
        recv[i] = recv_val(k, seed, rank, i);
    }
}

/* A few results checked against values computed here, not only against the blocking twin
 * (which runs the same schedules): Bcast, Allreduce(IN_PLACE) and Scan(SUM). */
static int check_known(int k, int seed, const int *recv, const char *how)
{
    int errs = 0, n = k == 1 ? 7 : k == 5 ? 5 : k == 21 ? 4 : 0;
    for (int i = 0; i < n; i++) {
        long want = 0;
        if (k == 1)
            want = recv_val(k, seed, size - 1, i);
        for (int r = 0; k == 5 && r < size; r++)
            want += recv_val(k, seed, r, i);
        for (int r = 0; k == 21 && r <= rank; r++)
            want += send_val(k, seed, r, i);
        if (recv[i] != (int)want) {
            MTEST_FAIL(errs, "%s %s (seed %d): recv[%d] = %d, expected %d", case_name[k], how, seed,
                       i, recv[i], (int)want);
            break;
        }
    }
    return errs;
}

/* Exscan leaves rank 0's receive buffer undefined: it is not compared. */
static int compare(int k, const int *want, const int *seen, const char *how, int seed)
{
    int errs = 0;
    if ((k == 23 || k == 24) && rank == 0)
        return 0;
    for (int i = 0; i < BUF; i++)
        if (want[i] != seen[i]) {
            MTEST_FAIL(errs, "%s %s (seed %d): recv[%d] = %d, the blocking call gave %d",
                       case_name[k], how, seed, i, seen[i], want[i]);
            break;
        }
    return errs + check_known(k, seed, seen, how);
}

typedef struct {
    int send[BUF], recv[BUF];
} bufs_t;

static bufs_t *want, *got; /* [NCASES] */

static void blocking_results(int seed)
{
    for (int k = 0; k < NCASES; k++) {
        fill(k, seed, want[k].send, want[k].recv);
        run_case(k, BLOCKING, want[k].send, want[k].recv, NULL);
    }
}

/* Point-to-point traffic beside the collectives: one message to every other rank, received
 * with MPI_ANY_SOURCE and MPI_ANY_TAG (so they would catch any collective message that
 * strayed onto the user's context).  Returns the number of requests added to reqs. */
static int pt2pt_start(int seed, int *out, int *in, MPI_Request *reqs)
{
    int n = 0;
    *out = rank * 1000 + seed;
    for (int i = 0; i < size - 1; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &reqs[n++]);
    for (int p = 0; p < size; p++)
        if (p != rank)
            MPI_Isend(out, 1, MPI_INT, p, PT2PT_TAG, comm, &reqs[n++]);
    return n;
}

/* Every other rank's message arrived once, with the seed of this round. */
static int pt2pt_check(int seed, const int *in, const MPI_Status *st, const char *how)
{
    int errs = 0, seen[64] = {0};
    for (int i = 0; i < size - 1; i++) {
        int src = st[i].MPI_SOURCE;
        if (src < 0 || src >= size || src == rank || in[i] != src * 1000 + seed) {
            MTEST_FAIL(errs, "%s: an ANY_SOURCE receive got %d from %d (seed %d)", how, in[i], src,
                       seed);
            continue;
        }
        seen[src]++;
    }
    for (int p = 0; p < size; p++)
        if (p != rank && seen[p] != 1)
            MTEST_FAIL(errs, "%s: %d messages from rank %d, expected 1", how, seen[p], p);
    return errs;
}

typedef enum { BY_TESTSOME, BY_WAITANY, BY_WAIT_REVERSED } how_t;
static const char *how_name[] = {"Testsome", "Waitany", "Wait(last first)"};

/* All cases outstanding at once, with point-to-point beside them, completed one way. */
static int round_nonblocking(int seed, how_t how)
{
    int errs = 0, out, in[64], n = 0, idx[NCASES + 128];
    MPI_Request reqs[NCASES + 128];
    MPI_Status st[NCASES + 128], pst[64];
    blocking_results(seed);
    for (int k = 0; k < NCASES; k++)
        fill(k, seed, got[k].send, got[k].recv);
    /* Half the cases, then the point-to-point traffic, then the rest: the ANY_SOURCE receives
     * are posted while collective messages are in flight on the same communicator. */
    for (int k = 0; k < NCASES / 2; k++)
        MTEST_CHECK_RC(errs, run_case(k, NONBLOCKING, got[k].send, got[k].recv, &reqs[n++]),
                       "starting %s", case_name[k]);
    int pfirst = n, np = pt2pt_start(seed, &out, in, &reqs[n]);
    n += np;
    for (int k = NCASES / 2; k < NCASES; k++)
        MTEST_CHECK_RC(errs, run_case(k, NONBLOCKING, got[k].send, got[k].recv, &reqs[n++]),
                       "starting %s", case_name[k]);
    int left = n;
    if (how == BY_TESTSOME) {
        while (left > 0) {
            int outcount;
            MTEST_CHECK_RC(errs, MPI_Testsome(n, reqs, &outcount, idx, st), "MPI_Testsome");
            if (outcount == MPI_UNDEFINED)
                break;
            for (int i = 0; i < outcount; i++)
                if (idx[i] >= pfirst && idx[i] < pfirst + size - 1)
                    pst[idx[i] - pfirst] = st[i];
            left -= outcount;
        }
    } else if (how == BY_WAITANY) {
        while (left > 0) {
            int i;
            MPI_Status s;
            MTEST_CHECK_RC(errs, MPI_Waitany(n, reqs, &i, &s), "MPI_Waitany");
            if (i == MPI_UNDEFINED)
                break;
            if (i >= pfirst && i < pfirst + size - 1)
                pst[i - pfirst] = s;
            left--;
        }
    } else {
        for (int i = n - 1; i >= 0; i--) {
            MPI_Status s;
            MTEST_CHECK_RC(errs, MPI_Wait(&reqs[i], &s), "MPI_Wait");
            if (i >= pfirst && i < pfirst + size - 1)
                pst[i - pfirst] = s;
        }
        left = 0;
    }
    MTEST_CHECK_INT(errs, 0, left, "requests left after %s", how_name[how]);
    for (int i = 0; i < n; i++)
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[i], "request %d after %s", i, how_name[how]);
    for (int k = 0; k < NCASES; k++)
        errs += compare(k, want[k].recv, got[k].recv, how_name[how], seed);
    errs += pt2pt_check(seed, in, pst, how_name[how]);
    return errs;
}

/* The persistent forms, made once, started with new data each round. */
static int rounds_persistent(int first_seed, int rounds)
{
    int errs = 0;
    MPI_Request reqs[NCASES];
    for (int k = 0; k < NCASES; k++) {
        fill(k, 0, got[k].send, got[k].recv);
        MTEST_CHECK_RC(errs, run_case(k, PERSISTENT, got[k].send, got[k].recv, &reqs[k]), "%s_init",
                       case_name[k]);
    }
    /* Inactive: a completion call returns at once with an empty status. */
    int flag = 0;
    MTEST_CHECK_RC(errs, MPI_Testall(NCASES, reqs, &flag, MPI_STATUSES_IGNORE), "Testall");
    MTEST_CHECK_INT(errs, 1, flag, "Testall on inactive persistent collectives");
    for (int r = 0; r < rounds; r++) {
        int seed = first_seed + r;
        blocking_results(seed);
        for (int k = 0; k < NCASES; k++)
            fill(k, seed, got[k].send, got[k].recv);
        if (r % 2 == 0) {
            MTEST_CHECK_RC(errs, MPI_Startall(NCASES, reqs), "MPI_Startall");
            MTEST_CHECK_RC(errs, MPI_Waitall(NCASES, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
        } else {
            for (int k = 0; k < NCASES; k++)
                MTEST_CHECK_RC(errs, MPI_Start(&reqs[k]), "MPI_Start %s", case_name[k]);
            /* Starting an active one again is an error. */
            MPI_Request again = reqs[0];
            errs += mtest_check_class(MPI_Start(&again), MPI_ERR_REQUEST,
                                      "MPI_Start of an active persistent collective");
            for (int k = NCASES - 1; k >= 0; k--)
                MTEST_CHECK_RC(errs, MPI_Wait(&reqs[k], MPI_STATUS_IGNORE), "MPI_Wait");
        }
        for (int k = 0; k < NCASES; k++) {
            if (reqs[k] == MPI_REQUEST_NULL)
                MTEST_FAIL(errs, "%s: the persistent request was freed by a completion call",
                           case_name[k]);
            errs += compare(k, want[k].recv, got[k].recv, "persistent", seed);
        }
    }
    for (int k = 0; k < NCASES; k++) {
        MTEST_CHECK_RC(errs, MPI_Request_free(&reqs[k]), "MPI_Request_free");
        MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, reqs[k], "freed request");
    }
    return errs;
}

/* Barrier, Bcast and Allreduce on an intercommunicator between the even and the odd ranks:
 * nonblocking and persistent against blocking, and the values themselves. */
static int intercomm_cases(void)
{
    int errs = 0, even = rank % 2 == 0;
    MPI_Comm half, inter;
    MPI_Request reqs[3];
    MPI_Comm_split(comm, rank % 2, rank, &half);
    MPI_Intercomm_create(half, 0, comm, even ? 1 : 0, 11, &inter);
    int lrank;
    MPI_Comm_rank(half, &lrank);
    /* Bcast from the even group's rank 0; Allreduce of 3 ints. */
    int root = even ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    for (int round = 0; round < 3; round++) {
        int bw[4], bn[4], in[3], aw[3], an[3];
        for (int i = 0; i < 4; i++)
            bw[i] = bn[i] = lrank == 0 && even ? 100 * round + i : -1;
        for (int i = 0; i < 3; i++) {
            in[i] = rank * 10 + i + round;
            aw[i] = an[i] = -5;
        }
        MPI_Barrier(inter);
        MPI_Bcast(bw, 4, MPI_INT, root, inter);
        MPI_Allreduce(in, aw, 3, MPI_INT, MPI_SUM, inter);
        if (round < 2) {
            MTEST_CHECK_RC(errs, MPI_Ibarrier(inter, &reqs[0]), "Ibarrier(inter)");
            MTEST_CHECK_RC(errs, MPI_Ibcast(bn, 4, MPI_INT, root, inter, &reqs[1]),
                           "Ibcast(inter)");
            MTEST_CHECK_RC(errs, MPI_Iallreduce(in, an, 3, MPI_INT, MPI_SUM, inter, &reqs[2]),
                           "Iallreduce(inter)");
        } else {
            MPI_Barrier_init(inter, MPI_INFO_NULL, &reqs[0]);
            MPI_Bcast_init(bn, 4, MPI_INT, root, inter, MPI_INFO_NULL, &reqs[1]);
            MPI_Allreduce_init(in, an, 3, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL, &reqs[2]);
            MTEST_CHECK_RC(errs, MPI_Startall(3, reqs), "Startall(inter)");
        }
        MTEST_CHECK_RC(errs, MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE), "Waitall(inter)");
        if (round == 2)
            for (int i = 0; i < 3; i++)
                MPI_Request_free(&reqs[i]);
        for (int i = 0; i < 4; i++) {
            int want = even && lrank != 0 ? -1 : 100 * round + i;
            if (bw[i] != want || bn[i] != want)
                MTEST_FAIL(errs, "Bcast(inter) round %d [%d]: blocking %d, started %d, expected %d",
                           round, i, bw[i], bn[i], want);
        }
        for (int i = 0; i < 3; i++) {
            int want = 0; /* the other group's ranks */
            for (int r = even ? 1 : 0; r < size; r += 2)
                want += r * 10 + i + round;
            if (aw[i] != want || an[i] != want)
                MTEST_FAIL(errs,
                           "Allreduce(inter) round %d [%d]: blocking %d, started %d, expected %d",
                           round, i, aw[i], an[i], want);
        }
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    return errs;
}

/* A user op and a derived type freed right after the call that uses them. */
static int freed_while_pending(void)
{
    int errs = 0, seed = 77;
    MPI_Op op;
    MPI_Datatype vec;
    MPI_Request req;
    MPI_Op_create(mat_fn, 0, &op);
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    fill(7, seed, got[0].send, got[0].recv);
    fill(7, seed, want[0].send, want[0].recv);
    MPI_Allreduce(want[0].send, want[0].recv, 2, mat_t_, mat_op, comm);
    MTEST_CHECK_RC(errs, MPI_Iallreduce(got[0].send, got[0].recv, 2, mat_t_, op, comm, &req),
                   "Iallreduce");
    MPI_Op_free(&op);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    errs += compare(7, want[0].recv, got[0].recv, "with its op freed", seed);

    fill(2, seed, got[1].send, got[1].recv);
    fill(2, seed, want[1].send, want[1].recv);
    MPI_Bcast(want[1].recv, 5, vec_t, 0, comm);
    MTEST_CHECK_RC(errs, MPI_Ibcast(got[1].recv, 5, vec, 0, comm, &req), "Ibcast");
    MPI_Type_free(&vec);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    errs += compare(2, want[1].recv, got[1].recv, "with its type freed", seed);
    return errs;
}

static int bad_arguments(void)
{
    int errs = 0, x = 0, y = 0;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Info bad_info = (MPI_Info)0x12345;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* MPI_COMM_NULL's errors */
    errs += mtest_check_class(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM,
                              "Ibarrier(MPI_COMM_NULL)");
    errs += mtest_check_class(MPI_Ibcast(&x, 1, MPI_INT, size, comm, &req), MPI_ERR_ROOT,
                              "Ibcast with root = size");
    errs += mtest_check_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm, NULL), MPI_ERR_ARG,
                              "Iallreduce with a NULL request");
    errs += mtest_check_class(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, comm, &req),
                              MPI_ERR_OP, "Iallreduce with MPI_OP_NULL");
    errs += mtest_check_class(MPI_Ireduce(&x, &y, -1, MPI_INT, MPI_SUM, 0, comm, &req),
                              MPI_ERR_COUNT, "Ireduce with count -1");
    errs += mtest_check_class(MPI_Igather(&x, 1, MPI_DATATYPE_NULL, &y, 1, MPI_INT, 0, comm, &req),
                              MPI_ERR_TYPE, "Igather with MPI_DATATYPE_NULL");
    errs += mtest_check_class(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, bad_info, &req),
                              MPI_ERR_INFO, "Allreduce_init with an invalid info");
    errs += mtest_check_class(
        MPI_Ialltoallv(&x, NULL, NULL, MPI_INT, &y, NULL, NULL, MPI_INT, comm, &req), MPI_ERR_ARG,
        "Ialltoallv with NULL arrays");
    MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "no request made by a failed call");
    /* Intercommunicators: what has no intercommunicator form (the scans, MPI-4.1 sec. 6.11) is
     * refused with a message that says so. */
    if (size >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(comm, rank % 2, rank, &half);
        MPI_Intercomm_create(half, 0, comm, rank % 2 ? 0 : 1, 9, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        int rc = MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, inter, &req);
        errs += mtest_check_class(rc, MPI_ERR_COMM, "Iscan on an intercommunicator");
        if (rc != MPI_SUCCESS && !strstr(mtest_errstr(rc), "intercommunicator"))
            MTEST_FAIL(errs, "the refusal does not say why: \"%s\"", mtest_errstr(rc));
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size > 64) {
        printf("coll_nonblocking: at most 64 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec_t);
    MPI_Type_commit(&vec_t);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_t_);
    MPI_Type_commit(&mat_t_);
    MPI_Op_create(mat_fn, 0, &mat_op);
    /* v-form layouts: rank q's block of 2 * ((q + 1) % 3) ints (none for rank 2), placed in
     * reverse rank order with a gap of one int after each. */
    for (int r = 0, d = 0; r < size; r++) {
        int q = size - 1 - r;
        cnt_r[q] = 2 * ((q + 1) % 3);
        dsp_r[q] = d;
        d += cnt_r[q] + 1;
    }
    for (int p = 0, sd = 0, rd = 0; p < size; p++) {
        a2a_sc[p] = (rank + p) % 3;
        a2a_rc[p] = (p + rank) % 3;
        a2a_sd[p] = sd;
        a2a_rd[p] = rd + 1;
        sd += a2a_sc[p] + 2;
        rd += a2a_rc[p] + 1;
        /* Alltoallw: even ranks send one holed vector, odd ranks two ints; the receiver's
         * type for a peer follows the peer's parity. */
        w_st[p] = rank % 2 ? MPI_INT : vec_t;
        w_rt[p] = p % 2 ? MPI_INT : vec_t;
        w_sc[p] = rank % 2 ? 2 : 1; /* 2 ints either way */
        w_rc[p] = p % 2 ? 2 : 1;
        w_sd[p] = (int)(p * 8 * sizeof(int));
        w_rd[p] = (int)((p * 8 + 1) * sizeof(int));
        rs_counts[p] = (p + 1) % 3;
    }
    want = mtest_malloc(sizeof(bufs_t) * NCASES);
    got = mtest_malloc(sizeof(bufs_t) * NCASES);

    errs += round_nonblocking(1, BY_TESTSOME);
    errs += round_nonblocking(2, BY_WAITANY);
    errs += round_nonblocking(3, BY_WAIT_REVERSED);
    errs += rounds_persistent(10, 4);
    errs += freed_while_pending();
    if (size >= 2)
        errs += intercomm_cases();
    errs += bad_arguments();

    free(want);
    free(got);
    MPI_Op_free(&mat_op);
    MPI_Type_free(&vec_t);
    MPI_Type_free(&mat_t_);
    MPI_Comm_free(&comm);
    return MTest_Finalize(errs);
}
