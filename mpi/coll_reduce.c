/* coll_reduce.c: the reductions over point-to-point: Reduce, Allreduce, Reduce_local, Scan,
 * Exscan, Reduce_scatter_block and Reduce_scatter, with predefined and user-defined operations
 * (mpi/op_user.c), commutative or not; on intercommunicators all but the scans.
 *
 * Simple and correct rather than fast.  A non-commutative operation is applied in rank order,
 * as the standard asks (MPI-4.1 sec. 6.9.5): the trees below always combine "the lower ranks'
 * partial result op the higher ranks' one". */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* acc = acc op in, keeping rank order (acc holds the lower ranks): for a commutative operation
 * in place, otherwise into in, whose buffer then becomes acc's (decided while building, so
 * the steps name the right buffers). */
static void combine_after(MPIR_Sched_t *s, void **acc, void **in, MPI_Op op, MPI_Datatype type,
                          MPI_Aint count)
{
    if (MPIR_Op_commutes(op)) {
        MPIR_Sched_reduce(s, *in, *acc, count, type, op);
    } else {
        MPIR_Sched_reduce(s, *acc, *in, count, type, op);
        void *t = *acc;
        *acc = *in;
        *in = t;
    }
}

/* Binomial reduction of count elements (sendbuf, or recvbuf when it is MPI_IN_PLACE) into
 * recvbuf at root.  Rank r holds the reduction of ranks [r, r + mask) as the tree grows, so a
 * non-commutative operation keeps its order; its tree is rooted at 0, which then hands the
 * result to root. */
static void reduce_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype type, MPI_Op op, int root, const MPIR_Comm *comm)
{
    int size = comm->size, top = MPIR_Op_commutes(op) ? root : 0;
    int vr = (comm->rank - top + size) % size;
    void *acc = MPIR_Sched_tmp(s, count, type), *in = MPIR_Sched_tmp(s, count, type);
    MPIR_Sched_copy(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, type, acc, count, type);
    for (int mask = 1; mask < size; mask <<= 1) {
        if (vr & mask) {
            MPIR_Sched_send(s, acc, count, type, (vr - mask + top) % size);
            break;
        }
        if (vr + mask < size) {
            MPIR_Sched_recv(s, in, count, type, (vr + mask + top) % size);
            MPIR_Sched_fence(s);
            combine_after(s, &acc, &in, op, type, count);
        }
    }
    if (top != root && comm->rank == top) {
        MPIR_Sched_send(s, acc, count, type, root);
    } else if (top != root && comm->rank == root) {
        MPIR_Sched_recv(s, acc, count, type, top);
        MPIR_Sched_fence(s);
    }
    if (comm->rank == root)
        MPIR_Sched_copy(s, acc, count, type, recvbuf, count, type);
}

/* Reduction to rank 0, then its broadcast. */
static void allreduce_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf, MPI_Aint count,
                            MPI_Datatype type, MPI_Op op, const MPIR_Comm *comm)
{
    reduce_build(s, sendbuf, recvbuf, count, type, op, 0, comm);
    MPIR_Bcast_build(s, recvbuf, count, type, 0, comm);
}

/* Intercommunicator allreduce: each group receives the reduction of the other group's data:
 * reduce locally to the leader, the leaders swap, the leader broadcasts in its group. */
static void inter_allreduce_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf,
                                  MPI_Aint count, MPI_Datatype type, MPI_Op op, MPIR_Comm *comm)
{
    void *mine = MPIR_Sched_tmp(s, count, type);
    MPIR_Sched_use_comm(s, comm->local_comm);
    reduce_build(s, sendbuf, mine, count, type, op, 0, comm->local_comm);
    MPIR_Sched_fence(s);
    if (comm->rank == 0) {
        MPIR_Sched_use_comm(s, comm);
        MPIR_Sched_recv(s, recvbuf, count, type, 0);
        MPIR_Sched_send(s, mine, count, type, 0);
        MPIR_Sched_fence(s);
        MPIR_Sched_use_comm(s, comm->local_comm);
    }
    MPIR_Bcast_build(s, recvbuf, count, type, 0, comm->local_comm);
}

/* Intercommunicator reduce: the root (MPI_ROOT) receives the reduction of the other group's
 * data, which that group reduces to its leader (in its rank order, so a non-commutative
 * operation keeps it) and the leader sends on; the root's group's other ranks (MPI_PROC_NULL)
 * do nothing. */
