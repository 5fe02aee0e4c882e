/* tcp_conn.c: lazy connections: connect with retries, accept, the HELLO/ACK handshake, failures. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "mpi.h"
#include "tcp_impl.h"

static int verbose(void)
{
    return (int)MPIDU_config_int("FERRY_VERBOSE");
}

/* ---- sockets ---- */

int MPIDI_TCP_set_sockopts(int fd)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    int one = 1;
    /* Small protocol messages (CTS, FIN, tiny eager sends) must leave at
     * once: Nagle would hold them back until the previous one is acked. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        return errno;
    /* Left alone, the kernel autotunes both buffers; a fixed size turns
     * that off, so only set them when asked. */
    if (st->sndbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &st->sndbuf, sizeof(int)) != 0)
        return errno;
    if (st->rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &st->rcvbuf, sizeof(int)) != 0)
        return errno;
    /* A host that vanishes (power, cable, a crashed kernel) closes nothing:
     * without probes an idle connection would wait for it forever.  The
     * kernel probes after a third of FERRY_TCP_KEEPALIVE idle seconds, four
     * times a sixth apart, and drops the connection unanswered: the peer is
     * failed about FERRY_TCP_KEEPALIVE seconds after it went silent.
     * TCP_USER_TIMEOUT gives data in flight the same bound (keepalive
     * probes are only sent on an idle connection). */
    if (st->keepalive_s > 0) {
        int idle = st->keepalive_s / 3 > 0 ? st->keepalive_s / 3 : 1;
        int intvl = st->keepalive_s / 6 > 0 ? st->keepalive_s / 6 : 1;
        int cnt = 4;
        unsigned user_ms = (unsigned)st->keepalive_s * 1000u;
        if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)) != 0 ||
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle)) != 0 ||
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl)) != 0 ||
            setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt)) != 0 ||
            setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_ms, sizeof(user_ms)) != 0)
            return errno;
    }
    return 0;
}

/* One line of a /proc file (a list of congestion controls), or "?". */
static void read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f || !fgets(buf, (int)len, f))
        snprintf(buf, len, "?");
    buf[strcspn(buf, "\n")] = '\0';
    if (f)
        fclose(f);
}

int MPIDI_TCP_check_congestion(int fd)
{
    const char *cc = MPIDI_TCP_state.congestion;
    if (!strcmp(cc, "auto") || !strcmp(cc, "system"))
        return MPI_SUCCESS;
    if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc)) == 0)
        return MPI_SUCCESS;
    int err = errno;
    char avail[256], allowed[256];
    read_line("/proc/sys/net/ipv4/tcp_available_congestion_control", avail, sizeof(avail));
    read_line("/proc/sys/net/ipv4/tcp_allowed_congestion_control", allowed, sizeof(allowed));
    return MPIDU_err_create(MPI_ERR_ARG,
                            "tcp: FERRY_TCP_CONGESTION=%s: the kernel refuses it: %s (errno %d); "
                            "it has %s, of which every user may pick %s (or use auto or system)",
                            cc, strerror(err), err, avail, allowed);
}

/* Between two ranks of one node the data never leaves the host: there is no
 * network to share, and what a congestion control does only holds data back.
 * BBR (a common default) paces and keeps about what it measured to be needed
 * in flight, less than a 1 MiB DATA frame on loopback, so the rest of the
 * frame waited for acknowledgements (1 MiB ping-pong 2.6x slower than under
 * reno, doc/methods/tcp.md).  Between nodes the system's choice stands unless
 * the user names one.  Failing to set it costs speed, never correctness, so a
 * refusal (checked at init for a named one) only shows in what name reports. */
void MPIDI_TCP_set_congestion(int peer, int fd, char *name)
{
    const MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    const char *cc = st->congestion;
    if (!strcmp(cc, "auto"))
        cc = st->node_of[peer] == st->node_id ? MPIDI_TCP_CC_SAME_NODE : NULL;
    else if (!strcmp(cc, "system"))
        cc = NULL;
    if (cc)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, strlen(cc));
    socklen_t len = MPIDI_TCP_CC_NAME_MAX;
    if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0)
        len = 0;
    name[len < MPIDI_TCP_CC_NAME_MAX ? len : MPIDI_TCP_CC_NAME_MAX - 1] = '\0';
}

