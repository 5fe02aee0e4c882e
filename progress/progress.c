/* progress.c: the communication agent: polls every method, retries deferred work, waits. */
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "adi_impl.h"
#include "module.h"
#include "mpidi_config.h"

static long spins_before_yield;
/* A callback rather than a call, so progress/ does not reach up into mpi/. */
static int (*upper_hook)(void);
static const int no_work;
static const int *upper_work = &no_work;

void MPID_Progress_set_hook(int (*fn)(void), const int *work)
{
    upper_hook = fn;
    upper_work = fn ? work : &no_work;
}

static void (*thread_yield)(int idle); /* see MPID_Progress_set_yield */

void MPID_Progress_set_yield(void (*yield)(int idle))
{
    thread_yield = yield;
}

void MPIDI_progress_init(void)
{
    long spins = MPIDI_config_int("FERRY_POLL_SPINS");
    /* With more ranks than CPUs a spinning rank steals the CPU from the very
     * peer it waits for, so yield at once; otherwise spin a while first,
     * because a message usually comes within microseconds. */
    if (spins < 0)
        spins = MPIDI_world.oversubscribed ? 0 : 2000;
    spins_before_yield = spins;
}

/* The methods' progress and progress_done functions, gathered when the set of
 * active methods changes (MPIDI_progress_methods_set), so that a poll makes
 * one direct call per method that can have work: none for a module that
 * stayed inert (it reaches nobody) and no pass over the methods for
 * progress_done, which only verbs has.  Issue 12: the loop over the methods'
 * tables was about a third of an idle poll. */
static struct {
    int (*progress)(int *made_progress_p);
    const int *hint; /* the method's work_hint, or a word that is never 0 */
    const char *name;
} polled[MPIDI_MAX_METHODS];
static const int always_work = 1;
static void (*done_fns[MPIDI_MAX_METHODS])(void);
static int npolled, ndone;
/* The doorbell an idle wait sleeps on (wait_word), or NULL: see sleep_on_word. */
static _Atomic uint32_t *(*word_fn)(uint32_t *seen_p);

/* Idle yields before a wait sleeps on the doorbell: a message that is a few
 * time slices away is still taken without the two system calls of a sleep
 * and a wake. */
#define MPIDI_WORD_SLEEP_AFTER 16
/* The longest sleep on the doorbell.  Every message to this rank rings it,
 * so the bound only matters for what does not (the method's liveness watch,
 * which runs at each arming); 20 ms keeps a rank that waits a second for a
 * peer to 50 wake-ups (1 ms naps cost 11% of a 256-rank job's CPU). */
#define MPIDI_WORD_SLEEP_NS 20000000L
/* The longest sleep of a poll that returns to the program (MPID_Progress_poll). */
#define MPIDI_POLL_SLEEP_NS 200000L

/* A doorbell is used only on an oversubscribed node, and only when no other
 * method can bring this rank anything: the whole job is on this node and the
 * doorbell's method comes before every other one that is polled, so it is the
 * one every peer binds (adi/peer.c binds the first that reaches).  Elsewhere
 * waits yield as before. */
static void choose_word(void)
{
    word_fn = NULL;
    if (!MPIDI_world.oversubscribed || MPIDI_world.nlocal != MPIDI_world.size)
        return;
    for (int i = 0; i < MPIDI_nactive; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_active[i].ops;
        if (ops->size > offsetof(MPIDI_method_ops_t, wait_word) && ops->wait_word) {
            word_fn = ops->wait_word;
            return;
        }
        if (!(ops->flags & MPIDI_METHOD_ALWAYS) && ops->progress != MPIDI_module_inert_progress)
            return; /* a method without a doorbell comes first */
    }
}

void MPIDI_progress_methods_set(void)
{
    npolled = ndone = 0;
    for (int i = 0; i < MPIDI_nactive; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_active[i].ops;
        if (ops->progress != MPIDI_module_inert_progress) {
            polled[npolled].progress = ops->progress;
            polled[npolled].hint =
                ops->size > offsetof(MPIDI_method_ops_t, work_hint) && ops->work_hint
                    ? ops->work_hint
                    : &always_work;
            polled[npolled].name = ops->name;
            npolled++;
        }
        if (ops->progress_done)
            done_fns[ndone++] = ops->progress_done;
    }
    choose_word();
}

/* Every method is polled on every call, in turn: a busy shm must never starve
 * the network (a known hang elsewhere), and deferred sends are retried each
 * time so parked protocol messages cannot be forgotten. */
int MPID_progress_depth;
unsigned MPID_sends_unpolled; /* see MPID_Send_poll */