static void inter_reduce_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf, MPI_Aint count,
                               MPI_Datatype type, MPI_Op op, int root, MPIR_Comm *comm)
{
    if (root == MPI_ROOT) {
        MPIR_Sched_recv(s, recvbuf, count, type, 0);
    } else if (root != MPI_PROC_NULL) {
        void *acc = comm->rank == 0 ? MPIR_Sched_tmp(s, count, type) : NULL;
        MPIR_Sched_use_comm(s, comm->local_comm);
        reduce_build(s, sendbuf, acc, count, type, op, 0, comm->local_comm);
        if (comm->rank == 0) {
            MPIR_Sched_use_comm(s, comm);
            MPIR_Sched_send(s, acc, count, type, root);
        }
    }
}

static void any_allreduce_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf, MPI_Aint count,
                                MPI_Datatype type, MPI_Op op, MPIR_Comm *comm)
{
    if (comm->is_inter)
        inter_allreduce_build(s, sendbuf, recvbuf, count, type, op, comm);
    else
        allreduce_build(s, sendbuf, recvbuf, count, type, op, comm);
}

int MPIR_Allreduce_impl(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                        MPI_Op op, MPIR_Comm *comm)
{
    MPIR_Sched_t *s;
    int err = MPIR_Sched_create(comm, MPIR_COLL_BLOCKING, MPIR_TAG_REDUCE, &s);
    if (err)
        return err;
    any_allreduce_build(s, sendbuf, recvbuf, count, type, op, comm);
    return MPIR_Sched_finish(s, NULL);
}

static int check_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                        MPI_Op op, int need_recvbuf)
{
    int err;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Op_check_reduce(op, type)))
        return err;
    if (count > 0 && sendbuf != MPI_IN_PLACE && !sendbuf)
        return MPIR_Err_create(MPI_ERR_BUFFER, "NULL sendbuf with count %ld", (long)count);
    if (need_recvbuf && recvbuf == MPI_IN_PLACE)
        return MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE as the receive buffer (it stands "
                                               "for the send buffer only)");
    if (need_recvbuf && count > 0) {
        if (!recvbuf)
            return MPIR_Err_create(MPI_ERR_BUFFER, "NULL recvbuf with count %ld", (long)count);
        if (sendbuf == recvbuf)
            return MPIR_Err_create(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer "
                                                   "(use MPI_IN_PLACE)");
    }
    return MPI_SUCCESS;
}

static int reduce_local(const char *fname, const void *inbuf, void *inoutbuf, MPI_Aint count,
                        MPI_Datatype datatype, MPI_Op op)
{
    int err = check_reduce(inbuf, inoutbuf, count, datatype, op, 1);
    if (!err && inbuf == MPI_IN_PLACE)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in %s", fname);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    if (count > 0)
        MPIR_Reduce_apply(op, datatype, inbuf, inoutbuf, count);
    return MPI_SUCCESS;
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    MPIR_CHECK_INIT("MPI_Reduce_local");
    return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

#pragma weak MPI_Reduce_local_c = PMPI_Reduce_local_c
int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op)
{
    MPIR_CHECK_INIT("MPI_Reduce_local_c");
    return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}

/* Inclusive (Scan) or exclusive (Exscan) prefix reduction by recursive doubling: in round k
 * each rank swaps with rank ^ 2^k the reduction of the 2^k-rank block it covers; a block from
 * lower ranks goes in front of both the running total and the rank's own result. */
static void scan_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf, MPI_Aint count,
                       MPI_Datatype type, MPI_Op op, const MPIR_Comm *comm, int exclusive)
{
    int have_result = !exclusive, rank = comm->rank;
    void *total = MPIR_Sched_tmp(s, count, type), *in = MPIR_Sched_tmp(s, count, type);
    const void *mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    MPIR_Sched_copy(s, mine, count, type, total, count, type);
    if (!exclusive && sendbuf != MPI_IN_PLACE)
        MPIR_Sched_copy(s, sendbuf, count, type, recvbuf, count, type);
    for (int mask = 1; mask < comm->size; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= comm->size)
            continue;
        MPIR_Sched_recv(s, in, count, type, peer);
        MPIR_Sched_send(s, total, count, type, peer);
        MPIR_Sched_fence(s);
        if (peer < rank) { /* in covers lower ranks: it goes first */
            if (have_result)
                MPIR_Sched_reduce(s, in, recvbuf, count, type, op);
            else
                MPIR_Sched_copy(s, in, count, type, recvbuf, count, type);
            have_result = 1;
            MPIR_Sched_reduce(s, in, total, count, type, op);
        } else {
            combine_after(s, &total, &in, op, type, count);
        }
    }
}

