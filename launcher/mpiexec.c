/* mpiexec.c: Ferry launcher: starts ranks here or on other hosts, serves PMI-1, forwards output. */
#include "mpiexec_hosts.h"
#include "pmi_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Three fds per rank (PMI socket, stdout, stderr) must fit the fd limit;
 * beyond this a single node is oversubscribed past any use anyway. */
#define MAX_RANKS 4096
/* What get_maxes announces: Hydra's values, so programs tuned to Hydra fit. */
#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
/* SIGTERM first so ranks can clean up (shm segments, files); SIGKILL after
 * this long for the ones that ignore or hang in SIGTERM. */
#define TERM_TO_KILL_MS 1500
/* A rank exiting non-zero often means the others are exiting too (a common
 * input error): this pause lets them report their own codes before we kill. */
#define EXIT_GRACE_MS 500
/* After every rank is reaped, leftover children may hold the output pipes;
 * wait this long for them before killing their process groups. */
#define LEFTOVER_GRACE_MS 1000
/* After SIGKILL of leftovers, stop waiting for pipes held by processes that
 * left the rank's process group (setsid daemons). */
#define GIVEUP_MS 1000
/* Output is forwarded by whole lines so ranks' lines do not interleave; a
 * partial line is still flushed after this long, or when the buffer fills. */
#define PARTIAL_LINE_MS 100
#define OUTBUF_SIZE 65536
#define KVS_BUCKETS 1024

enum { EXIT_USAGE = 1, EXIT_NOT_FOUND = 127, EXIT_TIMEOUT = 124 };

/* Why the job is being killed; a higher value decides the exit code. */
enum kill_reason { REASON_NONE, REASON_RANK, REASON_ABORT, REASON_TIMEOUT, REASON_SIGNAL };

typedef struct stream {
    int fd;          /* read end of the rank's stdout or stderr pipe; -1 after EOF */
    int dest;        /* 1 or 2 */
    size_t len;      /* bytes buffered: a partial line */
    long long since; /* when the buffered partial line arrived */
    char *buf;
} stream_t;

typedef struct rank {
    pid_t pid;  /* the rank, or for a remote rank the launcher command that started it */
    int host;   /* index in job.hosts (0 when no host list was given) */
    int remote; /* started by the launcher command; PMI comes over TCP (PMI_PORT) */
    int pmi_fd; /* our end of the socketpair; -1 once closed */
    PMIU_reader_t reader;
    stream_t streams[2];
    int initialized;
    int finalized;
    int in_barrier;
    int in_mcmd; /* inside a multi-line mcmd=spawn ... endcmd request */
    int reaped;
    int status;
    int killed_by_us; /* died of a signal after we sent SIGTERM/SIGKILL */
} rank_t;

typedef struct kv_entry {
    struct kv_entry *next;
    char *key;
    char *value;
} kv_entry_t;

static struct {
    int size;
    rank_t *ranks;
    int nlive;    /* forked and not yet reaped */
    int nbarrier; /* ranks inside the current barrier */
    int verbose;
    char kvsname[64];
    kv_entry_t *kvs[KVS_BUCKETS];

    enum kill_reason reason;
    int reason_code;
    int term_sent;
    int kill_sent;
    long long term_at;   /* when to send SIGTERM; 0: not scheduled */
    long long kill_at;   /* when to send SIGKILL */
    long long giveup_at; /* when to stop waiting for held pipes */
    long long timeout_at;
    int timeout_sec;
    long long leftover_at;
    int stdout_broken[3];

    /* Multi-host jobs (mpiexec_hosts.c). */
    MPIEXEC_hosts_t hosts;
    int *local_index; /* each rank's index among the ranks of its node */
    int nremote;
    int disable_cleanup;          /* -disable-auto-cleanup: a failing rank does not end the job */
    int listen_fd;                /* PMI_PORT server for remote ranks; -1 if none */
    char pmi_port[300];           /* what remote ranks get as PMI_PORT */
    char mapping[VALLEN_MAX + 1]; /* PMI_process_mapping, or "" */
    struct pending {              /* accepted PMI connections that have not said who they are */
        int fd;
        PMIU_reader_t reader;
    } * pending;
    int npending;
} job = {.listen_fd = -1};

static int sig_pipe[2] = {-1, -1};

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_signal(int signo)
{
    int saved = errno;
    unsigned char b = (unsigned char)signo;
    /* The pipe is non-blocking: if it is full, a wakeup is already pending. */
    if (write(sig_pipe[1], &b, 1) < 0) {
    }
    errno = saved;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [-n N | -np N] [-hosts H1[:N],H2[:N]... | -f HOSTFILE] [-ppn N]\n"
            "               [-launcher ssh|exec] [-launcher-exec CMD] [-localhost ADDR]\n"
            "               [-genv NAME VALUE]... [-env NAME VALUE]... [-disable-auto-cleanup]\n"
            "               [-v] [--] program [args...]\n"
            "  -n, -np N        start N ranks (default 1, or every slot of the hosts; at most %d)\n"
            "  -hosts LIST      comma-separated hosts, each with an optional :slots count\n"
            "  -f FILE          hosts from a file, one host[:slots] per line, # comments\n"
            "  -ppn N           ranks per host and turn (overrides the slot counts)\n"
            "  -launcher STYLE  ssh: the remote command is one shell string (ssh, rsh);\n"
            "                   exec: it is separate words (ip netns exec, srun ...);\n"
            "                   default: ssh if the launcher command's name has ssh or rsh\n"
            "  -launcher-exec CMD  command that runs a program on a host: CMD HOST ...\n"
            "                   (default ssh; -bootstrap/-bootstrap-exec are the same)\n"
            "  -localhost ADDR  address the remote ranks reach this mpiexec at (default: found\n"
            "                   from the route toward the first remote host)\n"
            "  -genv, -env K V  set K=V in every rank's environment\n"
            "  -disable-auto-cleanup  keep the other ranks running when one fails\n"
            "  -v               print every PMI line exchanged on stderr\n"
            "Hosts named localhost or like this machine run their ranks here; the others\n"
            "are started with the launcher command and reach the PMI server over TCP.\n"
            "environment: MPIEXEC_TIMEOUT=SEC kills the job after SEC seconds (exit 124)\n",
            MAX_RANKS);
}

/* ---- key-value space ---- */

static unsigned kvs_hash(const char *s)
{
    /* FNV-1a: short keys like "P12-shm", spread well enough for a table this size. */
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % KVS_BUCKETS;
}

