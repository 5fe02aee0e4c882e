/* tcp_recv.c: the receive state machine: frames from a staging buffer, large payloads in place. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mpi.h"
#include "tcp_impl.h"

/* A connection's input is in one of two states (doc/methods/tcp.md):
 *
 * FRAME: bytes are read into the staging buffer rbuf, as many as the socket
 *   holds, and complete frames are dispatched from there in place; a frame
 *   header, an active-message header or a payload may be cut anywhere by a
 *   read, and the cut part waits in rbuf for the next one.
 * PAYLOAD: a frame whose payload is large (DIRECT_MIN or more) or does not
 *   fit rbuf, and has not fully arrived.  The core is asked where it goes
 *   (MPIDU_am_recv_begin): a matched receive or a pipeline chunk of a
 *   contiguous buffer is read straight into the user's memory; anything else
 *   is collected in a buffer of exactly its size.  Then back to FRAME. */

static int frame_ok(const MPIDI_TCP_frame_t *f)
{
    if (f->handler == MPIDI_TCP_BYE)
        return f->hdr_len == 0 && f->payload_len == 0;
    return f->hdr_len <= MPIDI_TCP_MAX_HDR && f->payload_len <= MPIDI_TCP_MAX_SEND;
}

static void corrupt(int peer, const MPIDI_TCP_frame_t *f)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_fail(peer,
                        "tcp: rank %d received a corrupt frame from rank %d (handler %u, header "
                        "%u bytes, payload %llu bytes)",
                        st->rank, peer, (unsigned)f->handler, (unsigned)f->hdr_len,
                        (unsigned long long)f->payload_len);
}

/* A whole frame in rbuf: hand it to the core in place. */
static void deliver(int peer, const MPIDI_TCP_frame_t *f, const char *hdr, const char *payload)
{
    MPIDI_TCP_peer_t *p = &MPIDI_TCP_state.peers[peer];
    if (f->handler == MPIDI_TCP_BYE) {
        p->bye_got = 1;
        return;
    }
    /* The core reads headers as structs: give it an aligned copy. */
    uint64_t h[MPIDI_TCP_MAX_HDR / 8];
    memcpy(h, hdr, f->hdr_len);
    MPIDU_am_dispatch(peer, f->handler, h, f->hdr_len, payload, f->payload_len);
}

/* A large frame's header is here, its payload only partly (have bytes at part). */
static void begin_payload(int peer, const MPIDI_TCP_frame_t *f, const char *hdr, const char *part,
                          size_t have)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    void *dst = NULL;

    p->rframe = *f;
    memcpy(p->rhdr, hdr, f->hdr_len);
    p->rtoken = MPIDU_am_recv_begin(peer, f->handler, p->rhdr, f->hdr_len, f->payload_len, &dst);
    p->rcollect = NULL;
    st->recv_in_place += dst != NULL;
    st->recv_staged += dst ? have : 0;
    if (!dst) {
        p->rcollect = malloc(f->payload_len);
        if (!p->rcollect) {
            MPIDI_TCP_peer_fail(peer,
                                "tcp: rank %d: out of memory for a %llu-byte message from "
                                "rank %d",
                                st->rank, (unsigned long long)f->payload_len, peer);
            return;
        }
        dst = p->rcollect;
    }
    p->rdst = dst;
    memcpy(p->rdst, part, have);
    p->rgot = have;
    p->rstate = MPIDI_TCP_RECV_PAYLOAD;
}

static void finish_payload(int peer)
{
    MPIDI_TCP_peer_t *p = &MPIDI_TCP_state.peers[peer];
    void *token = p->rtoken;
    char *collected = p->rcollect;
    /* Reset first: the upcall may send, and a failure there drops our state. */
    p->rstate = MPIDI_TCP_RECV_FRAME;
    p->rtoken = NULL;
    p->rcollect = NULL;
    if (token)
        MPIDU_am_recv_done(token, collected, MPI_SUCCESS);
    else
        MPIDU_am_dispatch(peer, p->rframe.handler, p->rhdr, p->rframe.hdr_len, collected,
                          p->rframe.payload_len);
    free(collected);
}

void MPIDI_TCP_recv_drop(MPIDI_TCP_peer_t *p, int mpi_errno)
{
    if (p->rstate == MPIDI_TCP_RECV_PAYLOAD) {
        if (p->rtoken) {
            if (!mpi_errno)
                mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "tcp: connection closed in the middle "
                                                            "of a message");
            MPIDU_am_recv_done(p->rtoken, NULL, mpi_errno);
        }
        free(p->rcollect);
    }
    p->rtoken = NULL;
    p->rcollect = NULL;
    p->rstate = MPIDI_TCP_RECV_FRAME;
    p->rstart = p->rend = 0;
}

