/* tcp_init.c: tcp start-up (tunables, listening socket, card), reachability and shutdown. */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "tcp_impl.h"

MPIDI_TCP_state_t MPIDI_TCP_state = {.epfd = -1, .hot = -1};

long long MPIDI_TCP_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* FNV-1a over the kvsname: a HELLO from another job that reached a reused
 * port (or a stale address) is refused rather than mistaken for a peer. */
static uint64_t job_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Reads the tunables (adi/config.c checks their ranges; doc/tuning.md):
 *   FERRY_TCP_EAGER_LIMIT      default eager limit of tcp peers
 *   FERRY_TCP_SNDBUF/_RCVBUF   SO_SNDBUF/SO_RCVBUF, 0 keeps the kernel's autotuning
 *   FERRY_TCP_CONNECT_TIMEOUT  ms one TCP connect may take
 *   FERRY_TCP_CONNECT_RETRIES  rounds over a peer's addresses after the first
 *   FERRY_TCP_KEEPALIVE        seconds of silence after which a peer is failed (0: never) */
static void read_config(void)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    st->eager_limit = (size_t)MPIDU_config_int("FERRY_TCP_EAGER_LIMIT");
    if (st->eager_limit > MPIDI_TCP_MAX_SEND)
        st->eager_limit = MPIDI_TCP_MAX_SEND;
    st->sndbuf = (int)MPIDU_config_int("FERRY_TCP_SNDBUF");
    st->rcvbuf = (int)MPIDU_config_int("FERRY_TCP_RCVBUF");
    st->connect_timeout_ms = MPIDU_config_int("FERRY_TCP_CONNECT_TIMEOUT");
    st->connect_retries = (int)MPIDU_config_int("FERRY_TCP_CONNECT_RETRIES");
    st->keepalive_s = (int)MPIDU_config_int("FERRY_TCP_KEEPALIVE");
}

/* FERRY_TCP_CONGESTION, kept for every connection; a name the kernel does
 * not have or does not let this user pick fails MPI_Init (tried on fd). */
static int read_congestion(int fd)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    const char *cc = MPIDU_config_str("FERRY_TCP_CONGESTION");
    if (!cc[0] || strlen(cc) >= sizeof(st->congestion))
        return MPIDU_err_create(MPI_ERR_ARG,
                                "tcp: FERRY_TCP_CONGESTION='%s' is not auto, system or the name of "
                                "a congestion control (at most %d characters)",
                                cc, MPIDI_TCP_CC_NAME_MAX - 1);
    snprintf(st->congestion, sizeof(st->congestion), "%s", cc);
    return MPIDI_TCP_check_congestion(fd);
}

/* Binds to the wildcard address (IPv6 dual stack when the kernel has IPv6,
 * else IPv4) on a port of FERRY_TCP_PORT_MIN..MAX, or any free port.  A port
 * in use is skipped; when every port of the range is, the error says so. */
