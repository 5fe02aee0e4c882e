/* coll_neighbor.c: the neighbourhood collectives (MPI-4.1 sec. 8.6) over the neighbour lists of
 * the communicator's topology (mpi/topo.c), blocking, nonblocking and persistent: one schedule
 * each, which posts every receive and every send at once.
 *
 * Block k of the send buffer goes to out-neighbour k, block k of the receive buffer comes from
 * in-neighbour k; an MPI_PROC_NULL neighbour (a non-periodic Cartesian edge) keeps its block,
 * which nothing reads or writes.  A process may be the same neighbour several times (a periodic
 * dimension of size 1 or 2, a multigraph): all the messages of one collective carry its one
 * tag, so they pair up in the order MPI matches messages between two processes, which is the
 * order of the neighbour lists (see recv_slot for the Cartesian case). */
#include <stdlib.h>
#include "mpiimpl.h"

typedef enum {
    NBR_ALLGATHER,
    NBR_ALLGATHERV,
    NBR_ALLTOALL,
    NBR_ALLTOALLV,
    NBR_ALLTOALLW,
} nbr_kind_t;

/* The arguments of one call, from its int or its _c form; the arrays are read while building. */
typedef struct {
    const void *sendbuf;
    MPI_Aint sendcount;
    MPIR_Array_t sendcounts, sdispls; /* sdispls: in sendtype's extents (v), in bytes (w) */
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    MPI_Aint recvcount;
    MPIR_Array_t recvcounts, rdispls;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
} nbr_args_t;

/* One block of a buffer: where, how many, of what. */
typedef struct {
    char *buf;
    MPI_Aint count;
    MPI_Datatype type;
} block_t;

static MPI_Aint extent(MPI_Datatype type)
{
    return MPIR_Datatype_get(type)->extent;
}

static block_t send_block(nbr_kind_t kind, const nbr_args_t *a, int k)
{
    char *b = (char *)a->sendbuf;
    switch (kind) {
    case NBR_ALLGATHER:
    case NBR_ALLGATHERV:
        break;
    case NBR_ALLTOALL:
        return (block_t){b + k * a->sendcount * extent(a->sendtype), a->sendcount, a->sendtype};
    case NBR_ALLTOALLV:
        return (block_t){b + MPIR_Array_at(a->sdispls, k) * extent(a->sendtype),
                         MPIR_Array_at(a->sendcounts, k), a->sendtype};
    case NBR_ALLTOALLW:
        return (block_t){b + MPIR_Array_at(a->sdispls, k), MPIR_Array_at(a->sendcounts, k),
                         a->sendtypes[k]};
    }
    return (block_t){b, a->sendcount, a->sendtype};
}

static block_t recv_block(nbr_kind_t kind, const nbr_args_t *a, int k)
{
    char *b = a->recvbuf;
    switch (kind) {
    case NBR_ALLGATHER:
    case NBR_ALLTOALL:
        break;
    case NBR_ALLGATHERV:
    case NBR_ALLTOALLV:
        return (block_t){b + MPIR_Array_at(a->rdispls, k) * extent(a->recvtype),
                         MPIR_Array_at(a->recvcounts, k), a->recvtype};
    case NBR_ALLTOALLW:
        return (block_t){b + MPIR_Array_at(a->rdispls, k), MPIR_Array_at(a->recvcounts, k),
                         a->recvtypes[k]};
    }
    return (block_t){b + k * a->recvcount * extent(a->recvtype), a->recvcount, a->recvtype};
}

/* The slot of the k-th receive posted.  In a Cartesian topology the block a process sends to
 * its -1 neighbour of a dimension lands in that neighbour's +1 slot, and the other way round.
 * When the two neighbours are one process (a periodic dimension of size 1 or 2), its two
 * messages, sent -1 block first, must meet the receives +1 slot first: so each dimension's two
 * receives are posted in the other order.  Graphs pair repeated edges in list order. */
static int recv_slot(const MPIR_Topo *t, int k)
{
    return t->kind == MPI_CART ? k ^ 1 : k;
}

static void nbr_build(MPIR_Sched_t *s, nbr_kind_t kind, const nbr_args_t *a, const MPIR_Topo *t)
{
    for (int i = 0; i < t->indegree; i++) {
        int k = recv_slot(t, i);
        block_t b = recv_block(kind, a, k);
        if (t->in[k] != MPI_PROC_NULL)
            MPIR_Sched_recv(s, b.buf, b.count, b.type, t->in[k]);
    }
    for (int k = 0; k < t->outdegree; k++) {
        block_t b = send_block(kind, a, k);
        if (t->out[k] != MPI_PROC_NULL)
            MPIR_Sched_send(s, b.buf, b.count, b.type, t->out[k]);
    }
}

/* ---- Argument checks ---- */

static int check_block(block_t b)
{
    int err;
    if ((err = MPIR_Check_count(b.count)) || (err = MPIR_Check_comm_type(b.type)))
        return err;
    return MPIR_Check_typed_buf(b.buf, b.count, b.type);
}