static kv_entry_t *kvs_find(const char *key)
{
    for (kv_entry_t *e = job.kvs[kvs_hash(key)]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static int kvs_put(const char *key, const char *value)
{
    kv_entry_t *e = kvs_find(key);
    char *v = strdup(value);

    if (v == NULL)
        return -1;
    if (e) {
        /* Last put wins, as in Hydra; MPICH re-puts cards after a restart of a method. */
        free(e->value);
        e->value = v;
        return 0;
    }
    e = malloc(sizeof(*e));
    if (e == NULL || (e->key = strdup(key)) == NULL) {
        free(e);
        free(v);
        return -1;
    }
    e->value = v;
    unsigned h = kvs_hash(key);
    e->next = job.kvs[h];
    job.kvs[h] = e;
    return 0;
}

/* ---- killing ---- */

static void signal_all(int signo)
{
    for (int i = 0; i < job.size; i++) {
        /* The group outlives its leader while a child of the rank is alive;
         * ESRCH just means the group is already empty. */
        if (job.ranks[i].pid > 0)
            kill(-job.ranks[i].pid, signo);
    }
}

static void send_term(long long now)
{
    if (job.term_sent)
        return;
    signal_all(SIGTERM);
    job.term_sent = 1;
    job.kill_at = now + TERM_TO_KILL_MS;
}

static void send_kill(long long now)
{
    if (job.kill_sent)
        return;
    signal_all(SIGKILL);
    job.term_sent = 1;
    job.kill_sent = 1;
    job.giveup_at = now + GIVEUP_MS;
}

/* Schedules killing of the whole job in delay_ms; reason and code decide the exit code. */
static void kill_job(enum kill_reason reason, int code, long long delay_ms)
{
    long long at = now_ms() + delay_ms;

    if (reason > job.reason) {
        job.reason = reason;
        job.reason_code = code;
    }
    if (!job.term_sent && (job.term_at == 0 || at < job.term_at))
        job.term_at = at;
}

/* ---- output forwarding ---- */

static void write_out(int dest, const char *buf, size_t len)
{
    if (len == 0 || job.stdout_broken[dest])
        return;
    if (PMIU_writeall(dest, buf, len) != 0) {
        /* Keep draining the ranks so they do not block on a full pipe, but
         * stop writing to a destination that is gone. */
        job.stdout_broken[dest] = 1;
        if (dest == 1)
            fprintf(stderr,
                    "mpiexec: writing ranks' output to stdout failed: %s; "
                    "discarding the rest\n",
                    PMIU_last_error());
    }
}

static void stream_close(stream_t *s)
{
    write_out(s->dest, s->buf, s->len);
    s->len = 0;
    close(s->fd);
    s->fd = -1;
}

static void stream_read(rank_t *r, stream_t *s, long long now)
{
    for (;;) {
        ssize_t n = read(s->fd, s->buf + s->len, OUTBUF_SIZE - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n <= 0) {
            if (n < 0)
                fprintf(stderr, "mpiexec: reading %s of rank %d: %s (errno %d)\n",
                        s->dest == 1 ? "stdout" : "stderr", (int)(r - job.ranks), strerror(errno),
                        errno);
            stream_close(s);
            return;
        }
        if (s->len == 0)
            s->since = now;
        s->len += (size_t)n;
        char *nl = memrchr(s->buf, '\n', s->len);
        if (nl) {
            size_t upto = (size_t)(nl + 1 - s->buf);
            write_out(s->dest, s->buf, upto);
            s->len -= upto;
            memmove(s->buf, s->buf + upto, s->len);
            s->since = now;
        } else if (s->len == OUTBUF_SIZE) {
            write_out(s->dest, s->buf, s->len);
            s->len = 0;
        }
        /* Return to poll after one read so a chatty rank cannot starve the
         * PMI service of the others. */
        return;
    }
}

/* ---- PMI service ---- */

static void reply(rank_t *r, PMIU_msg_t *msg)
{
    int rank = (int)(r - job.ranks);
    int len = PMIU_msg_finish(msg);

    if (len < 0) {
        fprintf(stderr, "mpiexec: internal error formatting a PMI reply to rank %d: %s\n", rank,
                PMIU_last_error());
        return;
    }
    if (job.verbose)
        fprintf(stderr, "mpiexec: rank %d <- %s", rank, msg->line);
    if (r->pmi_fd < 0)
        return;
    /* A rank that died mid-request gives EPIPE; its exit is handled by the reaper. */
    if (PMIU_writeall(r->pmi_fd, msg->line, (size_t)len) != 0 && job.verbose)
        fprintf(stderr, "mpiexec: reply to rank %d: %s\n", rank, PMIU_last_error());
}

static void reply_error(rank_t *r, const char *cmd, const char *msg_text)
{
    PMIU_msg_t msg;
    PMIU_msg_start(&msg, cmd);
    PMIU_msg_add(&msg, "rc", "-1");
    PMIU_msg_add(&msg, "msg", msg_text);
    reply(r, &msg);
}

static void reply_ok(rank_t *r, const char *cmd)
{
    PMIU_msg_t msg;
    PMIU_msg_start(&msg, cmd);
    PMIU_msg_add(&msg, "rc", "0");
    reply(r, &msg);
}

/* A kvsname is optional in put and get; if given it must be ours. */
static int kvsname_ok(rank_t *r, const PMIU_cmd_t *cmd, const char *result_cmd)
{
    const char *name = PMIU_get(cmd, "kvsname");
    if (name && strcmp(name, job.kvsname) != 0) {
        reply_error(r, result_cmd, "unknown_kvsname");
        return 0;
    }
    return 1;
}

static void do_init(rank_t *r, const PMIU_cmd_t *cmd)
{
    PMIU_msg_t msg;
    int version = -1;

    PMIU_msg_start(&msg, "response_to_init");
    PMIU_msg_add(&msg, "pmi_version", "1");
    PMIU_msg_add(&msg, "pmi_subversion", "1");
    if (PMIU_get_int(cmd, "pmi_version", &version) != 0 || version != 1) {
        /* A PMI-2 client asks with pmi_version=2; refuse it clearly. */
        PMIU_msg_add(&msg, "rc", "-1");
        PMIU_msg_add(&msg, "msg", "only_pmi_version_1_is_supported");
    } else {
        PMIU_msg_add(&msg, "rc", "0");
        r->initialized = 1;
    }
    reply(r, &msg);
}

static void do_put(rank_t *r, const PMIU_cmd_t *cmd)
{
    const char *key = PMIU_get(cmd, "key");
    const char *value = PMIU_get(cmd, "value");

    if (!kvsname_ok(r, cmd, "put_result"))
        return;
    if (key == NULL || value == NULL) {
        reply_error(r, "put_result", key ? "missing_value" : "missing_key");
        return;
    }
    if (strlen(key) > KEYLEN_MAX) {
        reply_error(r, "put_result", "key_longer_than_keylen_max");
        return;
    }
    /* The value must come back in "cmd=get_result rc=0 value=...\n", which is
     * longer than a put without kvsname= by a few bytes. */
    if (strlen(value) > VALLEN_MAX || strlen(value) + 27 > PMIU_MAXLINE) {
        reply_error(r, "put_result", "value_too_long_for_a_get_result_line");
        return;
    }
    if (kvs_put(key, value) != 0) {
        fprintf(stderr, "mpiexec: out of memory storing key %s for rank %d\n", key,
                (int)(r - job.ranks));
        reply_error(r, "put_result", "out_of_memory");
        return;
    }
    reply_ok(r, "put_result");
}

static void do_get(rank_t *r, const PMIU_cmd_t *cmd)
{
    const char *key = PMIU_get(cmd, "key");
    char mapping[64];
    const char *value = NULL;
    PMIU_msg_t msg;

    if (!kvsname_ok(r, cmd, "get_result"))
        return;
    if (key == NULL) {
        reply_error(r, "get_result", "missing_key");
        return;
    }
    kv_entry_t *e = kvs_find(key);
    if (e) {
        value = e->value;
    } else if (strcmp(key, "PMI_process_mapping") == 0) {
        /* MPICH's locality format, computed from the placement at start-up;
         * one node (id 0) holding one block of all ranks without hosts.  An
         * irregular placement too long for a line is not announced. */
        value = job.mapping[0] ? job.mapping : NULL;
    } else if (strcmp(key, "universeSize") == 0) {
        snprintf(mapping, sizeof(mapping), "%d", job.size);
        value = mapping;
    }
    if (value == NULL) {
        reply_error(r, "get_result", "key_not_found");
        return;
    }
    PMIU_msg_start(&msg, "get_result");
    PMIU_msg_add(&msg, "rc", "0");
    PMIU_msg_add(&msg, "value", value);
    reply(r, &msg);
}

static void do_barrier(rank_t *r)
{
    if (r->in_barrier) {
        reply_error(r, "barrier_out", "already_in_barrier");
        return;
    }
    r->in_barrier = 1;
    if (++job.nbarrier < job.size)
        return;
    /* Every put is stored as it arrives, so all of them are visible by now:
     * releasing the barrier is the whole fence. */
    job.nbarrier = 0;
    for (int i = 0; i < job.size; i++) {
        job.ranks[i].in_barrier = 0;
        reply_ok(&job.ranks[i], "barrier_out");
    }
}

static void do_abort(rank_t *r, const PMIU_cmd_t *cmd)
{
    int code = 1;
    const char *text = PMIU_get(cmd, "msg");

    if (text == NULL)
        text = PMIU_get(cmd, "error_msg");
    if (PMIU_get(cmd, "exitcode") && PMIU_get_int(cmd, "exitcode", &code) != 0)
        code = 1;
    fprintf(stderr,
            "mpiexec: rank %d (pid %d) called MPI_Abort/PMI_Abort with error code %d%s%s%s%s\n",
            (int)(r - job.ranks), (int)r->pid, code, text ? " (" : "", text ? text : "",
            text ? ")" : "", job.term_sent ? "" : "; killing the job");
    /* An exit status is 8 bits; a code that truncates to 0 must still fail. */
    code &= 0xff;
    kill_job(REASON_ABORT, code ? code : 1, 0);
}

static void handle_line(rank_t *r, const char *line, size_t len)
{
    int rank = (int)(r - job.ranks);
    PMIU_cmd_t cmd;
    PMIU_msg_t msg;

    if (job.verbose)
        fprintf(stderr, "mpiexec: rank %d -> %s\n", rank, line);
    if (r->in_mcmd) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, "endcmd", 6) == 0 && p[6 + strspn(p + 6, " \t\r")] == '\0') {
            r->in_mcmd = 0;
            reply_error(r, "spawn_result", "spawn_is_not_supported_by_this_mpiexec");
        }
        return;
    }
    if (PMIU_parse(line, len, &cmd) != 0) {
        fprintf(stderr, "mpiexec: rank %d sent a malformed PMI line (%s): '%.80s'\n", rank,
                PMIU_last_error(), line);
        reply_error(r, "error", "malformed_PMI_line");
        return;
    }
    if (PMIU_get(&cmd, "mcmd")) {
        r->in_mcmd = 1;
        return;
    }
    const char *c = PMIU_get(&cmd, "cmd");
    if (c == NULL) {
        fprintf(stderr, "mpiexec: rank %d sent a PMI line without cmd=: '%.80s'\n", rank, line);
        reply_error(r, "error", "missing_cmd");
        return;
    }

    if (strcmp(c, "init") == 0) {
        do_init(r, &cmd);
    } else if (strcmp(c, "get_maxes") == 0) {
        PMIU_msg_start(&msg, "maxes");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add_int(&msg, "kvsname_max", KVSNAME_MAX);
        PMIU_msg_add_int(&msg, "keylen_max", KEYLEN_MAX);
        PMIU_msg_add_int(&msg, "vallen_max", VALLEN_MAX);
        reply(r, &msg);
    } else if (strcmp(c, "get_my_kvsname") == 0) {
        PMIU_msg_start(&msg, "my_kvsname");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add(&msg, "kvsname", job.kvsname);
        reply(r, &msg);
    } else if (strcmp(c, "get_universe_size") == 0) {
        PMIU_msg_start(&msg, "universe_size");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add_int(&msg, "size", job.size);
        reply(r, &msg);
    } else if (strcmp(c, "get_appnum") == 0) {
        PMIU_msg_start(&msg, "appnum");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add(&msg, "appnum", "0");
        reply(r, &msg);
    } else if (strcmp(c, "put") == 0) {
        do_put(r, &cmd);
    } else if (strcmp(c, "get") == 0) {
        do_get(r, &cmd);
    } else if (strcmp(c, "barrier_in") == 0) {
        do_barrier(r);
    } else if (strcmp(c, "finalize") == 0) {
        r->finalized = 1;
        reply_ok(r, "finalize_ack");
    } else if (strcmp(c, "abort") == 0) {
        do_abort(r, &cmd);
    } else if (strcmp(c, "spawn") == 0) {
        reply_error(r, "spawn_result", "spawn_is_not_supported_by_this_mpiexec");
    } else if (strcmp(c, "publish_name") == 0) {
        reply_error(r, "publish_result", "publish_is_not_supported_by_this_mpiexec");
    } else if (strcmp(c, "unpublish_name") == 0) {
        reply_error(r, "unpublish_result", "unpublish_is_not_supported_by_this_mpiexec");
    } else if (strcmp(c, "lookup_name") == 0) {
        reply_error(r, "lookup_result", "lookup_is_not_supported_by_this_mpiexec");
    } else {
        char result[80];
        fprintf(stderr, "mpiexec: rank %d sent unknown PMI command cmd=%.40s\n", rank, c);
        snprintf(result, sizeof(result), "%.60s_result", c);
        reply_error(r, PMIU_key_ok(result) ? result : "error", "unknown_command");
    }
}