static int open_listener(int *fd_p, int *port_p)
{
    long pmin = MPIDU_config_int("FERRY_TCP_PORT_MIN");
    long pmax = MPIDU_config_int("FERRY_TCP_PORT_MAX");
    int fd = -1, err = 0;

    if (pmin > 0 && pmax == 0)
        pmax = pmin;
    if (pmax > 0 && pmin == 0)
        pmin = 1024;
    if (pmax < pmin)
        return MPIDU_err_create(
            MPI_ERR_ARG, "tcp: FERRY_TCP_PORT_MIN=%ld is above FERRY_TCP_PORT_MAX=%ld", pmin, pmax);
    long nports = pmin ? pmax - pmin + 1 : 1;
    /* Ranks on one host start at different ports of the range, so they do
     * not all collide on its first port. */
    long start = pmin ? MPIDI_TCP_state.rank % nports : 0;

    for (int v6 = 1; v6 >= 0; v6--) {
        fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int zero = 0, one = 1;
        if (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) != 0) {
            err = errno;
            close(fd);
            fd = -1;
            continue;
        }
        /* A listener may reuse a port whose old connections linger in TIME_WAIT. */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        int bound = 0;
        for (long k = 0; k < nports * (pmin ? MPIDI_TCP_BIND_ROUNDS : 1) && !bound; k++) {
            if (k && k % nports == 0) {
                /* Every port was in use: wait a little, one may be freed. */
                struct timespec pause = {0, MPIDI_TCP_BIND_PAUSE_MS * 1000000L};
                nanosleep(&pause, NULL);
            }
            int port = pmin ? (int)(pmin + (start + k) % nports) : 0;
            struct sockaddr_storage ss;
            socklen_t len;
            memset(&ss, 0, sizeof(ss));
            if (v6) {
                struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
                s6->sin6_family = AF_INET6;
                s6->sin6_addr = in6addr_any;
                s6->sin6_port = htons((uint16_t)port);
                len = sizeof(*s6);
            } else {
                struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
                s4->sin_family = AF_INET;
                s4->sin_addr.s_addr = htonl(INADDR_ANY);
                s4->sin_port = htons((uint16_t)port);
                len = sizeof(*s4);
            }
            if (bind(fd, (struct sockaddr *)&ss, len) == 0)
                bound = 1;
            else
                err = errno;
            if (!bound && err != EADDRINUSE && err != EACCES)
                break; /* not a port problem: another port will not help */
        }
        if (!bound || listen(fd, SOMAXCONN) != 0) {
            if (bound)
                err = errno;
            close(fd);
            fd = -1;
            if (pmin && (err == EADDRINUSE || err == EACCES))
                return MPIDU_err_create(MPI_ERR_OTHER,
                                        "tcp: rank %d found no free port in "
                                        "FERRY_TCP_PORT_MIN..MAX = %ld..%ld (%ld tried %d times, "
                                        "%d ms apart): %s (errno %d)",
                                        MPIDI_TCP_state.rank, pmin, pmax, nports,
                                        MPIDI_TCP_BIND_ROUNDS, MPIDI_TCP_BIND_PAUSE_MS,
                                        strerror(err), err);
            continue;
        }
        break;
    }
    if (fd < 0)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "tcp: rank %d cannot open a listening socket: %s "
                                "(errno %d)",
                                MPIDI_TCP_state.rank, strerror(err), err);
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) {
        err = errno;
        close(fd);
        return MPIDU_err_create(MPI_ERR_OTHER, "tcp: getsockname: %s (errno %d)", strerror(err),
                                err);
    }
    *port_p = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                       : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    *fd_p = fd;
    return MPI_SUCCESS;
}

int MPIDI_TCP_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    int mpi_errno, fd = -1;

    memset(st, 0, sizeof(*st));
    st->epfd = -1;
    st->hot = -1;
    st->rank = job->rank;
    st->size = job->size;
    st->node_of = job->node_of;
    st->node_id = job->node_id;
    st->job_id = job_hash(job->kvsname);
    read_config();
    if ((mpi_errno = MPIDU_stat_register("tcp_recv_in_place", &st->recv_in_place)) ||
        (mpi_errno = MPIDU_stat_register("tcp_recv_staged", &st->recv_staged)) ||
        (mpi_errno = MPIDU_stat_register("tcp_recv_hot", &st->recv_hot)))
        return mpi_errno;

    st->peers = calloc((size_t)job->size, sizeof(*st->peers));
    st->touched = malloc((size_t)job->size * sizeof(*st->touched));
    if (!st->peers || !st->touched) {
        free(st->peers);
        free(st->touched);
        st->peers = NULL;
        st->touched = NULL;
        return MPIDU_err_create(MPI_ERR_NO_MEM, "tcp: out of memory for %d peers", job->size);
    }
    st->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (st->epfd < 0) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "tcp: epoll_create1: %s (errno %d)",
                                     strerror(errno), errno);
        goto fn_fail;
    }
    if ((mpi_errno = open_listener(&fd, &st->port)))
        goto fn_fail;
    if ((mpi_errno = read_congestion(fd))) {
        close(fd);
        goto fn_fail;
    }
    int err = MPIDI_TCP_sock_add(fd, MPIDI_TCP_SOCK_LISTEN, -1, &st->listener);
    if (err) {
        close(fd);
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER,
                                     "tcp: adding the listener to epoll: %s "
                                     "(errno %d)",
                                     strerror(err), err);
        goto fn_fail;
    }
    mpi_errno = MPIDI_TCP_addr_build_card(MPIDU_config_str("FERRY_TCP_IF"), st->port, st->card,
                                          sizeof(st->card));
    if (mpi_errno)
        goto fn_fail;

    caps_p->max_hdr = MPIDI_TCP_MAX_HDR;
    caps_p->eager_limit = st->eager_limit;
    caps_p->max_send = MPIDI_TCP_MAX_SEND;
    /* No remote memory access over a socket: large messages use the core's
     * pipeline, whose DATA frames are read straight into the user buffer. */
    caps_p->rndv_modes = MPIDI_RNDV_PIPELINE;
    caps_p->needs_reg = 0;
    caps_p->rndv_iov_min_piece = 0;
    /* Below shm (100): on a node shm wins, between nodes tcp is the one. */
    caps_p->exclusivity = 10;
    if (MPIDU_config_int("FERRY_VERBOSE") >= 2)
        fprintf(stderr, "ferry: rank %d: tcp listens on port %d, card %s\n", st->rank, st->port,
                st->card);
    return MPI_SUCCESS;