/* The per-neighbour arrays of each side are there when that side has neighbours. */
static int check_arrays(nbr_kind_t kind, const nbr_args_t *a, const MPIR_Topo *t)
{
    int sends = t->outdegree > 0, recvs = t->indegree > 0;
    int bad = 0;
    switch (kind) {
    case NBR_ALLGATHER:
    case NBR_ALLTOALL:
        break;
    case NBR_ALLGATHERV:
        bad = recvs && (!a->recvcounts.base || !a->rdispls.base);
        break;
    case NBR_ALLTOALLV:
        bad = (sends && (!a->sendcounts.base || !a->sdispls.base)) ||
              (recvs && (!a->recvcounts.base || !a->rdispls.base));
        break;
    case NBR_ALLTOALLW:
        bad = (sends && (!a->sendcounts.base || !a->sdispls.base || !a->sendtypes)) ||
              (recvs && (!a->recvcounts.base || !a->rdispls.base || !a->recvtypes));
        break;
    }
    return bad ? MPIR_Err_create(MPI_ERR_ARG, "a count, displacement or datatype array is NULL")
               : MPI_SUCCESS;
}

static int nbr_check(nbr_kind_t kind, const nbr_args_t *a, const MPIR_Topo *t)
{
    if (a->sendbuf == MPI_IN_PLACE || a->recvbuf == MPI_IN_PLACE)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "MPI_IN_PLACE as the %s buffer (the neighbourhood "
                               "collectives have no in-place form)",
                               a->sendbuf == MPI_IN_PLACE ? "send" : "receive");
    int err = check_arrays(kind, a, t);
    /* The forms with one type per side check it also without neighbours (and before a block's
     * address is computed from its extent). */
    if (!err && kind != NBR_ALLTOALLW && !(err = MPIR_Check_comm_type(a->sendtype)))
        err = MPIR_Check_comm_type(a->recvtype);
    if (!err && kind != NBR_ALLTOALLW && kind != NBR_ALLTOALLV)
        err = MPIR_Check_count(a->sendcount);
    if (!err && (kind == NBR_ALLGATHER || kind == NBR_ALLTOALL))
        err = MPIR_Check_count(a->recvcount);
    for (int k = 0; !err && k < t->outdegree; k++)
        err = check_block(send_block(kind, a, k));
    for (int k = 0; !err && k < t->indegree; k++)
        err = check_block(recv_block(kind, a, k));
    return err;
}

static int nbr_call(const char *fname, nbr_kind_t kind, const nbr_args_t *a, MPI_Comm comm,
                    MPIR_Coll_mode_t mode, MPI_Info info, MPI_Request *request)
{
    MPIR_Comm *c;
    MPIR_Sched_t *s;
    int err = MPIR_Coll_begin(fname, comm, mode, info, request, &c);
    if (!err && c->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM, "%s needs an intracommunicator with a topology", fname);
    if (!err && !c->topo)
        err = MPIR_Err_create(MPI_ERR_TOPOLOGY,
                              "the communicator has no topology (MPI_Cart_create, "
                              "MPI_Graph_create or MPI_Dist_graph_create make one)");
    if (!err && !(err = MPIR_Sched_create(c, mode, MPIR_TAG_NEIGHBOR, &s))) {
        if (!(err = nbr_check(kind, a, c->topo)))
            nbr_build(s, kind, a, c->topo);
        else
            MPIR_Sched_fail(s, err);
        err = MPIR_Sched_finish(s, request);
    }
    return MPIR_Err_return(c, fname, err);
}

/* Each call in its int form and its _c form (MPI_Count counts, MPI_Aint displacements), one
 * ARGS for both. */
/* Neighbor_allgather and Neighbor_alltoall take the same fields. */
#define NBR_BLOCK_ARGS                                                                             \
    (.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,         \
     .recvcount = recvcount, .recvtype = recvtype)
