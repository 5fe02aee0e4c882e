/* tcp_send.c: am_send, the per-connection send queue and writing it with sendmsg. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mpi.h"
#include "tcp_impl.h"

static void sendq_append(MPIDI_TCP_peer_t *p, MPIDI_TCP_sendq_t *e)
{
    e->next = NULL;
    if (p->sq_tail)
        p->sq_tail->next = e;
    else
        p->sq_head = e;
    p->sq_tail = e;
    p->sq_bytes += e->left;
}

void MPIDI_TCP_sendq_drop(MPIDI_TCP_peer_t *p)
{
    while (p->sq_head) {
        MPIDI_TCP_sendq_t *e = p->sq_head;
        p->sq_head = e->next;
        free(e->owned);
        free(e);
    }
    p->sq_tail = NULL;
    p->sq_bytes = 0;
}

/* A send error on the connection: the peer is lost. */
static void send_failed(int peer, int err)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_fail(peer, "tcp: rank %d lost its connection to rank %d: send: %s (errno %d)%s",
                        st->rank, peer, strerror(err), err,
                        err == ETIMEDOUT ? ": data unacknowledged for FERRY_TCP_KEEPALIVE; its "
                                           "host is gone or unreachable"
                                         : "");
}

/* Writes the rest of an ACK the accepting side still owes (it precedes
 * every frame).  Returns 1 when it is out, 0 if the socket is full, -1 on
 * an error (the peer is failed). */
static int flush_handshake(int peer, MPIDI_TCP_sock_t *s)
{
    while (s->hs_out_sent < s->hs_out_len) {
        ssize_t n = send(s->fd, (char *)&s->hs_out + s->hs_out_sent, s->hs_out_len - s->hs_out_sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            MPIDI_TCP_sock_want_out(s, 1);
            return 0;
        }
        if (n < 0) {
            send_failed(peer, errno);
            return -1;
        }
        s->hs_out_sent += (size_t)n;
    }
    return 1;
}

int MPIDI_TCP_flush(int peer)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    MPIDI_TCP_sock_t *s = p->sock;
    int made = 0;

    if (p->state != MPIDI_TCP_PEER_UP || flush_handshake(peer, s) <= 0)
        return 0;
    while (p->sq_head) {
        /* Gather several queued frames into one system call: many small
         * messages to a peer then cost one sendmsg, not one each. */
        struct iovec iov[MPIDI_TCP_IOV_BATCH];
        int niov = 0;
        size_t total = 0;
        for (MPIDI_TCP_sendq_t *e = p->sq_head;
             e && niov + (e->niov - e->iov_first) <= MPIDI_TCP_IOV_BATCH; e = e->next) {
            for (int k = e->iov_first; k < e->niov; k++) {
                if (e->iov[k].iov_len) {
                    iov[niov++] = e->iov[k];
                    total += e->iov[k].iov_len;
                }
            }
        }
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)niov};
        ssize_t n = sendmsg(s->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n < 0) {
            send_failed(peer, errno);
            return made;
        }
        made = 1;
        size_t done = (size_t)n;
        p->sq_bytes -= done;
        while (p->sq_head && (done > 0 || p->sq_head->left == 0)) {
            MPIDI_TCP_sendq_t *e = p->sq_head;
            while (done > 0 && e->iov_first < e->niov) {
                struct iovec *v = &e->iov[e->iov_first];
                size_t take = done < v->iov_len ? done : v->iov_len;
                v->iov_base = (char *)v->iov_base + take;
                v->iov_len -= take;
                e->left -= take;
                done -= take;
                if (v->iov_len == 0)
                    e->iov_first++;
            }
            if (e->left > 0)
                break;
            p->sq_head = e->next;
            if (!p->sq_head)
                p->sq_tail = NULL;
            void *cookie = e->cookie;
            free(e->owned);
            free(e);
            /* Unlinked first: the completion may queue more frames to this peer. */
            if (cookie)
                MPIDU_op_done(cookie, MPI_SUCCESS);
            if (p->state != MPIDI_TCP_PEER_UP)
                return made;
        }
        if ((size_t)n < total)
            break; /* the socket is full */
    }
    MPIDI_TCP_sock_want_out(s, p->sq_head != NULL);
    return made;
}