/* The whole vector is reduced at rank 0, which then scatters block r (counts[r] elements) to
 * rank r.  MPI_IN_PLACE: the input is recvbuf (copied before any result lands there), and the
 * result block lands at its start. */
static void reduce_scatter_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf,
                                 const MPI_Aint *counts, const MPI_Aint *displs, MPI_Aint total,
                                 MPI_Datatype type, MPI_Op op, const MPIR_Comm *c)
{
    void *result = c->rank == 0 ? MPIR_Sched_tmp(s, total, type) : NULL;
    reduce_build(s, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, result, total, type, op, 0, c);
    MPIR_Scatterv_build(s, result, counts, displs, 0, type, recvbuf, counts[c->rank], type, 0, c);
}

/* Intercommunicator reduce-scatter (MPI-4.1 sec. 6.10): each group's result is the reduction
 * of the other group's vectors, scattered over the group by its own counts (both groups' vectors
 * have total elements).  Each group reduces its vectors to its leader, the leaders swap their
 * results, and each leader scatters the other group's in its group. */
static void inter_reduce_scatter_build(MPIR_Sched_t *s, const void *sendbuf, void *recvbuf,
                                       const MPI_Aint *counts, const MPI_Aint *displs,
                                       MPI_Aint total, MPI_Datatype type, MPI_Op op,
                                       MPIR_Comm *comm)
{
    int leader = comm->rank == 0;
    void *mine = leader ? MPIR_Sched_tmp(s, total, type) : NULL;
    void *theirs = leader ? MPIR_Sched_tmp(s, total, type) : NULL;
    MPIR_Sched_use_comm(s, comm->local_comm);
    reduce_build(s, sendbuf, mine, total, type, op, 0, comm->local_comm);
    if (leader) {
        MPIR_Sched_use_comm(s, comm);
        MPIR_Sched_recv(s, theirs, total, type, 0);
        MPIR_Sched_send(s, mine, total, type, 0);
        MPIR_Sched_fence(s);
        MPIR_Sched_use_comm(s, comm->local_comm);
    }
    MPIR_Scatterv_build(s, theirs, counts, displs, 0, type, recvbuf, counts[comm->rank], type, 0,
                        comm->local_comm);
}

/* ---- The calls: blocking, nonblocking (MPI_I...) and persistent (..._init) ---- */

typedef enum {
    RED_REDUCE,
    RED_ALLREDUCE,
    RED_SCAN,
    RED_EXSCAN,
    RED_REDUCE_SCATTER,
} red_kind_t;

/* The arguments of one reduction call, from its int or its _c form. */
typedef struct {
    const void *sendbuf;
    void *recvbuf;
    MPI_Aint count;
    MPIR_Array_t counts;
    int vector; /* Reduce_scatter: counts, not count, gives the blocks */
    MPI_Datatype type;
    MPI_Op op;
    int root;
} red_args_t;

static int reduce_scatter_call(const char *fname, const red_args_t *a, MPIR_Comm *c,
                               MPIR_Sched_t *s)
{
    MPI_Aint total = 0, *counts = malloc(sizeof(MPI_Aint) * c->size),
             *displs = malloc(sizeof(MPI_Aint) * c->size);
    int err = counts && displs ? MPI_SUCCESS
                               : MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    for (int r = 0; !err && r < c->size; r++) {
        counts[r] = a->vector ? MPIR_Array_at(a->counts, r) : a->count;
        if (counts[r] < 0)
            err = MPIR_Err_create(MPI_ERR_COUNT, "recvcounts[%d] is %ld", r, (long)counts[r]);
        displs[r] = total;
        total += counts[r];
    }
    if (!err)
        err = check_reduce(a->sendbuf, a->recvbuf, total, a->type, a->op, counts[c->rank] > 0);
    if (!err && c->is_inter)
        inter_reduce_scatter_build(s, a->sendbuf, a->recvbuf, counts, displs, total, a->type, a->op,
                                   c);
    else if (!err)
        reduce_scatter_build(s, a->sendbuf, a->recvbuf, counts, displs, total, a->type, a->op, c);
    free(counts);
    free(displs);
    return err;
}

