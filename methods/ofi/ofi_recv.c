/* ofi_recv.c: active messages in: FI_MULTI_RECV buffers (or single pre-posted ones), each message
 * checked and dispatched in place, buffers reposted. */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "ofi_impl.h"

/* One buffer to the provider.  A multi-receive buffer takes messages until
 * less than FI_OPT_MIN_MULTI_RECV (one largest message) is left, then
 * comes back with FI_MULTI_RECV in a completion; a single buffer takes one
 * message. */
static int post(MPIDI_OFI_rbuf_t *rb)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    ssize_t ret;
    if (st->multi_recv) {
        struct iovec iov = {.iov_base = rb->addr, .iov_len = rb->len};
        void *desc = st->rdesc;
        struct fi_msg msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = FI_ADDR_UNSPEC,
                             .context = &rb->ctx};
        ret = fi_recvmsg(st->ep, &msg, FI_MULTI_RECV);
    } else {
        ret = fi_recv(st->ep, rb->addr, rb->len, st->rdesc, FI_ADDR_UNSPEC, &rb->ctx);
    }
    if (ret == 0) {
        rb->posted = 1;
        return MPI_SUCCESS;
    }
    rb->posted = 0;
    if (ret == -FI_EAGAIN)
        return MPI_SUCCESS; /* progress posts it again */
    return MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s of a %zu-byte receive buffer on %s: %s (%zd)",
                            st->multi_recv ? "fi_recvmsg(FI_MULTI_RECV)" : "fi_recv", rb->len,
                            st->prov, MPIDI_OFI_strerror((int)ret), ret);
}

int MPIDI_OFI_recv_post_all(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    for (int i = 0; i < st->nrbufs; i++) {
        if (st->rbufs[i].posted)
            continue;
        int err = post(&st->rbufs[i]);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

/* Checks one message and hands it to the core.  A message that does not
 * carry the token of a rank of this job toward us is a stranger's: dropped
 * and counted, nothing answered. */
static void dispatch(const char *buf, size_t len)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_hdr_t h;
    if (len < sizeof(h)) {
        st->stats.strangers++;
        return;
    }
    memcpy(&h, buf, sizeof(h));
    if (h.version != MPIDI_OFI_WIRE_VERSION || h.src >= (uint32_t)st->size ||
        h.hdr_len > MPIDI_OFI_MAX_HDR || len < sizeof(h) + h.hdr_len) {
        st->stats.strangers++;
        return;
    }
    MPIDI_OFI_peer_t *p = &st->peers[h.src];
    if (!p->token_in_set) {
        p->token_in = MPIDI_OFI_token((int)h.src, st->rank, st->nonce);
        p->token_in_set = 1;
    }
    /* One 64-bit compare: no early exit a stranger could time. */
    if (h.token != p->token_in) {
        st->stats.strangers++;
        if (st->verbose && st->stats.strangers == 1)
            fprintf(stderr,
                    "ferry: rank %d: ofi: dropped a message claiming to be from rank %u without "
                    "its token (a stranger on the fabric?)\n",
                    st->rank, h.src);
        return;
    }
    if (p->failed)
        return;
    st->stats.recvs++;
    const char *hdr = buf + sizeof(h);
    MPIDU_am_dispatch((int)h.src, h.handler, hdr, h.hdr_len, hdr + h.hdr_len,
                      len - sizeof(h) - h.hdr_len);
}

int MPIDI_OFI_recv_done(MPIDI_OFI_rbuf_t *rb, const void *buf, size_t len, uint64_t flags)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    if (len > 0)
        dispatch(st->multi_recv ? buf : rb->addr, len);
    /* The message was handed over in place and the core copied what it
     * keeps, so the buffer can go back at once. */
    if (!st->multi_recv) {
        st->stats.single_reposts++;
        return post(rb);
    }
    if (flags & FI_MULTI_RECV) {
        st->stats.multi_recv_reposts++;
        return post(rb);
    }
    return MPI_SUCCESS;
}