/* Queues what sendmsg did not take of a frame: iov[0] is the frame header
 * (hlen bytes), iov[1..niov) the payload (plen bytes), `sent` bytes are gone.
 * A payload in the caller's memory (inplace) is copied when little is left
 * or the caller gave no cookie, else the entry keeps reading it and
 * MPIDI_INPROGRESS is returned. */
static int enqueue_rest(MPIDI_TCP_peer_t *p, const struct iovec *iov, int niov, size_t plen,
                        int inplace, void *packed, size_t sent, void *cookie)
{
    size_t hlen = iov[0].iov_len;
    size_t hsent = sent < hlen ? sent : hlen;
    size_t psent = sent - hsent, pleft = plen - psent;
    /* Copy the rest when it is small, and always from a stack buffer (not
     * inplace and not packed: the caller's `small`).  Without a cookie the
     * caller may reuse its memory as soon as we return (MPID_Send's eager
     * message, doc/method-api.md), so the rest is copied whatever its size. */
    int copy = !packed && (!inplace || !cookie || pleft <= MPIDI_TCP_COPY_MAX);
    MPIDI_TCP_sendq_t *e = malloc(sizeof(*e) + (copy ? pleft : 0));
    if (!e) {
        free(packed);
        return MPIDU_err_create(MPI_ERR_NO_MEM, "tcp: out of memory queueing %zu bytes", pleft);
    }
    memcpy(e->hdr, iov[0].iov_base, hlen);
    e->iov[0].iov_base = e->hdr;
    e->iov[0].iov_len = hlen;
    e->niov = 1;
    e->owned = packed;
    e->cookie = NULL;
    size_t skip = hsent; /* bytes at the front of e->iov already written */
    if (copy) {
        /* Gather what is left of the payload (it may be several pieces). */
        size_t at = 0, pskip = psent;
        for (int k = 1; k < niov; k++) {
            size_t l = iov[k].iov_len;
            if (pskip >= l) {
                pskip -= l;
                continue;
            }
            memcpy(e->data + at, (char *)iov[k].iov_base + pskip, l - pskip);
            at += l - pskip;
            pskip = 0;
        }
        if (pleft) {
            e->iov[1].iov_base = e->data;
            e->iov[1].iov_len = pleft;
            e->niov = 2;
        }
    } else {
        for (int k = 1; k < niov; k++)
            e->iov[e->niov++] = iov[k];
        skip += psent;
        if (inplace)
            e->cookie = cookie; /* the caller's memory: it must stay until written */
    }
    e->iov_first = 0;
    e->left = hlen - hsent + pleft;
    while (skip > 0) {
        struct iovec *v = &e->iov[e->iov_first];
        size_t take = skip < v->iov_len ? skip : v->iov_len;
        v->iov_base = (char *)v->iov_base + take;
        v->iov_len -= take;
        skip -= take;
        if (v->iov_len == 0)
            e->iov_first++;
    }
    sendq_append(p, e);
    return e->cookie ? MPIDI_INPROGRESS : MPI_SUCCESS;
}