/* recv gave n <= 0 (not EINTR/EAGAIN): EOF or an error. */
static void read_failed(int peer, ssize_t n, int err)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    if (n == 0 || p->bye_got || st->finalizing) {
        MPIDI_TCP_conn_eof(peer);
        return;
    }
    MPIDI_TCP_peer_fail(peer, "tcp: rank %d lost its connection to rank %d: recv: %s (errno %d)%s",
                        st->rank, peer, strerror(err), err,
                        err == ETIMEDOUT ? ": no answer, not even to keepalive probes, within "
                                           "FERRY_TCP_KEEPALIVE; its host is gone or unreachable"
                                         : "");
}

/* Reads into dst; returns bytes, 0 if none are there (EAGAIN), -1 if the
 * connection ended (already handled). */
static ssize_t read_some(int peer, void *dst, size_t len)
{
    MPIDI_TCP_peer_t *p = &MPIDI_TCP_state.peers[peer];
    for (;;) {
        ssize_t n = recv(p->sock->fd, dst, len, MSG_DONTWAIT);
        if (n > 0)
            return n;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        read_failed(peer, n, n < 0 ? errno : 0);
        return -1;
    }
}

int MPIDI_TCP_recv(int peer)
{
    MPIDI_TCP_peer_t *p = &MPIDI_TCP_state.peers[peer];
    int count = 0, reads = 0;

    for (;;) {
        if (p->state != MPIDI_TCP_PEER_UP)
            return count;
        if (p->rstate == MPIDI_TCP_RECV_PAYLOAD) {
            size_t want = p->rframe.payload_len - p->rgot;
            ssize_t n = read_some(peer, p->rdst + p->rgot, want);
            if (n <= 0)
                return count;
            reads++;
            p->rgot += (size_t)n;
            if (p->rgot == p->rframe.payload_len) {
                finish_payload(peer);
                count++;
            } else if ((size_t)n < want || reads >= MPIDI_TCP_READS_PER_POLL) {
                return count; /* drained, or this connection had its share */
            }
            continue;
        }

        /* Dispatch every complete frame in the staging buffer. */
        while (p->state == MPIDI_TCP_PEER_UP && p->rend - p->rstart >= sizeof(MPIDI_TCP_frame_t)) {
            MPIDI_TCP_frame_t f;
            const char *at = p->rbuf + p->rstart;
            memcpy(&f, at, sizeof(f));
            if (!frame_ok(&f)) {
                corrupt(peer, &f);
                return count;
            }
            size_t hl = sizeof(f) + f.hdr_len, need = hl + f.payload_len;
            size_t have = p->rend - p->rstart;
            if (have >= need) {
                p->data_asked = 0; /* a small frame: the stream is not only DATA */
                p->rstart += need;
                deliver(peer, &f, at + sizeof(f), at + hl);
                count++;
                continue;
            }
            if (have >= hl &&
                (f.payload_len >= MPIDI_TCP_DIRECT_MIN || need > MPIDI_TCP_RBUF_SIZE)) {
                p->rstart = p->rend = 0; /* what is in rbuf is copied out by begin */
                begin_payload(peer, &f, at + sizeof(f), at + hl, have - hl);
            }
            break;
        }
        if (p->state != MPIDI_TCP_PEER_UP)
            return count;
        if (p->rstate == MPIDI_TCP_RECV_PAYLOAD)
            continue;

        /* More bytes are needed: keep the partial frame at the front. */
        if (p->rstart == p->rend) {
            p->rstart = p->rend = 0;
        } else if (p->rstart > 0) {
            memmove(p->rbuf, p->rbuf + p->rstart, p->rend - p->rstart);
            p->rend -= p->rstart;
            p->rstart = 0;
        }
        if (reads >= MPIDI_TCP_READS_PER_POLL)
            return count;
        size_t room = MPIDI_TCP_RBUF_SIZE - p->rend;
        if (p->data_asked && p->rend == 0)
            room = MPIDI_TCP_MAX_FRAME_HDR; /* the DATA we asked for: its header alone */
        ssize_t n = read_some(peer, p->rbuf + p->rend, room);
        if (n <= 0)
            return count;
        reads++;
        p->rend += (size_t)n;
        if ((size_t)n < room && p->rend - p->rstart < sizeof(MPIDI_TCP_frame_t))
            return count; /* drained and nothing to parse */
        if ((size_t)n < room) {
            /* Drained: parse what came, then stop rather than ask again. */
            reads = MPIDI_TCP_READS_PER_POLL;
        }
    }
}
