/* coll.c: Barrier and Bcast (blocking, nonblocking and persistent) as schedules, on intra- and
 * intercommunicators, and the send/receive helpers of the other internal exchanges (the
 * reductions are in coll_reduce.c, the data-moving collectives in coll_gather.c). */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"
#include "op.h"

/* Tags inside the collective context (MPIR_TAG_* in mpiimpl.h): MPI orders
 * collectives identically on every rank and messages between two ranks
 * arrive in order, so a distinct tag per kind is enough to keep them apart.
 * A subset communicator adds its coll_tag_base. */
#define TAG(comm, kind) ((comm)->coll_tag_base + (kind))

int MPIR_Check_root(const MPIR_Comm *comm, int root)
{
    if (!comm->is_inter)
        return root >= 0 && root < comm->size
                   ? MPI_SUCCESS
                   : MPIR_Err_create(MPI_ERR_ROOT, "Invalid root %d (communicator size %d)", root,
                                     comm->size);
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size))
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_ROOT,
                           "Invalid root %d on an intercommunicator (MPI_ROOT, MPI_PROC_NULL or a "
                           "rank of the remote group, whose size is %d)",
                           root, comm->remote_size);
}

static int finish(MPIR_Request *req)
{
    MPID_Wait(req);
    int err = req->status.MPI_ERROR;
    MPIR_Request_release(req);
    return err;
}

int MPIR_Coll_send(const void *buf, MPI_Aint count, MPI_Datatype type, int dst, int tag,
                   MPIR_Comm *comm)
{
    MPIR_Request *req = NULL;
    int err =
        MPID_Isend(buf, count, type, dst, TAG(comm, tag), comm, MPIR_CONTEXT_COLL_OFFSET, 0, &req);
    if (!req)
        return err;
    return finish(req);
}

int MPIR_Coll_recv(void *buf, MPI_Aint count, MPI_Datatype type, int src, int tag, MPIR_Comm *comm)
{
    MPIR_Request *req = NULL;
    int err =
        MPID_Irecv(buf, count, type, src, TAG(comm, tag), comm, MPIR_CONTEXT_COLL_OFFSET, &req);
    if (!req)
        return err;
    return finish(req);
}

/* Exchanges bytes with rank peer of comm on its collective context (both
 * post the receive first, so neither waits for buffering). */
int MPIR_Coll_sendrecv(const void *sendbuf, MPI_Aint sendbytes, void *recvbuf, MPI_Aint recvbytes,
                       int peer, int tag, MPIR_Comm *comm)
{
    MPIR_Request *r = NULL;
    int err = MPID_Irecv(recvbuf, recvbytes, MPI_BYTE, peer, TAG(comm, tag), comm,
                         MPIR_CONTEXT_COLL_OFFSET, &r);
    if (!r)
        return err;
    int e1 = MPIR_Coll_send(sendbuf, sendbytes, MPI_BYTE, peer, tag, comm);
    if (e1)
        MPID_Cancel_recv(r);
    int e2 = finish(r);
    return e1 ? e1 : e2;
}

/* Dissemination: log2(size) rounds, each rank sends to rank + 2^k. */
static void intra_barrier_build(MPIR_Sched_t *s, const MPIR_Comm *comm)
{
    int size = comm->size, rank = comm->rank;
    for (int k = 1; k < size; k <<= 1) {
        MPIR_Sched_recv(s, NULL, 0, MPI_BYTE, (rank - k + size) % size);
        MPIR_Sched_send(s, NULL, 0, MPI_BYTE, (rank + k) % size);
        MPIR_Sched_fence(s);
    }
}

/* Binomial tree rooted at root: ranks relative to the root receive from the rank that differs
 * in their lowest set bit, then forward down. */