static unsigned interest(const MPIDI_TCP_sock_t *s)
{
    if (s->state == MPIDI_TCP_SOCK_CONNECTING)
        return EPOLLOUT; /* writable: the connect finished (or failed) */
    return EPOLLIN | (s->want_out ? EPOLLOUT : 0u);
}

/* Returns 0 or an errno. */
int MPIDI_TCP_sock_add(int fd, MPIDI_TCP_sock_state_t state, int peer, MPIDI_TCP_sock_t **sock_p)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_sock_t *s = calloc(1, sizeof(*s));
    if (!s)
        return ENOMEM;
    s->fd = fd;
    s->state = state;
    s->peer = peer;
    struct epoll_event ev = {.events = interest(s), .data.ptr = s};
    if (epoll_ctl(st->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        int err = errno;
        free(s);
        return err;
    }
    s->next = st->socks;
    st->socks = s;
    *sock_p = s;
    return 0;
}

/* Closes the fd at once; the object stays (state CLOSED) until finalize, so
 * an event for it later in the same epoll batch finds it marked. */
void MPIDI_TCP_sock_close(MPIDI_TCP_sock_t *s)
{
    if (s->state == MPIDI_TCP_SOCK_CLOSED)
        return;
    /* Explicitly: close() alone leaves the registration while a forked child
     * (between its fork and exec) still holds the socket. */
    epoll_ctl(MPIDI_TCP_state.epfd, EPOLL_CTL_DEL, s->fd, NULL);
    if (s->want_out)
        MPIDI_TCP_state.nwant_out--;
    close(s->fd);
    s->fd = -1;
    s->state = MPIDI_TCP_SOCK_CLOSED;
}

static void sock_update(MPIDI_TCP_sock_t *s)
{
    struct epoll_event ev = {.events = interest(s), .data.ptr = s};
    epoll_ctl(MPIDI_TCP_state.epfd, EPOLL_CTL_MOD, s->fd, &ev);
}

void MPIDI_TCP_sock_want_out(MPIDI_TCP_sock_t *s, int on)
{
    if (s->want_out == on || s->state == MPIDI_TCP_SOCK_CLOSED)
        return;
    s->want_out = on;
    MPIDI_TCP_state.nwant_out += on ? 1 : -1;
    sock_update(s);
}

/* ---- failure ---- */

void MPIDI_TCP_peer_fail(int peer, const char *fmt, ...)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    char msg[512];
    va_list ap;

    if (p->state == MPIDI_TCP_PEER_FAILED || p->state == MPIDI_TCP_PEER_CLOSED)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (p->state == MPIDI_TCP_PEER_CONNECTING)
        st->nconnecting--;
    p->state = MPIDI_TCP_PEER_FAILED;
    if (p->sock)
        MPIDI_TCP_sock_close(p->sock);
    if (p->out)
        MPIDI_TCP_sock_close(p->out);
    p->sock = p->out = NULL;
    /* Operations toward the peer are dropped without MPIDU_op_done: the core
     * fails every request that involves the peer. */
    MPIDI_TCP_sendq_drop(p);
    p->fail_code = MPIDU_err_create(MPI_ERR_OTHER, "%s", msg);
    MPIDI_TCP_recv_drop(p, p->fail_code);
    MPIDU_peer_failed(peer, p->fail_code, msg);
}

/* An orderly end: the peer said goodbye, or we are finalizing and it went. */
static void peer_closed(int peer)
{
    MPIDI_TCP_peer_t *p = &MPIDI_TCP_state.peers[peer];
    if (p->sock)
        MPIDI_TCP_sock_close(p->sock);
    p->sock = NULL;
    p->state = MPIDI_TCP_PEER_CLOSED;
    MPIDI_TCP_sendq_drop(p);
    MPIDI_TCP_recv_drop(p, 0);
}

/* ---- connecting ---- */

static int start_attempt(int peer, int first);
static void on_connected(MPIDI_TCP_sock_t *s);
static void send_hello(MPIDI_TCP_sock_t *s);