int MPIDI_TCP_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                      const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                      void *cookie)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    size_t len = last - first;
    char small[MPIDI_TCP_COPY_MAX];

    if (peer < 0 || peer >= st->size || peer == st->rank || hdr_len > MPIDI_TCP_MAX_HDR ||
        last < first || len > MPIDI_TCP_MAX_SEND || (len && !seg))
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "tcp am_send to rank %d: bad arguments (header %zu bytes, payload "
                                "[%zu, %zu), max %d)",
                                peer, hdr_len, first, last, MPIDI_TCP_MAX_SEND);
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    switch (p->state) {
    case MPIDI_TCP_PEER_FAILED:
        return p->fail_code;
    case MPIDI_TCP_PEER_NONE:
    case MPIDI_TCP_PEER_CLOSED:
        return MPIDU_err_create(MPI_ERR_INTERN, "tcp am_send to rank %d: not connected (%s)", peer,
                                p->state == MPIDI_TCP_PEER_NONE ? "connect was not called"
                                                                : "the connection is closed");
    default:
        break;
    }
    if (flags & MPIDI_AM_ASKS_DATA)
        p->data_asked = 1;
    /* Flow control: a full queue takes nothing more (the core parks the
     * message and retries from progress); an empty one takes anything. */
    if (p->sq_head && p->sq_bytes + len > MPIDI_TCP_QUEUE_MAX)
        return MPIDI_AGAIN;

    char fh[MPIDI_TCP_MAX_FRAME_HDR];
    MPIDI_TCP_frame_t f = {
        .handler = (uint16_t)handler, .hdr_len = (uint16_t)hdr_len, .payload_len = len};
    memcpy(fh, &f, sizeof(f));
    memcpy(fh + sizeof(f), hdr, hdr_len);
    struct iovec iov[1 + MPIDI_TCP_SEG_IOV];
    int niov = 1, inplace = 0;
    iov[0].iov_base = fh;
    iov[0].iov_len = sizeof(f) + hdr_len;

    void *packed = NULL;
    if (len) {
        void *ptr = MPIR_Segment_contig_ptr(seg, first);
        if (ptr) {
            iov[1].iov_base = ptr;
            iov[1].iov_len = len;
            niov = 2;
            inplace = 1;
        } else if (len > MPIDI_TCP_COPY_MAX &&
                   seg->size / MPIR_Segment_pieces(seg) >= MPIDI_TCP_IOV_MIN_PIECE) {
            /* Large pieces of a non-contiguous buffer: write them in place. */
            size_t upto = last;
            int k = MPIR_Segment_to_iov(seg, first, &upto, iov + 1, MPIDI_TCP_SEG_IOV);
            if (upto == last) {
                niov = 1 + k;
                inplace = 1;
            }
        }
        if (!inplace) {
            /* Small pieces: pack (the pipeline's chunks keep this bounded by max_send). */
            char *buf = len <= sizeof(small) ? small : (packed = malloc(len));
            if (!buf)
                return MPIDU_err_create(MPI_ERR_NO_MEM, "tcp: out of memory packing %zu bytes",
                                        len);
            MPIR_Segment_pack(seg, first, last, buf);
            iov[1].iov_base = buf;
            iov[1].iov_len = len;
            niov = 2;
        }
    }

    size_t sent = 0;
    MPIDI_TCP_sock_t *s = p->sock;
    if (p->state == MPIDI_TCP_PEER_UP && !p->sq_head && s->hs_out_sent == s->hs_out_len) {
        /* The common case: straight from the caller's memory to the socket. */
        struct msghdr msg = {.msg_iov = iov, .msg_iovlen = (size_t)niov};
        ssize_t n;
        do {
            n = sendmsg(s->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        } while (n < 0 && errno == EINTR);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            free(packed);
            send_failed(peer, errno);
            return p->fail_code;
        }
        sent = n > 0 ? (size_t)n : 0;
        if (sent == iov[0].iov_len + len) {
            free(packed);
            return MPI_SUCCESS;
        }
    }
    /* A small packed payload lives in `small`: enqueue_rest copies it. */
    int rc = enqueue_rest(p, iov, niov, len, inplace, packed, sent, cookie);
    if (rc > 0)
        return rc; /* an error code */
    if (p->state == MPIDI_TCP_PEER_UP)
        MPIDI_TCP_sock_want_out(s, 1);
    return rc;
}

/* Queues the goodbye frame behind everything else to the peer. */
int MPIDI_TCP_send_bye(int peer)
{
    MPIDI_TCP_peer_t *p = &MPIDI_TCP_state.peers[peer];
    MPIDI_TCP_frame_t f = {.handler = MPIDI_TCP_BYE};
    struct iovec iov = {&f, sizeof(f)};
    if (p->bye_sent)
        return MPI_SUCCESS;
    int rc = enqueue_rest(p, &iov, 1, 0, 0, NULL, 0, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    p->bye_sent = 1;
    MPIDI_TCP_flush(peer);
    return MPI_SUCCESS;
}
