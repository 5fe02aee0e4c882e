/* pt2pt.c: the point-to-point calls in every send mode, combined send-receive, probes and
 * matched probes: argument checks, then the device.  The _c forms take MPI_Count counts. */
#include <stdlib.h>
#include "mpiimpl.h"

static int isend(const char *fname, const void *buf, MPI_Aint count, MPI_Datatype type, int dest,
                 int tag, MPI_Comm comm, MPIR_Send_mode_t mode, MPI_Request *request)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_pt2pt(buf, count, type, dest, tag, c, 0);
    if (!err && !request)
        err = MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    MPIR_Request *req = NULL;
    if (!err)
        err = MPIR_Isend_mode(buf, count, type, dest, tag, c, mode, &req);
    if (err)
        return MPIR_Err_return(c, fname, err);
    *request = req->handle;
    return MPI_SUCCESS;
}

static int irecv(const char *fname, void *buf, MPI_Aint count, MPI_Datatype type, int source,
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
    MPIR_Request_wait(req);
    int err = MPIR_Request_finish(request, req, status);
    return err ? MPIR_Err_return(MPIR_Comm_get(comm), fname, err) : MPI_SUCCESS;
}

static int send(const char *fname, const void *buf, MPI_Aint count, MPI_Datatype type, int dest,
                int tag, MPI_Comm comm, MPIR_Send_mode_t mode)
{
    /* A standard (or ready) send that the device can complete at once needs
     * no request (MPID_Send); otherwise the nonblocking path and a wait. */
    if (mode == MPIR_MODE_STANDARD || mode == MPIR_MODE_READY) {
        MPIR_Comm *c;
        int done, err = MPIR_Check_comm(comm, &c);
        if (!err)
            err = MPIR_Check_pt2pt(buf, count, type, dest, tag, c, 0);
        if (err)
            return MPIR_Err_return(c, fname, err);
        err = MPID_Send(buf, count, type, dest, tag, c, 0, &done);
        if (done) {
            MPID_Send_poll();
            return err ? MPIR_Err_return(c, fname, err) : MPI_SUCCESS;
        }
    }
    MPI_Request r;
    int err = isend(fname, buf, count, type, dest, tag, comm, mode, &r);
    return err ? err : wait_one(fname, comm, &r, MPI_STATUS_IGNORE);
}

static int recv(const char *fname, void *buf, MPI_Aint count, MPI_Datatype type, int source,
                int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Request r;
    int err = MPIR_Check_status(status);
    if (err)
        return MPIR_Err_return(MPIR_Comm_get(comm), fname, err);
    err = irecv(fname, buf, count, type, source, tag, comm, &r);
    return err ? err : wait_one(fname, comm, &r, status);
}