static void pmi_close(rank_t *r)
{
    close(r->pmi_fd);
    r->pmi_fd = -1;
    /* A rank gone from the barrier must not count toward its release. */
    if (r->in_barrier) {
        r->in_barrier = 0;
        job.nbarrier--;
    }
}

/* Reads what the socket holds and serves each complete line; returns what
 * the read gave: bytes, 0 at EOF (fd closed), -1 with errno (EAGAIN: drained). */
static long pmi_input(rank_t *r)
{
    char line[PMIU_MAXLINE + 1];
    size_t len;
    long n;

    n = PMIU_reader_fill(&r->reader);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return n;
    for (;;) {
        int rc = PMIU_reader_next(&r->reader, line, &len);
        if (rc == PMIU_LINE_NONE)
            break;
        if (rc == PMIU_LINE_TOOLONG) {
            fprintf(stderr, "mpiexec: rank %d: %s\n", (int)(r - job.ranks), PMIU_last_error());
            reply_error(r, "error", "line_too_long");
            continue;
        }
        handle_line(r, line, len);
        if (r->pmi_fd < 0)
            return n;
    }
    if (n <= 0) {
        /* EOF or a broken socket: the rank exited or closed PMI; its exit
         * status, collected by the reaper, says which. */
        /* ECONNRESET just means the rank died with replies unread. */
        if (n < 0 && errno != ECONNRESET)
            fprintf(stderr, "mpiexec: rank %d: %s\n", (int)(r - job.ranks), PMIU_last_error());
        pmi_close(r);
    }
    return n;
}

