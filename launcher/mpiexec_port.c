/* mpiexec_port.c: the PMI_PORT server: remote ranks connect over TCP and prove which rank they are.
 */
#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Who may connect (doc/security.md): anyone who reaches the address; what
 * makes a connection a rank's is the token in its PMI_ID, 128 random bits
 * per rank, good once.  Until then a connection is only a pending slot:
 * bounded in number and in time, and closed without a word on any mistake,
 * so a stranger learns nothing (not the kvsname, not which ranks exist). */

/* Connections that never identify themselves are bounded: each remote rank
 * makes one, a few strays are tolerated; beyond that the oldest stray goes. */
int MPIEXEC_port_pending_max(void)
{
    return job.nremote * 2 + 8;
}

/* Refusals and timeouts are reported one per line up to this many, then
 * only counted: a flood of strangers must not flood the user's terminal. */
#define REFUSALS_REPORTED 10

static void addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
    char host[INET6_ADDRSTRLEN] = "?", port[16] = "?";
    getnameinfo(
        sa, sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in),
        host, sizeof(host), port, sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(buf, len, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, port);
}

/* Listens on the one address remote ranks are told (-localhost, or the
 * source address toward the first remote host), not on every address:
 * networks the job does not use cannot reach it. */
int MPIEXEC_port_open(const opts_t *o)
{
    char addr[256];
    int fd = -1, err = 0;

    if (o->localhost) {
        snprintf(addr, sizeof(addr), "%s", o->localhost);
    } else {
        const char *toward = NULL;
        for (int i = 0; i < job.size && !toward; i++)
            if (job.ranks[i].remote)
                toward = job.hosts.hosts[job.ranks[i].host].name;
        MPIEXEC_pmi_address(toward, addr, sizeof(addr));
    }
    struct addrinfo hints = {
        .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *res = NULL, *ai;
    int gai = getaddrinfo(addr, "0", &hints, &res);
    if (gai != 0) {
        fprintf(stderr, "mpiexec: cannot listen for remote ranks' PMI connections on %s: %s\n",
                addr, gai_strerror(gai));
        return -1;
    }
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr,
                "mpiexec: cannot listen for remote ranks' PMI connections on %s: %s (errno %d)\n",
                addr, strerror(err), err);
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &len);
    addr_text((struct sockaddr *)&ss, job.pmi_port, sizeof(job.pmi_port));
    job.listen_fd = fd;
    job.pending = calloc((size_t)MPIEXEC_port_pending_max(), sizeof(*job.pending));
    if (!job.pending) {
        fprintf(stderr, "mpiexec: out of memory for PMI connections\n");
        return -1;
    }
    if (job.verbose)
        fprintf(stderr, "mpiexec: remote ranks reach PMI at PMI_PORT=%s\n", job.pmi_port);
    return 0;
}

static void refused(const MPIEXEC_pending_t *pc, const char *why)
{
    job.nrefused++;
    if (job.nrefused <= REFUSALS_REPORTED || job.verbose)
        fprintf(stderr, "mpiexec: closed a PMI connection from %s: %s\n", pc->from, why);
    else if (job.nrefused == REFUSALS_REPORTED + 1)
        fprintf(stderr, "mpiexec: more PMI connections closed; no longer reported one by one\n");
}

/* Closes without a word: the other side learns nothing from a refusal. */
static void pending_close(MPIEXEC_pending_t *pc, const char *why)
{
    refused(pc, why);
    close(pc->fd);
    pc->fd = -1;
}

/* Every remote rank is in: nobody else has any business connecting. */
static void stop_listening(void)
{
    if (job.listen_fd < 0)
        return;
    close(job.listen_fd);
    job.listen_fd = -1;
    for (int k = 0; k < job.npending; k++)
        if (job.pending[k].fd >= 0)
            pending_close(&job.pending[k], "every remote rank is connected already");
    if (job.verbose)
        fprintf(stderr, "mpiexec: every remote rank is connected; PMI_PORT closed\n");
}

/* Out of descriptors, accept fails while the connection stays queued, and
 * poll would report the listener at once, forever: stop watching it for a
 * while (100 ms, doubling up to 1.6 s) instead of spinning. */
static void accept_pause(int err)
{
    job.accept_pause_ms = job.accept_pause_ms ? job.accept_pause_ms * 2 : 100;
    if (job.accept_pause_ms > 1600)
        job.accept_pause_ms = 1600;
    job.accept_resume_at = MPIEXEC_now_ms() + job.accept_pause_ms;
    fprintf(stderr, "mpiexec: accepting PMI connections: %s (errno %d); pausing %ld ms\n",
            strerror(err), err, job.accept_pause_ms);
}

