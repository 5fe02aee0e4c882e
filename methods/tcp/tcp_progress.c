/* tcp_progress.c: a progress call: the hot peer read directly, then an epoll pass (accepts,
 * handshakes, writes and reads). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "mpi.h"
#include "tcp_impl.h"

/* Level-triggered epoll with a zero timeout: a socket with input left over
 * (a connection that used its share of reads) is reported again next call,
 * so no state about pending input has to be kept here.
 *
 * The hot peer.  Finding a message through epoll costs far more than the
 * epoll_wait call: on loopback a ping-pong whose receiver polls epoll_wait
 * and then reads takes 6.3 us one way, one whose receiver polls recv on the
 * socket 4.4 us (issue 12, doc/methods/tcp.md).  So while a single peer is
 * sending to this rank, each call first reads that peer's socket (a recv
 * that finds nothing returns EAGAIN, as cheap as an empty epoll_wait), and
 * calls epoll_wait only every HOT_EPOLL_EVERY calls: a message from another
 * peer, a connection or a socket that became writable waits that many calls
 * at most.  Whenever epoll has work besides the hot peer's input (queued
 * output, a handshake, timers, finalize), or a batch showed another peer
 * readable within the last HOT_SPREAD_POLLS calls, every call asks epoll,
 * as before: many peers talking keep today's path. */
/* 1 while this rank has no socket but its listener. */
static int only_listening(const MPIDI_TCP_state_t *st)
{
    for (const MPIDI_TCP_sock_t *s = st->socks; s; s = s->next)
        if (s != st->listener)
            return 0;
    return 1;
}

/* Frees the sockets closed since the last call.  Not earlier: an event for a
 * socket closed during a batch may still be in that batch.  After the batch
 * it cannot come back (epoll_ctl DEL came before the next epoll_wait), and
 * no peer points at a closed socket.  Without this a stranger who connects
 * over and over would make us keep every closed socket until finalize. */
/* 1 when epoll can have nothing for us but input: no output is queued, no
 * handshake or connect is under way, no timer runs and we are not finalizing. */
static int quiet_elsewhere(const MPIDI_TCP_state_t *st)
{
    return st->nwant_out == 0 && st->nconnecting == 0 && st->nunproven == 0 &&
           !st->accept_resume_at && !st->finalizing;
}

static void reap_closed(MPIDI_TCP_state_t *st)
{
    MPIDI_TCP_sock_t **pp = &st->socks;
    while (*pp) {
        MPIDI_TCP_sock_t *s = *pp;
        if (s->state == MPIDI_TCP_SOCK_CLOSED) {
            *pp = s->next;
            free(s);
        } else {
            pp = &s->next;
        }
    }
}

int MPIDI_TCP_progress(int *made_progress_p)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    struct epoll_event evs[MPIDI_TCP_EVENTS];
    int made = 0;

    *made_progress_p = 0;
    /* A handler that calls progress again would read later frames of a
     * connection before the one it is handling: it gets nothing instead. */
    if (st->epfd < 0 || st->in_progress)
        return MPI_SUCCESS;
    /* Before any connection exists the only possible event is a peer
     * connecting to the listening socket.  An epoll_wait system call on every
     * poll would then only slow down the other methods (it doubled shm's
     * small-message latency), so look every 64th call: an incoming connect
     * waits a few microseconds longer, nothing is ever skipped for good. */
    if (st->hot < 0 && only_listening(st) && (++st->idle_polls & 63) != 0)
        return MPI_SUCCESS;
    st->in_progress = 1;

    if (st->hot >= 0 && st->peers[st->hot].state != MPIDI_TCP_PEER_UP)
        st->hot = -1; /* its connection ended */
    int hot = st->hot;
    if (hot >= 0 && st->spread == 0 && quiet_elsewhere(st)) {
        int got = MPIDI_TCP_recv(hot);
        st->recv_hot += (unsigned long)got;
        made = got > 0;
        /* A connection the read ended (EOF, an error) goes the full way: its
         * socket is reaped there. */
        if (st->peers[hot].state == MPIDI_TCP_PEER_UP &&
            (++st->hot_polls % MPIDI_TCP_HOT_EPOLL_EVERY) != 0) {
            st->in_progress = 0;
            *made_progress_p = made;
            return MPI_SUCCESS;
        }
    } else if (st->spread > 0) {
        st->spread--;
    }

    if (st->nconnecting > 0)
        MPIDI_TCP_conn_timers();
    if (st->accept_resume_at)
        MPIDI_TCP_accept_timer();
    if (st->nunproven > 0)
        MPIDI_TCP_unproven_timers();
    int n;
    do {
        n = epoll_wait(st->epfd, evs, MPIDI_TCP_EVENTS, 0);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        int err = errno;
        st->in_progress = 0;
        return MPIDU_err_create(MPI_ERR_OTHER, "tcp: epoll_wait: %s (errno %d)", strerror(err),
                                err);
    }
    for (int i = 0; i < n; i++) {
        MPIDI_TCP_sock_t *s = evs[i].data.ptr;
        unsigned events = evs[i].events;
        switch (s->state) {
        case MPIDI_TCP_SOCK_CLOSED:
            break; /* closed earlier in this batch */
        case MPIDI_TCP_SOCK_LISTEN:
            MPIDI_TCP_accept();
            break;
        case MPIDI_TCP_SOCK_DATA: {
            int peer = s->peer;
            if (events & EPOLLOUT)
                made |= MPIDI_TCP_flush(peer);
            if (s->state == MPIDI_TCP_SOCK_DATA && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) {
                /* Another peer's input: several peers talk, epoll on every call. */
                if (peer != hot && hot >= 0)
                    st->spread = MPIDI_TCP_HOT_SPREAD_POLLS;
                st->hot = peer;
                made |= MPIDI_TCP_recv(peer) > 0;
            }
            break;
        }
        default: {
            /* A handshake step; a connection that comes up is progress. */
            MPIDI_TCP_sock_event(s, events);
            made |= s->state == MPIDI_TCP_SOCK_DATA;
            break;
        }
        }
    }
    reap_closed(st);
    st->in_progress = 0;
    *made_progress_p = made;
    return MPI_SUCCESS;
}