/* Writes what is left of the handshake message; returns 0, or an errno. */
static int hs_write(MPIDI_TCP_sock_t *s)
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
        if (n < 0)
            return errno;
        s->hs_out_sent += (size_t)n;
    }
    return 0;
}

/* Reads the rest of a handshake message; returns 1 when it is complete, 0
 * when more must come, -1 at EOF or an error (errno set, 0 for EOF). */
static int hs_read(MPIDI_TCP_sock_t *s)
{
    while (s->hs_in_got < sizeof(s->hs_in)) {
        /* Exactly the handshake's bytes: frames may follow in the stream. */
        ssize_t n = recv(s->fd, (char *)&s->hs_in + s->hs_in_got, sizeof(s->hs_in) - s->hs_in_got,
                         MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            return -1;
        }
        s->hs_in_got += (size_t)n;
    }
    return 1;
}

/* One attempt failed: note why, and try the next address (or the next round). */
static void attempt_failed(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void attempt_failed(int peer, const char *fmt, ...)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    char addr[80];
    va_list ap;
    int len;

    len = snprintf(p->last_err, sizeof(p->last_err),
                   "%s: ", MPIDI_TCP_addr_str(&p->addrs[p->addr_idx], addr, sizeof(addr)));
    va_start(ap, fmt);
    if (len > 0 && (size_t)len < sizeof(p->last_err))
        vsnprintf(p->last_err + len, sizeof(p->last_err) - (size_t)len, fmt, ap);
    va_end(ap);
    if (verbose() >= 2)
        fprintf(stderr, "ferry: rank %d: tcp connect to rank %d failed: %s\n", st->rank, peer,
                p->last_err);
    if (p->out)
        MPIDI_TCP_sock_close(p->out);
    p->out = NULL;
    p->addr_idx++;
    start_attempt(peer, 0);
}

static int out_of_resources(int err)
{
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM;
}

/* Tries the peer's addresses from addr_idx on; when all of them failed,
 * waits and starts another round, up to FERRY_TCP_CONNECT_RETRIES more,
 * then fails the peer with the last reason.  No socket for the very first
 * attempt (out of descriptors or memory) is returned as an errno, for the
 * operation that asked for the connection; later, it is one more failed
 * attempt, retried after a pause (descriptors may be freed meanwhile). */
static int start_attempt(int peer, int first)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];

    while (p->addr_idx < p->naddrs) {
        const MPIDI_TCP_addr_t *a = &p->addrs[p->addr_idx];
        char addr[80];
        int fd = socket(a->sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int err = fd < 0 ? errno : MPIDI_TCP_set_sockopts(fd);
        if (err) {
            if (fd >= 0)
                close(fd);
            if (first && out_of_resources(err))
                return err;
            snprintf(p->last_err, sizeof(p->last_err), "socket for %s: %s (errno %d)",
                     MPIDI_TCP_addr_str(a, addr, sizeof(addr)), strerror(err), err);
            p->addr_idx++;
            continue;
        }
        int rc;
        do {
            rc = connect(fd, (const struct sockaddr *)&a->sa, a->len);
        } while (rc < 0 && errno == EINTR);
        if (rc < 0 && errno != EINPROGRESS) {
            err = errno;
            close(fd);
            snprintf(p->last_err, sizeof(p->last_err), "%s: %s (errno %d)",
                     MPIDI_TCP_addr_str(a, addr, sizeof(addr)), strerror(err), err);
            if (verbose() >= 2)
                fprintf(stderr, "ferry: rank %d: tcp connect to rank %d failed: %s\n", st->rank,
                        peer, p->last_err);
            p->addr_idx++;
            continue;
        }
        err = MPIDI_TCP_sock_add(
            fd, rc == 0 ? MPIDI_TCP_SOCK_WAIT_CHALLENGE : MPIDI_TCP_SOCK_CONNECTING, peer, &p->out);
        if (err) {
            close(fd);
            p->out = NULL;
            if (first && out_of_resources(err))
                return err;
            snprintf(p->last_err, sizeof(p->last_err), "adding a socket to epoll: %s (errno %d)",
                     strerror(err), err);
            p->addr_idx++;
            continue;
        }
        p->deadline = MPIDI_TCP_now_ms() + st->connect_timeout_ms;
        if (rc == 0)
            send_hello(p->out); /* connected at once (loopback can) */
        return 0;
    }
    /* Every address failed in this round. */
    p->round++;
    if (p->round > st->connect_retries) {
        MPIDI_TCP_peer_fail(peer,
                            "tcp: rank %d cannot connect to rank %d after %d attempt%s over %d "
                            "address%s; last: %s",
                            st->rank, peer, p->round, p->round == 1 ? "" : "s", p->naddrs,
                            p->naddrs == 1 ? "" : "es",
                            p->naddrs ? p->last_err : "no usable address in its business card");
        return 0;
    }
    /* Back off 100 ms, 200 ms, ... up to 1.6 s between rounds. */
    int shift = p->round - 1 < 4 ? p->round - 1 : 4;
    p->retry_at = MPIDI_TCP_now_ms() + (100LL << shift);
    p->addr_idx = 0;
    return 0;
}

