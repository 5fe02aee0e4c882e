/* pt2pt.c: the point-to-point calls: argument checks, then the device. */
#include "mpiimpl.h"

static int isend(const char *fname, const void *buf, int count, MPI_Datatype type, int dest,
                 int tag, MPI_Comm comm, int sync, MPI_Request *request)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_pt2pt(buf, count, type, dest, tag, c, 0);
    if (!err && !request)
        err = MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (err)
        return MPIR_Err_return(c, fname, err);
    MPIR_Request *req = NULL;
    err = MPID_Isend(buf, count, type, dest, tag, c, 0, sync, &req);
    if (err && !req)
        return MPIR_Err_return(c, fname, err);
    /* A failure after the request exists is reported by the wait. */
    *request = req->handle;
    return MPI_SUCCESS;
}

static int irecv(const char *fname, void *buf, int count, MPI_Datatype type, int source,
                 int tag, MPI_Comm comm, MPI_Request *request)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_pt2pt(buf, count, type, source, tag, c, 1);
    if (!err && !request)
        err = MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (err)
        return MPIR_Err_return(c, fname, err);
    MPIR_Request *req = NULL;
    err = MPID_Irecv(buf, count, type, source, tag, c, 0, &req);
    if (err && !req)
        return MPIR_Err_return(c, fname, err);
    *request = req->handle;
    return MPI_SUCCESS;
}

/* Blocking calls are the nonblocking ones plus a wait, so there is one path. */
static int wait_one(const char *fname, MPI_Comm comm, MPI_Request *request, MPI_Status *status)
{
    MPIR_Request *req = MPIR_Request_get(*request);
    MPID_Wait(req);
    int err = MPIR_Request_finish(request, req, status);
    return err ? MPIR_Err_return(MPIR_Comm_get(comm), fname, err) : MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Isend");
    return isend("MPI_Isend", buf, count, datatype, dest, tag, comm, 0, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Issend");
    return isend("MPI_Issend", buf, count, datatype, dest, tag, comm, 1, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Irecv");
    return irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Send");
    MPI_Request r;
    int err = isend("MPI_Send", buf, count, datatype, dest, tag, comm, 0, &r);
    return err ? err : wait_one("MPI_Send", comm, &r, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Ssend");
    MPI_Request r;
    int err = isend("MPI_Ssend", buf, count, datatype, dest, tag, comm, 1, &r);
    return err ? err : wait_one("MPI_Ssend", comm, &r, MPI_STATUS_IGNORE);
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Recv");
    MPI_Request r;
    int err = irecv("MPI_Recv", buf, count, datatype, source, tag, comm, &r);
    return err ? err : wait_one("MPI_Recv", comm, &r, status);
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Sendrecv");
    MPI_Request r[2];
    int err = irecv("MPI_Sendrecv", recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
    if (err)
        return err;
    err = isend("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &r[1]);
    if (err) {
        MPIR_Request *rr = MPIR_Request_get(r[0]);
        MPID_Cancel_recv(rr);
        MPID_Wait(rr);
        MPIR_Request_finish(&r[0], rr, MPI_STATUS_IGNORE);
        return err;
    }
    int e1 = wait_one("MPI_Sendrecv", comm, &r[1], MPI_STATUS_IGNORE);
    int e0 = wait_one("MPI_Sendrecv", comm, &r[0], status);
    return e0 ? e0 : e1;
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Iprobe");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = MPIR_Check_recv_rank(c, source)))
        err = MPIR_Check_recv_tag(tag);
    if (!err && !flag)
        err = MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Iprobe", err);
    MPI_Status st;
    err = MPID_Iprobe(source, tag, c, 0, flag, &st);
    if (!*flag && !err) {
        /* Nothing yet: let the agent look once, as a polling loop expects. */
        MPID_Progress_test();
        err = MPID_Iprobe(source, tag, c, 0, flag, &st);
    }
    if (err)
        return MPIR_Err_return(c, "MPI_Iprobe", err);
    if (*flag && status != MPI_STATUS_IGNORE) {
        st.MPI_ERROR = status->MPI_ERROR;
        st.cancelled_ = 0;
        *status = st;
    }
    return MPI_SUCCESS;
}

typedef struct {
    int source, tag, flag, err;
    MPIR_Comm *comm;
    MPI_Status st;
} probe_arg_t;

static int probe_found(void *arg)
{
    probe_arg_t *p = arg;
    p->err = MPID_Iprobe(p->source, p->tag, p->comm, 0, &p->flag, &p->st);
    return p->flag || p->err;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Probe");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !(err = MPIR_Check_recv_rank(c, source)))
        err = MPIR_Check_recv_tag(tag);
    if (err)
        return MPIR_Err_return(c, "MPI_Probe", err);
    probe_arg_t p = {.source = source, .tag = tag, .comm = c};
    MPID_Progress_wait(probe_found, &p);
    if (p.err)
        return MPIR_Err_return(c, "MPI_Probe", p.err);
    if (status != MPI_STATUS_IGNORE) {
        p.st.MPI_ERROR = status->MPI_ERROR;
        p.st.cancelled_ = 0;
        *status = p.st;
    }
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPIR_CHECK_INIT("MPI_Get_count");
    int err = MPIR_Check_type(datatype);
    if (!err && (!status || status == MPI_STATUS_IGNORE || !count))
        err = MPIR_Err_create(MPI_ERR_ARG, "status or count is NULL or MPI_STATUS_IGNORE");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Get_count", err);
    MPI_Aint size = MPIR_Datatype_get(datatype)->size;
    if (size == 0)
        *count = status->count_bytes_ == 0 ? 0 : MPI_UNDEFINED;
    else if (status->count_bytes_ % size != 0 || status->count_bytes_ / size > INT_MAX)
        *count = MPI_UNDEFINED;
    else
        *count = (int)(status->count_bytes_ / size);
    return MPI_SUCCESS;
}
