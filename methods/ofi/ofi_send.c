/* ofi_send.c: active messages out: fi_inject for tiny ones, fi_send from registered send buffers
 * otherwise; -FI_EAGAIN is the core's AGAIN. */
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ofi_impl.h"

/* Send and receive buffers are two allocations, each registered once when
 * the provider wants local descriptors (FI_MR_LOCAL). */
int MPIDI_OFI_bufs_create(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    size_t rlen = st->multi_recv ? st->mrecv_size : st->buf_size;
    size_t rbytes = rlen * (size_t)st->nrbufs, sbytes = st->buf_size * (size_t)st->nsbufs;
    int err;
    st->rmem = aligned_alloc(4096, (rbytes + 4095) & ~(size_t)4095);
    st->smem = aligned_alloc(4096, (sbytes + 4095) & ~(size_t)4095);
    st->rbufs = calloc((size_t)st->nrbufs, sizeof(*st->rbufs));
    st->sbufs = calloc((size_t)st->nsbufs, sizeof(*st->sbufs));
    if (!st->rmem || !st->smem || !st->rbufs || !st->sbufs)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "ofi: out of memory for %zu bytes of buffers",
                                rbytes + sbytes);
    if (st->mr_local) {
        if ((err = MPIDI_OFI_mr_reg(st->rmem, rbytes, FI_RECV, &st->rmr)) ||
            (err = MPIDI_OFI_mr_reg(st->smem, sbytes, FI_SEND, &st->smr)))
            return err;
        st->rdesc = fi_mr_desc(st->rmr);
        st->sdesc = fi_mr_desc(st->smr);
    }
    for (int i = 0; i < st->nrbufs; i++) {
        st->rbufs[i].ctx.kind = MPIDI_OFI_CTX_RECV;
        st->rbufs[i].addr = st->rmem + (size_t)i * rlen;
        st->rbufs[i].len = rlen;
    }
    for (int i = st->nsbufs - 1; i >= 0; i--) {
        MPIDI_OFI_sbuf_t *b = &st->sbufs[i];
        b->ctx.kind = MPIDI_OFI_CTX_SEND;
        b->addr = st->smem + (size_t)i * st->buf_size;
        b->next = st->sfree;
        st->sfree = b;
    }
    st->nsfree = st->nsbufs;
    return MPI_SUCCESS;
}

/* After the endpoint is closed: nothing refers to the buffers any more. */
void MPIDI_OFI_bufs_destroy(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    if (st->rmr)
        fi_close(&st->rmr->fid);
    if (st->smr)
        fi_close(&st->smr->fid);
    st->rmr = st->smr = NULL;
    free(st->rmem);
    free(st->smem);
    free(st->rbufs);
    free(st->sbufs);
    st->rmem = st->smem = NULL;
    st->rbufs = NULL;
    st->sbufs = st->sfree = NULL;
    st->nsfree = 0;
}

void MPIDI_OFI_send_done(MPIDI_OFI_sbuf_t *b)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[b->peer];
    if (b->keepalive) { /* a probe is on no sending window (it has no seq) */
        b->keepalive = 0;
        p->keepalive_out = 0;
    } else {
        if (b->out_prev)
            b->out_prev->out_next = b->out_next;
        else
            p->out_head = b->out_next;
        if (b->out_next)
            b->out_next->out_prev = b->out_prev;
        else
            p->out_tail = b->out_prev;
        b->out_prev = b->out_next = NULL;
    }
    b->next = st->sfree;
    st->sfree = b;
    st->nsfree++;
}

static size_t pack(char *dst, int peer, int handler, const void *hdr, size_t hdr_len,
                   const MPIR_Segment *seg, size_t first, size_t last)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_hdr_t h = {.src = (uint32_t)st->rank,
                         .seq = st->peers[peer].seq_out,
                         .handler = (uint16_t)handler,
                         .hdr_len = (uint8_t)hdr_len,
                         .version = MPIDI_OFI_WIRE_VERSION,
                         .token = st->peers[peer].token_out};
    memcpy(dst, &h, sizeof(h));
    memcpy(dst + sizeof(h), hdr, hdr_len);
    size_t n = sizeof(h) + hdr_len;
    if (last > first)
        n += MPIR_Segment_pack(seg, first, last, dst + n);
    return n;
}

