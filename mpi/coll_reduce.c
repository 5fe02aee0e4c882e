/* coll_reduce.c: the reductions over point-to-point: Reduce, Allreduce, Reduce_local, Scan,
 * Exscan, Reduce_scatter_block and Reduce_scatter, with predefined and user-defined operations
 * (mpi/op_user.c), commutative or not.
 *
 * Simple and correct rather than fast.  A non-commutative operation is applied in rank order,
 * as the standard asks (MPI-4.1 sec. 6.9.5): the trees below always combine "the lower ranks'
 * partial result op the higher ranks' one". */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* A temporary buffer for count elements of a datatype: it covers every byte the elements'
 * data may touch (from the lowest true lb to the highest true ub), and base is where element
 * 0 starts, so base may point before or after mem. */
typedef struct {
    char *mem, *base;
} tmp_t;

static int tmp_alloc(MPI_Datatype type, MPI_Aint count, tmp_t *t)
{
    MPIR_Datatype *dt = MPIR_Datatype_get(type);
    MPI_Aint last = count > 0 ? (count - 1) * dt->extent : 0;
    MPI_Aint lo = (last < 0 ? last : 0) + dt->true_lb;
    MPI_Aint hi = (last > 0 ? last : 0) + dt->true_ub;
    MPI_Aint span = count > 0 ? hi - lo : 0;
    t->mem = malloc(span > 0 ? (size_t)span : 1);
    t->base = t->mem - lo;
    return t->mem ? MPI_SUCCESS
                  : MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a %ld-byte reduction buffer",
                                    (long)span);
}

/* Typed copy of count elements (holes in dst stay as they are). */
static int copy_elems(const void *src, void *dst, MPI_Aint count, MPI_Datatype type)
{
    MPIR_Datatype *dt = MPIR_Datatype_get(type);
    if (count <= 0)
        return MPI_SUCCESS;
    if (dt->is_contig && dt->size == dt->extent) { /* no holes: one block of bytes */
        memcpy((char *)dst + dt->true_lb, (const char *)src + dt->true_lb,
               (size_t)count * dt->size);
        return MPI_SUCCESS;
    }
    return MPIR_Local_copy(src, count, type, dst, count, type);
}

/* acc = acc op in, keeping rank order (acc holds the lower ranks): for a commutative operation
 * in place, otherwise into in, whose buffer then becomes acc's. */
static void combine_after(tmp_t *acc, tmp_t *in, MPI_Op op, MPI_Datatype type, MPI_Aint count)
{
    if (MPIR_Op_commutes(op)) {
        MPIR_Reduce_apply(op, type, in->base, acc->base, count);
    } else {
        MPIR_Reduce_apply(op, type, acc->base, in->base, count);
        tmp_t t = *acc;
        *acc = *in;
        *in = t;
    }
}

/* Binomial reduction of count elements (sendbuf, or recvbuf when it is MPI_IN_PLACE) into
 * recvbuf at root.  Rank r holds the reduction of ranks [r, r + mask) as the tree grows, so a
 * non-commutative operation keeps its order; its tree is rooted at 0, which then hands the
 * result to root. */
static int reduce_impl(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                       MPI_Op op, int root, MPIR_Comm *comm)
{
    int size = comm->size, top = MPIR_Op_commutes(op) ? root : 0;
    int vr = (comm->rank - top + size) % size, err;
    tmp_t acc = {0}, in = {0};
    if ((err = tmp_alloc(type, count, &acc)) || (err = tmp_alloc(type, count, &in)))
        goto fn_exit;
    err = copy_elems(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, acc.base, count, type);
    for (int mask = 1; !err && mask < size; mask <<= 1) {
        if (vr & mask) {
            err = MPIR_Coll_send(acc.base, count, type, (vr - mask + top) % size, MPIR_TAG_REDUCE,
                                 comm);
            break;
        }
        if (vr + mask < size &&
            !(err = MPIR_Coll_recv(in.base, count, type, (vr + mask + top) % size, MPIR_TAG_REDUCE,
                                   comm)))
            combine_after(&acc, &in, op, type, count);
    }
    if (!err && top != root && comm->rank == top)
        err = MPIR_Coll_send(acc.base, count, type, root, MPIR_TAG_REDUCE, comm);
    else if (!err && top != root && comm->rank == root)
        err = MPIR_Coll_recv(acc.base, count, type, top, MPIR_TAG_REDUCE, comm);
    if (!err && comm->rank == root)
        err = copy_elems(acc.base, recvbuf, count, type);
fn_exit:
    free(acc.mem);
    free(in.mem);
    return err;
}

