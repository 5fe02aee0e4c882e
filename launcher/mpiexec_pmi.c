/* mpiexec_pmi.c: mpiexec's PMI-1 service: one handler per command a rank sends. */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Something went wrong with rank r's socket: its exit, collected by the
 * reaper, says what happened; nothing more is written to it. */
static void drop_outq(rank_t *r)
{
    free(r->outq);
    r->outq = NULL;
    r->outq_len = r->outq_cap = 0;
}

/* Writes what the socket takes now: 1 if all of buf went, 0 if some is left
 * (*done_p says how much went), -1 when the socket is broken. */
static int write_some(rank_t *r, const char *buf, size_t len, size_t *done_p)
{
    *done_p = 0;
    while (*done_p < len) {
        /* MSG_NOSIGNAL: a dead rank gives EPIPE, not a SIGPIPE that kills us. */
        ssize_t n = send(r->pmi_fd, buf + *done_p, len - *done_p, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n < 0) {
            /* A rank that died mid-request; its exit is handled by the reaper. */
            if (job.verbose)
                fprintf(stderr, "mpiexec: reply to rank %d: %s (errno %d)\n", (int)(r - job.ranks),
                        strerror(errno), errno);
            return -1;
        }
        *done_p += (size_t)n;
    }
    return 1;
}

static void queue_rest(rank_t *r, const char *buf, size_t len)
{
    int rank = (int)(r - job.ranks);
    if (r->outq_len + len > PMI_OUTQ_MAX) {
        fprintf(stderr,
                "mpiexec: rank %d (pid %d) does not read its PMI replies (%zu bytes waiting) but "
                "keeps sending requests; killing the job\n",
                rank, (int)r->pid, r->outq_len + len);
        drop_outq(r);
        MPIEXEC_pmi_close(r);
        MPIEXEC_kill_job(REASON_RANK, 1, 0);
        return;
    }
    if (r->outq_len + len > r->outq_cap) {
        size_t cap = r->outq_cap ? r->outq_cap * 2 : 4096;
        while (cap < r->outq_len + len)
            cap *= 2;
        char *q = realloc(r->outq, cap);
        if (!q) {
            fprintf(stderr,
                    "mpiexec: out of memory queueing a PMI reply to rank %d; killing the "
                    "job\n",
                    rank);
            MPIEXEC_kill_job(REASON_RANK, 1, 0);
            return;
        }
        r->outq = q;
        r->outq_cap = cap;
    }
    memcpy(r->outq + r->outq_len, buf, len);
    r->outq_len += len;
}

void MPIEXEC_pmi_flush(rank_t *r)
{
    size_t done;
    if (r->pmi_fd < 0 || r->outq_len == 0)
        return;
    int rc = write_some(r, r->outq, r->outq_len, &done);
    if (rc < 0) {
        drop_outq(r);
        return;
    }
    memmove(r->outq, r->outq + done, r->outq_len - done);
    r->outq_len -= done;
}

void MPIEXEC_pmi_reply(rank_t *r, PMIU_msg_t *msg)
{
    int rank = (int)(r - job.ranks);
    int len = PMIU_msg_finish(msg);

    if (len < 0) {
        fprintf(stderr, "mpiexec: internal error formatting a PMI reply to rank %d: %s\n", rank,
                PMIU_last_error());
        return;
    }
    if (job.verbose) {
        /* The job's secret is not for a terminal or a log. */
        const char *secret = strstr(msg->line, job.secret_hex);
        if (job.secret_hex[0] && secret)
            fprintf(stderr, "mpiexec: rank %d <- %.*s(the job's secret)\n", rank,
                    (int)(secret - msg->line), msg->line);
        else
            fprintf(stderr, "mpiexec: rank %d <- %s", rank, msg->line);
    }
    if (r->pmi_fd < 0)
        return;
    /* Behind replies still queued, in order; otherwise straight to the socket. */
    size_t done = 0;
    if (r->outq_len == 0) {
        int rc = write_some(r, msg->line, (size_t)len, &done);
        if (rc != 0)
            return; /* all written, or the socket is broken */
    }
    queue_rest(r, msg->line + done, (size_t)len - done);
}