#define MPIR_SEND_FAMILY(NAME, CNT, MODE)                                                          \
    int PMPI_##NAME(const void *buf, CNT count, MPI_Datatype datatype, int dest, int tag,          \
                    MPI_Comm comm)                                                                 \
    {                                                                                              \
        MPIR_CHECK_INIT("MPI_" #NAME);                                                             \
        return send("MPI_" #NAME, buf, count, datatype, dest, tag, comm, MODE);                    \
    }
#define MPIR_ISEND_FAMILY(NAME, CNT, MODE)                                                         \
    int PMPI_##NAME(const void *buf, CNT count, MPI_Datatype datatype, int dest, int tag,          \
                    MPI_Comm comm, MPI_Request *request)                                           \
    {                                                                                              \
        MPIR_CHECK_INIT("MPI_" #NAME);                                                             \
        return isend("MPI_" #NAME, buf, count, datatype, dest, tag, comm, MODE, request);          \
    }

/* The twelve sends: four modes, blocking or not, int or MPI_Count counts. */
#pragma weak MPI_Send = PMPI_Send
MPIR_SEND_FAMILY(Send, int, MPIR_MODE_STANDARD)
#pragma weak MPI_Ssend = PMPI_Ssend
MPIR_SEND_FAMILY(Ssend, int, MPIR_MODE_SYNC)
#pragma weak MPI_Rsend = PMPI_Rsend
MPIR_SEND_FAMILY(Rsend, int, MPIR_MODE_READY)
#pragma weak MPI_Bsend = PMPI_Bsend
MPIR_SEND_FAMILY(Bsend, int, MPIR_MODE_BUFFERED)
#pragma weak MPI_Send_c = PMPI_Send_c
MPIR_SEND_FAMILY(Send_c, MPI_Count, MPIR_MODE_STANDARD)
#pragma weak MPI_Ssend_c = PMPI_Ssend_c
MPIR_SEND_FAMILY(Ssend_c, MPI_Count, MPIR_MODE_SYNC)
#pragma weak MPI_Rsend_c = PMPI_Rsend_c
MPIR_SEND_FAMILY(Rsend_c, MPI_Count, MPIR_MODE_READY)
#pragma weak MPI_Bsend_c = PMPI_Bsend_c
MPIR_SEND_FAMILY(Bsend_c, MPI_Count, MPIR_MODE_BUFFERED)
#pragma weak MPI_Isend = PMPI_Isend
MPIR_ISEND_FAMILY(Isend, int, MPIR_MODE_STANDARD)
#pragma weak MPI_Issend = PMPI_Issend
MPIR_ISEND_FAMILY(Issend, int, MPIR_MODE_SYNC)
#pragma weak MPI_Irsend = PMPI_Irsend
MPIR_ISEND_FAMILY(Irsend, int, MPIR_MODE_READY)
#pragma weak MPI_Ibsend = PMPI_Ibsend
MPIR_ISEND_FAMILY(Ibsend, int, MPIR_MODE_BUFFERED)
#pragma weak MPI_Isend_c = PMPI_Isend_c
MPIR_ISEND_FAMILY(Isend_c, MPI_Count, MPIR_MODE_STANDARD)
#pragma weak MPI_Issend_c = PMPI_Issend_c
MPIR_ISEND_FAMILY(Issend_c, MPI_Count, MPIR_MODE_SYNC)
#pragma weak MPI_Irsend_c = PMPI_Irsend_c
MPIR_ISEND_FAMILY(Irsend_c, MPI_Count, MPIR_MODE_READY)
#pragma weak MPI_Ibsend_c = PMPI_Ibsend_c
MPIR_ISEND_FAMILY(Ibsend_c, MPI_Count, MPIR_MODE_BUFFERED)

#pragma weak MPI_Irecv = PMPI_Irecv
int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Irecv");
    return irecv("MPI_Irecv", buf, count, datatype, source, tag, comm, request);
}

#pragma weak MPI_Irecv_c = PMPI_Irecv_c
int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Irecv_c");
    return irecv("MPI_Irecv_c", buf, count, datatype, source, tag, comm, request);
}

#pragma weak MPI_Recv = PMPI_Recv
int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Recv");
    return recv("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

#pragma weak MPI_Recv_c = PMPI_Recv_c
int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Recv_c");
    return recv("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

/* ---- Combined send and receive ---- */

/* The receive is posted first, so a partner doing the same never waits for
 * buffering.  The pair is one composite request whose status is the
 * receive's.  With replace, the send goes from a packed copy of buf. */
static int isendrecv(const char *fname, const void *sendbuf, MPI_Aint sendcount,
                     MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                     MPI_Aint recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, int replace, MPIR_Request **req_p)
{
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_pt2pt(sendbuf, sendcount, sendtype, dest, sendtag, c, 0);
    if (!err)
        err = MPIR_Check_pt2pt(recvbuf, recvcount, recvtype, source, recvtag, c, 1);
    if (err)
        return MPIR_Err_return(c, fname, err);
    MPIR_Request *parent = MPIR_Request_create(MPIR_REQ_COMPOSITE);
    if (!parent)
        return MPIR_Err_return(c, fname, MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests"));
    parent->comm = c;
    c->ref++;
    if (replace) {
        MPIR_Segment seg;
        MPIR_Segment_init(&seg, sendbuf, sendcount, sendtype);
        parent->tmpbuf = malloc(seg.size ? seg.size : 1);
        if (!parent->tmpbuf) {
            parent->ref = 1;
            MPIR_Request_release(parent);
            return MPIR_Err_return(c, fname,
                                   MPIR_Err_create(MPI_ERR_NO_MEM,
                                                   "out of memory for %zu bytes in %s", seg.size,
                                                   fname));
        }
        MPIR_Segment_pack(&seg, 0, seg.size, parent->tmpbuf);
        sendbuf = parent->tmpbuf;
        sendcount = (MPI_Aint)seg.size;
        sendtype = MPI_BYTE;
    }
    /* A half that could not even start counts as done, with its error. */
    parent->cc = 2;
    MPIR_Request *r = NULL, *s = NULL;
    int rerr = MPID_Irecv(recvbuf, recvcount, recvtype, source, recvtag, c, 0, &r);
    int serr = r ? MPID_Isend(sendbuf, sendcount, sendtype, dest, sendtag, c, 0, 0, &s) : rerr;
    MPIR_Request_set_error(parent, r ? MPI_SUCCESS : rerr);
    MPIR_Request_set_error(parent, s ? MPI_SUCCESS : serr);
    *req_p = parent;
    if (r)
        MPIR_Request_adopt(parent, r);
    else
        MPIDI_Request_complete_one(parent);
    if (s)
        MPIR_Request_adopt(parent, s);
    else
        MPIDI_Request_complete_one(parent);
    return MPI_SUCCESS;
}

static int sendrecv(const char *fname, const void *sendbuf, MPI_Aint sendcount,
                    MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Aint recvcount,
                    MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, int replace,
                    MPI_Status *status)
{
    MPIR_Request *req;
    int err = MPIR_Check_status(status);
    if (err)
        return MPIR_Err_return(MPIR_Comm_get(comm), fname, err);
    err = isendrecv(fname, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, replace, &req);
    if (err)
        return err;
    MPI_Request h = req->handle;
    return wait_one(fname, comm, &h, status);
}

#pragma weak MPI_Sendrecv = PMPI_Sendrecv
int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Sendrecv");
    return sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                    recvtype, source, recvtag, comm, 0, status);
}

#pragma weak MPI_Sendrecv_c = PMPI_Sendrecv_c
int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Sendrecv_c");
    return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                    recvcount, recvtype, source, recvtag, comm, 0, status);
}