/* Intercommunicator allreduce: each group receives the reduction of the other group's data:
 * reduce locally to the leader, the leaders swap, the leader broadcasts in its group. */
static int inter_allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                           MPI_Op op, MPIR_Comm *comm)
{
    tmp_t mine;
    int err = tmp_alloc(type, count, &mine);
    if (!err)
        err = reduce_impl(sendbuf, mine.base, count, type, op, 0, comm->local_comm);
    if (!err && comm->rank == 0) {
        MPIR_Request *r = NULL;
        err = MPID_Irecv(recvbuf, count, type, 0, comm->coll_tag_base + MPIR_TAG_REDUCE, comm,
                         MPIR_CONTEXT_COLL_OFFSET, &r);
        if (r) {
            int e1 = MPIR_Coll_send(mine.base, count, type, 0, MPIR_TAG_REDUCE, comm);
            MPID_Wait(r);
            int e2 = r->status.MPI_ERROR;
            MPIR_Request_release(r);
            err = e1 ? e1 : e2;
        }
    }
    free(mine.mem);
    return err ? err : MPIR_Bcast_impl(recvbuf, count, type, 0, comm->local_comm);
}

int MPIR_Allreduce_impl(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                        MPI_Op op, MPIR_Comm *comm)
{
    if (comm->is_inter)
        return inter_allreduce(sendbuf, recvbuf, count, type, op, comm);
    int err = reduce_impl(sendbuf, recvbuf, count, type, op, 0, comm);
    return err ? err : MPIR_Bcast_impl(recvbuf, count, type, 0, comm);
}

static int check_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                        MPI_Op op, int need_recvbuf)
{
    int err;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Op_check_reduce(op, type)))
        return err;
    if (count > 0 && sendbuf != MPI_IN_PLACE && !sendbuf)
        return MPIR_Err_create(MPI_ERR_BUFFER, "NULL sendbuf with count %ld", (long)count);
    if (need_recvbuf && count > 0) {
        if (!recvbuf)
            return MPIR_Err_create(MPI_ERR_BUFFER, "NULL recvbuf with count %ld", (long)count);
        if (sendbuf == recvbuf)
            return MPIR_Err_create(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer "
                                                   "(use MPI_IN_PLACE)");
    }
    return MPI_SUCCESS;
}

static int check_intra(MPIR_Comm *c, const char *fname)
{
    return c->is_inter ? MPIR_Err_create(MPI_ERR_COMM,
                                         "%s on an intercommunicator is not implemented "
                                         "(doc/api.md)",
                                         fname)
                       : MPI_SUCCESS;
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Reduce");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = check_intra(c, "MPI_Reduce");
    if (!err && (root < 0 || root >= c->size))
        err =
            MPIR_Err_create(MPI_ERR_ROOT, "Invalid root %d (communicator size %d)", root, c->size);
    if (!err)
        err = check_reduce(sendbuf, recvbuf, count, datatype, op, c->rank == root);
    if (!err && sendbuf == MPI_IN_PLACE && c->rank != root)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
    if (!err)
        err = reduce_impl(sendbuf, recvbuf, count, datatype, op, root, c);
    return MPIR_Err_return(c, "MPI_Reduce", err);
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Allreduce");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = check_reduce(sendbuf, recvbuf, count, datatype, op, 1);
    if (!err && c->is_inter && sendbuf == MPI_IN_PLACE)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator");
    if (!err)
        err = MPIR_Allreduce_impl(sendbuf, recvbuf, count, datatype, op, c);
    return MPIR_Err_return(c, "MPI_Allreduce", err);
}

#pragma weak MPI_Reduce_local = PMPI_Reduce_local
int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                      MPI_Op op)
{
    MPIR_CHECK_INIT("MPI_Reduce_local");
    int err = check_reduce(inbuf, inoutbuf, count, datatype, op, 1);
    if (!err && inbuf == MPI_IN_PLACE)
        err = MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Reduce_local", err);
    if (count > 0)
        MPIR_Reduce_apply(op, datatype, inbuf, inoutbuf, count);
    return MPI_SUCCESS;
}

/* Inclusive (Scan) or exclusive (Exscan) prefix reduction by recursive doubling: in round k
 * each rank swaps with rank ^ 2^k the reduction of the 2^k-rank block it covers; a block from
 * lower ranks goes in front of both the running total and the rank's own result. */
