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

void MPIEXEC_stream_close(stream_t *s)
{
    write_out(s->dest, s->buf, s->len);
    s->len = 0;
    close(s->fd);
    s->fd = -1;
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
            MPIEXEC_stream_close(s);
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
int MPIEXEC_outputs_open(void)
{
    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++)
            if (job.ranks[i].streams[s].fd >= 0)
                return 1;
    return 0;
}

long long MPIEXEC_output_flush_due(long long now)
{
    long long next = -1;

    for (int i = 0; i < job.size; i++)
        for (int s = 0; s < 2; s++) {
            stream_t *st = &job.ranks[i].streams[s];
            if (st->fd >= 0 && st->len > 0) {
                if (now >= st->since + PARTIAL_LINE_MS) {
                    write_out(st->dest, st->buf, st->len);
                    st->len = 0;
                } else if (next < 0 || st->since + PARTIAL_LINE_MS < next) {
                    next = st->since + PARTIAL_LINE_MS;
                }
            }
        }
    return next;
}
