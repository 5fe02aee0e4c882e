/* ofi_progress.c: the CQ read in batches, completion errors (fi_cq_readerr) reported with the
 * provider's text, waiting work posted again, lost peers told to the core. */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "ofi_impl.h"

/* Batches read per progress call at most: bounded work per call. */
#define MPIDI_OFI_CQ_ROUNDS 4
#define MPIDI_OFI_CQ_BATCH_MAX 64

static const char *op_name(const MPIDI_OFI_ctx_t *ctx)
{
    switch (ctx->kind) {
    case MPIDI_OFI_CTX_SEND:
        return ((const MPIDI_OFI_sbuf_t *)ctx)->keepalive ? "keepalive probe (fi_send)" : "fi_send";
    case MPIDI_OFI_CTX_RECV:
        return "receive";
    case MPIDI_OFI_CTX_RDMA:
        return ((const MPIDI_OFI_piece_t *)ctx)->op->is_get ? "fi_read" : "fi_write";
    }
    return "operation";
}

/* One failed completion: its error and the provider's own words, the peer
 * and the operation; a send lost breaks the peer's order and an rdma piece
 * lost leaves the peer waiting (both fail the peer), a receive buffer goes
 * back. */
static int read_error(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof(e));
    ssize_t ret = fi_cq_readerr(st->cq, &e, 0);
    if (ret == -FI_EAGAIN)
        return MPI_SUCCESS;
    if (ret < 0)
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: fi_cq_readerr on %s: %s (%zd)", st->prov,
                                MPIDI_OFI_strerror((int)ret), ret);
    st->stats.cq_errors++;
    MPIDI_OFI_ctx_t *ctx = e.op_context;
    char prov_text[256];
    const char *pt = fi_cq_strerror(st->cq, e.prov_errno, e.err_data, prov_text, sizeof(prov_text));
    if (!pt)
        pt = "";
    if (!ctx)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "ofi: a completion error without context on %s: %s "
                                "(provider: %.200s)",
                                st->prov, fi_strerror(e.err), pt);
    int peer = -1;
    if (ctx->kind == MPIDI_OFI_CTX_SEND)
        peer = ((MPIDI_OFI_sbuf_t *)ctx)->peer;
    else if (ctx->kind == MPIDI_OFI_CTX_RDMA)
        peer = ((MPIDI_OFI_piece_t *)ctx)->op->peer;
    char msg[640];
    snprintf(msg, sizeof(msg), "ofi: %s %s rank %d on %.63s failed: %.100s (provider: %.200s)",
             op_name(ctx),
             ctx->kind == MPIDI_OFI_CTX_RDMA && ((MPIDI_OFI_piece_t *)ctx)->op->is_get ? "from"
                                                                                       : "to",
             peer, st->prov, fi_strerror(e.err), pt);
    switch (ctx->kind) {
    case MPIDI_OFI_CTX_SEND:
        MPIDI_OFI_send_done((MPIDI_OFI_sbuf_t *)ctx);
        MPIDI_OFI_peer_fail(peer, "%s", msg);
        break;
    case MPIDI_OFI_CTX_RDMA:
        /* The transfer's requests fail, and with them everything else
         * involving the peer: the peer's side of the transfer waits for a
         * FIN or PUT_DONE that will not come, and only a lost peer (the
         * whole job ending under the default error handler) frees it, as
         * verbs' connection error does. */
        MPIDI_OFI_peer_fail(peer, "%s", msg);
        MPIDI_OFI_rdma_piece_done((MPIDI_OFI_piece_t *)ctx,
                                  MPIDU_err_create(MPI_ERR_OTHER, "%s", msg));
        break;
    case MPIDI_OFI_CTX_RECV: {
        /* Cancelled at close, or a message that did not fit (which no rank
         * of the job sends): the buffer goes back. */
        MPIDI_OFI_rbuf_t *rb = (MPIDI_OFI_rbuf_t *)ctx;
        if (e.err != FI_ECANCELED) {
            snprintf(msg, sizeof(msg), "ofi: a receive on %.63s failed: %.100s (provider: %.200s)",
                     st->prov, fi_strerror(e.err), pt);
            fprintf(stderr, "ferry: rank %d: %s\n", st->rank, msg);
        }
        if (!(e.flags & FI_MULTI_RECV) && st->multi_recv && e.err != FI_ECANCELED)
            break; /* the buffer still takes messages */
        if (e.err != FI_ECANCELED)
            return MPIDI_OFI_recv_done(rb, NULL, 0, FI_MULTI_RECV);
        break;
    }
    }
    return MPI_SUCCESS;
}

