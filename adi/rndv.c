/* rndv.c: the receiver's side of rendezvous: choose read, write or pipeline after the match. */
#include <stdio.h>
#include "adi_impl.h"
#include "mpidi_config.h"

MPIR_Request *MPIDI_lookup_request(uint64_t id, int is_send, int peer, const char *what);

MPIDI_rndv_want_t MPIDI_rndv_wanted(void)
{
    /* config.c lists the choices as MPIDI_RNDV_WANT_NAMES, in enum order. */
    return (MPIDI_rndv_want_t)MPIDI_config_int("FERRY_RNDV_PROTOCOL");
}

/* reg and addr: the receive buffer offered for the sender's rdma_put (write
 * mode); addr NULL: pipeline, the sender streams DATA. */
static void send_cts(MPIR_Request *rreq, const MPIDI_reg_t *reg, void *addr)
{
    MPIDI_cts_hdr_t c = {
        .sreq = rreq->rts.sreq, .rreq = (uint64_t)rreq->handle, .len = rreq->bytes_needed};
    if (addr) {
        c.flags = MPIDI_CTS_PUT;
        c.addr = reg->held ? reg->mem.remote_addr : (uint64_t)(uintptr_t)addr;
        c.rkey = reg->held ? reg->mem.key : 0;
    }
    unsigned flags = !addr && rreq->bytes_needed > 0 ? MPIDI_AM_ASKS_DATA : 0;
    int err = MPIDI_am_send(rreq->peer, MPIDI_AM_CTS, &c, sizeof(c), NULL, 0, 0, flags);
    if (err) {
        MPIR_Request_set_error(rreq, err);
        MPIDI_Request_complete_one(rreq);
        return;
    }
    /* Nothing to receive (truncated to an empty buffer): the sender streams
     * no DATA, so the receive is done already. */
    if (rreq->bytes_needed == 0 && !addr)
        MPIDI_Request_complete_one(rreq);
}

static const char *const mover_name[] = {
    [MPIDI_RNDV_READ] = "read", [MPIDI_RNDV_WRITE] = "write", [MPIDI_RNDV_PIPELINE] = "pipeline"};

/* FERRY_VERBOSE=3: one line per rendezvous, saying which mover it uses and why. */
static void trace(const MPIR_Request *rreq, int mode, const char *why)
{
    if (MPIDI_config_int("FERRY_VERBOSE") >= MPIDI_VERBOSE_PROTOCOL)
        fprintf(stderr, "ferry: rank %d: rendezvous of %zu bytes from rank %d: %s%s%s\n",
                MPIDI_world.rank, rreq->msg_size, rreq->peer, mover_name[mode], why ? ", " : "",
                why ? why : "");
}

/* fallback: why the mover asked for is not used (NULL when it is). */
static void start_pipeline(MPIR_Request *rreq, const char *fallback)
{
    MPIDI_peer_t *p = &MPIDI_peers[rreq->peer];
    MPIDI_COUNT(p, rndv_pipeline, 1);
    MPIDI_COUNT(p, rndv_fallback, fallback != NULL);
    trace(rreq, MPIDI_RNDV_PIPELINE, fallback);
    rreq->mode = MPIDI_RNDV_PIPELINE;
    rreq->bytes_recvd = 0;
    send_cts(rreq, NULL, NULL);
}

/* The read is over: tell the sender, or fall back to DATA when the method
 * refused to read. */