/* Lazy: the core calls this when it binds the peer, at its first message;
 * the connection comes up in progress and queued frames wait for it. */
int MPIDI_TCP_connect(int peer, const char *card)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    int mpi_errno;

    if (p->state != MPIDI_TCP_PEER_NONE)
        return MPI_SUCCESS; /* the peer connected to us first, or we are on it already */
    mpi_errno = MPIDI_TCP_addr_parse_card(peer, card, p->addrs, MPIDI_TCP_MAX_ADDRS, &p->naddrs);
    if (mpi_errno)
        return mpi_errno;
    MPIDI_TCP_addr_order(p->addrs, &p->naddrs, st->node_of[peer] == st->node_id);
    MPIDI_TCP_peer_start(peer);
    p->addr_idx = 0;
    p->round = 0;
    p->retry_at = 0;
    int err = start_attempt(peer, 1);
    if (err) {
        /* Nothing started: the peer stays unconnected, and the operation
         * that asked gets the error; a later one tries again. */
        p->state = MPIDI_TCP_PEER_NONE;
        st->nconnecting--;
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "tcp: rank %d cannot open a socket to connect to rank %d: %s "
                                "(errno %d)",
                                st->rank, peer, strerror(err), err);
    }
    return MPI_SUCCESS;
}

void MPIDI_TCP_peer_start(int peer)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    /* A connect that could not start returns the peer to PEER_NONE: it is
     * recorded in touched once, whatever number of times it starts. */
    if (!p->touched) {
        st->touched[st->ntouched++] = peer;
        p->touched = 1;
    }
    if (p->state == MPIDI_TCP_PEER_NONE)
        st->nconnecting++; /* peer_up counts it back */
    p->state = MPIDI_TCP_PEER_CONNECTING;
}

/* Connect timeouts and retry rounds of peers still connecting. */
void MPIDI_TCP_conn_timers(void)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    long long now = MPIDI_TCP_now_ms();
    for (int k = 0; k < st->ntouched && st->nconnecting > 0; k++) {
        int i = st->touched[k];
        MPIDI_TCP_peer_t *p = &st->peers[i];
        if (p->state != MPIDI_TCP_PEER_CONNECTING)
            continue;
        if (p->out && p->out->state == MPIDI_TCP_SOCK_CONNECTING && now > p->deadline) {
            /* The connect may have finished with its event still unread. */
            struct pollfd pfd = {.fd = p->out->fd, .events = POLLOUT};
            if (poll(&pfd, 1, 0) == 1)
                on_connected(p->out);
            else
                attempt_failed(i, "no answer within FERRY_TCP_CONNECT_TIMEOUT=%ld ms",
                               st->connect_timeout_ms);
        } else if (!p->out && p->retry_at && now >= p->retry_at) {
            p->retry_at = 0;
            start_attempt(i, 0);
        }
    }
}

