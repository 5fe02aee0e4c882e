/* send.c: MPID_Isend and the sender's side of every protocol (the choice is here). */
#include <stdio.h>
#include "adi_impl.h"
#include "datatype.h"
#include "mpidi_config.h"

static MPIR_Request *lookup(uint64_t id, MPIR_Request_kind_t kind, int peer, const char *what)
{
    MPIR_Request *r = MPIR_Request_get((MPI_Request)id);
    if (!r || r->kind != kind || r->cc <= 0)
        MPIDI_fatal("rank %d: %s from rank %d names request %#llx, which is not pending",
                    MPIDI_world.rank, what, peer, (unsigned long long)id);
    return r;
}

int MPIDI_rndv_iov_ok(const MPIR_Segment *seg, const MPIDI_peer_t *p, int forced);

MPIR_Request *MPIDI_lookup_request(uint64_t id, int is_send, int peer, const char *what)
{
    return lookup(id, is_send ? MPIR_REQ_SEND : MPIR_REQ_RECV, peer, what);
}

/* The protocol choice, in one place: eager up to the peer's limit (the
 * method's, or FERRY_EAGER_LIMIT capped at what one am_send can carry),
 * rendezvous above it.  The rendezvous offers the buffer for rdma_get when
 * it is contiguous and the method can read, so the receiver can pull. */
int MPID_Isend(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
               MPIR_Comm *comm, int context_offset, int sync, MPIR_Request **req_p)
{
    MPIR_Request *sreq = MPIDI_Request_create_pt2pt(MPIR_REQ_SEND, buf, count, type, rank, tag,
                                                    comm, context_offset);
    if (!sreq)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory allocating a send request");
    *req_p = sreq;
    sreq->is_sync = sync;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int peer = MPIR_Comm_world_rank(comm, rank);
    sreq->peer = peer;
    int err = MPI_SUCCESS;
    MPIDI_peer_t *p = MPIDI_peer_get(peer, &err);
    if (!p) {
        MPIR_Request_set_error(sreq, err);
        MPIDI_Request_complete_one(sreq);
        return err;
    }
    size_t size = sreq->seg.size;
    sreq->msg_size = size;
    MPIDI_match_hdr_t m = {.src = comm->rank,
                           .tag = tag,
                           .context_id = sreq->context_id,
                           .seq = p->send_seq++,
                           .flags = sync ? MPIDI_MATCH_SYNC : 0,
                           .sreq = (uint64_t)sreq->handle};
    sreq->send_seq = m.seq;

    if (size <= p->eager_limit) {
        MPIDI_count_eager(p, size);
        if (sync)
            sreq->cc++; /* the SYNC_ACK */
        err = MPIDI_am_send(peer, MPIDI_AM_EAGER, &m, sizeof(m), sreq, 0, size);
        if (err && sync)
            MPIDI_Request_complete_one(sreq); /* no ack will come */
        return err;
    }

    /* Rendezvous: the request's one event is the end of the data transfer. */
    MPIDI_COUNT(p, rndv_sent, 1);
    sreq->is_rndv_send = 1;
    MPIDI_rts_hdr_t rts = {.m = m, .size = size};
    MPIDI_rndv_want_t want = MPIDI_config_int("FERRY_RNDV_PROTOCOL");
    void *src = MPIR_Segment_contig_ptr(&sreq->seg, 0);
    if (src && (p->caps->rndv_modes & MPIDI_RNDV_READ) && p->method->rdma_get &&
        (want == MPIDI_RNDV_WANT_AUTO || want == MPIDI_RNDV_WANT_READ)) {
        rts.addr = (uint64_t)(uintptr_t)src;
        if (p->caps->needs_reg && p->method->mem_reg) {
            err = p->method->mem_reg(src, size, &rts.rkey, &sreq->reg_handle);
            if (err)
                rts.addr = 0; /* the receiver will ask for the pipeline instead */
        }
    }
    err = MPIDI_am_send(peer, MPIDI_AM_RTS, &rts, sizeof(rts), NULL, 0, 0);
    if (err) {
        MPIR_Request_set_error(sreq, err);
        MPIDI_Request_complete_one(sreq);
    }
    return err;
}