void MPIEXEC_port_accept(void)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof(ss);
        int fd = accept4(job.listen_fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                accept_pause(errno);
            return;
        }
        job.accept_pause_ms = 0;
        if (job.npending == MPIEXEC_port_pending_max()) {
            /* Full of connections that have not identified themselves: the
             * oldest goes (a rank identifies itself at once, so the oldest
             * is the likeliest stray). */
            pending_close(&job.pending[0], "too many connections that did not identify "
                                           "themselves; this was the oldest");
            memmove(&job.pending[0], &job.pending[1],
                    sizeof(job.pending[0]) * (size_t)(job.npending - 1));
            job.npending--;
        }
        /* Lock-step small lines: Nagle and delayed ACKs would add ~40 ms each. */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        MPIEXEC_pending_t *pc = &job.pending[job.npending++];
        pc->fd = fd;
        pc->deadline = MPIEXEC_now_ms() + (long long)job.port_timeout_sec * 1000;
        addr_text((struct sockaddr *)&ss, pc->from, sizeof(pc->from));
        PMIU_reader_init(&pc->reader, fd);
    }
}

long long MPIEXEC_port_timers(long long now)
{
    long long next = -1;
    for (int k = 0; k < job.npending; k++) {
        MPIEXEC_pending_t *pc = &job.pending[k];
        if (pc->fd < 0)
            continue;
        if (now >= pc->deadline) {
            char why[80];
            snprintf(why, sizeof(why),
                     "it did not identify itself within MPIEXEC_PORT_TIMEOUT=%d s",
                     job.port_timeout_sec);
            pending_close(pc, why);
        } else if (next < 0 || pc->deadline < next) {
            next = pc->deadline;
        }
    }
    if (job.accept_resume_at && now >= job.accept_resume_at)
        job.accept_resume_at = 0;
    if (job.accept_resume_at && (next < 0 || job.accept_resume_at < next))
        next = job.accept_resume_at;
    return next;
}

/* The PMI_PORT handshake: "cmd=initack pmiid=R:TOKEN" makes the connection
 * rank R's when TOKEN is R's; it is answered with initack and the size,
 * rank and debug settings.  Anything else is closed without an answer. */
void MPIEXEC_port_input(MPIEXEC_pending_t *pc)
{
    char line[PMIU_MAXLINE + 1];
    size_t len;
    PMIU_cmd_t cmd;

    long n = PMIU_reader_fill(&pc->reader);
    int rc = PMIU_reader_next(&pc->reader, line, &len);
    if (rc == PMIU_LINE_NONE) {
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(pc->fd); /* went away before saying who it is */
            pc->fd = -1;
        }
        return;
    }
    const char *c, *id;
    if (rc != PMIU_LINE_OK || PMIU_parse(line, len, &cmd) != 0 || !(c = PMIU_get(&cmd, "cmd")) ||
        strcmp(c, "initack") != 0 || !(id = PMIU_get(&cmd, "pmiid"))) {
        pending_close(pc, "it did not send cmd=initack pmiid=...");
        return;
    }
    /* RANK:TOKEN, the rank in decimal. */
    char *end;
    errno = 0;
    long rank = strtol(id, &end, 10);
    if (end == id || *end != ':' || errno || rank < 0 || rank >= job.size ||
        !job.ranks[rank].remote || !MPIEXEC_auth_equal(end + 1, job.ranks[rank].token)) {
        pending_close(pc, "its pmiid is not a remote rank's with that rank's token");
        return;
    }
    rank_t *r = &job.ranks[rank];
    if (r->pmi_fd >= 0 || r->reaped || r->initialized) {
        /* A token is good once.  Seen twice, it has leaked (from a process
         * list, with the launch command line): whoever came first may not be
         * the rank, so the job cannot be trusted any more. */
        fprintf(stderr,
                "mpiexec: a second PMI connection (from %s) showed rank %ld's token: it has "
                "leaked; killing the job\n",
                pc->from, rank);
        close(pc->fd);
        pc->fd = -1;
        MPIEXEC_kill_job(REASON_RANK, 1, 0);
        return;
    }
    r->pmi_fd = pc->fd;
    r->reader = pc->reader;
    pc->fd = -1;
    PMIU_msg_t msg;
    PMIU_msg_start(&msg, "initack");
    MPIEXEC_pmi_reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "size", job.size);
    MPIEXEC_pmi_reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "rank", rank);
    MPIEXEC_pmi_reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "debug", 0);
    MPIEXEC_pmi_reply(r, &msg);
    if (++job.nremote_in == job.nremote)
        stop_listening();
}