static void read_done(MPIR_Request *rreq)
{
    MPIDI_xfer_t *x = &rreq->xfer;
    if (x->refused) {
        MPIDI_rndv_note_refused(rreq, "rdma_get", x->refused);
        start_pipeline(rreq, "fall-back: the read was refused");
        return;
    }
    if (x->err) {
        /* The data did not arrive.  The sender is not told: its request
         * fails when its method reports the connection lost. */
        MPIR_Request_set_error(rreq, x->err);
        MPIDI_Request_complete_one(rreq);
        return;
    }
    MPIDI_COUNT(&MPIDI_peers[rreq->peer], rndv_read, 1);
    if (!x->fin_sent) {
        MPIDI_ctrl_hdr_t c = {.sreq = rreq->rts.sreq, .rreq = (uint64_t)rreq->handle};
        MPIR_Request_set_error(
            rreq, MPIDI_am_send(rreq->peer, MPIDI_AM_FIN, &c, sizeof(c), NULL, 0, 0, 0));
    }
    MPIDI_Request_complete_one(rreq);
}

/* FERRY_RNDV_FIN_FENCE=1: FIN goes as soon as the method has taken the last
 * read, fenced, so the method delivers it only after the reads (verbs
 * IBV_SEND_FENCE): the sender learns of the end one completion earlier, at
 * the price of a fence that stalls the sends queued behind it.  The default
 * waits for the reads' completions and sends FIN unfenced; the bench
 * compares the two (doc/methods/verbs.md). */
static void read_issued(MPIR_Request *rreq)
{
    MPIDI_ctrl_hdr_t c = {.sreq = rreq->rts.sreq, .rreq = (uint64_t)rreq->handle};
    int err = MPIDI_am_send(rreq->peer, MPIDI_AM_FIN, &c, sizeof(c), NULL, 0, 0, MPIDI_AM_FENCE);
    rreq->xfer.fin_sent = 1;
    MPIR_Request_set_error(rreq, err);
}

/* Chooses the data mover once the receive is matched, from what the sender
 * offered (its buffer for reading), what the method can do, the receive
 * buffer's layout, and FERRY_RNDV_PROTOCOL.  A forced mode that is not
 * possible here falls back to the pipeline, which always works.
 *   read:  the sender offered its buffer and the method reads: into a
 *          contiguous receive buffer directly; into a noncontiguous one
 *          piece by piece (large pieces, caps.rndv_iov_min_piece) or through
 *          registered bounce slots (methods that read only into registered
 *          memory);
 *   write: a contiguous receive buffer, offered in CTS (registered when the
 *          method needs it); chosen by default only on methods without
 *          registration, whose sender may also put piece by piece;
 *   pipeline: everything else. */
