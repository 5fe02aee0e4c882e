/* stranger.c: a process that is not part of the job and tries to join it (test/harden/run.sh).
 * Built with cc and adi/hmac.c: it speaks tcp's handshake and PMI-1 the way an attacker on the
 * same network could, from what such an attacker can learn.  Each mode prints what it saw and
 * exits 0 if the job defended itself as doc/security.md says (or, for the "withkey" control,
 * if the forgery worked), 1 otherwise.
 *
 *   stranger tcp INFO FROM TO SIZE noauth    HELLO as rank FROM, a made-up AUTH: must be closed
 *                                            without a verdict, and a frame sent anyway ignored
 *   stranger tcp INFO FROM TO SIZE wrongjob  a HELLO of another job must get the same answer as
 *                                            a good one: an 80-byte CHALLENGE that names nobody
 *   stranger tcp INFO FROM TO SIZE withkey   the control: with the secret (in INFO) the
 *                                            handshake succeeds and a forged message goes in
 *   stranger tcp INFO FROM TO SIZE silent N  N connections that never finish the handshake:
 *                                            all must be closed by the rank within 5 s
 *   stranger pmi HOST:PORT initack ID        a forged PMI_PORT identification: closed, no reply
 *   stranger pmi HOST:PORT silent N SECS     N silent connections: all closed within SECS
 *   stranger pmi HOST:PORT refused           the port must be closed (connection refused)
 *   stranger pmiflood flood                  a rank (PMI_FD) that sends requests and never reads
 *   stranger pmiflood fill                   ... that sends just enough to fill its socket and
 *                                            mpiexec's queue partly, then waits without reading
 * INFO is the file tcp_victim wrote: "port kvsname secret-in-hex". */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "hmac.h"

/* The wire formats, as doc/methods/tcp.md and adi/am.h give them. */
typedef struct {
    uint32_t magic;
    uint16_t version, kind;
    uint32_t from, to;
    uint64_t job_id;
    uint32_t size, reserved;
    uint8_t nonce[16], mac[32];
} hs_t;
typedef struct {
    uint16_t handler, hdr_len;
    uint32_t reserved;
    uint64_t payload_len;
} frame_t;
typedef struct {
    int32_t src, tag;
    uint16_t context_id, seq;
    uint32_t flags;
    uint64_t sreq;
} match_t;
enum { HELLO = 1, CHALLENGE, AUTH, VERDICT_OK, VERDICT_DUP, VERDICT_GONE };
#define MAGIC 0x54595246u
#define VERSION 2

static int connect_to(const char *host, const char *port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

/* Reads exactly len bytes within ms: len, 0 at EOF, -1 on timeout or error. */
static long read_full(int fd, void *buf, size_t len, int ms)
{
    size_t got = 0;
    while (got < len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, ms) != 1)
            return -1;
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n == 0)
            return got ? (long)got : 0;
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    return (long)got;
}

/* 1 if the peer closes the connection within ms (reading and dropping anything it sends). */
static int closed_within(int fd, int ms)
{
    char junk[256];
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        long left = ms - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, (int)left) != 1)
            return 0;
        ssize_t n = read(fd, junk, sizeof(junk));
        if (n <= 0)
            return 1;
    }
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void mac(const unsigned char *key, int kind, const hs_t *hello, const uint8_t *na,
                uint8_t out[32])
{
    const char *label = kind == CHALLENGE ? "ferry-tcp-challenge"
                        : kind == AUTH    ? "ferry-tcp-auth"
                                          : "ferry-tcp-verdict";
    uint16_t k = (uint16_t)kind;
    MPIDU_bytes_t parts[] = {
        {label, strlen(label) + 1}, {&hello->from, 4},  {&hello->to, 4}, {&hello->job_id, 8},
        {&hello->size, 4},          {hello->nonce, 16}, {na, 16},        {&k, 2}};
    MPIDU_hmac_sha256(key, 32, parts, 8, out);
}