int MPIDI_OFI_progress(int *made_progress_p)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    struct fi_cq_data_entry ent[MPIDI_OFI_CQ_BATCH_MAX];
    int batch = st->cq_batch < MPIDI_OFI_CQ_BATCH_MAX ? st->cq_batch : MPIDI_OFI_CQ_BATCH_MAX;
    int mpi_errno = MPI_SUCCESS;
    if (!st->available || st->in_progress)
        return MPI_SUCCESS;
    st->in_progress = 1;
    for (int round = 0; round < MPIDI_OFI_CQ_ROUNDS; round++) {
        ssize_t n = fi_cq_read(st->cq, ent, (size_t)batch);
        if (n == -FI_EAGAIN)
            break;
        if (n == -FI_EAVAIL) {
            *made_progress_p = 1;
            if ((mpi_errno = read_error()))
                break;
            continue;
        }
        if (n < 0) {
            mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "ofi: fi_cq_read on %s: %s (%zd)", st->prov,
                                         MPIDI_OFI_strerror((int)n), n);
            break;
        }
        *made_progress_p = 1;
        st->stats.cq_reads++;
        if ((unsigned long)n > st->stats.cq_batch_max)
            st->stats.cq_batch_max = (unsigned long)n;
        for (ssize_t i = 0; i < n && !mpi_errno; i++) {
            MPIDI_OFI_ctx_t *ctx = ent[i].op_context;
            if (!ctx)
                continue; /* an event of no operation of ours (fi_cq(3) allows them) */
            switch (ctx->kind) {
            case MPIDI_OFI_CTX_SEND:
                MPIDI_OFI_send_done((MPIDI_OFI_sbuf_t *)ctx);
                break;
            case MPIDI_OFI_CTX_RECV:
                st->recv_events++;
                mpi_errno = MPIDI_OFI_recv_done((MPIDI_OFI_rbuf_t *)ctx, ent[i].buf, ent[i].len,
                                                ent[i].flags);
                break;
            case MPIDI_OFI_CTX_RDMA:
                MPIDI_OFI_rdma_piece_done((MPIDI_OFI_piece_t *)ctx, MPI_SUCCESS);
                break;
            }
        }
        if (n < batch)
            break;
    }
    /* Buffers the provider would not take, and rdma pieces waiting. */
    if (!mpi_errno)
        mpi_errno = MPIDI_OFI_recv_post_all();
    if (st->nwaiting && MPIDI_OFI_rdma_pump_all())
        *made_progress_p = 1;
    if (!st->finalizing && MPIDI_OFI_liveness())
        *made_progress_p = 1;
    st->in_progress = 0;
    MPIDI_OFI_report_failures();
    return mpi_errno;
}

int MPIDI_OFI_wait_fd(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    if (!st->available || st->wait_fd < 0 || st->nwaiting || st->fail_pending)
        return -1;
    for (int i = 0; i < st->nrbufs; i++)
        if (!st->rbufs[i].posted)
            return -1; /* progress must post it again */
    /* fi_trywait makes the provider progress what it must and says whether
     * a completion may still come without the descriptor turning readable
     * (-FI_EAGAIN): then the rank polls instead. */
    struct fid *fids[1] = {&st->cq->fid};
    if (fi_trywait(st->fabric, fids, 1) != 0)
        return -1;
    st->stats.wait_sleeps++;
    return st->wait_fd;
}