void MPIDI_rndv_recv_start(MPIR_Request *rreq)
{
    int err = MPI_SUCCESS;
    /* A rank that only ever received from this peer has not bound it yet. */
    const MPIDI_peer_t *p = MPIDI_peer_get(rreq->peer, &err);
    if (!p) {
        MPIR_Request_set_error(rreq, err);
        MPIDI_Request_complete_one(rreq);
        return;
    }
    const MPIDI_method_caps_t *caps = p->caps;
    MPIDI_rndv_want_t want = MPIDI_rndv_wanted();
    void *dst = MPIR_Segment_contig_ptr(&rreq->seg, 0);
    int may_read = (want == MPIDI_RNDV_WANT_AUTO || want == MPIDI_RNDV_WANT_READ) &&
                   rreq->rts.has_addr && (caps->rndv_modes & MPIDI_RNDV_READ) &&
                   p->method->rdma_get && rreq->bytes_needed > 0;
    if (may_read) {
        int per_piece = 0, bounce = 0;
        if (!dst) {
            per_piece = MPIDI_rndv_iov_ok(&rreq->seg, p, want == MPIDI_RNDV_WANT_READ);
            bounce = !per_piece && caps->needs_local_reg;
        }
        if (dst || per_piece || bounce) {
            trace(rreq, MPIDI_RNDV_READ,
                  per_piece ? "piece by piece"
                  : bounce  ? "through bounce buffers"
                            : NULL);
            rreq->mode = MPIDI_RNDV_READ;
            MPIDI_xfer_start(rreq, MPIDI_XFER_GET, rreq->bytes_needed, rreq->rts.addr,
                             rreq->rts.rkey, per_piece, bounce, read_done,
                             MPIDI_config_int("FERRY_RNDV_FIN_FENCE") ? read_issued : NULL);
            return;
        }
    }
    int may_write =
        dst && rreq->bytes_needed > 0 && (caps->rndv_modes & MPIDI_RNDV_WRITE) &&
        p->method->rdma_put &&
        (want == MPIDI_RNDV_WANT_WRITE || (want == MPIDI_RNDV_WANT_AUTO && !caps->needs_reg));
    if (may_write && caps->needs_reg) {
        err =
            MPIDI_reg_acquire(p, dst, rreq->bytes_needed, MPIDI_MEM_REMOTE_WRITE, &rreq->recv_reg);
        if (err) {
            MPIDI_rndv_note_refused(rreq, "registration for rdma_put", err);
            start_pipeline(rreq, "fall-back: the receive buffer could not be registered");
            return;
        }
    }
    /* Counted when PUT_DONE comes, or by the sender if it streams DATA instead. */
    if (may_write) {
        trace(rreq, MPIDI_RNDV_WRITE, NULL);
        rreq->mode = MPIDI_RNDV_WRITE;
        rreq->bytes_recvd = 0;
        send_cts(rreq, &rreq->recv_reg, dst);
        return;
    }
    if (want == MPIDI_RNDV_WANT_READ)
        start_pipeline(rreq, "fall-back: cannot read here (method, CMA off, or buffers)");
    else if (want == MPIDI_RNDV_WANT_WRITE)
        start_pipeline(rreq, "fall-back: cannot write here (method, CMA off, or buffers)");
    else
        start_pipeline(rreq, NULL);
}

static MPIR_Request *data_request(int peer, const MPIDI_data_hdr_t *d, size_t len)
{
    MPIR_Request *rreq = MPIDI_lookup_request(d->rreq, 0, peer, "DATA");
    if (rreq->mode == MPIDI_RNDV_READ)
        MPIDI_fatal("rank %d: DATA from rank %d for a receive that is reading the data",
                    MPIDI_world.rank, peer);
    if (d->offset + len > rreq->bytes_needed)
        MPIDI_fatal("rank %d: DATA from rank %d for bytes [%llu, %llu) beyond the %zu expected",
                    MPIDI_world.rank, peer, (unsigned long long)d->offset,
                    (unsigned long long)(d->offset + len), rreq->bytes_needed);
    return rreq;
}

void MPIDI_handle_data(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_data_hdr_t *d = hdr;
    MPIR_Request *rreq = data_request(peer, d, len);
    MPIR_Segment_unpack(&rreq->seg, d->offset, d->offset + len, data);
    MPIDI_data_recv_done(rreq, NULL, len);
}

/* Receive in place: a chunk for a contiguous buffer is written straight to
 * its offset; otherwise the method collects it and dispatches it as usual. */
MPIR_Request *MPIDI_data_recv_begin(int peer, const MPIDI_data_hdr_t *d, size_t len, void **dst_p)
{
    MPIR_Request *rreq = data_request(peer, d, len);
    *dst_p = MPIR_Segment_contig_ptr(&rreq->seg, d->offset);
    return *dst_p ? rreq : NULL;
}

/* payload is NULL when the bytes are in place already (never otherwise from
 * a begun chunk: begin refuses chunks it cannot place). */
void MPIDI_data_recv_done(MPIR_Request *rreq, const void *payload, size_t len)
{
    rreq->bytes_recvd += len;
    if (rreq->bytes_recvd == rreq->bytes_needed)
        MPIDI_Request_complete_one(rreq);
}

void MPIDI_handle_put_done(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    MPIDI_COUNT(&MPIDI_peers[peer], rndv_write, 1);
    MPIDI_Request_complete_one(MPIDI_lookup_request(c->rreq, 0, peer, "PUT_DONE"));
}