int MPIDI_OFI_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                      const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                      void *cookie)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[peer];
    size_t len = sizeof(MPIDI_OFI_hdr_t) + hdr_len + (last - first);
    ssize_t ret;
    (void)cookie;
    if (p->failed)
        return MPIDU_err_create(MPI_ERR_OTHER, "%s", p->fail_msg);
    if (p->addr == FI_ADDR_NOTAVAIL)
        return MPIDU_err_create(MPI_ERR_INTERN, "ofi: send to rank %d before its address is known",
                                peer);
    if (hdr_len > MPIDI_OFI_MAX_HDR || len > st->buf_size)
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "ofi: a message of %zu bytes to rank %d exceeds the %zu-byte "
                                "buffers",
                                len, peer, st->buf_size);
    /* FENCE: this message (a FIN) must not overtake our rdma toward the
     * peer; the provider orders sends only among sends, so it waits until
     * those have completed (the core retries it from progress). */
    if ((flags & MPIDI_AM_FENCE) && p->rdma_out > 0)
        return MPIDI_AGAIN;
    /* The window: a send not completed may be one the provider delivers
     * late (rxm's rendezvous completes only once the peer has the data),
     * and the peer holds every later message until it comes; at most
     * st->window of them, so its memory for them stays bounded. */
    if (p->out_head && (int32_t)(p->seq_out - p->out_head->seq) >= st->window) {
        st->stats.window_waits++;
        return MPIDI_AGAIN; /* the oldest send's completion reopens it */
    }
    if (len <= st->inject_size) {
        /* The provider copies it at once: no buffer, no completion. */
        char tmp[len];
        pack(tmp, peer, handler, hdr, hdr_len, seg, first, last);
        ret = fi_inject(st->ep, tmp, len, p->addr);
        if (ret == 0) {
            p->seq_out++;
            st->stats.injects++;
            return MPI_SUCCESS;
        }
    } else {
        MPIDI_OFI_sbuf_t *b = st->sfree;
        if (!b) {
            st->stats.no_sbuf++;
            return MPIDI_AGAIN; /* completions free buffers; the core retries */
        }
        pack(b->addr, peer, handler, hdr, hdr_len, seg, first, last);
        b->peer = peer;
        ret = fi_send(st->ep, b->addr, len, st->sdesc, p->addr, &b->ctx);
        if (ret == 0) {
            st->sfree = b->next;
            st->nsfree--;
            b->seq = p->seq_out++;
            b->out_next = NULL;
            b->out_prev = p->out_tail;
            if (p->out_tail)
                p->out_tail->out_next = b;
            else
                p->out_head = b;
            p->out_tail = b;
            st->stats.sends++;
            return MPI_SUCCESS;
        }
    }
    if (ret == -FI_EAGAIN) {
        /* The provider's queues are full until its progress runs, which
         * ours does: the core parks the message and retries it from there. */
        st->stats.eagain++;
        return MPIDI_AGAIN;
    }
    return MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s of %zu bytes to rank %d on %s: %s (%zd)",
                            len <= st->inject_size ? "fi_inject" : "fi_send", len, peer, st->prov,
                            MPIDI_OFI_strerror((int)ret), ret);
}

/* A keepalive probe: our header alone, from a send buffer so that its
 * completion (an error if the peer is gone) comes back.  It carries the
 * current seq_out but does not consume it: the receiver drops a probe
 * before it looks at the seq, so the peer's order is untouched. */
int MPIDI_OFI_keepalive_send(int peer)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[peer];
    MPIDI_OFI_sbuf_t *b = st->sfree;
    if (!b)
        return 1;
    static const char no_hdr[1];
    size_t n = pack(b->addr, peer, MPIDI_OFI_HANDLER_KEEPALIVE, no_hdr, 0, NULL, 0, 0);
    b->peer = peer;
    ssize_t ret = fi_send(st->ep, b->addr, n, st->sdesc, p->addr, &b->ctx);
    if (ret == -FI_EAGAIN)
        return 2;
    if (ret < 0)
        return (int)ret;
    st->sfree = b->next;
    st->nsfree--;
    b->keepalive = 1;
    p->keepalive_out = 1;
    st->stats.keepalives++;
    return 0;
}