/* MPI_Send without a request (issue 12): an eager message that the peer's
 * method takes at once is complete when am_send returns, because a method
 * given no cookie copies the payload before it returns or takes nothing
 * (doc/method-api.md).  So nothing is left to wait for, and the request a
 * send would cost (creation, completion, release) is not made.  Anything
 * else takes the request path: a message above the eager limit, something
 * parked for the peer (order), a peer not bound yet or lost, or a method
 * that had no room.  The message carries no request id: nothing answers it
 * (not synchronous) and no cancel can name it (blocking). */
int MPID_Send(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
              MPIR_Comm *comm, int context_offset, int *done_p)
{
    *done_p = 0;
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    int peer = MPIR_Comm_world_rank(comm, rank);
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    MPIR_Segment seg;
    if (!p->method || p->deferred_head || p->failed_code ||
        MPIR_Segment_init(&seg, buf, count, type) != MPI_SUCCESS || seg.size > p->eager_limit)
        return MPI_SUCCESS;
    MPIDI_match_hdr_t m = {.src = comm->rank,
                           .tag = tag,
                           .context_id = comm->context_id + context_offset,
                           .seq = p->send_seq};
    int rc = p->method->am_send(peer, MPIDI_AM_EAGER, &m, sizeof(m), &seg, 0, seg.size, NULL);
    if (rc == MPIDI_AGAIN)
        return MPI_SUCCESS;
    if (rc == MPIDI_INPROGRESS)
        MPIDI_fatal("rank %d: method %s kept reading a payload it was given without a cookie",
                    MPIDI_world.rank, p->method->name);
    *done_p = 1;
    if (rc != MPI_SUCCESS)
        return rc;
    p->send_seq++;
    MPIDI_count_eager(p, seg.size);
    return MPI_SUCCESS;
}

static void send_rndv_done(MPIR_Request *sreq, int mpi_errno)
{
    MPIR_Request_set_error(sreq, mpi_errno);
    if (sreq->reg_handle) {
        MPIDI_peers[sreq->peer].method->mem_dereg(sreq->reg_handle);
        sreq->reg_handle = NULL;
    }
    MPIDI_Request_complete_one(sreq);
}

void MPIDI_handle_sync_ack(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    MPIDI_Request_complete_one(lookup(c->sreq, MPIR_REQ_SEND, peer, "SYNC_ACK"));
}

void MPIDI_handle_fin(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    send_rndv_done(lookup(c->sreq, MPIR_REQ_SEND, peer, "FIN"), MPI_SUCCESS);
}

/* The put finished: tell the receiver its buffer is filled. */
static void put_done(MPIR_Request *sreq, int mpi_errno)
{
    if (mpi_errno == MPI_SUCCESS) {
        MPIDI_ctrl_hdr_t c = {.sreq = (uint64_t)sreq->handle, .rreq = sreq->rts.sreq};
        mpi_errno = MPIDI_am_send(sreq->peer, MPIDI_AM_PUT_DONE, &c, sizeof(c), NULL, 0, 0);
    }
    send_rndv_done(sreq, mpi_errno);
}

static void put_iov_done(MPIR_Request *sreq, int mpi_errno);

/* The receiver offered its buffer for a write but the data goes as DATA chunks: counted here,
 * since only the sender knows (the receiver counts the writes that arrive).  refused: the
 * method refused the write at run time; why: the reason when the mover asked for is not used,
 * NULL when the pipeline is auto's own choice. */
