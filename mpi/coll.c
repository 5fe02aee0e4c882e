/* coll.c: Barrier and Bcast over point-to-point on the collective context, on intra- and
 * intercommunicators, and the send/receive helpers every collective uses (the reductions are in
 * coll_reduce.c). */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"
#include "op.h"

/* Tags inside the collective context (MPIR_TAG_* in mpiimpl.h): MPI orders
 * collectives identically on every rank and messages between two ranks
 * arrive in order, so a distinct tag per kind is enough to keep them apart.
 * A subset communicator adds its coll_tag_base. */
#define TAG(comm, kind) ((comm)->coll_tag_base + (kind))

int MPIR_Root_ok(const MPIR_Comm *comm, int root)
{
    if (comm->is_inter)
        return root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_size);
    return root >= 0 && root < comm->size;
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

/* Intercommunicator barrier: every local process has entered (local
 * barrier), the leaders learn that the other group has too, and tell their
 * group. */
static int inter_barrier(MPIR_Comm *comm)
{
    int err = MPIR_Barrier_impl(comm->local_comm);
    if (!err && comm->rank == 0)
        err = MPIR_Coll_sendrecv(NULL, 0, NULL, 0, 0, MPIR_TAG_BARRIER, comm);
    return err ? err : MPIR_Bcast_impl(NULL, 0, MPI_BYTE, 0, comm->local_comm);
}

/* Intercommunicator broadcast: the root (MPI_ROOT) sends to the other
 * group's leader, which broadcasts in its group; the root's other group
 * members (MPI_PROC_NULL) do nothing. */
static int inter_bcast(void *buf, MPI_Aint count, MPI_Datatype type, int root, MPIR_Comm *comm)
{
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root == MPI_ROOT)
        return MPIR_Coll_send(buf, count, type, 0, MPIR_TAG_BCAST, comm);
    int err = MPI_SUCCESS;
    if (comm->rank == 0)
        err = MPIR_Coll_recv(buf, count, type, root, MPIR_TAG_BCAST, comm);
    return err ? err : MPIR_Bcast_impl(buf, count, type, 0, comm->local_comm);
}

/* Dissemination: log2(size) rounds, each rank sends to rank + 2^k. */
int MPIR_Barrier_impl(MPIR_Comm *comm)
{
    if (comm->is_inter)
        return inter_barrier(comm);
    for (int k = 1; k < comm->size; k <<= 1) {
        MPIR_Request *r = NULL, *s = NULL;
        int err = MPID_Irecv(NULL, 0, MPI_BYTE, (comm->rank - k + comm->size) % comm->size,
                             TAG(comm, MPIR_TAG_BARRIER), comm, MPIR_CONTEXT_COLL_OFFSET, &r);
        if (!r)
            return err;
        err = MPID_Isend(NULL, 0, MPI_BYTE, (comm->rank + k) % comm->size,
                         TAG(comm, MPIR_TAG_BARRIER), comm, MPIR_CONTEXT_COLL_OFFSET, 0, &s);
        int e1 = s ? finish(s) : err;
        if (e1) /* the partner will not hear from us; do not wait for it either */
            MPID_Cancel_recv(r);
        int e2 = finish(r);
        if (e1 || e2)
            return e1 ? e1 : e2;
    }
    return MPI_SUCCESS;
}

/* Binomial tree rooted at root: ranks relative to the root receive from the
 * rank that differs in their lowest set bit, then forward down. */
int MPIR_Bcast_impl(void *buf, MPI_Aint count, MPI_Datatype type, int root, MPIR_Comm *comm)
{
    if (comm->is_inter)
        return inter_bcast(buf, count, type, root, comm);
    int size = comm->size, vr = (comm->rank - root + size) % size, mask = 1, err;
    while (mask < size) {
        if (vr & mask) {
            if ((err = MPIR_Coll_recv(buf, count, type, (vr - mask + root) % size, MPIR_TAG_BCAST,
                                      comm)))
                return err;
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size && (err = MPIR_Coll_send(buf, count, type, (vr + mask + root) % size,
                                                      MPIR_TAG_BCAST, comm)))
            return err;
    return MPI_SUCCESS;
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Barrier");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Barrier_impl(c);
    return MPIR_Err_return(c, "MPI_Barrier", err);
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Bcast");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = MPIR_Check_count(count)) && !(err = MPIR_Check_comm_type(datatype)) &&
        !(err = MPIR_Check_typed_buf(buffer, count, datatype)) && !MPIR_Root_ok(c, root))
        err =
            MPIR_Err_create(MPI_ERR_ROOT, "Invalid root %d (communicator size %d)", root, c->size);
    if (!err)
        err = MPIR_Bcast_impl(buffer, count, datatype, root, c);
    return MPIR_Err_return(c, "MPI_Bcast", err);
}