static int tcp_mode(int argc, char **argv)
{
    if (argc < 7)
        return 2;
    char port[16], kvs[256], keyhex[80];
    unsigned char key[32];
    FILE *f = fopen(argv[2], "r");
    if (!f || fscanf(f, "%15s %255s %79s", port, kvs, keyhex) != 3) {
        fprintf(stderr, "stranger: cannot read %s\n", argv[2]);
        return 2;
    }
    fclose(f);
    for (int i = 0; i < 32; i++)
        sscanf(keyhex + 2 * i, "%2hhx", &key[i]);
    const char *what = argv[6];
    int n = strcmp(what, "silent") == 0 && argc > 7 ? atoi(argv[7]) : 1;
    hs_t hello = {.magic = MAGIC,
                  .version = VERSION,
                  .kind = HELLO,
                  .from = (uint32_t)atoi(argv[3]),
                  .to = (uint32_t)atoi(argv[4]),
                  .job_id = fnv1a(kvs),
                  .size = (uint32_t)atoi(argv[5])};
    if (strcmp(what, "wrongjob") == 0)
        hello.job_id ^= 1;
    getrandom(hello.nonce, sizeof(hello.nonce), 0);

    if (strcmp(what, "silent") == 0) {
        int *fds = calloc((size_t)n, sizeof(int)), closed = 0;
        for (int i = 0; i < n; i++)
            fds[i] = connect_to("127.0.0.1", port);
        /* Half of them say HELLO and then nothing: stuck waiting for AUTH. */
        for (int i = 0; i < n; i += 2)
            if (fds[i] >= 0 && write(fds[i], &hello, sizeof(hello)) < 0)
                fds[i] = -1;
        for (int i = 0; i < n; i++)
            closed += fds[i] < 0 || closed_within(fds[i], 5000);
        free(fds);
        printf("stranger: %d of %d silent tcp connections closed by the rank\n", closed, n);
        return closed == n ? 0 : 1;
    }

    int fd = connect_to("127.0.0.1", port);
    if (fd < 0) {
        printf("stranger: cannot connect to port %s\n", port);
        return 1;
    }
    if (write(fd, &hello, sizeof(hello)) != sizeof(hello))
        return 1;
    hs_t ch;
    if (read_full(fd, &ch, sizeof(ch), 5000) != sizeof(ch)) {
        printf("stranger: no 80-byte answer to the HELLO\n");
        return 1;
    }
    /* Nothing in the answer may say who is there or whether the HELLO was right. */
    if (ch.magic != MAGIC || ch.kind != CHALLENGE || ch.from || ch.to || ch.job_id || ch.size) {
        printf("stranger: the answer tells something: kind %u from %u to %u job %llx size %u\n",
               ch.kind, ch.from, ch.to, (unsigned long long)ch.job_id, ch.size);
        return 1;
    }
    if (strcmp(what, "wrongjob") == 0) {
        printf("stranger: a HELLO of another job got a CHALLENGE like any other\n");
        return 0;
    }
    hs_t auth = {.magic = MAGIC, .version = VERSION, .kind = AUTH};
    if (strcmp(what, "withkey") == 0) {
        uint8_t want[32];
        mac(key, CHALLENGE, &hello, ch.nonce, want);
        if (memcmp(want, ch.mac, 32) != 0) {
            printf("stranger: with the secret, the CHALLENGE's MAC does not check\n");
            return 1;
        }
        mac(key, AUTH, &hello, ch.nonce, auth.mac);
    } else {
        getrandom(auth.mac, sizeof(auth.mac), 0); /* the best a stranger can do */
    }
    if (write(fd, &auth, sizeof(auth)) != sizeof(auth))
        return 1;
    hs_t verdict;
    long got = read_full(fd, &verdict, sizeof(verdict), 5000);
    if (strcmp(what, "noauth") == 0) {
        if (got > 0) {
            printf("stranger: got %ld bytes of a verdict without the secret\n", got);
            return 1;
        }
        /* A frame anyway, in case the rank is not listening any more. */
        frame_t fr = {.handler = 0, .hdr_len = sizeof(match_t), .payload_len = 7};
        match_t m = {.src = (int32_t)hello.from, .tag = 77};
        if (write(fd, &fr, sizeof(fr)) < 0 || write(fd, &m, sizeof(m)) < 0 ||
            write(fd, "forged", 7) < 0) {
        }
        printf("stranger: closed without a verdict (the made-up AUTH was refused)\n");
        return 0;
    }
    /* withkey */
    if (got != sizeof(verdict) || verdict.kind != VERDICT_OK) {
        printf("stranger: with the secret, no VERDICT_OK (got %ld bytes, kind %u)\n", got,
               verdict.kind);
        return 1;
    }
    frame_t fr = {.handler = 0, .hdr_len = sizeof(match_t), .payload_len = 7};
    match_t m = {.src = (int32_t)hello.from, .tag = 77};
    if (write(fd, &fr, sizeof(fr)) < 0 || write(fd, &m, sizeof(m)) < 0 ||
        write(fd, "forged", 7) < 0)
        return 1;
    sleep(1); /* let it be read before the connection ends */
    printf("stranger: with the secret, the handshake succeeded and a message went in\n");
    return 0;
}