/* ---- rank exits ---- */

/* " on host X" for a rank started by the launcher command, else "". */
static const char *where(const rank_t *r)
{
    static char buf[300];
    if (!r->remote)
        return "";
    snprintf(buf, sizeof(buf), " on host %s", job.hosts.hosts[r->host].name);
    return buf;
}

/* A rank failed: end the job after delay_ms, unless -disable-auto-cleanup
 * asked to let the others run (the reason still decides the exit code). */
static void rank_failed(int code, long long delay_ms)
{
    if (job.disable_cleanup) {
        if (job.reason <= REASON_RANK) {
            job.reason = REASON_RANK;
            job.reason_code = code;
        }
        return;
    }
    kill_job(REASON_RANK, code, delay_ms);
}

static void rank_exited(rank_t *r, int status)
{
    int rank = (int)(r - job.ranks);
    const char *tail = (job.nlive > 1 && !job.term_sent)
                           ? (job.disable_cleanup ? "; the others go on (-disable-auto-cleanup)"
                                                  : "; killing the job")
                           : "";

    /* Whatever the rank wrote before exiting (an abort) is still in the socket. */
    while (r->pmi_fd >= 0 && pmi_input(r) > 0) {
    }
    /* A child of the rank may still hold the socket (PMI_FD is inherited by
     * programs that do not use it); nothing it says matters any more. */
    if (r->pmi_fd >= 0)
        pmi_close(r);
    r->reaped = 1;
    r->status = status;
    job.nlive--;

    if (WIFSIGNALED(status)) {
        if (job.term_sent) {
            r->killed_by_us = 1; /* our own SIGTERM/SIGKILL */
            return;
        }
        int sig = WTERMSIG(status);
        fprintf(stderr, "mpiexec: rank %d (pid %d%s) killed by signal %d (%s)%s\n", rank,
                (int)r->pid, where(r), sig, strsignal(sig), tail);
        rank_failed(128 + sig, 0);
        return;
    }
    int code = WEXITSTATUS(status);
    if (code != 0) {
        if (job.reason == REASON_NONE || job.reason == REASON_RANK)
            fprintf(stderr, "mpiexec: rank %d (pid %d%s) exited with code %d%s\n", rank,
                    (int)r->pid, where(r), code, tail);
        rank_failed(code, EXIT_GRACE_MS);
    } else if (r->initialized && !r->finalized && job.nlive > 0 && job.reason == REASON_NONE) {
        /* The others would wait for it in the next barrier forever. */
        fprintf(stderr,
                "mpiexec: rank %d (pid %d%s) exited with code 0 without calling PMI "
                "finalize while other ranks still run%s\n",
                rank, (int)r->pid, where(r), tail);
        rank_failed(1, EXIT_GRACE_MS);
    }
}

/* Ranks in a barrier wait for every rank; one that has exited can never
 * enter, so without this the job would hang. Only reaped ranks count: a
 * closed PMI connection is usually seen just before the exit, whose own
 * report (exit code, signal) is the better message. */
static void check_barrier(void)
{
    if (job.nbarrier == 0 || job.term_at)
        return;
    for (int i = 0; i < job.size; i++) {
        rank_t *r = &job.ranks[i];
        if (r->reaped) {
            fprintf(stderr,
                    "mpiexec: %d rank(s) wait in a PMI barrier that rank %d (pid %d, "
                    "exited) can never enter; killing the job\n",
                    job.nbarrier, i, (int)r->pid);
            kill_job(REASON_RANK, 1, 0);
            return;
        }
    }
}

static void reap(void)
{
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid <= 0)
            return;
        for (int i = 0; i < job.size; i++) {
            if (job.ranks[i].pid == pid && !job.ranks[i].reaped) {
                rank_exited(&job.ranks[i], status);
                break;
            }
        }
    }
}

/* ---- startup ---- */

/* Resolves prog like execvp would, so a typo fails before any rank starts. */
static char *find_program(const char *prog)
{
    struct stat st;
    const char *path_env = getenv("PATH");
    char *found = NULL;

    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0) {
            fprintf(stderr, "mpiexec: cannot run %s: %s\n", prog, strerror(errno));
            return NULL;
        }
        if (S_ISDIR(st.st_mode) || access(prog, X_OK) != 0) {
            fprintf(stderr, "mpiexec: cannot run %s: %s\n", prog,
                    S_ISDIR(st.st_mode) ? "is a directory" : "not executable (Permission denied)");
            return NULL;
        }
        return strdup(prog);
    }
    if (path_env == NULL || path_env[0] == '\0')
        path_env = "/usr/local/bin:/usr/bin:/bin";
    int saw_nonexec = 0;
    const char *p = path_env;
    while (!found) {
        const char *colon = strchr(p, ':');
        size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
        char *cand;
        /* An empty PATH element means the current directory. */
        if (asprintf(&cand, "%.*s%s%s", (int)dlen, dlen ? p : ".", "/", prog) < 0)
            break;
        if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
            if (access(cand, X_OK) == 0)
                found = cand;
            else
                saw_nonexec = 1;
        }
        if (found != cand)
            free(cand);
        if (!colon)
            break;
        p = colon + 1;
    }
    if (!found)
        fprintf(stderr, "mpiexec: cannot run %s: %s in PATH=%s\n", prog,
                saw_nonexec ? "not executable (Permission denied)" : "command not found", path_env);
    return found;
}

static int parse_count(const char *opt, const char *s, int *n_p)
{
    char *end;
    long v;

    errno = 0;
    v = s ? strtol(s, &end, 10) : 0;
    if (s == NULL || end == s || *end != '\0' || errno != 0 || v < 1 || v > MAX_RANKS) {
        fprintf(stderr, "mpiexec: %s %s: the number of ranks must be an integer from 1 to %d\n",
                opt, s ? s : "(missing)", MAX_RANKS);
        return -1;
    }
    *n_p = (int)v;
    return 0;
}

static int check_fd_limit(int n)
{
    struct rlimit rl;
    /* Ours: 3 per rank, plus the child ends while one rank is being forked. */
    rlim_t need = (rlim_t)n * 3 + 16;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) {
        rl.rlim_cur = need;
        if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
            return 0;
    }
    fprintf(stderr, "mpiexec: -n %d needs %lu file descriptors, the limit is %lu\n", n,
            (unsigned long)need, (unsigned long)rl.rlim_cur);
    return -1;
}