static void count_stream_instead_of_write(const MPIR_Request *sreq, int refused, const char *why)
{
    MPIDI_peer_t *p = &MPIDI_peers[sreq->peer];
    MPIDI_COUNT(p, rndv_pipeline, 1);
    MPIDI_COUNT(p, rndv_refused, refused);
    MPIDI_COUNT(p, rndv_fallback, why != NULL);
    if (MPIDI_config_int("FERRY_VERBOSE") >= MPIDI_VERBOSE_PROTOCOL)
        fprintf(stderr, "ferry: rank %d: rendezvous of %zu bytes to rank %d: pipeline%s%s\n",
                MPIDI_world.rank, sreq->msg_size, sreq->peer, why ? ", fall-back: " : "",
                why ? why : "");
}

/* Writes a noncontiguous send buffer into the receiver's contiguous one, one
 * rdma_put per contiguous piece.  On a send request the rendezvous fields
 * hold the put's state: rts.addr and rts.rkey the receiver's buffer,
 * bytes_needed its length, bytes_done the next stream byte. */
static void put_iov_next(MPIR_Request *sreq)
{
    const MPIDI_peer_t *p = &MPIDI_peers[sreq->peer];
    while (sreq->bytes_done < sreq->bytes_needed) {
        struct iovec iov;
        size_t off = sreq->bytes_done, end = sreq->bytes_needed;
        MPIR_Segment_to_iov(&sreq->seg, off, &end, &iov, 1);
        sreq->bytes_done = end;
        sreq->cb_rdma.fn = put_iov_done;
        int rc = p->method->rdma_put(sreq->peer, iov.iov_base, iov.iov_len, sreq->rts.addr + off,
                                     sreq->rts.rkey, &sreq->cb_rdma);
        if (rc == MPIDI_INPROGRESS)
            return;
        if (rc != MPI_SUCCESS) {
            int err = rc == MPIDI_AGAIN ? MPIR_Err_create(MPI_ERR_OTHER, "rdma_put busy") : rc;
            put_iov_done(sreq, err);
            return;
        }
    }
    put_done(sreq, MPI_SUCCESS);
}

static void put_iov_done(MPIR_Request *sreq, int mpi_errno)
{
    if (mpi_errno == MPI_SUCCESS) {
        put_iov_next(sreq);
        return;
    }
    /* Refused (CMA not permitted): the receiver accepts DATA in write mode
     * too, and the stream rewrites every byte from the start. */
    if (MPIDI_config_int("FERRY_VERBOSE"))
        fprintf(stderr, "ferry: rank %d: rdma_put to rank %d failed (%s); using pipeline\n",
                MPIDI_world.rank, sreq->peer, MPIR_Err_string(mpi_errno));
    count_stream_instead_of_write(sreq, 1, "the write was refused");
    int err = MPIDI_am_stream(sreq->peer, sreq, sreq->rts.sreq, 0, sreq->bytes_needed);
    if (err)
        send_rndv_done(sreq, err);
}

/* The receiver matched and is ready: put into its buffer when it offered one
 * and the method can write (piece by piece from a noncontiguous buffer when
 * the pieces are large), else stream the data as DATA chunks. */