static int scan_impl(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype type,
                     MPI_Op op, MPIR_Comm *comm, int exclusive)
{
    tmp_t total = {0}, in = {0};
    int err, have_result = !exclusive, rank = comm->rank;
    if ((err = tmp_alloc(type, count, &total)) || (err = tmp_alloc(type, count, &in)))
        goto fn_exit;
    const void *mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    err = copy_elems(mine, total.base, count, type);
    if (!err && !exclusive && sendbuf != MPI_IN_PLACE)
        err = copy_elems(sendbuf, recvbuf, count, type);
    for (int mask = 1; !err && mask < comm->size; mask <<= 1) {
        int peer = rank ^ mask;
        if (peer >= comm->size)
            continue;
        MPIR_Request *r = NULL;
        err = MPID_Irecv(in.base, count, type, peer, comm->coll_tag_base + MPIR_TAG_SCAN, comm,
                         MPIR_CONTEXT_COLL_OFFSET, &r);
        if (!r)
            break;
        int e1 = MPIR_Coll_send(total.base, count, type, peer, MPIR_TAG_SCAN, comm);
        MPID_Wait(r);
        err = e1 ? e1 : r->status.MPI_ERROR;
        MPIR_Request_release(r);
        if (err)
            break;
        if (peer < rank) { /* in covers lower ranks: it goes first */
            if (have_result)
                MPIR_Reduce_apply(op, type, in.base, recvbuf, count);
            else
                err = copy_elems(in.base, recvbuf, count, type);
            have_result = 1;
            MPIR_Reduce_apply(op, type, in.base, total.base, count);
        } else {
            combine_after(&total, &in, op, type, count);
        }
    }
fn_exit:
    free(total.mem);
    free(in.mem);
    return err;
}

static int scan_call(const char *fname, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int exclusive)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = check_intra(c, fname)))
        err = check_reduce(sendbuf, recvbuf, count, datatype, op, 1);
    if (!err)
        err = scan_impl(sendbuf, recvbuf, count, datatype, op, c, exclusive);
    return MPIR_Err_return(c, fname, err);
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Scan");
    return scan_call("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, 0);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Exscan");
    return scan_call("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, 1);
}

/* The whole vector is reduced at rank 0, which then scatters block r (counts[r] elements) to
 * rank r.  MPI_IN_PLACE: the input is recvbuf, and the result block lands at its start. */
static int reduce_scatter(const char *fname, const void *sendbuf, void *recvbuf,
                          const MPI_Aint *counts, MPI_Datatype type, MPI_Op op, MPIR_Comm *c)
{
    MPI_Aint total = 0, *displs = malloc(sizeof(MPI_Aint) * c->size);
    tmp_t result = {0};
    int err = displs ? MPI_SUCCESS : MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    for (int r = 0; !err && r < c->size; r++) {
        if (counts[r] < 0)
            err = MPIR_Err_create(MPI_ERR_COUNT, "recvcounts[%d] is %ld", r, (long)counts[r]);
        displs[r] = total;
        total += counts[r];
    }
    if (!err)
        err = check_reduce(sendbuf, recvbuf, total, type, op, counts[c->rank] > 0);
    if (!err && c->rank == 0)
        err = tmp_alloc(type, total, &result);
    /* The input is whole before any block of the result is written over it. */
    if (!err)
        err = reduce_impl(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, result.base, total, type, op,
                          0, c);
    if (!err)
        err = MPIR_Scatterv_impl(result.base, counts, displs, 0, type, recvbuf, counts[c->rank],
                                 type, 0, c);
    free(result.mem);
    free(displs);
    return err;
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Reduce_scatter_block");
    MPIR_Comm *c;
    MPI_Aint *counts = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = check_intra(c, "MPI_Reduce_scatter_block")) &&
        !(err = MPIR_Check_count(recvcount)) && !(counts = malloc(sizeof(MPI_Aint) * c->size)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Reduce_scatter_block");
    for (int r = 0; !err && r < c->size; r++)
        counts[r] = recvcount;
    if (!err)
        err = reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, counts, datatype, op, c);
    free(counts);
    return MPIR_Err_return(c, "MPI_Reduce_scatter_block", err);
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Reduce_scatter");
    MPIR_Comm *c;
    MPI_Aint *counts = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = check_intra(c, "MPI_Reduce_scatter")) && !recvcounts)
        err = MPIR_Err_create(MPI_ERR_ARG, "recvcounts is NULL");
    if (!err && !(counts = malloc(sizeof(MPI_Aint) * c->size)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in MPI_Reduce_scatter");
    for (int r = 0; !err && r < c->size; r++)
        counts[r] = recvcounts[r];
    if (!err)
        err = reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, counts, datatype, op, c);
    free(counts);
    return MPIR_Err_return(c, "MPI_Reduce_scatter", err);
}
