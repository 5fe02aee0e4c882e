/* rndv.c: the receiver's side of rendezvous: choose read, write or pipeline after the match. */
#include <stdio.h>
#include "adi_impl.h"
#include "mpidi_config.h"

MPIR_Request *MPIDI_lookup_request(uint64_t id, int is_send, int peer, const char *what);

/* A noncontiguous buffer meets a contiguous one: one rdma call per contiguous
 * piece of it (MPIR_Segment_to_iov) moves the data without a copy.  Each call
 * costs about a system call (CMA), so it pays only for large pieces; below
 * this average the pipeline's pack and unpack copies are cheaper.  A mode
 * forced with FERRY_RNDV_PROTOCOL takes it whatever the pieces, so that the
 * variant tests cover it.  Methods that need registered memory are left to
 * the pipeline (a registration per piece would cost more than the copy). */
#define MPIDI_RNDV_IOV_MIN_PIECE 16384

int MPIDI_rndv_iov_ok(const MPIR_Segment *seg, const MPIDI_peer_t *p, int forced)
{
    if (p->caps->needs_reg)
        return 0;
    return forced || seg->size / MPIR_Segment_pieces(seg) >= MPIDI_RNDV_IOV_MIN_PIECE;
}

static void send_cts(MPIR_Request *rreq, void *addr)
{
    MPIDI_cts_hdr_t c = {.sreq = rreq->rts.sreq,
                         .rreq = (uint64_t)rreq->handle,
                         .len = rreq->bytes_needed,
                         .addr = (uint64_t)(uintptr_t)addr};
    int err = MPIDI_am_send(rreq->peer, MPIDI_AM_CTS, &c, sizeof(c), NULL, 0, 0);
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

static void send_fin(MPIR_Request *rreq)
{
    MPIDI_ctrl_hdr_t c = {.sreq = rreq->rts.sreq, .rreq = (uint64_t)rreq->handle};
    int err = MPIDI_am_send(rreq->peer, MPIDI_AM_FIN, &c, sizeof(c), NULL, 0, 0);
    MPIR_Request_set_error(rreq, err);
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
    send_cts(rreq, NULL);
}

static void read_done(MPIR_Request *rreq, int mpi_errno)
{
    if (mpi_errno != MPI_SUCCESS) {
        /* The read was refused (e.g. CMA not permitted between these
         * processes): nothing was written that matters, ask for DATA. */
        if (MPIDI_config_int("FERRY_VERBOSE"))
            fprintf(stderr, "ferry: rank %d: rdma_get from rank %d failed (%s); using pipeline\n",
                    MPIDI_world.rank, rreq->peer, MPIR_Err_string(mpi_errno));
        MPIDI_COUNT(&MPIDI_peers[rreq->peer], rndv_refused, 1);
        start_pipeline(rreq, "fall-back: the read was refused");
        return;
    }
    MPIDI_COUNT(&MPIDI_peers[rreq->peer], rndv_read, 1);
    send_fin(rreq);
    MPIDI_Request_complete_one(rreq);
}

static void read_iov_done(MPIR_Request *rreq, int mpi_errno);

/* Reads the sender's contiguous data into a noncontiguous receive buffer, one
 * rdma_get per contiguous piece; bytes_done is the next stream byte.  An
 * operation still in progress continues from read_iov_done. */
static void read_iov_next(MPIR_Request *rreq)
{
    const MPIDI_peer_t *p = &MPIDI_peers[rreq->peer];
    while (rreq->bytes_done < rreq->bytes_needed) {
        struct iovec iov;
        size_t off = rreq->bytes_done, end = rreq->bytes_needed;
        MPIR_Segment_to_iov(&rreq->seg, off, &end, &iov, 1);
        rreq->bytes_done = end;
        rreq->cb_rdma.fn = read_iov_done;
        int rc = p->method->rdma_get(rreq->peer, iov.iov_base, iov.iov_len, rreq->rts.addr + off,
                                     rreq->rts.rkey, &rreq->cb_rdma);
        if (rc == MPIDI_INPROGRESS)
            return;
        if (rc != MPI_SUCCESS) {
            int err = rc == MPIDI_AGAIN ? MPIR_Err_create(MPI_ERR_OTHER, "rdma_get busy") : rc;
            read_iov_done(rreq, err);
            return;
        }
    }
    read_done(rreq, MPI_SUCCESS);
}

static void read_iov_done(MPIR_Request *rreq, int mpi_errno)
{
    if (mpi_errno != MPI_SUCCESS) {
        rreq->bytes_done = 0; /* the pipeline counts its DATA from the start */
        read_done(rreq, mpi_errno);
        return;
    }
    read_iov_next(rreq);
}

/* Chooses the data mover once the receive is matched, from what the sender
 * offered (an address to read), what the method can do, whether the user
 * buffer is one piece, and FERRY_RNDV_PROTOCOL.  A forced mode that is not
 * possible here falls back to the pipeline, which always works. */
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
    MPIDI_rndv_want_t want = MPIDI_config_int("FERRY_RNDV_PROTOCOL");
    void *dst = MPIR_Segment_contig_ptr(&rreq->seg, 0);
    int can_read =
        rreq->rts.addr && dst && (p->caps->rndv_modes & MPIDI_RNDV_READ) && p->method->rdma_get;
    int can_write = dst && (p->caps->rndv_modes & MPIDI_RNDV_WRITE) && !p->caps->needs_reg;
    /* A contiguous sender and a noncontiguous receive buffer: read piece by piece. */
    int can_read_iov = rreq->rts.addr && !dst && (p->caps->rndv_modes & MPIDI_RNDV_READ) &&
                       p->method->rdma_get && rreq->bytes_needed > 0 &&
                       MPIDI_rndv_iov_ok(&rreq->seg, p, want == MPIDI_RNDV_WANT_READ);
    int read_ok = want == MPIDI_RNDV_WANT_AUTO || want == MPIDI_RNDV_WANT_READ;
    int write_ok = want == MPIDI_RNDV_WANT_AUTO || want == MPIDI_RNDV_WANT_WRITE;

    if (can_read_iov && read_ok) {
        trace(rreq, MPIDI_RNDV_READ, "piece by piece");
        rreq->mode = MPIDI_RNDV_READ;
        rreq->bytes_done = 0;
        read_iov_next(rreq);
        return;
    }

    if (can_read && read_ok) {
        trace(rreq, MPIDI_RNDV_READ, NULL);
        rreq->mode = MPIDI_RNDV_READ;
        if (rreq->bytes_needed == 0) {
            read_done(rreq, MPI_SUCCESS);
            return;
        }
        rreq->cb_rdma.fn = read_done;
        int rc = p->method->rdma_get(rreq->peer, dst, rreq->bytes_needed, rreq->rts.addr,
                                     rreq->rts.rkey, &rreq->cb_rdma);
        if (rc == MPIDI_INPROGRESS)
            return;
        read_done(rreq, rc == MPIDI_AGAIN ? MPIR_Err_create(MPI_ERR_OTHER, "rdma_get busy") : rc);
        return;
    }
    /* Counted when PUT_DONE comes, or by the sender if it streams DATA instead. */
    if (can_write && rreq->bytes_needed > 0 && write_ok) {
        trace(rreq, MPIDI_RNDV_WRITE, NULL);
        rreq->mode = MPIDI_RNDV_WRITE;
        send_cts(rreq, dst);
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
    rreq->bytes_done += len;
    if (rreq->bytes_done == rreq->bytes_needed)
        MPIDI_Request_complete_one(rreq);
}

void MPIDI_handle_put_done(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    MPIDI_COUNT(&MPIDI_peers[peer], rndv_write, 1);
    MPIDI_Request_complete_one(MPIDI_lookup_request(c->rreq, 0, peer, "PUT_DONE"));
}
