/* pmi_wire.c: PMI-1 line parser and formatter, buffered line reads and whole writes on fds. */
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* PMI calls are made from one thread at a time (the MPI layer serialises
 * them), so one buffer for the whole process is enough. */
static char last_error[256] = "no error";

void PMIU_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
}

const char *PMIU_last_error(void)
{
    return last_error;
}

static int is_blank(char c)
{
    /* '\r' counts as blank so a peer that ends lines with CRLF still parses. */
    return c == ' ' || c == '\t' || c == '\r';
}

int PMIU_parse(const char *line, size_t len, PMIU_cmd_t *cmd_p)
{
    size_t r = 0, w = 0;

    cmd_p->npairs = 0;
    cmd_p->buf[0] = '\0';
    if (len > 0 && line[len - 1] == '\n')
        len--;
    /* The limit counts the newline, as on the wire. */
    if (len + 1 > PMIU_MAXLINE) {
        PMIU_set_error("PMI line of %zu bytes is longer than the limit of %d", len + 1,
                       PMIU_MAXLINE);
        return -1;
    }
    if (memchr(line, '\n', len) || memchr(line, '\0', len)) {
        PMIU_set_error("PMI line holds an embedded %s",
                       memchr(line, '\n', len) ? "newline" : "NUL");
        return -1;
    }

    /* Tokens are copied into buf with NUL terminators; the output never grows
     * past len + 1 bytes because each '=' or separator becomes one NUL. */
    while (r < len) {
        while (r < len && is_blank(line[r]))
            r++;
        if (r == len)
            break;
        size_t start = r;
        while (r < len && !is_blank(line[r]))
            r++;
        const char *tok = line + start;
        size_t toklen = r - start;
        const char *eq = memchr(tok, '=', toklen);

        if (eq == NULL) {
            if (cmd_p->npairs == 0) {
                PMIU_set_error("PMI line starts with '%.*s', which is not key=value",
                               (int)(toklen > 40 ? 40 : toklen), tok);
                return -1;
            }
            /* Join to the previous value: replace its NUL with a space. */
            cmd_p->buf[w - 1] = ' ';
            memcpy(cmd_p->buf + w, tok, toklen);
            w += toklen;
            cmd_p->buf[w++] = '\0';
            continue;
        }
        if (eq == tok) {
            PMIU_set_error("PMI token '%.*s' has an empty key", (int)(toklen > 40 ? 40 : toklen),
                           tok);
            return -1;
        }
        if (cmd_p->npairs == PMIU_MAXPAIRS) {
            PMIU_set_error("PMI line has more than %d key=value pairs", PMIU_MAXPAIRS);
            return -1;
        }
        size_t keylen = (size_t)(eq - tok);
        PMIU_pair_t *pair = &cmd_p->pairs[cmd_p->npairs++];
        pair->key = cmd_p->buf + w;
        memcpy(cmd_p->buf + w, tok, keylen);
        w += keylen;
        cmd_p->buf[w++] = '\0';
        pair->value = cmd_p->buf + w;
        memcpy(cmd_p->buf + w, eq + 1, toklen - keylen - 1);
        w += toklen - keylen - 1;
        cmd_p->buf[w++] = '\0';
    }
    if (cmd_p->npairs == 0) {
        PMIU_set_error("empty PMI line");
        return -1;
    }
    return 0;
}

const char *PMIU_get(const PMIU_cmd_t *cmd, const char *key)
{
    for (int i = 0; i < cmd->npairs; i++)
        if (strcmp(cmd->pairs[i].key, key) == 0)
            return cmd->pairs[i].value;
    return NULL;
}

static const char *cmd_name(const PMIU_cmd_t *cmd)
{
    const char *name = PMIU_get(cmd, "cmd");
    return name ? name : "(none)";
}

static int parse_int(const char *s, int *value_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE || v < INT_MIN || v > INT_MAX)
        return -1;
    *value_p = (int)v;
    return 0;
}

int PMIU_get_int(const PMIU_cmd_t *cmd, const char *key, int *value_p)
{
    const char *s = PMIU_get(cmd, key);

    if (s == NULL) {
        PMIU_set_error("PMI reply cmd=%s has no %s=", cmd_name(cmd), key);
        return -1;
    }
    if (parse_int(s, value_p) != 0) {
        PMIU_set_error("PMI reply cmd=%s has %s=%s, which is not an integer", cmd_name(cmd), key,
                       s);
        return -1;
    }
    return 0;
}