static void reply_error(rank_t *r, const char *cmd, const char *msg_text)
{
    PMIU_msg_t msg;
    PMIU_msg_start(&msg, cmd);
    PMIU_msg_add(&msg, "rc", "-1");
    PMIU_msg_add(&msg, "msg", msg_text);
    MPIEXEC_pmi_reply(r, &msg);
}

static void reply_ok(rank_t *r, const char *cmd)
{
    PMIU_msg_t msg;
    PMIU_msg_start(&msg, cmd);
    PMIU_msg_add(&msg, "rc", "0");
    MPIEXEC_pmi_reply(r, &msg);
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
    MPIEXEC_pmi_reply(r, &msg);
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
    if (strcmp(key, PMIU_SECRET_KEY) == 0) {
        reply_error(r, "put_result", "key_reserved_for_the_launcher");
        return;
    }
    /* The value must come back in "cmd=get_result rc=0 value=...\n", which is
     * longer than a put without kvsname= by a few bytes. */
    if (strlen(value) > VALLEN_MAX || strlen(value) + 27 > PMIU_MAXLINE) {
        reply_error(r, "put_result", "value_too_long_for_a_get_result_line");
        return;
    }
    if (MPIEXEC_kvs_put(key, value) != 0) {
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
    char size_text[64];
    const char *value;
    PMIU_msg_t msg;

    if (!kvsname_ok(r, cmd, "get_result"))
        return;
    if (key == NULL) {
        reply_error(r, "get_result", "missing_key");
        return;
    }
    /* What a rank put wins over the launcher's own answers below, except
     * the job's secret: every connection serving this is a rank's own
     * (a socketpair, or a PMI_PORT connection that showed its token). */
    value = MPIEXEC_kvs_get(key);
    if (strcmp(key, PMIU_SECRET_KEY) == 0) {
        value = job.secret_hex;
    } else if (value == NULL && strcmp(key, "PMI_process_mapping") == 0) {
        /* MPICH's locality format, computed from the placement at start-up;
         * one node (id 0) holding one block of all ranks without hosts.  An
         * irregular placement too long for a line is not announced. */
        value = job.mapping[0] ? job.mapping : NULL;
    } else if (value == NULL && strcmp(key, "universeSize") == 0) {
        snprintf(size_text, sizeof(size_text), "%d", job.size);
        value = size_text;
    }
    if (value == NULL) {
        reply_error(r, "get_result", "key_not_found");
        return;
    }
    PMIU_msg_start(&msg, "get_result");
    PMIU_msg_add(&msg, "rc", "0");
    PMIU_msg_add(&msg, "value", value);
    MPIEXEC_pmi_reply(r, &msg);
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
    /* After a rank's failure (death by a signal, a non-zero exit, an exit
     * without finalize), an abort is most likely its consequence (the
     * aborting rank lost that peer): the first failure stays the job's
     * status. */
    r->aborted_after = job.first_signal || job.reason == REASON_RANK;
    MPIEXEC_kill_job(r->aborted_after ? REASON_RANK : REASON_ABORT, code ? code : 1, 0);
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
        MPIEXEC_pmi_reply(r, &msg);
    } else if (strcmp(c, "get_my_kvsname") == 0) {
        PMIU_msg_start(&msg, "my_kvsname");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add(&msg, "kvsname", job.kvsname);
        MPIEXEC_pmi_reply(r, &msg);
    } else if (strcmp(c, "get_universe_size") == 0) {
        PMIU_msg_start(&msg, "universe_size");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add_int(&msg, "size", job.size);
        MPIEXEC_pmi_reply(r, &msg);
    } else if (strcmp(c, "get_appnum") == 0) {
        PMIU_msg_start(&msg, "appnum");
        PMIU_msg_add(&msg, "rc", "0");
        PMIU_msg_add_int(&msg, "appnum", r->app);
        MPIEXEC_pmi_reply(r, &msg);
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

void MPIEXEC_pmi_close(rank_t *r)
{
    if (r->pmi_fd < 0)
        return;
    close(r->pmi_fd);
    r->pmi_fd = -1;
    drop_outq(r);
    /* A rank gone from the barrier must not count toward its release. */
    if (r->in_barrier) {
        r->in_barrier = 0;
        job.nbarrier--;
    }
}

long MPIEXEC_pmi_input(rank_t *r)
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
        MPIEXEC_pmi_close(r);
    }
    return n;
}