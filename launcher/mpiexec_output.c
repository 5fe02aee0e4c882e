/* mpiexec_output.c: forwarding the ranks' stdout and stderr by whole lines. */
#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Set once writing to our stdout (1) or stderr (2) failed. */
static int stdout_broken[3];

static void write_out(int dest, const char *buf, size_t len)
{
    if (len == 0 || stdout_broken[dest])
        return;
    if (PMIU_writeall(dest, buf, len) != 0) {
        /* Keep draining the ranks so they do not block on a full pipe, but
         * stop writing to a destination that is gone. */
        stdout_broken[dest] = 1;
        if (dest == 1)
            fprintf(stderr,
                    "mpiexec: writing ranks' output to stdout failed: %s; "
                    "discarding the rest\n",
                    PMIU_last_error());
    }
}

/* Writes len bytes of s's output: as they are, or with -l each line that
 * starts here prefixed with "[rank] " (Hydra's format), gathered into few
 * writes. */
static void emit(stream_t *s, const char *buf, size_t len)
{
    static char stage[OUTBUF_SIZE];
    char prefix[24];
    size_t staged = 0;

    if (!job.prepend_rank) {
        write_out(s->dest, buf, len);
        return;
    }
    size_t plen = (size_t)snprintf(prefix, sizeof(prefix), "[%d] ", s->rank);
    while (len > 0) {
        if (!s->midline) {
            if (staged + plen > sizeof(stage)) {
                write_out(s->dest, stage, staged);
                staged = 0;
            }
            memcpy(stage + staged, prefix, plen);
            staged += plen;
            s->midline = 1;
        }
        const char *nl = memchr(buf, '\n', len);
        size_t take = nl ? (size_t)(nl + 1 - buf) : len;
        if (take > sizeof(stage) - staged)
            take = sizeof(stage) - staged; /* the rest of the line comes next round */
        else if (nl)
            s->midline = 0;
        memcpy(stage + staged, buf, take);
        staged += take;
        buf += take;
        len -= take;
        if (staged == sizeof(stage)) {
            write_out(s->dest, stage, staged);
            staged = 0;
        }
    }
    write_out(s->dest, stage, staged);
}

/* A destination (our stdout or stderr) that a timed-out partial line was
 * written to belongs to that line's stream until the line ends, so other
 * ranks' lines cannot land in its middle; but for OWNER_HOLD_MS at most, so a
 * line that never ends (dots of progress) holds nobody up for long. */
#define OWNER_HOLD_MS 1000
static struct {
    stream_t *owner;
    long long since;
} dests[3];

/* Writes what s may write now: its complete lines, unless another stream's
 * partial line holds the destination; a partial line once it has waited
 * PARTIAL_LINE_MS; everything when the buffer is full (a line that long is
 * split anyway) or the stream has ended. */
static void stream_flush(stream_t *s, long long now, int ended)
{
    int d = s->dest, take_owner = 0;
    size_t upto;

    if (dests[d].owner && dests[d].owner != s) {
        if (now < dests[d].since + OWNER_HOLD_MS)
            return;
        dests[d].owner = NULL;
    }
    if (s->len == 0) {
        if (ended && dests[d].owner == s)
            dests[d].owner = NULL;
        return;
    }
    char *nl = memrchr(s->buf, '\n', s->len);
    upto = nl ? (size_t)(nl + 1 - s->buf) : 0;
    if (ended || (upto == 0 && s->len == OUTBUF_SIZE)) {
        upto = s->len;
    } else if (upto == 0 && now >= s->since + PARTIAL_LINE_MS) {
        upto = s->len;
        take_owner = 1;
    }
    if (upto == 0)
        return;
    emit(s, s->buf, upto);
    s->len -= upto;
    memmove(s->buf, s->buf + upto, s->len);
    s->since = now;
    if (take_owner) {
        if (dests[d].owner != s)
            dests[d].since = now;
        dests[d].owner = s;
    } else if (dests[d].owner == s) {
        dests[d].owner = NULL;
    }
}

void MPIEXEC_stream_close(stream_t *s)
{
    if (dests[s->dest].owner && dests[s->dest].owner != s)
        dests[s->dest].owner = NULL; /* forced: nothing more comes from this stream */
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    stream_flush(s, MPIEXEC_now_ms(), 1);
}

void MPIEXEC_stream_read(rank_t *r, stream_t *s, long long now)
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
            /* What is left waits, if it must, for the destination's owner. */
            close(s->fd);
            s->fd = -1;
            stream_flush(s, now, 1);
            return;
        }
        if (s->len == 0)
            s->since = now;
        s->len += (size_t)n;
        stream_flush(s, now, 0);
        /* Return to poll after one read so a chatty rank cannot starve the
         * PMI service of the others. */
        return;
    }
}

int MPIEXEC_stream_wants_input(const stream_t *s)
{
    /* A full buffer that may not be written yet: leave the rest in the pipe. */
    return s->fd >= 0 && s->len < OUTBUF_SIZE;
}

int MPIEXEC_outputs_open(void)
{
    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++)
            if (job.ranks[i].streams[s].fd >= 0)
                return 1;
    return 0;
}

int MPIEXEC_output_pending(void)
{
    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++)
            if (job.ranks[i].streams[s].fd >= 0 || job.ranks[i].streams[s].len > 0)
                return 1;
    return 0;
}

long long MPIEXEC_output_flush_due(long long now)
{
    long long next = -1;

#define CONSIDER(t)                                                                                \
    do {                                                                                           \
        if (next < 0 || (t) < next)                                                                \
            next = (t);                                                                            \
    } while (0)
    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++) {
            stream_t *st = &job.ranks[i].streams[s];
            if (st->len == 0)
                continue;
            stream_flush(st, now, st->fd < 0);
            if (st->len == 0)
                continue;
            stream_t *owner = dests[st->dest].owner;
            if (owner && owner != st)
                CONSIDER(dests[st->dest].since + OWNER_HOLD_MS);
            else
                CONSIDER(st->since + PARTIAL_LINE_MS);
        }
#undef CONSIDER
    return next;
}
