/* persist.c: persistent requests: MPI_Send_init and its modes, MPI_Recv_init, Start, Startall
 * (which also start the persistent collectives, whose requests mpi/sched.c makes, and the
 * rounds of partitioned requests, mpi/part.c's).
 *
 * A persistent request keeps the arguments (and references to the
 * communicator and datatype).  MPI_Start makes an ordinary request, the
 * inner one, and adopts it: the persistent request is complete when the
 * inner one is, and a Wait or Test then makes it inactive again instead of
 * freeing it (MPI-4.1 sec. 3.9). */
#include "mpiimpl.h"

#include <stdio.h>

static int prequest_init(const char *fname, const void *buf, MPI_Aint count, MPI_Datatype type,
                         int rank, int tag, MPI_Comm comm, int op, MPI_Request *request)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_pt2pt(buf, count, type, rank, tag, c, op == MPIR_PREQ_RECV);
    if (!err && !request)
        err = MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    MPIR_Request *req = err ? NULL : MPIR_Request_create(MPIR_REQ_PERSISTENT);
    if (!err && !req)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests in %s", fname);
    if (err)
        return MPIR_Err_return(c, fname, err);
    /* Inactive: nothing to wait for, and only the user's handle refers to it. */
    req->cc = 0;
    req->ref = 1;
    req->comm = c;
    c->ref++;
    MPIR_Segment_init(&req->seg, buf, count, type);
    MPIR_Datatype_add_ref(req->seg.dt);
    req->rank = rank;
    req->tag = tag;
    req->u.preq = (MPIR_Preq){.op = op, .buf = buf, .count = count, .type = type};
    *request = req->handle;
    return MPI_SUCCESS;
}

#define MPIR_PSEND_FAMILY(NAME, CNT, MODE)                                                         \
    int PMPI_##NAME(const void *buf, CNT count, MPI_Datatype datatype, int dest, int tag,          \
                    MPI_Comm comm, MPI_Request *request)                                           \
    {                                                                                              \
        MPIR_CHECK_INIT("MPI_" #NAME);                                                             \
        return prequest_init("MPI_" #NAME, buf, count, datatype, dest, tag, comm, MODE, request);  \
    }

#pragma weak MPI_Send_init = PMPI_Send_init
MPIR_PSEND_FAMILY(Send_init, int, MPIR_MODE_STANDARD)
#pragma weak MPI_Ssend_init = PMPI_Ssend_init
MPIR_PSEND_FAMILY(Ssend_init, int, MPIR_MODE_SYNC)
#pragma weak MPI_Rsend_init = PMPI_Rsend_init
MPIR_PSEND_FAMILY(Rsend_init, int, MPIR_MODE_READY)
#pragma weak MPI_Bsend_init = PMPI_Bsend_init
MPIR_PSEND_FAMILY(Bsend_init, int, MPIR_MODE_BUFFERED)
#pragma weak MPI_Send_init_c = PMPI_Send_init_c
MPIR_PSEND_FAMILY(Send_init_c, MPI_Count, MPIR_MODE_STANDARD)
#pragma weak MPI_Ssend_init_c = PMPI_Ssend_init_c
MPIR_PSEND_FAMILY(Ssend_init_c, MPI_Count, MPIR_MODE_SYNC)
#pragma weak MPI_Rsend_init_c = PMPI_Rsend_init_c
MPIR_PSEND_FAMILY(Rsend_init_c, MPI_Count, MPIR_MODE_READY)
#pragma weak MPI_Bsend_init_c = PMPI_Bsend_init_c
MPIR_PSEND_FAMILY(Bsend_init_c, MPI_Count, MPIR_MODE_BUFFERED)

#pragma weak MPI_Recv_init = PMPI_Recv_init
int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Recv_init");
    return prequest_init("MPI_Recv_init", buf, count, datatype, source, tag, comm, MPIR_PREQ_RECV,
                         request);
}

#pragma weak MPI_Recv_init_c = PMPI_Recv_init_c
int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Recv_init_c");
    return prequest_init("MPI_Recv_init_c", buf, count, datatype, source, tag, comm, MPIR_PREQ_RECV,
                         request);
}

/* `index` is the position in MPI_Startall's array (-1 for MPI_Start), named in the message; the
 * text is made only for an error (MPI_Startall checks every request of every call). */
