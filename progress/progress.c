/* progress.c: the communication agent: polls every method, retries deferred work, waits. */
#include <poll.h>
#include <sched.h>
#include <time.h>
#include "adi_impl.h"
#include "module.h"
#include "mpidi_config.h"

static long spins_before_yield;
/* A callback rather than a call, so progress/ does not reach up into mpi/. */
static int (*upper_hook)(void);

void MPID_Progress_set_hook(int (*fn)(void))
{
    upper_hook = fn;
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
    const char *name;
} polled[MPIDI_MAX_METHODS];
static void (*done_fns[MPIDI_MAX_METHODS])(void);
static int npolled, ndone;

void MPIDI_progress_methods_set(void)
{
    npolled = ndone = 0;
    for (int i = 0; i < MPIDI_nactive; i++) {
        const MPIDI_method_ops_t *ops = MPIDI_active[i].ops;
        if (ops->progress != MPIDI_module_inert_progress) {
            polled[npolled].progress = ops->progress;
            polled[npolled].name = ops->name;
            npolled++;
        }
        if (ops->progress_done)
            done_fns[ndone++] = ops->progress_done;
    }
}

/* Every method is polled on every call, in turn: a busy shm must never starve
 * the network (a known hang elsewhere), and deferred sends are retried each
 * time so parked protocol messages cannot be forgotten. */
int MPID_Progress_test(void)
{
    int made = 0;
    for (int i = 0; i < npolled; i++) {
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
    if (upper_hook)
        made |= upper_hook();
    for (int i = 0; i < ndone; i++)
        done_fns[i]();
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

void MPID_Progress_wait(int (*done)(void *arg), void *arg)
{
    long idle = 0;
    while (!done(arg)) {
        if (MPID_Progress_test()) {
            idle = 0;
            continue;
        }
        if (++idle > spins_before_yield) {
            /* The CPU goes to others: slept in the methods' wait objects, or yielded. */
            MPIDI_stats.progress_yields++;
            if (!sleep_in_methods())
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