typedef struct opts {
    int n;
    int n_given; /* -n was on the command line */
    int ppn;     /* 0: each host's slot count */
    int nenv;
    char **env; /* name, value pairs */
    char **argv;
    const char *launcher;      /* -launcher: "ssh", "exec" or NULL (from the command's name) */
    const char *launcher_exec; /* -launcher-exec; NULL: ssh */
    const char *localhost;     /* -localhost */
    MPIEXEC_launch_style_t style;
    char **lwords; /* the launcher command split into words */
    int nlwords;
} opts_t;

/* The value of an option that takes one; NULL after a message if missing. */
static const char *opt_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc || argv[i + 1][0] == '\0') {
        fprintf(stderr, "mpiexec: %s needs a value\n", argv[i]);
        return NULL;
    }
    return argv[i + 1];
}

static int parse_args(int argc, char **argv, opts_t *o)
{
    int i;

    o->n = 1;
    o->nenv = 0;
    o->env = calloc((size_t)argc, sizeof(char *));
    if (o->env == NULL)
        return -1;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        } else if (strcmp(a, "-n") == 0 || strcmp(a, "-np") == 0) {
            if (parse_count(a, i + 1 < argc ? argv[i + 1] : NULL, &o->n) != 0)
                return -1;
            o->n_given = 1;
            i++;
        } else if (strcmp(a, "-ppn") == 0) {
            if (parse_count(a, i + 1 < argc ? argv[i + 1] : NULL, &o->ppn) != 0)
                return -1;
            i++;
        } else if (strcmp(a, "-hosts") == 0 || strcmp(a, "-host") == 0) {
            const char *v = opt_value(argc, argv, i++);
            if (!v || MPIEXEC_hosts_add_list(&job.hosts, v, a) != 0)
                return -1;
        } else if (strcmp(a, "-f") == 0 || strcmp(a, "-hostfile") == 0 ||
                   strcmp(a, "-machinefile") == 0) {
            const char *v = opt_value(argc, argv, i++);
            if (!v || MPIEXEC_hosts_add_file(&job.hosts, v) != 0)
                return -1;
        } else if (strcmp(a, "-launcher") == 0 || strcmp(a, "-bootstrap") == 0) {
            const char *v = opt_value(argc, argv, i++);
            if (!v)
                return -1;
            if (strcmp(v, "ssh") && strcmp(v, "rsh") && strcmp(v, "exec")) {
                fprintf(stderr, "mpiexec: %s %s: use ssh (or rsh) or exec\n", a, v);
                return -1;
            }
            o->launcher = v;
        } else if (strcmp(a, "-launcher-exec") == 0 || strcmp(a, "-bootstrap-exec") == 0) {
            if (!(o->launcher_exec = opt_value(argc, argv, i++)))
                return -1;
        } else if (strcmp(a, "-localhost") == 0) {
            if (!(o->localhost = opt_value(argc, argv, i++)))
                return -1;
        } else if (strcmp(a, "-disable-auto-cleanup") == 0) {
            job.disable_cleanup = 1;
        } else if (strcmp(a, "-genv") == 0 || strcmp(a, "-env") == 0) {
            if (i + 2 >= argc) {
                fprintf(stderr, "mpiexec: %s needs a NAME and a VALUE\n", a);
                return -1;
            }
            if (argv[i + 1][0] == '\0' || strchr(argv[i + 1], '=')) {
                fprintf(stderr, "mpiexec: %s %s: not a valid environment variable name\n", a,
                        argv[i + 1]);
                return -1;
            }
            o->env[o->nenv++] = argv[i + 1];
            o->env[o->nenv++] = argv[i + 2];
            i += 2;
        } else if (strcmp(a, "-v") == 0) {
            job.verbose = 1;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "mpiexec: unknown option %s\n", a);
            usage(stderr);
            return -1;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program to run\n");
        usage(stderr);
        return -1;
    }
    o->argv = argv + i;
    return 0;
}

/* Ranks on the node of rank (for MPI_LOCALNRANKS). */
static int node_nranks(int rank)
{
    int node = job.hosts.hosts[job.ranks[rank].host].node_id, n = 0;
    for (int q = 0; q < job.size; q++)
        n += job.hosts.hosts[job.ranks[q].host].node_id == node;
    return n;
}

/* In the forked child: a local rank gets PMI_FD and execs the program; a
 * remote one execs the launcher command (remote_argv). */
static void child_exec(int rank, int pmi_fd, int out_w, int err_w, const opts_t *o,
                       const char *path, char **remote_argv)
{
    char num[32];
    sigset_t none;
    static const int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT};

    /* Own process group: kill(-pid) then reaches whatever the rank starts. */
    setpgid(0, 0);
    /* Ignored signals stay ignored across exec; the rank must get defaults. */
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        signal(sigs[i], SIG_DFL);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(EXIT_NOT_FOUND);
    /* Only rank 0 reads our stdin, and only if it is not a terminal: a rank
     * outside the foreground process group would be stopped by SIGTTIN. */
    if (rank != 0 || isatty(0)) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0 && devnull != 0) {
            dup2(devnull, 0);
            close(devnull);
        }
    }
    if (remote_argv) {
        execvp(remote_argv[0], remote_argv);
        fprintf(stderr, "mpiexec: rank %d: exec of the launcher command %s: %s (errno %d)\n", rank,
                remote_argv[0], strerror(errno), errno);
        _exit(EXIT_NOT_FOUND);
    }
    /* Every other fd of ours is close-on-exec; this one must survive. */
    fcntl(pmi_fd, F_SETFD, 0);

    snprintf(num, sizeof(num), "%d", pmi_fd);
    setenv("PMI_FD", num, 1);
    snprintf(num, sizeof(num), "%d", rank);
    setenv("PMI_RANK", num, 1);
    snprintf(num, sizeof(num), "%d", job.local_index[rank]);
    setenv("MPI_LOCALRANKID", num, 1);
    snprintf(num, sizeof(num), "%d", o->n);
    setenv("PMI_SIZE", num, 1);
    snprintf(num, sizeof(num), "%d", node_nranks(rank));
    setenv("MPI_LOCALNRANKS", num, 1);
    setenv("PMI_SPAWNED", "0", 1);
    /* Inherited from an outer launcher, these would make the client connect there. */
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    for (int i = 0; i < o->nenv; i += 2)
        setenv(o->env[i], o->env[i + 1], 1);

    execv(path, o->argv);
    fprintf(stderr, "mpiexec: rank %d: exec %s: %s (errno %d)\n", rank, path, strerror(errno),
            errno);
    _exit(EXIT_NOT_FOUND);
}

/* ---- remote ranks ---- */

typedef struct words {
    char **v;
    int n, cap;
    int failed;
} words_t;

