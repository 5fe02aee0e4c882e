/* send.c: MPID_Isend and the sender's side of every protocol (the choice is here). */
#include <stdio.h>
#include <string.h>
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

MPIR_Request *MPIDI_lookup_request(uint64_t id, int is_send, int peer, const char *what)
{
    return lookup(id, is_send ? MPIR_REQ_SEND : MPIR_REQ_RECV, peer, what);
}

/* Rendezvous: the request's one event is the end of the data transfer.  Fills the RTS of sreq
 * (sent to p with envelope m): a contiguous buffer is offered for reading (registered first when
 * the method needs it) unless the user forced another mode. */
static void make_rndv(MPIR_Request *sreq, MPIDI_peer_t *p, const MPIDI_match_hdr_t *m,
                      MPIDI_rts_hdr_t *rts)
{
    MPIDI_COUNT(p, rndv_sent, 1);
    sreq->is_rndv_send = 1;
    *rts = (MPIDI_rts_hdr_t){.m = *m, .size = sreq->msg_size};
    MPIDI_rndv_want_t want = MPIDI_rndv_wanted();
    void *src = MPIR_Segment_contig_ptr(&sreq->seg, 0);
    if (src && (p->caps->rndv_modes & MPIDI_RNDV_READ) && p->method->rdma_get &&
        (want == MPIDI_RNDV_WANT_AUTO || want == MPIDI_RNDV_WANT_READ)) {
        int err;
        if (!p->caps->needs_reg) {
            rts->m.sreq_flags |= MPIDI_MATCH_RDMA;
            rts->addr = (uint64_t)(uintptr_t)src;
        } else if ((err = MPIDI_reg_acquire(p, src, sreq->msg_size, MPIDI_MEM_REMOTE_READ,
                                            &sreq->send_reg)) == MPI_SUCCESS) {
            rts->m.sreq_flags |= MPIDI_MATCH_RDMA;
            rts->addr = sreq->send_reg.mem.remote_addr;
            rts->rkey = sreq->send_reg.mem.key;
        } else {
            /* Not registrable: the receiver will ask for the pipeline. */
            MPIDI_rndv_note_refused(sreq, "registration for rdma_get", err);
        }
    }
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
                           .sreq_flags = MPIDI_match_sreq_index(sreq->handle) |
                                         (sync ? MPIDI_MATCH_SYNC : 0)};
    sreq->send_seq = m.seq;

    if (size <= p->eager_limit) {
        MPIDI_count_eager(p, size);
        if (sync)
            sreq->cc++; /* the SYNC_ACK */
        err = MPIDI_am_send(peer, MPIDI_AM_EAGER, &m, sizeof(m), sreq, 0, size, 0);
        if (err && sync)
            MPIDI_Request_complete_one(sreq); /* no ack will come */
        return err;
    }

    MPIDI_rts_hdr_t rts;
    make_rndv(sreq, p, &m, &rts);
    err = MPIDI_am_send(peer, MPIDI_AM_RTS, &rts, sizeof(rts), NULL, 0, 0, 0);
    if (err) {
        MPIR_Request_set_error(sreq, err);
        MPIDI_Request_complete_one(sreq);
    }
    return err;
}

/* A PAUSE found the eager send sreq still parked, its match header in hdr (adi/am.c): it goes
 * by rendezvous instead, its RTS written over hdr, so that it keeps its place in the queue.
 * Nothing of it has reached the method.  Returns the RTS's length. */
