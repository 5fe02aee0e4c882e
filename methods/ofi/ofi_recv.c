/* ofi_recv.c: active messages in: FI_MULTI_RECV buffers (or single pre-posted ones), each message
 * checked and dispatched in place, buffers reposted. */
#include <stdio.h>
#include <stdlib.h>
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

/* Hands one checked message of the peer to the core. */
static void deliver(int src, const char *buf, size_t len)
{
    MPIDI_OFI_hdr_t h;
    memcpy(&h, buf, sizeof(h));
    MPIDI_OFI_state.stats.recvs++;
    const char *hdr = buf + sizeof(h);
    MPIDU_am_dispatch(src, h.handler, hdr, h.hdr_len, hdr + h.hdr_len, len - sizeof(h) - h.hdr_len);
}

/* A message that came before one the peer sent earlier: copied (the
 * receive buffer goes back at once) into the peer's list, by seq. */
static int hold(MPIDI_OFI_peer_t *p, int src, uint32_t seq, const char *buf, size_t len)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    /* The sender's window keeps this below st->window; more means the
     * provider delivered a message long after its send completed, which
     * the method cannot order: an error rather than memory without end. */
    if (p->nheld >= 2 * st->window)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "ofi: rank %d: %d messages from rank %d on %s arrived ahead of its "
                                "message %u, more than the sending window (FERRY_OFI_WINDOW=%d) "
                                "allows: the provider reorders beyond what the method can restore",
                                st->rank, p->nheld, src, st->prov, p->seq_in, st->window);
    MPIDI_OFI_held_t **at = &p->held;
    while (*at && (int32_t)((*at)->seq - seq) < 0)
        at = &(*at)->next;
    if (*at && (*at)->seq == seq)
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "ofi: rank %d: message %u from rank %d on %s arrived twice",
                                st->rank, seq, src, st->prov);
    MPIDI_OFI_held_t *m = malloc(sizeof(*m) + len);
    if (!m)
        return MPIDU_err_create(
            MPI_ERR_NO_MEM, "ofi: out of memory holding a %zu-byte message from rank %d", len, src);
    m->seq = seq;
    m->len = len;
    memcpy(m->data, buf, len);
    m->next = *at;
    *at = m;
    p->nheld++;
    st->stats.held++;
    if ((unsigned long)p->nheld > st->stats.held_max)
        st->stats.held_max = (unsigned long)p->nheld;
    return MPI_SUCCESS;
}

void MPIDI_OFI_held_drop(int peer)
{
    MPIDI_OFI_peer_t *p = &MPIDI_OFI_state.peers[peer];
    while (p->held) {
        MPIDI_OFI_held_t *m = p->held;
        p->held = m->next;
        free(m);
    }
    p->nheld = 0;
}

/* Checks one message and hands it to the core in the peer's sending order
 * (held if it came early, then with the held ones it lets through).  A
 * message that does not carry the token of a rank of this job toward us
 * is a stranger's: dropped and counted, nothing answered. */
static int dispatch(const char *buf, size_t len)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_hdr_t h;
    if (len < sizeof(h)) {
        st->stats.strangers++;
        return MPI_SUCCESS;
    }
    memcpy(&h, buf, sizeof(h));
    if (h.version != MPIDI_OFI_WIRE_VERSION || h.src >= (uint32_t)st->size ||
        h.hdr_len > MPIDI_OFI_MAX_HDR || len < sizeof(h) + h.hdr_len) {
        st->stats.strangers++;
        return MPI_SUCCESS;
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
        return MPI_SUCCESS;
    }
    if (p->failed)
        return MPI_SUCCESS;
    if (h.handler == MPIDI_OFI_HANDLER_KEEPALIVE) {
        st->stats.keepalives_in++; /* its delivery was all the sender wanted */
        return MPI_SUCCESS;
    }
    int src = (int)h.src;
    if (h.seq != p->seq_in) {
        if ((int32_t)(h.seq - p->seq_in) < 0)
            return MPIDU_err_create(MPI_ERR_INTERN,
                                    "ofi: rank %d: message %u from rank %d on %s arrived after "
                                    "message %u was handed over",
                                    st->rank, h.seq, src, st->prov, p->seq_in - 1);
        return hold(p, src, h.seq, buf, len);
    }
    deliver(src, buf, len);
    p->seq_in++;
    /* The core may fail the peer while handling a message. */
    while (p->held && p->held->seq == p->seq_in && !p->failed) {
        MPIDI_OFI_held_t *m = p->held;
        p->held = m->next;
        p->nheld--;
        deliver(src, m->data, m->len);
        p->seq_in++;
        free(m);
    }
    return MPI_SUCCESS;
}

int MPIDI_OFI_recv_done(MPIDI_OFI_rbuf_t *rb, const void *buf, size_t len, uint64_t flags)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    int mpi_errno = MPI_SUCCESS, repost_errno = MPI_SUCCESS;
    if (len > 0)
        mpi_errno = dispatch(st->multi_recv ? buf : rb->addr, len);
    /* The message was handed over in place (or held as a copy) and the
     * core copied what it keeps, so the buffer can go back at once. */
    if (!st->multi_recv) {
        st->stats.single_reposts++;
        repost_errno = post(rb);
    } else if (flags & FI_MULTI_RECV) {
        st->stats.multi_recv_reposts++;
        repost_errno = post(rb);
    }
    return mpi_errno ? mpi_errno : repost_errno;
}