static void words_add(words_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void words_add(words_t *w, const char *fmt, ...)
{
    va_list ap;
    char *x = NULL;
    if (w->failed)
        return;
    if (w->n + 2 > w->cap) {
        int cap = w->cap ? w->cap * 2 : 32;
        char **v = realloc(w->v, (size_t)cap * sizeof(char *));
        if (!v) {
            w->failed = 1;
            return;
        }
        w->v = v;
        w->cap = cap;
    }
    va_start(ap, fmt);
    if (vasprintf(&x, fmt, ap) < 0)
        x = NULL;
    va_end(ap);
    if (!x) {
        w->failed = 1;
        return;
    }
    w->v[w->n++] = x;
    w->v[w->n] = NULL;
}

static void words_free(words_t *w)
{
    for (int i = 0; i < w->n; i++)
        free(w->v[i]);
    free(w->v);
    memset(w, 0, sizeof(*w));
}

extern char **environ;

/* The launcher command line that starts rank on its host:
 *   LAUNCHER HOST env -u PMI_FD ... PMI_PORT=... PMI_ID=rank ... program args
 * exec style passes those words as they are; ssh style joins them, quoted,
 * into one shell command that first changes to our working directory. */
static char **remote_argv(int rank, const opts_t *o)
{
    words_t cmd = {0}, out = {0};
    char cwd[PATH_MAX];
    int ssh = o->style == MPIEXEC_LAUNCH_SSH;

    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), ".");
    words_add(&cmd, "env");
    /* An outer launcher's variables would make the client connect there. */
    words_add(&cmd, "-u");
    words_add(&cmd, "PMI_FD");
    words_add(&cmd, "-u");
    words_add(&cmd, "PMI_RANK");
    words_add(&cmd, "-u");
    words_add(&cmd, "PMI_SIZE");
    words_add(&cmd, "PMI_PORT=%s", job.pmi_port);
    words_add(&cmd, "PMI_ID=%d", rank);
    words_add(&cmd, "PMI_SPAWNED=0");
    words_add(&cmd, "MPI_LOCALRANKID=%d", job.local_index[rank]);
    words_add(&cmd, "MPI_LOCALNRANKS=%d", node_nranks(rank));
    if (ssh) {
        /* ssh carries no environment: pass on what configures Ferry and
         * finds its library; an exec-style launcher inherits it all. */
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "FERRY_", 6) == 0 || strncmp(*e, "PMI_DEBUG=", 10) == 0 ||
                strncmp(*e, "LD_LIBRARY_PATH=", 16) == 0)
                words_add(&cmd, "%s", *e);
    }
    for (int i = 0; i < o->nenv; i += 2)
        words_add(&cmd, "%s=%s", o->env[i], o->env[i + 1]);
    /* A relative path is relative to our directory, wherever the launcher starts. */
    if (strchr(o->argv[0], '/') && o->argv[0][0] != '/')
        words_add(&cmd, "%s/%s", cwd, o->argv[0]);
    else
        words_add(&cmd, "%s", o->argv[0]);
    for (int i = 1; o->argv[i]; i++)
        words_add(&cmd, "%s", o->argv[i]);

    for (int i = 0; i < o->nlwords; i++)
        words_add(&out, "%s", o->lwords[i]);
    words_add(&out, "%s", job.hosts.hosts[job.ranks[rank].host].name);
    if (ssh && !cmd.failed) {
        size_t len = strlen(cwd) * 4 + 64;
        for (int i = 0; i < cmd.n; i++)
            len += strlen(cmd.v[i]) * 4 + 3;
        char *line = calloc(1, len);
        if (!line || MPIEXEC_shell_quote(line, len, "cd") || MPIEXEC_shell_quote(line, len, cwd)) {
            cmd.failed = 1;
        } else {
            strcat(line, " 2>/dev/null; exec");
            for (int i = 0; i < cmd.n && !cmd.failed; i++)
                cmd.failed = MPIEXEC_shell_quote(line, len, cmd.v[i]) != 0;
            words_add(&out, "%s", line);
        }
        free(line);
    } else {
        for (int i = 0; i < cmd.n; i++)
            words_add(&out, "%s", cmd.v[i]);
    }
    if (cmd.failed || out.failed) {
        fprintf(stderr, "mpiexec: out of memory building the command line of rank %d\n", rank);
        words_free(&cmd);
        words_free(&out);
        return NULL;
    }
    words_free(&cmd);
    return out.v;
}

static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int spawn_rank(int rank, const opts_t *o, const char *path)
{
    rank_t *r = &job.ranks[rank];
    int sv[2] = {-1, -1}, out[2], err[2];
    sigset_t all, old;
    char **rargv = NULL;

    if (r->remote) {
        /* Remote: the launcher command's output is the rank's; PMI comes by TCP. */
        if (!(rargv = remote_argv(rank, o)))
            return -1;
        if (job.verbose) {
            fprintf(stderr, "mpiexec: rank %d:", rank);
            for (char **a = rargv; *a; a++)
                fprintf(stderr, " %s", *a);
            fprintf(stderr, "\n");
        }
    } else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        goto fn_fail;
    }
    if (pipe2(out, O_CLOEXEC) != 0)
        goto fn_fail_sv;
    if (pipe2(err, O_CLOEXEC) != 0)
        goto fn_fail_out;

    /* Blocked across fork so the child cannot run our handlers before it
     * resets them. */
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0)
        child_exec(rank, sv[1], out[1], err[1], o, path, rargv);
    int fork_errno = errno;
    if (pid > 0) {
        /* Also from the parent: a kill right after fork must find the group. */
        setpgid(pid, pid);
        r->pid = pid;
        job.nlive++;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (pid < 0) {
        errno = fork_errno;
        goto fn_fail_err;
    }

    if (rargv) {
        for (char **a = rargv; *a; a++)
            free(*a);
        free(rargv);
    } else {
        close(sv[1]);
        r->pmi_fd = sv[0];
        set_nonblock(sv[0]);
        PMIU_reader_init(&r->reader, sv[0]);
    }
    close(out[1]);
    close(err[1]);
    r->streams[0].fd = out[0];
    r->streams[1].fd = err[0];
    set_nonblock(out[0]);
    set_nonblock(err[0]);
    return 0;

fn_fail_err:
    close(err[0]);
    close(err[1]);
fn_fail_out:
    close(out[0]);
    close(out[1]);
fn_fail_sv:
    if (sv[0] >= 0) {
        close(sv[0]);
        close(sv[1]);
    }
fn_fail:
    fprintf(stderr, "mpiexec: starting rank %d of %d: %s (errno %d)\n", rank, o->n, strerror(errno),
            errno);
    if (rargv) {
        for (char **a = rargv; *a; a++)
            free(*a);
        free(rargv);
    }
    return -1;
}

/* Hosts and placement: without -hosts/-f every rank runs here.  Fills
 * job.size, job.ranks (host, remote), job.local_index and job.mapping, and
 * the launcher command for remote ranks. */