int PMIU_check_reply(const PMIU_cmd_t *cmd, const char *expected_cmd)
{
    const char *got = PMIU_get(cmd, "cmd");
    const char *rc_str = PMIU_get(cmd, "rc");
    const char *msg = PMIU_get(cmd, "msg");
    int rc;

    if (got == NULL) {
        PMIU_set_error("PMI reply has no cmd= (expected cmd=%s)", expected_cmd);
        return -1;
    }
    if (strcmp(got, expected_cmd) != 0) {
        PMIU_set_error("PMI reply is cmd=%s, expected cmd=%s%s%s", got, expected_cmd,
                       msg ? ": " : "", msg ? msg : "");
        return -1;
    }
    /* rc is optional in some servers' success replies (initack, set). */
    if (rc_str == NULL)
        return 0;
    if (parse_int(rc_str, &rc) != 0) {
        PMIU_set_error("PMI reply cmd=%s has rc=%s, which is not an integer", got, rc_str);
        return -1;
    }
    if (rc != 0) {
        PMIU_set_error("PMI server replied cmd=%s rc=%d: %s", got, rc, msg ? msg : "(no msg)");
        return -1;
    }
    return 0;
}

static int has_delimiter(const char *s)
{
    return strpbrk(s, " \t\r\n") != NULL;
}

int PMIU_key_ok(const char *key)
{
    return key != NULL && key[0] != '\0' && !has_delimiter(key) && strchr(key, '=') == NULL;
}

int PMIU_value_ok(const char *value)
{
    return value != NULL && !has_delimiter(value);
}

void PMIU_msg_start(PMIU_msg_t *msg, const char *cmd)
{
    msg->len = 0;
    msg->failed = 0;
    msg->line[0] = '\0';
    PMIU_msg_add(msg, "cmd", cmd);
}

void PMIU_msg_add(PMIU_msg_t *msg, const char *key, const char *value)
{
    if (msg->failed)
        return;
    if (!PMIU_key_ok(key)) {
        PMIU_set_error("PMI key '%.60s' is empty or holds '=', a space, tab or newline",
                       key ? key : "(null)");
        msg->failed = 1;
        return;
    }
    if (!PMIU_value_ok(value)) {
        PMIU_set_error("PMI value for key %s ('%.60s') holds a space, tab or newline", key,
                       value ? value : "(null)");
        msg->failed = 1;
        return;
    }
    size_t klen = strlen(key), vlen = strlen(value);
    size_t sep = msg->len ? 1 : 0;
    /* + 2: the '=' and the final newline. */
    size_t need = msg->len + sep + klen + vlen + 2;
    if (need > PMIU_MAXLINE) {
        PMIU_set_error("PMI line would be %zu bytes with %s= (value of %zu bytes), over the "
                       "limit of %d",
                       need, key, vlen, PMIU_MAXLINE);
        msg->failed = 1;
        return;
    }
    char *p = msg->line + msg->len;
    if (sep)
        *p++ = ' ';
    memcpy(p, key, klen);
    p += klen;
    *p++ = '=';
    memcpy(p, value, vlen);
    p += vlen;
    *p = '\0';
    msg->len = (size_t)(p - msg->line);
}

void PMIU_msg_add_int(PMIU_msg_t *msg, const char *key, long value)
{
    char num[32];

    snprintf(num, sizeof(num), "%ld", value);
    PMIU_msg_add(msg, key, num);
}

int PMIU_msg_finish(PMIU_msg_t *msg)
{
    if (msg->failed)
        return -1;
    /* msg_add reserved the byte for the newline. */
    msg->line[msg->len++] = '\n';
    msg->line[msg->len] = '\0';
    return (int)msg->len;
}

int PMIU_format(char *buf, size_t size, const PMIU_pair_t *pairs, int npairs)
{
    PMIU_msg_t msg;
    int len;

    if (npairs < 1) {
        PMIU_set_error("PMI line needs at least one key=value pair, got %d", npairs);
        return -1;
    }
    msg.len = 0;
    msg.failed = 0;
    for (int i = 0; i < npairs; i++)
        PMIU_msg_add(&msg, pairs[i].key, pairs[i].value);
    len = PMIU_msg_finish(&msg);
    if (len < 0)
        return -1;
    if ((size_t)len + 1 > size) {
        PMIU_set_error("PMI line of %d bytes does not fit a buffer of %zu", len, size);
        return -1;
    }
    memcpy(buf, msg.line, (size_t)len + 1);
    return len;
}