fn_fail:
    MPIDI_TCP_finalize();
    return mpi_errno;
}

int MPIDI_TCP_get_business_card(char *buf, size_t len)
{
    if (strlen(MPIDI_TCP_state.card) >= len)
        return MPIDU_err_create(MPI_ERR_OTHER, "tcp: card of %zu bytes does not fit %zu",
                                strlen(MPIDI_TCP_state.card), len);
    memcpy(buf, MPIDI_TCP_state.card, strlen(MPIDI_TCP_state.card) + 1);
    return MPI_SUCCESS;
}

/* tcp reaches a peer whose card holds an address it may use: any address on
 * the same node, a non-loopback one on another node. */
int MPIDI_TCP_reachable(int peer, const char *card)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    MPIDI_TCP_addr_t addrs[MPIDI_TCP_MAX_ADDRS];
    int n = 0;
    if (peer == st->rank || MPIDI_TCP_addr_parse_card(peer, card, addrs, MPIDI_TCP_MAX_ADDRS, &n))
        return 0;
    MPIDI_TCP_addr_order(addrs, &n, st->node_of[peer] == st->node_id);
    return n > 0;
}

/* Is there still something to say to or hear from a peer before closing? */
static int peer_busy(const MPIDI_TCP_peer_t *p)
{
    if (p->state == MPIDI_TCP_PEER_CONNECTING)
        return 1;
    return p->state == MPIDI_TCP_PEER_UP && (p->sq_head || !p->bye_got);
}

/* Says goodbye on every connection, so that a peer's EOF after its BYE is
 * known to be an orderly close, not a failure; then waits (bounded) for the
 * queues to drain and every peer's BYE, so no socket closes with unread data
 * (which would make the kernel reset the connection). */
static void say_goodbye(void)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    st->finalizing = 1;
    for (int k = 0; k < st->ntouched; k++) {
        int i = st->touched[k];
        MPIDI_TCP_peer_t *p = &st->peers[i];
        if (p->state == MPIDI_TCP_PEER_UP || p->state == MPIDI_TCP_PEER_CONNECTING)
            MPIDI_TCP_send_bye(i);
    }
    long long deadline = MPIDI_TCP_now_ms() + MPIDI_TCP_FINALIZE_WAIT_MS;
    for (;;) {
        int busy = 0, made = 0;
        for (int k = 0; k < st->ntouched && !busy; k++)
            busy = peer_busy(&st->peers[st->touched[k]]);
        if (!busy)
            break;
        if (MPIDI_TCP_now_ms() > deadline) {
            if (MPIDU_config_int("FERRY_VERBOSE"))
                fprintf(stderr,
                        "ferry: rank %d: tcp finalize gave up waiting for peers after "
                        "%d ms\n",
                        st->rank, MPIDI_TCP_FINALIZE_WAIT_MS);
            break;
        }
        MPIDI_TCP_progress(&made);
        if (!made) {
            /* Nothing to do but wait for peers: sleep in epoll instead of spinning. */
            struct epoll_event ev;
            epoll_wait(st->epfd, &ev, 1, 10);
        }
    }
}

int MPIDI_TCP_finalize(void)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    if (st->peers && st->listener)
        say_goodbye();
    if (st->peers) {
        for (int k = 0; k < st->ntouched; k++) {
            MPIDI_TCP_peer_t *p = &st->peers[st->touched[k]];
            MPIDI_TCP_sendq_drop(p);
            MPIDI_TCP_recv_drop(p, 0);
            free(p->rbuf);
        }
    }
    while (st->socks) {
        MPIDI_TCP_sock_t *s = st->socks;
        st->socks = s->next;
        if (s->fd >= 0)
            close(s->fd);
        free(s);
    }
    if (st->epfd >= 0)
        close(st->epfd);
    free(st->peers);
    free(st->touched);
    memset(st, 0, sizeof(*st));
    st->epfd = -1;
    st->hot = -1;
    return MPI_SUCCESS;
}
