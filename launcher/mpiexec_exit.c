/* mpiexec_exit.c: ending the job: killing ranks' process groups, reporting rank exits, mpiexec's
 * exit code. */
#include "mpiexec.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* SIGTERM first so ranks can clean up (shm segments, files); SIGKILL after
 * this long for the ones that ignore or hang in SIGTERM. */
#define TERM_TO_KILL_MS 1500
/* A rank exiting non-zero often means the others are exiting too (a common
 * input error): this pause lets them report their own codes before we kill. */
#define EXIT_GRACE_MS 500
/* After SIGKILL of leftovers, stop waiting for pipes held by processes that
 * left the rank's process group (setsid daemons). */
#define GIVEUP_MS 1000

static void signal_all(int signo)
{
    for (int i = 0; i < job.size; i++) {
        /* The group outlives its leader while a child of the rank is alive;
         * ESRCH just means the group is already empty. */
        if (job.ranks[i].pid > 0 && kill(-job.ranks[i].pid, signo) != 0 && errno == ESRCH &&
            !job.ranks[i].reaped)
            kill(job.ranks[i].pid, signo); /* forked, not yet its own session */
    }
}

void MPIEXEC_send_term(long long now)
{
    if (job.term_sent)
        return;
    signal_all(SIGTERM);
    job.term_sent = 1;
    job.kill_at = now + TERM_TO_KILL_MS;
}

void MPIEXEC_send_kill(long long now)
{
    if (job.kill_sent)
        return;
    signal_all(SIGKILL);
    job.term_sent = 1;
    job.kill_sent = 1;
    job.giveup_at = now + GIVEUP_MS;
}

void MPIEXEC_pass_signal(int signo, long long now)
{
    if (signo == SIGUSR1 || signo == SIGUSR2) {
        /* For the program to act on (checkpoint, report): only the ranks
         * themselves, not helpers they run, and the job goes on. */
        for (int i = 0; i < job.size; i++)
            if (job.ranks[i].pid > 0 && !job.ranks[i].reaped)
                kill(job.ranks[i].pid, signo);
        return;
    }
    /* The signal ends the job, but the ranks get it first (as Hydra passes
     * Ctrl-C on) so their handlers run; SIGKILL follows TERM_TO_KILL_MS later. */
    if (job.reason < REASON_SIGNAL) {
        job.reason = REASON_SIGNAL;
        job.reason_code = signo;
    }
    if (job.term_sent)
        return;
    job.passed_signal = signo;
    signal_all(signo);
    job.term_sent = 1;
    job.kill_at = now + TERM_TO_KILL_MS;
}

/* Schedules killing of the whole job in delay_ms; reason and code decide the exit code. */
void MPIEXEC_kill_job(enum kill_reason reason, int code, long long delay_ms)
{
    long long at = MPIEXEC_now_ms() + delay_ms;

    if (reason > job.reason) {
        job.reason = reason;
        job.reason_code = code;
    }
    if (!job.term_sent && (job.term_at == 0 || at < job.term_at))
        job.term_at = at;
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
    MPIEXEC_kill_job(REASON_RANK, code, delay_ms);
}

static void rank_exited(rank_t *r, int status)
{
    int rank = (int)(r - job.ranks);
    const char *tail = (job.nlive > 1 && !job.term_sent)
                           ? (job.disable_cleanup ? "; the others go on (-disable-auto-cleanup)"
                                                  : "; killing the job")
                           : "";

    /* Whatever the rank wrote before exiting (an abort) is still in the socket. */
    while (r->pmi_fd >= 0 && MPIEXEC_pmi_input(r) > 0) {
    }
    /* A child of the rank may still hold the socket (PMI_FD is inherited by
     * programs that do not use it); nothing it says matters any more. */
    if (r->pmi_fd >= 0)
        MPIEXEC_pmi_close(r);
    r->reaped = 1;
    r->status = status;
    job.nlive--;

    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (job.passed_signal && sig == job.passed_signal) {
            /* The user's signal, passed on: the rank's own death by it. */
            if (job.first_signal == 0)
                job.first_signal = sig;
            return;
        }
        if (job.term_sent && (sig == SIGTERM || (sig == SIGKILL && job.kill_sent))) {
            r->killed_by_us = 1; /* our own SIGTERM/SIGKILL */
            return;
        }
        if (job.term_sent) {
            /* The job is ending already (another rank failed first), but this death is not
             * ours: a rank killed from outside, or one that crashed on the way out.  Named,
             * since the user may look for it; the job's exit code stays the first failure's. */
            fprintf(stderr, "mpiexec: rank %d (pid %d%s) killed by signal %d (%s) while the job "
                            "was ending\n",
                    rank, (int)r->pid, where(r), sig, strsignal(sig));
            return;
        }
        fprintf(stderr, "mpiexec: rank %d (pid %d%s) killed by signal %d (%s)%s\n", rank,
                (int)r->pid, where(r), sig, strsignal(sig), tail);
        if (job.first_signal == 0)
            job.first_signal = sig;
        rank_failed(sig, 0);
        return;
    }
    int code = WEXITSTATUS(status);
    if (code != 0) {
        if (job.reason == REASON_NONE || job.reason == REASON_RANK)
            fprintf(stderr, "mpiexec: rank %d (pid %d%s) exited with code %d%s\n", rank,
                    (int)r->pid, where(r), code, tail);
        rank_failed(code, EXIT_GRACE_MS);
    } else if (r->initialized && !r->finalized && job.nlive > 0 && job.reason == REASON_NONE) {
        /* The others would wait for it in the next barrier forever. An MPI program gets here
         * by returning from main without MPI_Finalize (OSU's osu_latency_mt does), so the
         * message names the MPI call too: "PMI finalize" alone means nothing to its user. */
        fprintf(stderr,
                "mpiexec: rank %d (pid %d%s) exited with code 0 without calling PMI "
                "finalize (MPI_Finalize) while other ranks still run%s\n",
                rank, (int)r->pid, where(r), tail);
        rank_failed(1, EXIT_GRACE_MS);
    }
}

/* Ranks in a barrier wait for every rank; one that has exited can never
 * enter, so without this the job would hang. Only reaped ranks count: a
 * closed PMI connection is usually seen just before the exit, whose own
 * report (exit code, signal) is the better message. */
void MPIEXEC_check_barrier(void)
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
            MPIEXEC_kill_job(REASON_RANK, 1, 0);
            return;
        }
    }
}

void MPIEXEC_reap(void)
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

/* As Hydra: a rank's death by a signal (not one of our kills) makes the status
 * that signal's number; otherwise the ranks' exit codes are OR-ed, leaving out
 * a rank that aborted only after another had failed (the first failure's code
 * is the one that explains the job). */
int MPIEXEC_exit_code(void)
{
    int codes = 0, killed = 0;

    if (job.reason == REASON_ABORT || job.reason == REASON_TIMEOUT)
        return job.reason_code;
    if (job.first_signal)
        return job.first_signal;
    for (int i = 0; i < job.size; i++) {
        rank_t *r = &job.ranks[i];
        if (r->reaped && WIFEXITED(r->status) && !r->aborted_after)
            codes |= WEXITSTATUS(r->status);
        killed |= r->killed_by_us;
    }
    switch (job.reason) {
    case REASON_NONE:
        return codes;
    case REASON_RANK:
        return codes ? codes : (job.reason_code ? job.reason_code : 1);
    default:
        /* A passed-on signal: what the ranks made of it, unless we had to kill them. */
        return codes || !killed ? codes : job.reason_code;
    }
}