#pragma weak MPI_Neighbor_allgather = PMPI_Neighbor_allgather
#pragma weak MPI_Ineighbor_allgather = PMPI_Ineighbor_allgather
#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
MPIR_COLL_FORMS(Neighbor_allgather, Ineighbor_allgather, nbr_call, NBR_ALLGATHER, nbr_args_t,
                NBR_BLOCK_ARGS, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Neighbor_allgather_c = PMPI_Neighbor_allgather_c
#pragma weak MPI_Ineighbor_allgather_c = PMPI_Ineighbor_allgather_c
#pragma weak MPI_Neighbor_allgather_init_c = PMPI_Neighbor_allgather_init_c
MPIR_COLL_FORMS_C(Neighbor_allgather, Ineighbor_allgather, nbr_call, NBR_ALLGATHER, nbr_args_t,
                  NBR_BLOCK_ARGS, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)

#define NBR_ALLGATHERV_ARGS                                                                        \
    (.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,         \
     .recvcounts = MPIR_ARRAY(recvcounts), .rdispls = MPIR_ARRAY(displs), .recvtype = recvtype)
#pragma weak MPI_Neighbor_allgatherv = PMPI_Neighbor_allgatherv
#pragma weak MPI_Ineighbor_allgatherv = PMPI_Ineighbor_allgatherv
#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
MPIR_COLL_FORMS(Neighbor_allgatherv, Ineighbor_allgatherv, nbr_call, NBR_ALLGATHERV, nbr_args_t,
                NBR_ALLGATHERV_ARGS, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                MPI_Comm comm)
#pragma weak MPI_Neighbor_allgatherv_c = PMPI_Neighbor_allgatherv_c
#pragma weak MPI_Ineighbor_allgatherv_c = PMPI_Ineighbor_allgatherv_c
#pragma weak MPI_Neighbor_allgatherv_init_c = PMPI_Neighbor_allgatherv_init_c
MPIR_COLL_FORMS_C(Neighbor_allgatherv, Ineighbor_allgatherv, nbr_call, NBR_ALLGATHERV, nbr_args_t,
                  NBR_ALLGATHERV_ARGS, const void *sendbuf, MPI_Count sendcount,
                  MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                  const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm)

#pragma weak MPI_Neighbor_alltoall = PMPI_Neighbor_alltoall
#pragma weak MPI_Ineighbor_alltoall = PMPI_Ineighbor_alltoall
#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
MPIR_COLL_FORMS(Neighbor_alltoall, Ineighbor_alltoall, nbr_call, NBR_ALLTOALL, nbr_args_t,
                NBR_BLOCK_ARGS, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Neighbor_alltoall_c = PMPI_Neighbor_alltoall_c
#pragma weak MPI_Ineighbor_alltoall_c = PMPI_Ineighbor_alltoall_c
#pragma weak MPI_Neighbor_alltoall_init_c = PMPI_Neighbor_alltoall_init_c
MPIR_COLL_FORMS_C(Neighbor_alltoall, Ineighbor_alltoall, nbr_call, NBR_ALLTOALL, nbr_args_t,
                  NBR_BLOCK_ARGS, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)

#define NBR_ALLTOALLV_ARGS                                                                         \
    (.sendbuf = sendbuf, .sendcounts = MPIR_ARRAY(sendcounts), .sdispls = MPIR_ARRAY(sdispls),     \
     .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = MPIR_ARRAY(recvcounts),               \
     .rdispls = MPIR_ARRAY(rdispls), .recvtype = recvtype)
#pragma weak MPI_Neighbor_alltoallv = PMPI_Neighbor_alltoallv
#pragma weak MPI_Ineighbor_alltoallv = PMPI_Ineighbor_alltoallv
#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
MPIR_COLL_FORMS(Neighbor_alltoallv, Ineighbor_alltoallv, nbr_call, NBR_ALLTOALLV, nbr_args_t,
                NBR_ALLTOALLV_ARGS, const void *sendbuf, const int sendcounts[],
                const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Neighbor_alltoallv_c = PMPI_Neighbor_alltoallv_c
#pragma weak MPI_Ineighbor_alltoallv_c = PMPI_Ineighbor_alltoallv_c
#pragma weak MPI_Neighbor_alltoallv_init_c = PMPI_Neighbor_alltoallv_init_c
MPIR_COLL_FORMS_C(Neighbor_alltoallv, Ineighbor_alltoallv, nbr_call, NBR_ALLTOALLV, nbr_args_t,
                  NBR_ALLTOALLV_ARGS, const void *sendbuf, const MPI_Count sendcounts[],
                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm)

#define NBR_ALLTOALLW_ARGS                                                                         \
    (.sendbuf = sendbuf, .sendcounts = MPIR_ARRAY(sendcounts), .sdispls = MPIR_ARRAY(sdispls),     \
     .sendtypes = sendtypes, .recvbuf = recvbuf, .recvcounts = MPIR_ARRAY(recvcounts),             \
     .rdispls = MPIR_ARRAY(rdispls), .recvtypes = recvtypes)
#pragma weak MPI_Neighbor_alltoallw = PMPI_Neighbor_alltoallw
#pragma weak MPI_Ineighbor_alltoallw = PMPI_Ineighbor_alltoallw
#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
MPIR_COLL_FORMS(Neighbor_alltoallw, Ineighbor_alltoallw, nbr_call, NBR_ALLTOALLW, nbr_args_t,
                NBR_ALLTOALLW_ARGS, const void *sendbuf, const int sendcounts[],
                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                MPI_Comm comm)
#pragma weak MPI_Neighbor_alltoallw_c = PMPI_Neighbor_alltoallw_c
#pragma weak MPI_Ineighbor_alltoallw_c = PMPI_Ineighbor_alltoallw_c
#pragma weak MPI_Neighbor_alltoallw_init_c = PMPI_Neighbor_alltoallw_init_c
MPIR_COLL_FORMS_C(Neighbor_alltoallw, Ineighbor_alltoallw, nbr_call, NBR_ALLTOALLW, nbr_args_t,
                  NBR_ALLTOALLW_ARGS, const void *sendbuf, const MPI_Count sendcounts[],
                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm)