#pragma weak MPI_Sendrecv_replace = PMPI_Sendrecv_replace
int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Sendrecv_replace");
    return sendrecv("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, buf, count,
                    datatype, source, recvtag, comm, 1, status);
}

#pragma weak MPI_Sendrecv_replace_c = PMPI_Sendrecv_replace_c
int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Sendrecv_replace_c");
    return sendrecv("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count,
                    datatype, source, recvtag, comm, 1, status);
}

static int isendrecv_h(const char *fname, const void *sendbuf, MPI_Aint sendcount,
                       MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                       MPI_Aint recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, int replace, MPI_Request *request)
{
    if (!request)
        return MPIR_Err_return(MPIR_Comm_get(comm), fname,
                               MPIR_Err_create(MPI_ERR_ARG, "request is NULL"));
    MPIR_Request *req;
    int err = isendrecv(fname, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                        recvtype, source, recvtag, comm, replace, &req);
    if (!err)
        *request = req->handle;
    return err;
}

#pragma weak MPI_Isendrecv = PMPI_Isendrecv
int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Isendrecv");
    return isendrecv_h("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, 0, request);
}

#pragma weak MPI_Isendrecv_c = PMPI_Isendrecv_c
int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Isendrecv_c");
    return isendrecv_h("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, 0, request);
}

#pragma weak MPI_Isendrecv_replace = PMPI_Isendrecv_replace
int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Isendrecv_replace");
    return isendrecv_h("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, buf, count,
                       datatype, source, recvtag, comm, 1, request);
}

#pragma weak MPI_Isendrecv_replace_c = PMPI_Isendrecv_replace_c
int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Isendrecv_replace_c");
    return isendrecv_h("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count,
                       datatype, source, recvtag, comm, 1, request);
}

/* ---- Probes ---- */

static int check_probe(MPI_Comm comm, int source, int tag, const MPI_Status *status, MPIR_Comm **c)
{
    int err = MPIR_Check_comm(comm, c);
    if (!err && !(err = MPIR_Check_recv_rank(*c, source)) && !(err = MPIR_Check_recv_tag(tag)))
        err = MPIR_Check_status(status);
    return err;
}