/* The connection to peer is s from now on. */
static int peer_up(int peer, MPIDI_TCP_sock_t *s)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    char addr[80] = "";

    if (!p->rbuf && !(p->rbuf = malloc(MPIDI_TCP_RBUF_SIZE))) {
        MPIDI_TCP_peer_fail(peer, "tcp: rank %d: out of memory for the receive buffer of rank %d",
                            st->rank, peer);
        return -1;
    }
    if (p->state == MPIDI_TCP_PEER_CONNECTING)
        st->nconnecting--;
    if (p->out && p->out != s) /* ours lost to theirs: abandon it */
        MPIDI_TCP_sock_close(p->out);
    if (p->out == s)
        MPIDI_TCP_addr_str(&p->addrs[p->addr_idx], addr, sizeof(addr));
    p->out = NULL;
    p->retry_at = 0;
    p->sock = s;
    p->state = MPIDI_TCP_PEER_UP;
    p->rstart = p->rend = 0;
    p->rstate = MPIDI_TCP_RECV_FRAME;
    s->state = MPIDI_TCP_SOCK_DATA;
    s->peer = peer;
    char cc[MPIDI_TCP_CC_NAME_MAX];
    MPIDI_TCP_set_congestion(peer, s->fd, cc);
    if (verbose() >= 2)
        fprintf(stderr,
                "ferry: rank %d: tcp connection to rank %d up (%s%s; congestion control %s)\n",
                st->rank, peer, addr[0] ? "we connected to " : "it connected to us", addr, cc);
    /* Frames queued while connecting go now (after an ACK still being written). */
    MPIDI_TCP_flush(peer);
    return 0;
}

/* The connection's first message: who we are, whom we want, our nonce. */
static void send_hello(MPIDI_TCP_sock_t *s)
{
    int err = MPIDI_TCP_hs_hello(&s->hello, s->peer);
    if (err) {
        attempt_failed(s->peer, "getrandom for a nonce: %s (errno %d)", strerror(err), err);
        return;
    }
    s->state = MPIDI_TCP_SOCK_WAIT_CHALLENGE;
    sock_update(s);
    s->hs_out = s->hello;
    s->hs_out_len = sizeof(s->hs_out);
    s->hs_out_sent = 0;
    s->hs_in_got = 0;
    if ((err = hs_write(s)))
        attempt_failed(s->peer, "sending HELLO: %s (errno %d)", strerror(err), err);
}

/* Our connect() finished, for better or worse. */
static void on_connected(MPIDI_TCP_sock_t *s)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err) {
        attempt_failed(s->peer, "%s (errno %d)", strerror(err), err);
        return;
    }
    send_hello(s);
}

/* The connecting side reads a handshake message: 1 when complete, 0 for
 * more to come; on EOF or an error the attempt has failed (-1). */
static int connector_read(MPIDI_TCP_sock_t *s)
{
    int rc = hs_read(s);
    if (rc < 0) {
        /* Closed before answering: the peer abandoned this socket for one of
         * its own (it will reach us), its handshake timed out, or it is not
         * there; try on. */
        if (errno)
            attempt_failed(s->peer, "waiting for the handshake: %s (errno %d)", strerror(errno),
                           errno);
        else
            attempt_failed(s->peer, "closed during the handshake");
    }
    return rc;
}

/* The acceptor proved the secret for our HELLO: prove it back. */
static void on_challenge(MPIDI_TCP_sock_t *s)
{
    int peer = s->peer;
    if (connector_read(s) <= 0)
        return;
    if (!MPIDI_TCP_hs_verify(&s->hs_in, MPIDI_TCP_CHALLENGE, MPIDI_TCP_CHALLENGE, &s->hello,
                             NULL)) {
        attempt_failed(peer,
                       "the process there is not rank %d of this job (its answer does not "
                       "prove the job's secret)",
                       peer);
        return;
    }
    memcpy(s->na, s->hs_in.nonce, sizeof(s->na));
    int err = MPIDI_TCP_hs_reply(&s->hs_out, MPIDI_TCP_AUTH, &s->hello, s->na, 1);
    if (err) {
        MPIDI_TCP_peer_fail(peer, "tcp: rank %d cannot authenticate to rank %d: %s",
                            MPIDI_TCP_state.rank, peer, MPIDU_err_string(err));
        return;
    }
    s->state = MPIDI_TCP_SOCK_WAIT_VERDICT;
    s->hs_in_got = 0;
    s->hs_out_sent = 0;
    s->hs_out_len = sizeof(s->hs_out);
    if ((err = hs_write(s)))
        attempt_failed(peer, "sending AUTH: %s (errno %d)", strerror(err), err);
}