size_t MPIDI_eager_to_rndv(MPIR_Request *sreq, void *hdr)
{
    MPIDI_peer_t *p = &MPIDI_peers[sreq->peer];
    MPIDI_match_hdr_t m;
    memcpy(&m, hdr, sizeof(m));
    /* Counted as an eager send when it was chosen; counted again as what it is now. */
    MPIDI_uncount_eager(p, sreq->msg_size);
    MPIDI_stats.eager_to_rndv++;
    if (sreq->is_sync)
        sreq->cc--; /* no SYNC_ACK: the transfer's end says that the receive matched */
    MPIDI_rts_hdr_t rts;
    make_rndv(sreq, p, &m, &rts);
    memcpy(hdr, &rts, sizeof(rts));
    return sizeof(rts);
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
    int rc = p->method->am_send(peer, MPIDI_AM_EAGER, &m, sizeof(m), &seg, 0, seg.size, 0, NULL);
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

void MPIDI_handle_sync_ack(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    MPIDI_Request_complete_one(lookup(c->sreq, MPIR_REQ_SEND, peer, "SYNC_ACK"));
}

/* The receiver has read the data (its registration of our buffer is
 * dropped when the request completes). */
void MPIDI_handle_fin(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    MPIDI_Request_complete_one(lookup(c->sreq, MPIR_REQ_SEND, peer, "FIN"));
}

static void stream_data(MPIR_Request *sreq)
{
    int err = MPIDI_am_stream(sreq->peer, sreq, sreq->cts_rreq, 0, sreq->cts_len);
    if (err) {
        MPIR_Request_set_error(sreq, err);
        MPIDI_Request_complete_one(sreq);
    }
}

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

/* The put is over: tell the receiver its buffer is filled, or, when the
 * method refused, stream the data instead (the receiver takes DATA in write
 * mode too, and the stream rewrites every byte from the start). */
static void put_done(MPIR_Request *sreq)
{
    MPIDI_xfer_t *x = &sreq->xfer;
    if (x->refused) {
        MPIDI_rndv_note_refused(sreq, "rdma_put", x->refused);
        count_stream_instead_of_write(sreq, 0, "the write was refused");
        stream_data(sreq);
        return;
    }
    int err = x->err;
    if (!err) {
        MPIDI_ctrl_hdr_t c = {.sreq = (uint64_t)sreq->handle, .rreq = sreq->cts_rreq};
        err = MPIDI_am_send(sreq->peer, MPIDI_AM_PUT_DONE, &c, sizeof(c), NULL, 0, 0, 0);
    }
    MPIR_Request_set_error(sreq, err);
    MPIDI_Request_complete_one(sreq);
}

/* The receiver matched and is ready: put into its buffer when it offered one
 * (from a contiguous send buffer, or piece by piece from a noncontiguous one
 * when the method allows it), else stream the data as DATA chunks. */
void MPIDI_handle_cts(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_cts_hdr_t *c = hdr;
    MPIR_Request *sreq = lookup(c->sreq, MPIR_REQ_SEND, peer, "CTS");
    const MPIDI_peer_t *p = &MPIDI_peers[peer];
    sreq->cts_rreq = c->rreq;
    sreq->cts_len = c->len;
    if ((c->flags & MPIDI_CTS_PUT) && c->len > 0 && p->method->rdma_put) {
        int forced = MPIDI_rndv_wanted() == MPIDI_RNDV_WANT_WRITE;
        int contig = MPIR_Segment_contig_ptr(&sreq->seg, 0) != NULL;
        int per_piece = !contig && MPIDI_rndv_iov_ok(&sreq->seg, p, forced);
        if (contig || per_piece) {
            sreq->mode = MPIDI_RNDV_WRITE;
            MPIDI_xfer_start(sreq, MPIDI_XFER_PUT, c->len, c->addr, c->rkey, per_piece, 0,
                             put_done, NULL);
            return;
        }
        count_stream_instead_of_write(sreq, 0, forced ? "cannot write from this buffer" : NULL);
    }
    sreq->mode = MPIDI_RNDV_PIPELINE;
    stream_data(sreq);
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
    int err = MPIDI_am_send(sreq->peer, MPIDI_AM_CANCEL_SEND, &c, sizeof(c), NULL, 0, 0, 0);
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
            MPIDI_Request_complete_one(sreq); /* the transfer (its registration goes too) */
        else if (sreq->is_sync)
            MPIDI_Request_complete_one(sreq); /* the SYNC_ACK that will not come */
    }
    MPIDI_Request_complete_one(sreq);
}