void PMIU_reader_init(PMIU_reader_t *r, int fd)
{
    r->fd = fd;
    r->discarding = 0;
    r->len = 0;
}

int PMIU_reader_next(PMIU_reader_t *r, char *line, size_t *len_p)
{
    char *nl;

    if (r->discarding) {
        nl = memchr(r->buf, '\n', r->len);
        if (nl == NULL) {
            r->len = 0;
            return PMIU_LINE_NONE;
        }
        r->len -= (size_t)(nl + 1 - r->buf);
        memmove(r->buf, nl + 1, r->len);
        r->discarding = 0;
    }
    nl = memchr(r->buf, '\n', r->len);
    if (nl == NULL) {
        /* MAXLINE bytes and still no newline: the line cannot fit the limit. */
        if (r->len >= PMIU_MAXLINE) {
            PMIU_set_error("PMI line on fd %d is longer than the limit of %d bytes; skipped", r->fd,
                           PMIU_MAXLINE);
            r->discarding = 1;
            r->len = 0;
            return PMIU_LINE_TOOLONG;
        }
        return PMIU_LINE_NONE;
    }
    size_t n = (size_t)(nl - r->buf);
    size_t consumed = n + 1;
    int rc = PMIU_LINE_OK;
    if (consumed > PMIU_MAXLINE) {
        PMIU_set_error("PMI line on fd %d of %zu bytes is longer than the limit of %d; skipped",
                       r->fd, consumed, PMIU_MAXLINE);
        rc = PMIU_LINE_TOOLONG;
    } else {
        memcpy(line, r->buf, n);
        line[n] = '\0';
        *len_p = n;
    }
    r->len -= consumed;
    memmove(r->buf, r->buf + consumed, r->len);
    return rc;
}

long PMIU_reader_fill(PMIU_reader_t *r)
{
    size_t space = sizeof(r->buf) - r->len;
    ssize_t n;

    if (space == 0) {
        /* Only reachable if the caller skips PMIU_reader_next between fills. */
        errno = ENOBUFS;
        PMIU_set_error("PMI read buffer for fd %d is full", r->fd);
        return -1;
    }
    do {
        n = read(r->fd, r->buf + r->len, space);
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            PMIU_set_error("read from PMI fd %d: %s (errno %d)", r->fd, strerror(errno), errno);
        return -1;
    }
    r->len += (size_t)n;
    return (long)n;
}

static int wait_fd(int fd, short events)
{
    struct pollfd pfd = {.fd = fd, .events = events};
    int rc;

    do {
        rc = poll(&pfd, 1, -1);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        PMIU_set_error("poll on PMI fd %d: %s (errno %d)", fd, strerror(errno), errno);
        return -1;
    }
    return 0;
}

int PMIU_readline(PMIU_reader_t *r, char *line, size_t *len_p)
{
    for (;;) {
        int rc = PMIU_reader_next(r, line, len_p);
        if (rc != PMIU_LINE_NONE)
            return rc;
        long n = PMIU_reader_fill(r);
        if (n == 0) {
            if (r->len > 0)
                PMIU_set_error("PMI fd %d closed in the middle of a line (%zu bytes buffered)",
                               r->fd, r->len);
            else
                PMIU_set_error("PMI fd %d closed by the process manager", r->fd);
            return PMIU_LINE_NONE;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return PMIU_LINE_ERROR;
            if (wait_fd(r->fd, POLLIN) != 0)
                return PMIU_LINE_ERROR;
        }
    }
}

int PMIU_writeall(int fd, const char *buf, size_t len)
{
    int use_send = 1;

    while (len > 0) {
        ssize_t n;
        /* send() with MSG_NOSIGNAL: a dead peer should give EPIPE, not kill us
         * with SIGPIPE before we can report it. */
        if (use_send) {
            n = send(fd, buf, len, MSG_NOSIGNAL);
            if (n < 0 && errno == ENOTSOCK) {
                use_send = 0;
                continue;
            }
        } else {
            n = write(fd, buf, len);
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                if (wait_fd(fd, POLLOUT) != 0)
                    return -1;
                continue;
            }
            PMIU_set_error("write of %zu bytes to PMI fd %d: %s (errno %d)", len, fd,
                           strerror(errno), errno);
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}
