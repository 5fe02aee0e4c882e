/* fuzz_tcp.c: libFuzzer target for what the tcp method reads from the network: the handshake as
 * an acceptor and as a connector, and the frame stream of an authenticated peer.  The method runs
 * for real (the sources of methods/tcp) as rank 0 of 4, with the core's upcalls from fuzz_stubs.c; the
 * fuzzer's bytes arrive over real loopback sockets.  The first byte picks what they are:
 *   0  a stranger's stream into our listener (HELLO, AUTH, anything)
 *   1  the answers of the process our connect reached (CHALLENGE, VERDICT, anything)
 *   2  frames from rank 1 after a correct handshake (the harness knows the secret)
 * Each input gets a fresh method (init, then finalize), so no state leaks between inputs. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mpi.h"
#include "tcp_impl.h"

extern int fuzz_dispatched, fuzz_failed;

/* A harness failure (not the method's): says which and why, then stops the fuzzer. */
static void harness_failed(const char *what)
{
    fprintf(stderr, "fuzz_tcp harness: %s: %s\n", what, strerror(errno));
    abort();
}

static const int node_of[4] = {0, 0, 0, 0};
static const int local_ranks[4] = {0, 1, 2, 3};

static void start(void)
{
    MPIDI_job_t job = {.rank = 0, .size = 4, .kvsname = "kvs_fuzz", .hostname = "fuzzhost",
                       .node_id = 0, .nlocal = 4, .local_index = 0, .local_ranks = local_ranks,
                       .node_of = node_of};
    MPIDI_method_caps_t caps = {.size = sizeof(caps)};
    if (MPIDI_TCP_init(&job, &caps) != MPI_SUCCESS)
        harness_failed("method init");
}

static void stop(void)
{
    /* Peers still connecting would make finalize wait for them. */
    for (int i = 0; i < MPIDI_TCP_state.size; i++)
        if (MPIDI_TCP_state.peers[i].state == MPIDI_TCP_PEER_CONNECTING ||
            MPIDI_TCP_state.peers[i].state == MPIDI_TCP_PEER_UP)
            MPIDI_TCP_peer_fail(i, "fuzz: done");
    MPIDI_TCP_finalize();
}

static void progress(int rounds)
{
    for (int i = 0; i < rounds; i++) {
        int made = 0;
        MPIDI_TCP_progress(&made);
    }
}

/* The harness's sockets: libFuzzer's per-input timer (SIGALRM) interrupts blocking calls, so
 * every call is retried on EINTR; a loaded machine can make a loopback connect block long
 * enough for that.  Tens of thousands of inputs a minute would also hold the local ports in
 * TIME_WAIT: the harness's sockets are SO_REUSEADDR (their TIME_WAITs do not stop the method's
 * listener, also SO_REUSEADDR, from binding) and are closed with a reset where they can be. */
static void close_reset(int fd)
{
    struct linger l = {.l_onoff = 1, .l_linger = 0};
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    close(fd);
}

/* Waits for fd to become ready for events; -1 on error or after ms. */
static int wait_fd(int fd, short events, int ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    int n;
    while ((n = poll(&p, 1, ms)) < 0 && errno == EINTR)
        ;
    return n == 1 ? 0 : -1;
}

static int connect_loopback(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
        harness_failed("socket to the method's listener");
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        /* Interrupted, the connect goes on: wait for its outcome. */
        int err = errno;
        socklen_t len = sizeof(err);
        if (err != EINTR || wait_fd(fd, POLLOUT, 10000) != 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
            errno = err;
            harness_failed("connect to the method's listener");
        }
    }
    return fd;
}

/* Writes all of buf (the socket buffers of loopback hold the inputs we allow). */
static void put(int fd, const void *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* the method closed it: fine */
        buf = (const char *)buf + n;
        len -= (size_t)n;
    }
}

/* Reads one 80-byte handshake message within the given progress rounds. */
static int get_hs(int fd, MPIDI_TCP_hs_t *m)
{
    size_t got = 0;
    for (int i = 0; i < 200 && got < sizeof(*m); i++) {
        progress(1);
        ssize_t n = recv(fd, (char *)m + got, sizeof(*m) - got, MSG_DONTWAIT);
        if (n == 0)
            return -1;
        if (n > 0)
            got += (size_t)n;
    }
    return got == sizeof(*m) ? 0 : -1;
}

static void as_acceptor(const uint8_t *data, size_t size)
{
    int fd = connect_loopback(MPIDI_TCP_state.port);
    put(fd, data, size);
    shutdown(fd, SHUT_WR);
    progress(20);
    close_reset(fd);
    progress(2);
}

static void as_connector(const uint8_t *data, size_t size)
{
    /* The "rank 1" our connect reaches is the fuzzer. */
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    int one = 1;
    if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(lfd, 4) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &al) != 0)
        harness_failed("listener for the method's connect");
    char card[64];
    snprintf(card, sizeof(card), "1;%d;127.0.0.1", ntohs(a.sin_port));
    if (MPIDI_TCP_connect(1, card) != MPI_SUCCESS)
        harness_failed("method connect");
    progress(2);
    if (wait_fd(lfd, POLLIN, 1000) == 0) {
        int fd;
        while ((fd = accept(lfd, NULL, NULL)) < 0 && errno == EINTR)
            ;
        if (fd >= 0) {
            put(fd, data, size);
            shutdown(fd, SHUT_WR);
            progress(20);
            close_reset(fd);
        }
    }
    close_reset(lfd);
    progress(2);
}

static void as_peer(const uint8_t *data, size_t size)
{
    MPIDI_TCP_state_t *st = &MPIDI_TCP_state;
    int fd = connect_loopback(st->port);
    MPIDI_TCP_hs_t hello = {.magic = MPIDI_TCP_MAGIC, .version = MPIDI_TCP_VERSION,
                            .kind = MPIDI_TCP_HELLO, .from = 1, .to = 0, .job_id = st->job_id,
                            .size = (uint32_t)st->size};
    memset(hello.nonce, 0x5a, sizeof(hello.nonce));
    put(fd, &hello, sizeof(hello));
    MPIDI_TCP_hs_t ch, auth, verdict;
    uint8_t na[MPIDI_TCP_NONCE_LEN];
    if (get_hs(fd, &ch) != 0 || !MPIDI_TCP_hs_verify(&ch, MPIDI_TCP_CHALLENGE, MPIDI_TCP_CHALLENGE,
                                                      &hello, NULL))
        abort(); /* the harness knows the secret: the handshake must work */
    memcpy(na, ch.nonce, sizeof(na));
    MPIDI_TCP_hs_reply(&auth, MPIDI_TCP_AUTH, &hello, na, 1);
    put(fd, &auth, sizeof(auth));
    if (get_hs(fd, &verdict) != 0 || verdict.kind != MPIDI_TCP_VERDICT_OK)
        abort();
    put(fd, data, size);
    shutdown(fd, SHUT_WR);
    progress(40);
    close_reset(fd);
    progress(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* What fits loopback's socket buffers without a reader on the other side. */
    if (size < 1 || size > 65536)
        return 0;
    start();
    switch (data[0] % 3) {
    case 0:
        as_acceptor(data + 1, size - 1);
        break;
    case 1:
        as_connector(data + 1, size - 1);
        break;
    default:
        as_peer(data + 1, size - 1);
        break;
    }
    stop();
    return 0;
}