/* Reduce_scatter's arguments are checked with its counts (reduce_scatter_call). */
static int check_intra(red_kind_t kind, const red_args_t *a, const MPIR_Comm *c)
{
    int err;
    if (kind == RED_REDUCE && (a->root < 0 || a->root >= c->size))
        return MPIR_Err_create(MPI_ERR_ROOT, "Invalid root %d (communicator size %d)", a->root,
                               c->size);
    if (kind != RED_REDUCE_SCATTER &&
        (err = check_reduce(a->sendbuf, a->recvbuf, a->count, a->type, a->op,
                            kind != RED_REDUCE || c->rank == a->root)))
        return err;
    if (kind == RED_REDUCE && a->sendbuf == MPI_IN_PLACE && c->rank != a->root)
        return MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
    return MPI_SUCCESS;
}

/* On an intercommunicator MPI_IN_PLACE means nothing (MPI-4.1 sec. 6.9 and 6.10 define it for
 * intracommunicators only): it is refused as a send buffer the call reads.  Reduce reads only the
 * sending group's send buffers and the root's receive buffer; the others are not looked at.  The
 * scans have no intercommunicator form (sec. 6.11: their communicator is an intracommunicator). */
static int check_inter(const char *fname, red_kind_t kind, const red_args_t *a, const MPIR_Comm *c)
{
    int err, sends = 1, receives = 1;
    if (kind == RED_SCAN || kind == RED_EXSCAN)
        return MPIR_Err_create(MPI_ERR_COMM,
                               "%s on an intercommunicator: the scans are defined on "
                               "intracommunicators only (MPI-4.1 sec. 6.11)",
                               fname);
    if (kind == RED_REDUCE) {
        if ((err = MPIR_Check_root(c, a->root)))
            return err;
        sends = a->root >= 0; /* a rank of the other group: this group's data goes there */
        receives = a->root == MPI_ROOT;
    }
    if (sends && a->sendbuf == MPI_IN_PLACE)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "MPI_IN_PLACE as the send buffer of %s on an intercommunicator "
                               "(it is defined on intracommunicators only)",
                               fname);
    if (kind == RED_REDUCE_SCATTER)
        return MPI_SUCCESS;
    /* A send buffer the rank does not use is passed as MPI_IN_PLACE, which check_reduce
     * leaves alone. */
    return check_reduce(sends ? a->sendbuf : MPI_IN_PLACE, a->recvbuf, a->count, a->type, a->op,
                        receives);
}

static int red_call(const char *fname, red_kind_t kind, const red_args_t *a, MPI_Comm comm,
                    MPIR_Coll_mode_t mode, MPI_Info info, MPI_Request *request)
{
    MPIR_Comm *c;
    MPIR_Sched_t *s = NULL;
    int err = MPIR_Coll_begin(fname, comm, mode, info, request, &c);
    if (!err && a->vector && !a->counts.base)
        err = MPIR_Err_create(MPI_ERR_ARG, "recvcounts is NULL");
    if (!err)
        err = c->is_inter ? check_inter(fname, kind, a, c) : check_intra(kind, a, c);
    if (!err && !(err = MPIR_Sched_create(c, mode, MPIR_TAG_REDUCE, &s))) {
        switch (kind) {
        case RED_REDUCE:
            if (c->is_inter)
                inter_reduce_build(s, a->sendbuf, a->recvbuf, a->count, a->type, a->op, a->root, c);
            else
                reduce_build(s, a->sendbuf, a->recvbuf, a->count, a->type, a->op, a->root, c);
            break;
        case RED_ALLREDUCE:
            any_allreduce_build(s, a->sendbuf, a->recvbuf, a->count, a->type, a->op, c);
            break;
        case RED_SCAN:
        case RED_EXSCAN:
            scan_build(s, a->sendbuf, a->recvbuf, a->count, a->type, a->op, c, kind == RED_EXSCAN);
            break;
        case RED_REDUCE_SCATTER:
            if ((err = reduce_scatter_call(fname, a, c, s)))
                MPIR_Sched_fail(s, err);
            break;
        }
        err = MPIR_Sched_finish(s, request);
    }
    return MPIR_Err_return(c, fname, err);
}