/* The connecting side reads the acceptor's verdict. */
static void on_verdict(MPIDI_TCP_sock_t *s)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    int peer = s->peer;
    MPIDI_TCP_peer_t *p = &st->peers[peer];

    if (connector_read(s) <= 0)
        return;
    if (!MPIDI_TCP_hs_verify(&s->hs_in, MPIDI_TCP_VERDICT_OK, MPIDI_TCP_VERDICT_GONE, &s->hello,
                             s->na)) {
        attempt_failed(peer, "rank %d's verdict does not prove the job's secret", peer);
        return;
    }
    switch (s->hs_in.kind) {
    case MPIDI_TCP_VERDICT_OK:
        peer_up(peer, s);
        return;
    case MPIDI_TCP_VERDICT_DUP:
        /* The peer's own connection to us wins (it has the lower rank): it
         * arrives by accept.  Should it not come, try again later. */
        MPIDI_TCP_sock_close(s);
        p->out = NULL;
        p->retry_at = MPIDI_TCP_now_ms() + st->connect_timeout_ms;
        return;
    default:
        attempt_failed(peer, "rank %d refused: it has lost or closed its connection to us", peer);
        return;
    }
}

/* Leaves the unproven states (counted against MPIDI_TCP_MAX_UNPROVEN). */
static void proven_or_gone(MPIDI_TCP_sock_t *s)
{
    if (s->state == MPIDI_TCP_SOCK_WAIT_HELLO || s->state == MPIDI_TCP_SOCK_WAIT_AUTH)
        MPIDI_TCP_state.nunproven--;
}

/* An accepted connection ends without a word: a stranger learns nothing. */
static void unproven_close(MPIDI_TCP_sock_t *s, const char *why)
{
    if (verbose() >= 2)
        fprintf(stderr,
                "ferry: rank %d: tcp closed an incoming connection (claiming rank %d): %s\n",
                MPIDI_TCP_state.rank, s->claimed, why);
    proven_or_gone(s);
    MPIDI_TCP_sock_close(s);
}

/* The accepting side answers any HELLO with a CHALLENGE: a genuine one if
 * the HELLO is for us, one with a random MAC otherwise (a rank of another
 * job then sees the MAC fail and tries elsewhere; a stranger cannot tell). */
static void on_hello(MPIDI_TCP_sock_t *s)
{
    int rc = hs_read(s);
    if (rc == 0)
        return;
    if (rc < 0) {
        unproven_close(s, "closed before its HELLO"); /* an attempt abandoned by its maker */
        return;
    }
    s->hello = s->hs_in;
    s->claimed = MPIDI_TCP_hs_hello_from(&s->hello);
    int err =
        MPIDI_TCP_hs_reply(&s->hs_out, MPIDI_TCP_CHALLENGE, &s->hello, s->na, s->claimed >= 0);
    if (err) {
        unproven_close(s, MPIDU_err_string(err));
        return;
    }
    s->state = MPIDI_TCP_SOCK_WAIT_AUTH;
    s->hs_in_got = 0;
    s->hs_out_sent = 0;
    s->hs_out_len = sizeof(s->hs_out);
    if ((err = hs_write(s)))
        unproven_close(s, strerror(err));
}

/* The connector proved the secret: decide.  Simultaneous connects of two
 * ranks to each other are resolved the same way on both sides: the
 * connection opened by the lower rank wins.  A connection is refused (DUP)
 * only by a rank whose own attempt is in flight and wins, or which is
 * connected already.  Nothing about the peer changes before this point, so
 * a stranger's HELLO claiming to be it disturbs nothing. */