static void probe_status(MPI_Status *status, const MPI_Status *st)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    int keep = status->MPI_ERROR;
    *status = *st;
    status->MPI_ERROR = keep;
    status->cancelled_ = 0;
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Iprobe");
    MPIR_Comm *c;
    int err = check_probe(comm, source, tag, status, &c);
    if (!err && !flag)
        err = MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Iprobe", err);
    MPI_Status st;
    err = MPID_Iprobe(source, tag, c, 0, flag, &st);
    if (!*flag && !err) {
        /* Nothing yet: let the agent look once, as a polling loop expects. */
        MPID_Progress_poll();
        err = MPID_Iprobe(source, tag, c, 0, flag, &st);
    }
    if (err)
        return MPIR_Err_return(c, "MPI_Iprobe", err);
    if (*flag)
        probe_status(status, &st);
    return MPI_SUCCESS;
}

typedef struct {
    int source, tag, flag, err;
    MPIR_Comm *comm;
    MPIR_Request *msg; /* matched probe: the message taken */
    int matched;
    MPI_Status st;
} probe_arg_t;

static int probe_found(void *arg)
{
    probe_arg_t *p = arg;
    /* An error: nothing matches and nothing can any more (a lost peer). */
    if (p->matched) {
        p->err = MPID_Improbe(p->source, p->tag, p->comm, 0, &p->msg, &p->st);
        return p->msg != NULL || p->err;
    }
    p->err = MPID_Iprobe(p->source, p->tag, p->comm, 0, &p->flag, &p->st);
    return p->flag || p->err;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Probe");
    MPIR_Comm *c;
    int err = check_probe(comm, source, tag, status, &c);
    if (err)
        return MPIR_Err_return(c, "MPI_Probe", err);
    probe_arg_t p = {.source = source, .tag = tag, .comm = c};
    MPID_Progress_wait(probe_found, &p);
    if (p.err)
        return MPIR_Err_return(c, "MPI_Probe", p.err);
    probe_status(status, &p.st);
    return MPI_SUCCESS;
}

/* Matched probes: the message leaves the unexpected queue at once, so only
 * MPI_Mrecv with its handle can receive it (MPI-4.1 sec. 3.8.2). */