/* Each call in its int form and its _c form (MPI_Count counts), one ARGS for both. */
#define REDUCE_ARGS                                                                                \
    (.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .type = datatype, .op = op,           \
     .root = root)
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Ireduce = PMPI_Ireduce
#pragma weak MPI_Reduce_init = PMPI_Reduce_init
MPIR_COLL_FORMS(Reduce, Ireduce, red_call, RED_REDUCE, red_args_t, REDUCE_ARGS, const void *sendbuf,
                void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
#pragma weak MPI_Reduce_c = PMPI_Reduce_c
#pragma weak MPI_Ireduce_c = PMPI_Ireduce_c
#pragma weak MPI_Reduce_init_c = PMPI_Reduce_init_c
MPIR_COLL_FORMS_C(Reduce, Ireduce, red_call, RED_REDUCE, red_args_t, REDUCE_ARGS,
                  const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)

/* Allreduce, Scan and Exscan take the same fields. */
#define RED_ARGS                                                                                   \
    (.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count, .type = datatype, .op = op)
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Iallreduce = PMPI_Iallreduce
#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
MPIR_COLL_FORMS(Allreduce, Iallreduce, red_call, RED_ALLREDUCE, red_args_t, RED_ARGS,
                const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
#pragma weak MPI_Allreduce_c = PMPI_Allreduce_c
#pragma weak MPI_Iallreduce_c = PMPI_Iallreduce_c
#pragma weak MPI_Allreduce_init_c = PMPI_Allreduce_init_c
MPIR_COLL_FORMS_C(Allreduce, Iallreduce, red_call, RED_ALLREDUCE, red_args_t, RED_ARGS,
                  const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)

#pragma weak MPI_Scan = PMPI_Scan
#pragma weak MPI_Iscan = PMPI_Iscan
#pragma weak MPI_Scan_init = PMPI_Scan_init
MPIR_COLL_FORMS(Scan, Iscan, red_call, RED_SCAN, red_args_t, RED_ARGS, const void *sendbuf,
                void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#pragma weak MPI_Scan_c = PMPI_Scan_c
#pragma weak MPI_Iscan_c = PMPI_Iscan_c
#pragma weak MPI_Scan_init_c = PMPI_Scan_init_c
MPIR_COLL_FORMS_C(Scan, Iscan, red_call, RED_SCAN, red_args_t, RED_ARGS, const void *sendbuf,
                  void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)

#pragma weak MPI_Exscan = PMPI_Exscan
#pragma weak MPI_Iexscan = PMPI_Iexscan
#pragma weak MPI_Exscan_init = PMPI_Exscan_init
MPIR_COLL_FORMS(Exscan, Iexscan, red_call, RED_EXSCAN, red_args_t, RED_ARGS, const void *sendbuf,
                void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#pragma weak MPI_Exscan_c = PMPI_Exscan_c
#pragma weak MPI_Iexscan_c = PMPI_Iexscan_c
#pragma weak MPI_Exscan_init_c = PMPI_Exscan_init_c
MPIR_COLL_FORMS_C(Exscan, Iexscan, red_call, RED_EXSCAN, red_args_t, RED_ARGS, const void *sendbuf,
                  void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)

#define REDUCE_SCATTER_BLOCK_ARGS                                                                  \
    (.sendbuf = sendbuf, .recvbuf = recvbuf, .count = recvcount, .type = datatype, .op = op)
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
MPIR_COLL_FORMS(Reduce_scatter_block, Ireduce_scatter_block, red_call, RED_REDUCE_SCATTER,
                red_args_t, REDUCE_SCATTER_BLOCK_ARGS, const void *sendbuf, void *recvbuf,
                int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#pragma weak MPI_Reduce_scatter_block_c = PMPI_Reduce_scatter_block_c
#pragma weak MPI_Ireduce_scatter_block_c = PMPI_Ireduce_scatter_block_c
#pragma weak MPI_Reduce_scatter_block_init_c = PMPI_Reduce_scatter_block_init_c
MPIR_COLL_FORMS_C(Reduce_scatter_block, Ireduce_scatter_block, red_call, RED_REDUCE_SCATTER,
                  red_args_t, REDUCE_SCATTER_BLOCK_ARGS, const void *sendbuf, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)

#define REDUCE_SCATTER_ARGS                                                                        \
    (.sendbuf = sendbuf, .recvbuf = recvbuf, .counts = MPIR_ARRAY(recvcounts), .vector = 1,        \
     .type = datatype, .op = op)
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
MPIR_COLL_FORMS(Reduce_scatter, Ireduce_scatter, red_call, RED_REDUCE_SCATTER, red_args_t,
                REDUCE_SCATTER_ARGS, const void *sendbuf, void *recvbuf, const int recvcounts[],
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
#pragma weak MPI_Reduce_scatter_c = PMPI_Reduce_scatter_c
#pragma weak MPI_Ireduce_scatter_c = PMPI_Ireduce_scatter_c
#pragma weak MPI_Reduce_scatter_init_c = PMPI_Reduce_scatter_init_c
MPIR_COLL_FORMS_C(Reduce_scatter, Ireduce_scatter, red_call, RED_REDUCE_SCATTER, red_args_t,
                  REDUCE_SCATTER_ARGS, const void *sendbuf, void *recvbuf,
                  const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