static void on_auth(MPIDI_TCP_sock_t *s)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    int rc = hs_read(s);
    if (rc == 0)
        return;
    if (rc < 0) {
        unproven_close(s, "closed before proving itself");
        return;
    }
    int from = s->claimed;
    if (from < 0 ||
        !MPIDI_TCP_hs_verify(&s->hs_in, MPIDI_TCP_AUTH, MPIDI_TCP_AUTH, &s->hello, s->na)) {
        unproven_close(s, "it does not prove the job's secret");
        return;
    }
    MPIDI_TCP_peer_t *p = &st->peers[from];
    MPIDI_TCP_hs_kind_t kind = MPIDI_TCP_VERDICT_OK;
    if (p->state == MPIDI_TCP_PEER_FAILED || p->state == MPIDI_TCP_PEER_CLOSED)
        kind = MPIDI_TCP_VERDICT_GONE;
    else if (p->state == MPIDI_TCP_PEER_UP) /* a stale attempt: the connection exists */
        kind = MPIDI_TCP_VERDICT_DUP;
    else if (p->state == MPIDI_TCP_PEER_CONNECTING && p->out && st->rank < from)
        kind = MPIDI_TCP_VERDICT_DUP;
    if (verbose() >= 2 && p->state == MPIDI_TCP_PEER_CONNECTING && p->out)
        fprintf(stderr, "ferry: rank %d: tcp simultaneous connect with rank %d: %s wins\n",
                st->rank, from, kind == MPIDI_TCP_VERDICT_DUP ? "ours" : "theirs");
    int err = MPIDI_TCP_hs_reply(&s->hs_out, kind, &s->hello, s->na, 1);
    if (!err) {
        s->hs_out_sent = 0;
        s->hs_out_len = sizeof(s->hs_out);
        err = hs_write(s) ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    if (kind != MPIDI_TCP_VERDICT_OK || err) {
        /* 80 bytes on a fresh socket fit its buffer: the answer is on its way. */
        unproven_close(s, kind == MPIDI_TCP_VERDICT_OK ? "cannot answer" : "refused");
        return;
    }
    proven_or_gone(s);
    MPIDI_TCP_peer_start(from);
    peer_up(from, s);
}

void MPIDI_TCP_unproven_timers(void)
{
    long long now = MPIDI_TCP_now_ms();
    for (MPIDI_TCP_sock_t *s = MPIDI_TCP_state.socks; s; s = s->next)
        if ((s->state == MPIDI_TCP_SOCK_WAIT_HELLO || s->state == MPIDI_TCP_SOCK_WAIT_AUTH) &&
            now >= s->deadline)
            unproven_close(s, "handshake not done within FERRY_TCP_CONNECT_TIMEOUT");
}

/* Too many accepted connections wait to prove themselves: the oldest goes
 * (a peer's handshake takes a round trip, a stranger's never ends). */
static void evict_oldest_unproven(void)
{
    MPIDI_TCP_sock_t *oldest = NULL;
    for (MPIDI_TCP_sock_t *s = MPIDI_TCP_state.socks; s; s = s->next)
        if ((s->state == MPIDI_TCP_SOCK_WAIT_HELLO || s->state == MPIDI_TCP_SOCK_WAIT_AUTH) &&
            (!oldest || s->deadline < oldest->deadline))
            oldest = s;
    if (oldest)
        unproven_close(oldest, "too many connections waiting to prove themselves");
}

/* Out of descriptors (or memory), accept fails while the connection waits
 * in the backlog, and a level-triggered listener would be reported again at
 * once, forever: stop listening for a while instead, 100 ms at first, twice
 * as long each time it happens again, at most 1.6 s.  The connector's side
 * is established in the backlog meanwhile; it gets its answer later. */
static void accept_backoff(int err)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    st->accept_pause_ms = st->accept_pause_ms ? st->accept_pause_ms * 2 : 100;
    if (st->accept_pause_ms > 1600)
        st->accept_pause_ms = 1600;
    st->accept_resume_at = MPIDI_TCP_now_ms() + st->accept_pause_ms;
    struct epoll_event ev = {.events = 0, .data.ptr = st->listener};
    epoll_ctl(st->epfd, EPOLL_CTL_MOD, st->listener->fd, &ev);
    if (verbose())
        fprintf(stderr, "ferry: rank %d: tcp accept: %s (errno %d); not accepting for %ld ms\n",
                st->rank, strerror(err), err, st->accept_pause_ms);
}

