/* mpiexec_port.c: the PMI_PORT server: remote ranks connect over TCP and say which rank they are.
 */
#include "mpiexec.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Connections that never identify themselves are bounded: each remote rank
 * makes one, a few strays are tolerated. */
int MPIEXEC_port_pending_max(void)
{
    return job.nremote * 2 + 8;
}

/* Listens on every address, so remote ranks may use whichever route they
 * have; PMI_PORT names the one they are told (-localhost, or found). */
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
    for (int v6 = 1; v6 >= 0 && fd < 0; v6--) {
        fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int zero = 0;
        struct sockaddr_storage ss;
        socklen_t len;
        memset(&ss, 0, sizeof(ss));
        if (v6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
            s6->sin6_family = AF_INET6;
            s6->sin6_addr = in6addr_any;
            len = sizeof(*s6);
        } else {
            struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
            s4->sin_family = AF_INET;
            s4->sin_addr.s_addr = htonl(INADDR_ANY);
            len = sizeof(*s4);
        }
        if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, SOMAXCONN) != 0) {
            err = errno;
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) {
        fprintf(stderr, "mpiexec: cannot listen for remote ranks' PMI connections: %s (errno %d)\n",
                strerror(err), err);
        return -1;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    getsockname(fd, (struct sockaddr *)&ss, &len);
    int port = ss.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                        : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    snprintf(job.pmi_port, sizeof(job.pmi_port), strchr(addr, ':') ? "[%s]:%d" : "%s:%d", addr,
             port);
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

void MPIEXEC_port_accept(void)
{
    for (;;) {
        int fd = accept4(job.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;
        }
        if (job.npending == MPIEXEC_port_pending_max()) {
            close(fd);
            continue;
        }
        /* Lock-step small lines: Nagle and delayed ACKs would add ~40 ms each. */
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        job.pending[job.npending].fd = fd;
        PMIU_reader_init(&job.pending[job.npending].reader, fd);
        job.npending++;
    }
}

static void pending_refuse(MPIEXEC_pending_t *pc, const char *why)
{
    char line[200];
    int len = snprintf(line, sizeof(line), "cmd=initack rc=-1 msg=%s\n", why);
    fprintf(stderr, "mpiexec: refused a PMI connection: %s\n", why);
    if (PMIU_writeall(pc->fd, line, (size_t)len) != 0 && job.verbose)
        fprintf(stderr, "mpiexec: %s\n", PMIU_last_error());
    close(pc->fd);
    pc->fd = -1;
}

/* The PMI_PORT handshake: "cmd=initack pmiid=N" makes the connection rank
 * N's; it is answered with initack and the size, rank and debug settings. */
void MPIEXEC_port_input(MPIEXEC_pending_t *pc)
{
    char line[PMIU_MAXLINE + 1];
    size_t len;
    PMIU_cmd_t cmd;
    int id;

    long n = PMIU_reader_fill(&pc->reader);
    int rc = PMIU_reader_next(&pc->reader, line, &len);
    if (rc == PMIU_LINE_NONE) {
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(pc->fd); /* went away before saying who it is */
            pc->fd = -1;
        }
        return;
    }
    if (job.verbose && rc == PMIU_LINE_OK)
        fprintf(stderr, "mpiexec: new PMI connection -> %s\n", line);
    if (rc != PMIU_LINE_OK || PMIU_parse(line, len, &cmd) != 0 || !PMIU_get(&cmd, "cmd") ||
        strcmp(PMIU_get(&cmd, "cmd"), "initack") != 0 || PMIU_get_int(&cmd, "pmiid", &id) != 0) {
        pending_refuse(pc, "expected_cmd=initack_pmiid=N");
        return;
    }
    if (id < 0 || id >= job.size || !job.ranks[id].remote) {
        pending_refuse(pc, "pmiid_is_not_a_remote_rank_of_this_job");
        return;
    }
    rank_t *r = &job.ranks[id];
    if (r->pmi_fd >= 0 || r->reaped) {
        pending_refuse(pc, "rank_already_connected_or_gone");
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
    PMIU_msg_add_int(&msg, "rank", id);
    MPIEXEC_pmi_reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "debug", 0);
    MPIEXEC_pmi_reply(r, &msg);
}