static int pmi_mode(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    char host[256];
    snprintf(host, sizeof(host), "%s", argv[2]);
    char *colon = strrchr(host, ':');
    if (!colon)
        return 2;
    *colon = '\0';
    const char *port = colon + 1;
    if (host[0] == '[') {
        memmove(host, host + 1, strlen(host));
        host[strlen(host) - 1] = '\0';
    }
    const char *what = argv[3];
    if (strcmp(what, "refused") == 0) {
        int fd = connect_to(host, port);
        printf("stranger: PMI_PORT %s\n", fd < 0 ? "refuses connections" : "accepted a connection");
        return fd < 0 ? 0 : 1;
    }
    if (strcmp(what, "initack") == 0 && argc > 4) {
        int fd = connect_to(host, port);
        if (fd < 0) {
            printf("stranger: cannot connect to PMI_PORT\n");
            return 1;
        }
        char line[300], reply[1024];
        int len = snprintf(line, sizeof(line), "cmd=initack pmiid=%s\n", argv[4]);
        if (write(fd, line, (size_t)len) != len)
            return 1;
        long got = read_full(fd, reply, 1, 5000);
        if (got != 0) {
            printf("stranger: the forged initack got %s\n", got > 0 ? "an answer" : "no close");
            return 1;
        }
        printf("stranger: the forged initack (pmiid=%s) was closed without a reply\n", argv[4]);
        return 0;
    }
    if (strcmp(what, "silent") == 0 && argc > 5) {
        int n = atoi(argv[4]), ms = atoi(argv[5]) * 1000, closed = 0;
        int *fds = calloc((size_t)n, sizeof(int));
        for (int i = 0; i < n; i++)
            fds[i] = connect_to(host, port);
        printf("stranger: %d silent PMI connections open\n", n);
        fflush(stdout);
        for (int i = 0; i < n; i++)
            closed += fds[i] < 0 || closed_within(fds[i], ms);
        free(fds);
        printf("stranger: %d of %d silent PMI connections closed by mpiexec\n", closed, n);
        return closed == n ? 0 : 1;
    }
    return 2;
}

/* Runs as a rank: PMI_FD is mpiexec's socketpair. */
static int pmiflood_mode(int argc, char **argv)
{
    const char *fdenv = getenv("PMI_FD");
    if (!fdenv || argc < 3)
        return 2;
    int fd = atoi(fdenv);
    const char req[] = "cmd=get_maxes\n";
    if (strcmp(argv[2], "flood") == 0) {
        /* Until mpiexec gives up on us (EPIPE) or kills us. */
        for (long i = 0; i < 10000000; i++)
            if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) < 0)
                break;
        pause();
        return 0;
    }
    /* fill: keep sending while replies pile up in our socket; once they stop
     * growing, mpiexec's writes would block (the old mpiexec did), and a
     * little more goes into its queue. */
    int last = -1, same = 0;
    while (same < 50) {
        if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) < 0)
            return 1;
        usleep(200);
        int pending = 0;
        ioctl(fd, FIONREAD, &pending);
        same = pending == last ? same + 1 : 0;
        last = pending;
    }
    for (int i = 0; i < 100; i++)
        send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL);
    fprintf(stderr, "stranger: %d bytes of replies unread; now waiting without reading\n", last);
    pause();
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;
    signal(SIGPIPE, SIG_IGN); /* writes to a connection the rank closed must just fail */
    if (argc > 1 && strcmp(argv[1], "tcp") == 0)
        rc = tcp_mode(argc, argv);
    else if (argc > 1 && strcmp(argv[1], "pmi") == 0)
        rc = pmi_mode(argc, argv);
    else if (argc > 1 && strcmp(argv[1], "pmiflood") == 0)
        rc = pmiflood_mode(argc, argv);
    if (rc == 2)
        fprintf(stderr, "stranger: bad arguments (see the top of test/harden/stranger.c)\n");
    return rc;
}