static int setup_hosts(opts_t *o)
{
    int given = job.hosts.nhosts > 0;
    if (!given && MPIEXEC_hosts_add_list(&job.hosts, "localhost", "default") != 0)
        return -1;
    MPIEXEC_hosts_finish(&job.hosts);
    if (given && !o->n_given) {
        long total = 0;
        for (int i = 0; i < job.hosts.nhosts; i++)
            total += MPIEXEC_hosts_slots(&job.hosts.hosts[i], o->ppn);
        o->n = total > MAX_RANKS ? MAX_RANKS : (int)total;
    }
    job.size = o->n;
    job.ranks = calloc((size_t)o->n, sizeof(rank_t));
    job.local_index = calloc((size_t)o->n, sizeof(int));
    int *host_of = calloc((size_t)o->n, sizeof(int));
    if (!job.ranks || !job.local_index || !host_of) {
        fprintf(stderr, "mpiexec: out of memory for %d ranks\n", o->n);
        free(host_of);
        return -1;
    }
    MPIEXEC_hosts_place(&job.hosts, o->n, o->ppn, host_of, job.local_index);
    job.nremote = 0;
    for (int i = 0; i < o->n; i++) {
        job.ranks[i].host = host_of[i];
        job.ranks[i].remote = !job.hosts.hosts[host_of[i]].local;
        job.nremote += job.ranks[i].remote;
    }
    if (MPIEXEC_process_mapping(&job.hosts, host_of, o->n, job.mapping, sizeof(job.mapping)) != 0)
        job.mapping[0] = '\0';
    free(host_of);
    if (job.nremote == 0)
        return 0;

    const char *cmd = o->launcher_exec;
    if (!cmd) {
        if (o->launcher && strcmp(o->launcher, "exec") == 0) {
            fprintf(stderr, "mpiexec: -launcher exec needs -launcher-exec CMD (for example "
                            "\"ip netns exec\")\n");
            return -1;
        }
        cmd = o->launcher && strcmp(o->launcher, "rsh") == 0 ? "rsh" : "ssh";
    }
    if (o->launcher)
        o->style = strcmp(o->launcher, "exec") == 0 ? MPIEXEC_LAUNCH_EXEC : MPIEXEC_LAUNCH_SSH;
    else
        o->style = MPIEXEC_launch_style_of(cmd);
    o->lwords = MPIEXEC_split_words(cmd, &o->nlwords);
    if (!o->lwords || o->nlwords == 0) {
        fprintf(stderr, "mpiexec: -launcher-exec '%s': no command\n", cmd);
        return -1;
    }
    return 0;
}

static int setup_signals(void)
{
    struct sigaction sa;
    static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP};

    if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        fprintf(stderr, "mpiexec: pipe for signals: %s\n", strerror(errno));
        return -1;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
        sigaction(sigs[i], &sa, NULL);
    /* A closed stdout must give EPIPE on write, not kill us before the ranks. */
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

/* ---- main loop ---- */

static int outputs_open(void)
{
    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++)
            if (job.ranks[i].streams[s].fd >= 0)
                return 1;
    return 0;
}

static void on_mpiexec_signal(int signo)
{
    if (signo == SIGCHLD)
        return;
    if (job.reason == REASON_SIGNAL) {
        /* A second Ctrl-C: the user does not want to wait for SIGTERM. */
        send_kill(now_ms());
        return;
    }
    fprintf(stderr, "mpiexec: received signal %d (%s); killing the job\n", signo, strsignal(signo));
    kill_job(REASON_SIGNAL, 128 + signo, 0);
}

/* Runs the timers that are due; returns the poll timeout until the next one. */
static int run_timers(void)
{
    long long now = now_ms();
    long long next = -1;

#define CONSIDER(t)                                                                                \
    do {                                                                                           \
        if ((t) > 0 && (next < 0 || (t) < next))                                                   \
            next = (t);                                                                            \
    } while (0)

    if (job.timeout_at && !job.term_sent && now >= job.timeout_at && job.reason < REASON_TIMEOUT) {
        fprintf(stderr, "mpiexec: job exceeded MPIEXEC_TIMEOUT=%d seconds; killing the job\n",
                job.timeout_sec);
        kill_job(REASON_TIMEOUT, EXIT_TIMEOUT, 0);
    }
    if (job.term_at && !job.term_sent && now >= job.term_at)
        send_term(now);
    if (job.term_sent && !job.kill_sent && now >= job.kill_at)
        send_kill(now);
    if (job.nlive == 0 && outputs_open()) {
        /* Every rank is gone but something they started holds the pipes. */
        if (job.leftover_at == 0)
            job.leftover_at = now + LEFTOVER_GRACE_MS;
        if (now >= job.leftover_at && !job.term_sent)
            send_term(now);
        if (job.kill_sent && now >= job.giveup_at) {
            for (int i = 0; i < job.size; i++)
                for (int s = 0; s < 2; s++)
                    if (job.ranks[i].streams[s].fd >= 0) {
                        fprintf(stderr,
                                "mpiexec: %s of rank %d still open after killing its "
                                "process group; not waiting for it\n",
                                s ? "stderr" : "stdout", i);
                        stream_close(&job.ranks[i].streams[s]);
                    }
        }
        if (!job.term_sent)
            CONSIDER(job.leftover_at);
        if (job.kill_sent)
            CONSIDER(job.giveup_at);
    }
    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++) {
            stream_t *st = &job.ranks[i].streams[s];
            if (st->fd >= 0 && st->len > 0) {
                if (now >= st->since + PARTIAL_LINE_MS) {
                    write_out(st->dest, st->buf, st->len);
                    st->len = 0;
                } else {
                    CONSIDER(st->since + PARTIAL_LINE_MS);
                }
            }
        }
    if (job.timeout_at && !job.term_sent)
        CONSIDER(job.timeout_at);
    if (job.term_at && !job.term_sent)
        CONSIDER(job.term_at);
    if (job.term_sent && !job.kill_sent)
        CONSIDER(job.kill_at);
#undef CONSIDER
    if (next < 0)
        return -1;
    return next > now ? (int)(next - now) : 0;
}

/* ---- the PMI_PORT server for remote ranks ---- */

/* Connections that never identify themselves are bounded: each remote rank
 * makes one, a few strays are tolerated. */
static int pending_max(void)
{
    return job.nremote * 2 + 8;
}

/* Listens on every address, so remote ranks may use whichever route they
 * have; PMI_PORT names the one they are told (-localhost, or found). */
static int open_pmi_listener(const opts_t *o)
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
    job.pending = calloc((size_t)pending_max(), sizeof(*job.pending));
    if (!job.pending) {
        fprintf(stderr, "mpiexec: out of memory for PMI connections\n");
        return -1;
    }
    if (job.verbose)
        fprintf(stderr, "mpiexec: remote ranks reach PMI at PMI_PORT=%s\n", job.pmi_port);
    return 0;
}

static void pmi_accept(void)
{
    for (;;) {
        int fd = accept4(job.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return;
        }
        if (job.npending == pending_max()) {
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

static void pending_refuse(struct pending *pc, const char *why)
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
static void pending_input(struct pending *pc)
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
    reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "size", job.size);
    reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "rank", id);
    reply(r, &msg);
    PMIU_msg_start(&msg, "set");
    PMIU_msg_add_int(&msg, "debug", 0);
    reply(r, &msg);
}