static int mprobe(const char *fname, int source, int tag, MPI_Comm comm, int *flag,
                  MPI_Message *message, MPI_Status *status, int wait)
{
    MPIR_Comm *c;
    int err = check_probe(comm, source, tag, status, &c);
    if (!err && (!message || (!wait && !flag)))
        err = MPIR_Err_create(MPI_ERR_ARG, "message or flag is NULL");
    if (err)
        return MPIR_Err_return(c, fname, err);
    if (flag)
        *flag = 1;
    if (source == MPI_PROC_NULL) {
        MPI_Status st = {.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = MPI_ANY_TAG};
        probe_status(status, &st);
        *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    probe_arg_t p = {.source = source, .tag = tag, .comm = c, .matched = 1};
    if (wait)
        MPID_Progress_wait(probe_found, &p);
    else if (!probe_found(&p)) {
        MPID_Progress_poll();
        probe_found(&p);
    }
    if (p.err)
        return MPIR_Err_return(c, fname, p.err);
    if (!p.msg) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    probe_status(status, &p.st);
    *message = MPIR_HANDLE_KIND_MESSAGE | (p.msg->handle & 0x03ffffff);
    return MPI_SUCCESS;
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Mprobe");
    return mprobe("MPI_Mprobe", source, tag, comm, NULL, message, status, 1);
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Improbe");
    return mprobe("MPI_Improbe", source, tag, comm, flag, message, status, 0);
}

static int imrecv(const char *fname, void *buf, MPI_Aint count, MPI_Datatype type,
                  MPI_Message *message, MPIR_Request **req_p)
{
    int err = MPI_SUCCESS;
    MPIR_Request *msg = NULL;
    if (!message)
        err = MPIR_Err_create(MPI_ERR_ARG, "message is NULL");
    else if (*message != MPI_MESSAGE_NO_PROC) {
        if ((*message & 0xfc000000) == MPIR_HANDLE_KIND_MESSAGE)
            msg = MPIR_Request_get(MPIR_HANDLE_KIND_REQUEST | (*message & 0x03ffffff));
        if (!msg || msg->kind != MPIR_REQ_UNEXP || !msg->comm)
            err =
                MPIR_Err_create(MPI_ERR_REQUEST, "Invalid message handle %#x", (unsigned)*message);
    }
    MPIR_Comm *c = msg ? msg->comm : NULL;
    if (!err)
        err = MPIR_Check_pt2pt(buf, count, type, MPI_ANY_SOURCE, MPI_ANY_TAG,
                               c ? c : MPIR_Comm_get(MPI_COMM_SELF), 1);
    if (err)
        return MPIR_Err_return(c, fname, err);
    if (!msg) { /* MPI_MESSAGE_NO_PROC: a receive from MPI_PROC_NULL */
        err =
            MPID_Irecv(buf, count, type, MPI_PROC_NULL, 0, MPIR_Comm_get(MPI_COMM_SELF), 0, req_p);
    } else {
        c->ref++;
        err = MPID_Imrecv(buf, count, type, msg, req_p);
        MPIR_Comm_release(c);
    }
    if (err)
        return MPIR_Err_return(c, fname, err);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

static int mrecv(const char *fname, void *buf, MPI_Aint count, MPI_Datatype type,
                 MPI_Message *message, MPI_Status *status)
{
    MPIR_Request *req;
    int err = MPIR_Check_status(status);
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    err = imrecv(fname, buf, count, type, message, &req);
    if (err)
        return err;
    MPIR_Comm *c = req->comm;
    c->ref++;
    MPIR_Request_wait(req);
    MPI_Request h = req->handle;
    err = MPIR_Err_return(c, fname, MPIR_Request_finish(&h, req, status));
    MPIR_Comm_release(c);
    return err;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Mrecv");
    return mrecv("MPI_Mrecv", buf, count, datatype, message, status);
}

#pragma weak MPI_Mrecv_c = PMPI_Mrecv_c
int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    MPIR_CHECK_INIT("MPI_Mrecv_c");
    return mrecv("MPI_Mrecv_c", buf, count, datatype, message, status);
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Imrecv");
    MPIR_Request *req;
    if (!request)
        return MPIR_Err_return(NULL, "MPI_Imrecv", MPIR_Err_create(MPI_ERR_ARG, "request is NULL"));
    int err = imrecv("MPI_Imrecv", buf, count, datatype, message, &req);
    if (!err)
        *request = req->handle;
    return err;
}

#pragma weak MPI_Imrecv_c = PMPI_Imrecv_c
int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Imrecv_c");
    MPIR_Request *req;
    if (!request)
        return MPIR_Err_return(NULL, "MPI_Imrecv_c",
                               MPIR_Err_create(MPI_ERR_ARG, "request is NULL"));
    int err = imrecv("MPI_Imrecv_c", buf, count, datatype, message, &req);
    if (!err)
        *request = req->handle;
    return err;
}

/* ---- Status queries ---- */

static int get_count(const char *fname, const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count *count)
{
    int err = MPIR_Check_type(datatype);
    if (!err && (!status || status == MPI_STATUS_IGNORE || !count))
        err = MPIR_Err_create(MPI_ERR_ARG, "status or count is NULL or MPI_STATUS_IGNORE");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    MPI_Aint size = MPIR_Datatype_get(datatype)->size;
    if (size == 0)
        *count = status->count_bytes_ == 0 ? 0 : MPI_UNDEFINED;
    else if (status->count_bytes_ % size != 0)
        *count = MPI_UNDEFINED;
    else
        *count = status->count_bytes_ / size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPIR_CHECK_INIT("MPI_Get_count");
    MPI_Count n;
    int err = get_count("MPI_Get_count", status, datatype, &n);
    if (!err)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return err;
}

#pragma weak MPI_Get_count_c = PMPI_Get_count_c
int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    MPIR_CHECK_INIT("MPI_Get_count_c");
    return get_count("MPI_Get_count_c", status, datatype, count);
}