void MPIDI_handle_cts(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_cts_hdr_t *c = hdr;
    MPIR_Request *sreq = lookup(c->sreq, MPIR_REQ_SEND, peer, "CTS");
    const MPIDI_peer_t *p = &MPIDI_peers[peer];
    void *src = MPIR_Segment_contig_ptr(&sreq->seg, 0);
    int forced = MPIDI_config_int("FERRY_RNDV_PROTOCOL") == MPIDI_RNDV_WANT_WRITE;
    if (c->addr && !src && c->len > 0 && p->method->rdma_put &&
        MPIDI_rndv_iov_ok(&sreq->seg, p, forced)) {
        sreq->rts.sreq = c->rreq; /* remembered for PUT_DONE */
        sreq->rts.addr = c->addr;
        sreq->rts.rkey = c->rkey;
        sreq->bytes_needed = c->len;
        sreq->bytes_done = 0;
        put_iov_next(sreq);
        return;
    }
    if (c->addr && src && p->method->rdma_put) {
        sreq->rts.sreq = c->rreq; /* remembered for PUT_DONE */
        sreq->cb_rdma.fn = put_done;
        int rc = p->method->rdma_put(peer, src, c->len, c->addr, c->rkey, &sreq->cb_rdma);
        if (rc == MPIDI_INPROGRESS)
            return;
        if (rc == MPI_SUCCESS) {
            put_done(sreq, MPI_SUCCESS);
            return;
        }
        /* The put was refused (e.g. CMA not permitted): the receiver takes
         * DATA just as well, so fall back to the pipeline. */
        if (MPIDI_config_int("FERRY_VERBOSE") && rc != MPIDI_AGAIN)
            fprintf(stderr, "ferry: rank %d: rdma_put to rank %d failed (%s); using pipeline\n",
                    MPIDI_world.rank, peer, MPIR_Err_string(rc));
        count_stream_instead_of_write(sreq, rc != MPIDI_AGAIN,
                                      rc == MPIDI_AGAIN ? "the write was busy"
                                                        : "the write was refused");
    } else if (c->addr) {
        count_stream_instead_of_write(sreq, 0, forced ? "cannot write from this buffer" : NULL);
    }
    int err = MPIDI_am_stream(peer, sreq, c->rreq, 0, c->len);
    if (err)
        send_rndv_done(sreq, err);
}

/* Cancelling a send: the receiver alone knows whether the message has
 * matched, so ask it.  Messages to one peer stay in order, so CANCEL_SEND
 * arrives after the message it names: not finding it unexpected means it
 * matched (or was taken by a matched probe), and then it cannot be
 * withdrawn.  The request holds one more event until the answer. */
int MPID_Cancel_send(MPIR_Request *sreq)
{
    if (sreq->peer < 0 || sreq->cancel_pending || sreq->cancelled)
        return MPI_SUCCESS; /* PROC_NULL, or asked already */
    if (sreq->cc == 0)
        sreq->ref++; /* complete locally: the device holds it again until the answer */
    sreq->cc++;
    sreq->cancel_pending = 1;
    MPIDI_cancel_hdr_t c = {.sreq = (uint64_t)sreq->handle, .seq = sreq->send_seq};
    int err = MPIDI_am_send(sreq->peer, MPIDI_AM_CANCEL_SEND, &c, sizeof(c), NULL, 0, 0);
    if (err) {
        /* The peer is gone: nothing will answer, and nothing is cancelled. */
        sreq->cancel_pending = 0;
        MPIDI_Request_complete_one(sreq);
    }
    return MPI_SUCCESS;
}

/* The receiver's answer.  Withdrawn: the events that waited for the
 * receiver (the rendezvous transfer, the synchronous acknowledgement) will
 * never come, so they end here, and the request completes cancelled. */
void MPIDI_handle_cancel_resp(int peer, const void *hdr, size_t hdr_len, const void *data,
                              size_t len)
{
    const MPIDI_cancel_hdr_t *c = hdr;
    MPIR_Request *sreq = lookup(c->sreq, MPIR_REQ_SEND, peer, "CANCEL_RESP");
    if (!sreq->cancel_pending)
        MPIDI_fatal("rank %d: CANCEL_RESP from rank %d for request %#llx that asked nothing",
                    MPIDI_world.rank, peer, (unsigned long long)c->sreq);
    sreq->cancel_pending = 0;
    if (c->cancelled) {
        sreq->cancelled = 1;
        sreq->status.cancelled_ = 1;
        if (sreq->is_rndv_send)
            send_rndv_done(sreq, MPI_SUCCESS);
        else if (sreq->is_sync)
            MPIDI_Request_complete_one(sreq); /* the SYNC_ACK that will not come */
    }
    MPIDI_Request_complete_one(sreq);
}