int MPID_Progress_test(void)
{
    int made = 0;
    MPID_progress_depth++;
    for (int i = 0; i < npolled; i++) {
        if (!*polled[i].hint)
            continue;
        int m = 0;
        int err = polled[i].progress(&m);
        if (err)
            MPIDI_fatal("rank %d: progress of method %s failed: %s", MPIDI_world.rank,
                        polled[i].name, MPIR_Err_string(err));
        made |= m;
    }
    if (MPIDI_deferred_pending()) /* tested here: an idle poll then makes no call for it */
        made |= MPIDI_deferred_progress();
    if (MPIDI_lost_peers_pending()) {
        MPIDI_lost_peers_fail();
        made = 1;
    }
    if (*upper_work)
        made |= upper_hook();
    for (int i = 0; i < ndone; i++)
        done_fns[i]();
    MPID_progress_depth--;
    return made;
}

/* Past the spinning, an idle wait sleeps in the methods' wait objects when
 * they have them (verbs: its completion channel; a software RDMA device
 * needs the CPU a polling rank would take from it), for at most 1 ms when
 * every other method has one too, else for 50 us so that the methods
 * without one are still polled; otherwise it yields the CPU. */
static int sleep_in_methods(void)
{
    struct pollfd fds[16];
    int n = 0, others = 0;
    for (int i = 0; i < MPIDI_nactive && n < 16; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_active[i].ops;
        int fd = ops->wait_fd ? ops->wait_fd() : -1;
        if (fd >= 0)
            fds[n++] = (struct pollfd){.fd = fd, .events = POLLIN};
        else if (!(ops->flags & MPIDI_METHOD_ALWAYS))
            others = 1;
    }
    if (n == 0)
        return 0;
    if (MPID_Progress_test())
        return 1; /* something came while the notifications were armed */
    struct timespec ts = {0, others ? 50000 : 1000000};
    ppoll(fds, (nfds_t)n, &ts, NULL);
    return 1;
}

/* On an oversubscribed node, a rank that waits long (MPI_Finalize's barrier
 * while the last ranks of a large job are still starting) sleeps until a
 * peer sends to it: yielding, it would be scheduled again and again among
 * hundreds of runnable ranks (15% of a 256-rank job's CPU went to
 * sched_yield).  Armed first, then one more poll, so a message that came in
 * between is not slept through.  Work the core retries by itself (deferred
 * sends waiting for room at a peer) rings no bell: then it yields. */
static int sleep_on_word(long ns)
{
    uint32_t seen;
    if (!word_fn || MPIDI_deferred_pending())
        return 0;
    _Atomic uint32_t *word = word_fn(&seen);
    if (!word)
        return 0;
    if (MPID_Progress_test())
        return 1;
    struct timespec ts = {0, ns};
    /* EAGAIN (rung since the arming), EINTR and the timeout all just return. */
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
    MPIDI_stats.progress_sleeps++;
    return 1;
}

/* A program that calls MPI_Test (or MPI_Iprobe ...) again within this long of the last idle
 * poll's return is taken to spin on it rather than to compute between its polls. */
#define MPIDI_POLL_SPIN_GAP_NS 10000L

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

int MPID_Progress_poll(void)
{
    static int spun;      /* idle polls in a row, each called right after the one before */
    static long last_end; /* when the last idle poll returned */
    int made = MPID_Progress_test();
    if (made || spins_before_yield != 0) {
        spun = 0;
        return made;
    }
    spun = now_ns() - last_end < MPIDI_POLL_SPIN_GAP_NS ? spun + 1 : 0;
    /* A spinning program sleeps on the doorbell (at most MPIDI_POLL_SLEEP_NS), but only without
     * other threads in MPI (thread_yield unset): this one holds the lock.  One that computes
     * between its polls only yields. */
    if (!(spun > MPIDI_WORD_SLEEP_AFTER && !thread_yield && sleep_on_word(MPIDI_POLL_SLEEP_NS)))
        sched_yield();
    last_end = now_ns();
    return 0;
}

void MPID_Progress_wait(int (*done)(void *arg), void *arg)
{
    long idle = 0;
    while (!done(arg)) {
        if (MPID_Progress_test()) {
            idle = 0;
            continue;
        }
        if (thread_yield) {
            thread_yield(++idle > spins_before_yield);
            continue;
        }
        if (++idle > spins_before_yield) {
            /* The CPU goes to others: slept in the methods' wait objects or on
             * a doorbell, or yielded. */
            MPIDI_stats.progress_yields++;
            if (sleep_in_methods())
                continue;
            if (idle > spins_before_yield + MPIDI_WORD_SLEEP_AFTER && sleep_on_word(MPIDI_WORD_SLEEP_NS))
                continue;
            sched_yield();
        }
    }
}

static int req_done(void *arg)
{
    return MPIR_Request_is_complete(arg);
}

void MPID_Wait(MPIR_Request *req)
{
    MPID_Progress_wait(req_done, req);
}
