/* rndv.c: the receiver's side of rendezvous: choose read, write or pipeline after the match. */
#include <stdio.h>
#include "adi_impl.h"
#include "mpidi_config.h"

MPIR_Request *MPIDI_lookup_request(uint64_t id, int is_send, int peer, const char *what);

static void send_cts(MPIR_Request *rreq, void *addr)
{
    MPIDI_cts_hdr_t c = {.sreq = rreq->rts.sreq, .rreq = (uint64_t)rreq->handle,
                         .len = rreq->bytes_needed, .addr = (uint64_t)(uintptr_t)addr};
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

static void start_pipeline(MPIR_Request *rreq)
{
    MPIDI_stats.rndv_pipeline++;
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
        start_pipeline(rreq);
        return;
    }
    send_fin(rreq);
    MPIDI_Request_complete_one(rreq);
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
    long want = MPIDI_config_int("FERRY_RNDV_PROTOCOL"); /* auto|read|write|pipeline */
    void *dst = MPIR_Segment_contig_ptr(&rreq->seg, 0);
    int can_read = rreq->rts.addr && dst && (p->caps->rndv_modes & MPIDI_RNDV_READ) &&
                   p->method->rdma_get;
    int can_write = dst && (p->caps->rndv_modes & MPIDI_RNDV_WRITE) && !p->caps->needs_reg;

    if (can_read && (want == 0 || want == 1)) {
        MPIDI_stats.rndv_read++;
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
    if (can_write && rreq->bytes_needed > 0 && (want == 0 || want == 2)) {
        MPIDI_stats.rndv_write++;
        rreq->mode = MPIDI_RNDV_WRITE;
        send_cts(rreq, dst);
        return;
    }
    start_pipeline(rreq);
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
MPIR_Request *MPIDI_data_recv_begin(int peer, const MPIDI_data_hdr_t *d, size_t len,
                                    void **dst_p)
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

void MPIDI_handle_put_done(int peer, const void *hdr, size_t hdr_len, const void *data,
                           size_t len)
{
    const MPIDI_ctrl_hdr_t *c = hdr;
    MPIDI_Request_complete_one(MPIDI_lookup_request(c->rreq, 0, peer, "PUT_DONE"));
}
