/* mpiexec.c: Ferry launcher: starts ranks here or on other hosts, serves PMI-1, forwards output.
 * This file holds main, signal handling, timers and the poll loop; the other jobs are in
 * mpiexec_args.c, mpiexec_kvs.c, mpiexec_pmi.c, mpiexec_port.c, mpiexec_output.c,
 * mpiexec_spawn.c and mpiexec_exit.c. */
#include "mpiexec.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* After every rank is reaped, leftover children may hold the output pipes;
 * wait this long for them before killing their process groups. */
#define LEFTOVER_GRACE_MS 1000

MPIEXEC_job_t job = {.listen_fd = -1};

static int sig_pipe[2] = {-1, -1};

long long MPIEXEC_now_ms(void)
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

static int setup_signals(void)
{
    struct sigaction sa;
    static const int sigs[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2};

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

static void on_mpiexec_signal(int signo)
{
    if (signo == SIGCHLD)
        return;
    if (signo == SIGUSR1 || signo == SIGUSR2) {
        MPIEXEC_pass_signal(signo, MPIEXEC_now_ms());
        return;
    }
    if (job.reason == REASON_SIGNAL) {
        /* A second Ctrl-C: the user does not want to wait for the grace time. */
        MPIEXEC_send_kill(MPIEXEC_now_ms());
        return;
    }
    fprintf(stderr,
            "mpiexec: received signal %d (%s); passing it to the ranks and ending the job\n", signo,
            strsignal(signo));
    MPIEXEC_pass_signal(signo, MPIEXEC_now_ms());
}

/* Runs the timers that are due; returns the poll timeout until the next one. */
static int run_timers(void)
{
    long long now = MPIEXEC_now_ms();
    long long next = -1;

#define CONSIDER(t)                                                                                \
    do {                                                                                           \
        if ((t) > 0 && (next < 0 || (t) < next))                                                   \
            next = (t);                                                                            \
    } while (0)

    if (job.timeout_at && !job.term_sent && now >= job.timeout_at && job.reason < REASON_TIMEOUT) {
        fprintf(stderr, "mpiexec: job exceeded MPIEXEC_TIMEOUT=%d seconds; killing the job\n",
                job.timeout_sec);
        MPIEXEC_kill_job(REASON_TIMEOUT, EXIT_TIMEOUT, 0);
    }
    if (job.term_at && !job.term_sent && now >= job.term_at)
        MPIEXEC_send_term(now);
    if (job.term_sent && !job.kill_sent && now >= job.kill_at)
        MPIEXEC_send_kill(now);
    if (job.nlive == 0 && MPIEXEC_outputs_open()) {
        /* Every rank is gone but something they started holds the pipes. */
        if (job.leftover_at == 0)
            job.leftover_at = now + LEFTOVER_GRACE_MS;
        if (now >= job.leftover_at && !job.term_sent)
            MPIEXEC_send_term(now);
        if (job.kill_sent && now >= job.giveup_at) {
            for (int i = 0; i < job.size; i++)
                for (int s = 0; s < 2; s++)
                    if (job.ranks[i].streams[s].fd >= 0) {
                        fprintf(stderr,
                                "mpiexec: %s of rank %d still open after killing its "
                                "process group; not waiting for it\n",
                                s ? "stderr" : "stdout", i);
                        MPIEXEC_stream_close(&job.ranks[i].streams[s]);
                    }
        }
        if (!job.term_sent)
            CONSIDER(job.leftover_at);
        if (job.kill_sent)
            CONSIDER(job.giveup_at);
    }
    CONSIDER(MPIEXEC_output_flush_due(now));
    if (job.pending)
        CONSIDER(MPIEXEC_port_timers(now));
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

static void event_loop(void)
{
    int maxfds = 2 + 3 * job.size + (job.listen_fd >= 0 ? MPIEXEC_port_pending_max() : 0);
    struct pollfd *pfds = calloc((size_t)maxfds, sizeof(*pfds));
    /* What each pollfd is: rank * 3 + 0 (PMI), 1 (stdout), 2 (stderr); -1 the signal pipe,
     * -2 the PMI_PORT listener, -3 - k the k-th pending PMI connection. */
    int *what = calloc((size_t)maxfds, sizeof(*what));

    if (pfds == NULL || what == NULL) {
        fprintf(stderr, "mpiexec: out of memory for %d poll entries\n", maxfds);
        MPIEXEC_kill_job(REASON_SIGNAL, 1, 0);
        MPIEXEC_send_kill(MPIEXEC_now_ms());
        exit(1);
    }
    for (;;) {
        MPIEXEC_reap();
        MPIEXEC_check_barrier();
        int timeout = run_timers();
        if (job.nlive == 0 && !MPIEXEC_output_pending())
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
        if (job.listen_fd >= 0 && !job.accept_resume_at) {
            pfds[n].fd = job.listen_fd;
            pfds[n].events = POLLIN;
            what[n++] = -2;
        }
        for (int k = 0; k < job.npending; k++) {
            pfds[n].fd = job.pending[k].fd;
            pfds[n].events = POLLIN;
            what[n++] = -3 - k;
        }
        for (int i = 0; i < job.size; i++) {
            rank_t *r = &job.ranks[i];
            if (r->pmi_fd >= 0) {
                pfds[n].fd = r->pmi_fd;
                /* Queued replies go when the rank's socket takes them: one
                 * rank that does not read never blocks the others. */
                pfds[n].events = POLLIN | (r->outq_len ? POLLOUT : 0);
                what[n++] = i * 3;
            }
            for (int s = 0; s < 2; s++)
                if (MPIEXEC_stream_wants_input(&r->streams[s])) {
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
            MPIEXEC_kill_job(REASON_SIGNAL, 1, 0);
            MPIEXEC_send_kill(MPIEXEC_now_ms());
            break;
        }
        /* Ranks that died before this wake-up are accounted before anything
         * they or the others said: a rank that aborts because it found a
         * peer dead (shm's liveness watch) must not hide that peer's own
         * death by a signal, which came first. */
        MPIEXEC_reap();
        long long now = MPIEXEC_now_ms();
        for (int k = 0; k < n && rc > 0; k++) {
            if (pfds[k].revents == 0)
                continue;
            if (what[k] == -2) {
                MPIEXEC_port_accept();
                continue;
            }
            if (what[k] <= -3) {
                if (job.pending[-3 - what[k]].fd >= 0)
                    MPIEXEC_port_input(&job.pending[-3 - what[k]]);
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
                if (pfds[k].revents & POLLOUT)
                    MPIEXEC_pmi_flush(r);
                if (r->pmi_fd >= 0 && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
                    MPIEXEC_pmi_input(r);
            } else if (r->streams[kind - 1].fd >= 0) {
                MPIEXEC_stream_read(r, &r->streams[kind - 1], now);
            }
        }
    }
    free(pfds);
    free(what);
}

int main(int argc, char **argv)
{
    /* Static: they live for the whole run, and early exits need not free them. */
    static opts_t o;
    int rc;

    if (MPIEXEC_parse_args(argc, argv, &o) != 0)
        return EXIT_USAGE;
    if (MPIEXEC_parse_timeout() != 0)
        return EXIT_USAGE;
    if (MPIEXEC_setup_hosts(&o) != 0)
        return EXIT_USAGE;
    if ((rc = MPIEXEC_resolve_apps(&o)) != 0)
        return rc;
    if (MPIEXEC_bind_plan(&o) != 0)
        return EXIT_USAGE;
    if (MPIEXEC_check_fd_limit(o.n + (job.nremote ? MPIEXEC_port_pending_max() : 0)) != 0)
        return EXIT_USAGE;
    if (job.nremote && MPIEXEC_port_open(&o) != 0)
        return EXIT_USAGE;
    if (MPIEXEC_auth_init() != 0)
        return EXIT_USAGE;
    for (int i = 0; i < o.n; i++) {
        job.ranks[i].pmi_fd = -1;
        for (int s = 0; s < 2; s++) {
            job.ranks[i].streams[s].fd = -1;
            job.ranks[i].streams[s].dest = 1 + s;
            job.ranks[i].streams[s].rank = i;
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
        if (MPIEXEC_spawn_rank(i, &o) != 0) {
            fprintf(stderr, "mpiexec: killing the %d ranks already started\n", i);
            MPIEXEC_kill_job(REASON_SIGNAL, 1, 0);
            break;
        }
    }
    if (job.timeout_sec)
        job.timeout_at = MPIEXEC_now_ms() + (long long)job.timeout_sec * 1000;
    event_loop();
    return MPIEXEC_exit_code();
}