static int prequest_error(MPI_Request handle, int index, const char *what)
{
    char where[48] = "";
    if (index >= 0)
        snprintf(where, sizeof where, " (array_of_requests[%d])", index);
    /* MPI_REQUEST_NULL is what a request no *_init call made holds (OSU's
     * osu_reduce_scatter_block_persistent calls the blocking collective where the _init one
     * belongs, then starts its request), or one freed: its handle number would say nothing. */
    if (handle == MPI_REQUEST_NULL)
        return MPIR_Err_create(MPI_ERR_REQUEST,
                               "Request%s is MPI_REQUEST_NULL, not a persistent request: no "
                               "MPI_*_init call made it, or it was freed",
                               where);
    return MPIR_Err_create(MPI_ERR_REQUEST, "Request %#x%s %s", (unsigned)handle, where, what);
}

static int check_prequest(MPI_Request handle, int index, MPIR_Request **req_p)
{
    MPIR_Request *req = MPIR_Request_get(handle);
    *req_p = req;
    if (!req)
        return prequest_error(handle, index, "is not a valid request handle");
    if (req->kind != MPIR_REQ_PERSISTENT && req->kind != MPIR_REQ_PART)
        return prequest_error(handle, index, "is not a persistent request");
    if (req->kind == MPIR_REQ_PART ? req->u.part->active : req->u.preq.active)
        return prequest_error(handle, index, "is a persistent request active already");
    return MPI_SUCCESS;
}

static void start(MPIR_Request *req)
{
    if (req->kind == MPIR_REQ_PART) {
        MPIR_Part_start(req);
        return;
    }
    MPIR_Preq *p = &req->u.preq;
    req->status.MPI_ERROR = MPI_SUCCESS;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    req->status.count_bytes_ = 0;
    req->cancelled = 0;
    p->active = 1;
    req->cc = 1;
    req->ref++; /* held by the inner operation until it completes */
    if (p->op == MPIR_PREQ_COLL) {
        /* A persistent collective runs its schedule again. */
        MPIR_Sched_start(p->sched, req);
        return;
    }
    MPIR_Request *inner = NULL;
    int err;
    if (p->op == MPIR_PREQ_RECV)
        err = MPID_Irecv((void *)p->buf, p->count, p->type, req->rank, req->tag, req->comm, 0,
                         &inner);
    else
        err = MPIR_Isend_mode(p->buf, p->count, p->type, req->rank, req->tag, req->comm,
                              (MPIR_Send_mode_t)p->op, &inner);
    if (!inner) {
        /* Reported by the completion call, as for any failed operation. */
        MPIR_Request_set_error(req, err);
        MPIDI_Request_complete_one(req);
        return;
    }
    MPIR_Request_adopt(req, inner);
}

#pragma weak MPI_Start = PMPI_Start
int PMPI_Start(MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Start");
    MPIR_Request *req = NULL;
    int err = request ? check_prequest(*request, -1, &req)
                      : MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (err)
        return MPIR_Err_return(req ? req->comm : NULL, "MPI_Start", err);
    start(req);
    return MPI_SUCCESS;
}

#pragma weak MPI_Startall = PMPI_Startall
int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    MPIR_CHECK_INIT("MPI_Startall");
    int err = MPI_SUCCESS;
    MPIR_Request *req = NULL;
    if (count < 0)
        err = MPIR_Err_create(MPI_ERR_COUNT, "Negative count %d", count);
    else if (count > 0 && !array_of_requests)
        err = MPIR_Err_create(MPI_ERR_ARG, "array_of_requests is NULL");
    /* All are checked before any starts, so an error starts none. */
    for (int i = 0; i < count && !err; i++)
        err = check_prequest(array_of_requests[i], i, &req);
    for (int i = 0; i < count && !err; i++)
        for (int j = 0; j < i && !err; j++)
            if (array_of_requests[i] == array_of_requests[j])
                err = MPIR_Err_create(MPI_ERR_REQUEST, "Request %#x appears twice",
                                      (unsigned)array_of_requests[i]);
    if (err)
        return MPIR_Err_return(req ? req->comm : NULL, "MPI_Startall", err);
    for (int i = 0; i < count; i++)
        start(MPIR_Request_get(array_of_requests[i]));
    return MPI_SUCCESS;
}