void MPIR_Bcast_build(MPIR_Sched_t *s, void *buf, MPI_Aint count, MPI_Datatype type, int root,
                      const MPIR_Comm *comm)
{
    int size = comm->size, vr = (comm->rank - root + size) % size, mask = 1;
    while (mask < size) {
        if (vr & mask) {
            MPIR_Sched_recv(s, buf, count, type, (vr - mask + root) % size);
            MPIR_Sched_fence(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size)
            MPIR_Sched_send(s, buf, count, type, (vr + mask + root) % size);
}

/* Intercommunicator barrier: every local process has entered (local barrier), the leaders
 * learn that the other group has too, and tell their group. */
static void barrier_build(MPIR_Sched_t *s, MPIR_Comm *comm)
{
    if (!comm->is_inter) {
        intra_barrier_build(s, comm);
        return;
    }
    MPIR_Sched_use_comm(s, comm->local_comm);
    intra_barrier_build(s, comm->local_comm);
    MPIR_Sched_fence(s);
    if (comm->rank == 0) {
        MPIR_Sched_use_comm(s, comm);
        MPIR_Sched_recv(s, NULL, 0, MPI_BYTE, 0);
        MPIR_Sched_send(s, NULL, 0, MPI_BYTE, 0);
        MPIR_Sched_fence(s);
        MPIR_Sched_use_comm(s, comm->local_comm);
    }
    MPIR_Bcast_build(s, NULL, 0, MPI_BYTE, 0, comm->local_comm);
}

/* Intercommunicator broadcast: the root (MPI_ROOT) sends to the other group's leader, which
 * broadcasts in its group; the root's other group members (MPI_PROC_NULL) do nothing. */
static void bcast_build(MPIR_Sched_t *s, void *buf, MPI_Aint count, MPI_Datatype type, int root,
                        MPIR_Comm *comm)
{
    if (!comm->is_inter) {
        MPIR_Bcast_build(s, buf, count, type, root, comm);
    } else if (root == MPI_ROOT) {
        MPIR_Sched_send(s, buf, count, type, 0);
    } else if (root != MPI_PROC_NULL) {
        if (comm->rank == 0) {
            MPIR_Sched_recv(s, buf, count, type, root);
            MPIR_Sched_fence(s);
        }
        MPIR_Sched_use_comm(s, comm->local_comm);
        MPIR_Bcast_build(s, buf, count, type, 0, comm->local_comm);
    }
}

int MPIR_Barrier_impl(MPIR_Comm *comm)
{
    MPIR_Sched_t *s;
    int err = MPIR_Sched_create(comm, MPIR_COLL_BLOCKING, MPIR_TAG_BARRIER, &s);
    if (err)
        return err;
    barrier_build(s, comm);
    return MPIR_Sched_finish(s, NULL);
}

int MPIR_Bcast_impl(void *buf, MPI_Aint count, MPI_Datatype type, int root, MPIR_Comm *comm)
{
    MPIR_Sched_t *s;
    int err = MPIR_Sched_create(comm, MPIR_COLL_BLOCKING, MPIR_TAG_BCAST, &s);
    if (err)
        return err;
    bcast_build(s, buf, count, type, root, comm);
    return MPIR_Sched_finish(s, NULL);
}

/* ---- The calls: blocking, nonblocking (MPI_I...) and persistent (..._init) ---- */

static int barrier_call(const char *fname, MPI_Comm comm, MPIR_Coll_mode_t mode, MPI_Info info,
                        MPI_Request *request)
{
    MPIR_Comm *c;
    MPIR_Sched_t *s;
    int err = MPIR_Coll_begin(fname, comm, mode, info, request, &c);
    if (!err && !(err = MPIR_Sched_create(c, mode, MPIR_TAG_BARRIER, &s))) {
        barrier_build(s, c);
        err = MPIR_Sched_finish(s, request);
    }
    return MPIR_Err_return(c, fname, err);
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Barrier");
    return barrier_call("MPI_Barrier", comm, MPIR_COLL_BLOCKING, MPI_INFO_NULL, NULL);
}

#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Ibarrier");
    return barrier_call("MPI_Ibarrier", comm, MPIR_COLL_NONBLOCKING, MPI_INFO_NULL, request);
}

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Barrier_init");
    return barrier_call("MPI_Barrier_init", comm, MPIR_COLL_PERSISTENT, info, request);
}

/* Bcast's arguments, from its int or its _c form. */
typedef struct {
    void *buf;
    MPI_Aint count;
    MPI_Datatype type;
    int root;
} bcast_args_t;

/* kind: the schedule's tag, MPIR_TAG_BCAST. */
static int bcast_call(const char *fname, int kind, const bcast_args_t *a, MPI_Comm comm,
                      MPIR_Coll_mode_t mode, MPI_Info info, MPI_Request *request)
{
    MPIR_Comm *c;
    MPIR_Sched_t *s;
    int err = MPIR_Coll_begin(fname, comm, mode, info, request, &c);
    if (!err && !(err = MPIR_Check_count(a->count)) && !(err = MPIR_Check_comm_type(a->type)) &&
        !(err = MPIR_Check_typed_buf(a->buf, a->count, a->type)))
        err = MPIR_Check_root(c, a->root);
    if (!err && !(err = MPIR_Sched_create(c, mode, kind, &s))) {
        bcast_build(s, a->buf, a->count, a->type, a->root, c);
        err = MPIR_Sched_finish(s, request);
    }
    return MPIR_Err_return(c, fname, err);
}

#define BCAST_ARGS (.buf = buffer, .count = count, .type = datatype, .root = root)
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Ibcast = PMPI_Ibcast
#pragma weak MPI_Bcast_init = PMPI_Bcast_init
MPIR_COLL_FORMS(Bcast, Ibcast, bcast_call, MPIR_TAG_BCAST, bcast_args_t, BCAST_ARGS, void *buffer,
                int count, MPI_Datatype datatype, int root, MPI_Comm comm)
#pragma weak MPI_Bcast_c = PMPI_Bcast_c
#pragma weak MPI_Ibcast_c = PMPI_Ibcast_c
#pragma weak MPI_Bcast_init_c = PMPI_Bcast_init_c
MPIR_COLL_FORMS_C(Bcast, Ibcast, bcast_call, MPIR_TAG_BCAST, bcast_args_t, BCAST_ARGS, void *buffer,
                  MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