static void event_loop(void)
{
    int maxfds = 2 + 3 * job.size + (job.listen_fd >= 0 ? pending_max() : 0);
    struct pollfd *pfds = calloc((size_t)maxfds, sizeof(*pfds));
    /* What each pollfd is: rank * 3 + 0 (PMI), 1 (stdout), 2 (stderr); -1 the signal pipe,
     * -2 the PMI_PORT listener, -3 - k the k-th pending PMI connection. */
    int *what = calloc((size_t)maxfds, sizeof(*what));

    if (pfds == NULL || what == NULL) {
        fprintf(stderr, "mpiexec: out of memory for %d poll entries\n", maxfds);
        kill_job(REASON_SIGNAL, 1, 0);
        send_kill(now_ms());
        exit(1);
    }
    for (;;) {
        reap();
        check_barrier();
        int timeout = run_timers();
        if (job.nlive == 0 && !outputs_open())
            break;

        /* Drop pending PMI connections closed or handed to a rank. */
        int m = 0;
        for (int k = 0; k < job.npending; k++)
            if (job.pending[k].fd >= 0)
                job.pending[m++] = job.pending[k];
        job.npending = m;

        int n = 0;
        pfds[n].fd = sig_pipe[0];
        pfds[n].events = POLLIN;
        what[n++] = -1;
        if (job.listen_fd >= 0) {
            pfds[n].fd = job.listen_fd;
            pfds[n].events = POLLIN;
            what[n++] = -2;
            for (int k = 0; k < job.npending; k++) {
                pfds[n].fd = job.pending[k].fd;
                pfds[n].events = POLLIN;
                what[n++] = -3 - k;
            }
        }
        for (int i = 0; i < job.size; i++) {
            rank_t *r = &job.ranks[i];
            if (r->pmi_fd >= 0) {
                pfds[n].fd = r->pmi_fd;
                pfds[n].events = POLLIN;
                what[n++] = i * 3;
            }
            for (int s = 0; s < 2; s++)
                if (r->streams[s].fd >= 0) {
                    pfds[n].fd = r->streams[s].fd;
                    pfds[n].events = POLLIN;
                    what[n++] = i * 3 + 1 + s;
                }
        }
        int rc = poll(pfds, (nfds_t)n, timeout);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            fprintf(stderr, "mpiexec: poll on %d fds: %s; killing the job\n", n, strerror(errno));
            kill_job(REASON_SIGNAL, 1, 0);
            send_kill(now_ms());
            break;
        }
        long long now = now_ms();
        for (int k = 0; k < n && rc > 0; k++) {
            if (pfds[k].revents == 0)
                continue;
            if (what[k] == -2) {
                pmi_accept();
                continue;
            }
            if (what[k] <= -3) {
                if (job.pending[-3 - what[k]].fd >= 0)
                    pending_input(&job.pending[-3 - what[k]]);
                continue;
            }
            if (what[k] < 0) {
                unsigned char sigs[64];
                ssize_t got;
                while ((got = read(sig_pipe[0], sigs, sizeof(sigs))) > 0)
                    for (ssize_t j = 0; j < got; j++)
                        on_mpiexec_signal(sigs[j]);
                continue;
            }
            rank_t *r = &job.ranks[what[k] / 3];
            int kind = what[k] % 3;
            if (kind == 0) {
                if (r->pmi_fd >= 0)
                    pmi_input(r);
            } else if (r->streams[kind - 1].fd >= 0) {
                stream_read(r, &r->streams[kind - 1], now);
            }
        }
    }
    free(pfds);
    free(what);
}

static int exit_code(void)
{
    int worst = 0;

    for (int i = 0; i < job.size; i++) {
        rank_t *r = &job.ranks[i];
        int code = 0;
        if (!r->reaped)
            continue;
        if (WIFEXITED(r->status))
            code = WEXITSTATUS(r->status);
        else if (r->killed_by_us)
            continue; /* the kill reason below speaks for it */
        else if (WIFSIGNALED(r->status))
            code = 128 + WTERMSIG(r->status);
        if (code > worst)
            worst = code;
    }
    switch (job.reason) {
    case REASON_NONE:
        return worst;
    case REASON_RANK:
        return worst ? worst : (job.reason_code ? job.reason_code : 1);
    default:
        return job.reason_code;
    }
}

int main(int argc, char **argv)
{
    /* Static: they live for the whole run, and early exits need not free them. */
    static opts_t o;
    static char *path;
    const char *tmo = getenv("MPIEXEC_TIMEOUT");

    if (parse_args(argc, argv, &o) != 0)
        return EXIT_USAGE;
    if (tmo && tmo[0]) {
        char *end;
        long v = strtol(tmo, &end, 10);
        if (end == tmo || *end != '\0' || v < 1 || v > INT_MAX / 1000) {
            fprintf(stderr, "mpiexec: MPIEXEC_TIMEOUT=%s is not a positive number of seconds\n",
                    tmo);
            return EXIT_USAGE;
        }
        job.timeout_sec = (int)v;
    }
    if (setup_hosts(&o) != 0)
        return EXIT_USAGE;
    /* Only a rank started here needs the program here; a remote host finds
     * it itself (the launcher's command fails clearly if it cannot). */
    if (job.nremote < o.n) {
        path = find_program(o.argv[0]);
        if (path == NULL)
            return EXIT_NOT_FOUND;
    }
    if (check_fd_limit(o.n + (job.nremote ? pending_max() : 0)) != 0)
        return EXIT_USAGE;
    if (job.nremote && open_pmi_listener(&o) != 0)
        return EXIT_USAGE;
    for (int i = 0; i < o.n; i++) {
        job.ranks[i].pmi_fd = -1;
        for (int s = 0; s < 2; s++) {
            job.ranks[i].streams[s].fd = -1;
            job.ranks[i].streams[s].dest = 1 + s;
            job.ranks[i].streams[s].buf = malloc(OUTBUF_SIZE);
            if (job.ranks[i].streams[s].buf == NULL) {
                fprintf(stderr, "mpiexec: out of memory for output buffers of %d ranks\n", o.n);
                return EXIT_USAGE;
            }
        }
    }
    /* pid and time make the name unique among jobs on this node and over time. */
    snprintf(job.kvsname, sizeof(job.kvsname), "kvs_%ld_%lld", (long)getpid(),
             (long long)time(NULL));
    if (setup_signals() != 0)
        return EXIT_USAGE;
    /* Anything buffered here would otherwise be duplicated into every child. */
    fflush(stdout);
    fflush(stderr);

    for (int i = 0; i < o.n; i++) {
        if (spawn_rank(i, &o, path) != 0) {
            fprintf(stderr, "mpiexec: killing the %d ranks already started\n", i);
            kill_job(REASON_SIGNAL, 1, 0);
            break;
        }
    }
    if (job.timeout_sec)
        job.timeout_at = now_ms() + (long long)job.timeout_sec * 1000;
    event_loop();
    free(path);
    free(o.env);
    return exit_code();
}