void MPIDI_TCP_accept_timer(void)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    if (!st->accept_resume_at || MPIDI_TCP_now_ms() < st->accept_resume_at)
        return;
    st->accept_resume_at = 0;
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = st->listener};
    epoll_ctl(st->epfd, EPOLL_CTL_MOD, st->listener->fd, &ev);
}

void MPIDI_TCP_accept(void)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    for (;;) {
        int fd = accept4(st->listener->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (out_of_resources(errno))
                accept_backoff(errno);
            else if (errno != EAGAIN && errno != EWOULDBLOCK && verbose())
                fprintf(stderr, "ferry: rank %d: tcp accept: %s (errno %d)\n", st->rank,
                        strerror(errno), errno);
            return;
        }
        st->accept_pause_ms = 0;
        if (st->nunproven >= MPIDI_TCP_MAX_UNPROVEN)
            evict_oldest_unproven();
        MPIDI_TCP_sock_t *s;
        if (MPIDI_TCP_set_sockopts(fd) != 0 ||
            MPIDI_TCP_sock_add(fd, MPIDI_TCP_SOCK_WAIT_HELLO, -1, &s)) {
            close(fd); /* the connecting side sees EOF and tries again */
            continue;
        }
        st->nunproven++;
        s->claimed = -1;
        s->deadline = MPIDI_TCP_now_ms() + st->connect_timeout_ms;
        on_hello(s); /* usually here already: read it before more accepts can evict it */
    }
}

/* One epoll event for a socket that is not the listener. */
void MPIDI_TCP_sock_event(MPIDI_TCP_sock_t *s, unsigned events)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    int err;
    switch (s->state) {
    case MPIDI_TCP_SOCK_CONNECTING:
        on_connected(s);
        return;
    case MPIDI_TCP_SOCK_WAIT_CHALLENGE:
    case MPIDI_TCP_SOCK_WAIT_VERDICT:
        if (events & EPOLLOUT) {
            if ((err = hs_write(s))) {
                attempt_failed(s->peer, "sending the handshake: %s (errno %d)", strerror(err), err);
                return;
            }
            if (s->hs_out_sent == s->hs_out_len)
                MPIDI_TCP_sock_want_out(s, 0);
        }
        if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
            if (s->state == MPIDI_TCP_SOCK_WAIT_CHALLENGE)
                on_challenge(s);
            else
                on_verdict(s);
        }
        return;
    case MPIDI_TCP_SOCK_WAIT_HELLO:
    case MPIDI_TCP_SOCK_WAIT_AUTH:
        if ((events & EPOLLOUT) && (err = hs_write(s))) {
            unproven_close(s, strerror(err));
            return;
        }
        if (s->hs_out_sent == s->hs_out_len)
            MPIDI_TCP_sock_want_out(s, 0);
        if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
            if (s->state == MPIDI_TCP_SOCK_WAIT_HELLO)
                on_hello(s);
            else
                on_auth(s);
        }
        return;
    case MPIDI_TCP_SOCK_DATA:
        if (events & EPOLLOUT)
            MPIDI_TCP_flush(s->peer);
        return; /* input is read by progress, which counts the messages */
    default:
        (void)st;
        return;
    }
}

/* EOF on a connection: orderly after a goodbye or during our finalize,
 * else the peer is gone. */
void MPIDI_TCP_conn_eof(int peer)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_peer_t *p = &st->peers[peer];
    if (p->bye_got || st->finalizing) {
        if (!p->bye_got && verbose())
            fprintf(stderr,
                    "ferry: rank %d: rank %d closed its tcp connection without a goodbye "
                    "during finalize\n",
                    st->rank, peer);
        peer_closed(peer);
        return;
    }
    MPIDI_TCP_peer_fail(peer,
                        "tcp: rank %d lost its connection to rank %d: closed by the peer (EOF); "
                        "rank %d probably died",
                        st->rank, peer, peer);
}
