/* shm_liveness.c: noticing that a process on this node died, without waiting for the launcher. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "shm_impl.h"
#include "shm_queue.h"
#include "shm_ring.h"

/* Why: a rank that dies leaves its peers waiting for messages that will
 * never come.  tcp sees the connection close; shm has no connection, so it
 * watches the processes themselves.  A pidfd (Linux 5.3) becomes readable
 * when its process ends and cannot be fooled by the pid being reused; where
 * there is none, kill(pid, 0) answering ESRCH is the fallback.  The check
 * is one poll() over every local peer every FERRY_SHM_LIVENESS_MS, at most:
 * progress reads the clock only every 256th call, so the busy path pays
 * nothing measurable.
 *
 * A peer that ended is not failed at once: messages it sent before dying
 * may still wait in our queue or its ring, and MPI lets them be received.
 * Its death is noted with the queue's tail at that moment; once the
 * consumer has dequeued that cell (or found the queue empty) and the ring
 * from the peer holds nothing that can be next, everything it sent has been
 * delivered, and then the core is told (MPIDU_peer_failed).  A peer that
 * ran shm's finalize first (it sets its finalized flag in the roster)
 * exited in order.
 *
 * The pidfds are opened at the first check, not at start-up (a short job
 * never pays for them), and one poll() asks about all of them, so a check
 * costs one system call whatever the number of local peers. */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void MPIDI_SHM_liveness_init(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    st->liveness_ms = MPIDU_config_int("FERRY_SHM_LIVENESS_MS");
    if (st->liveness_ms == 0)
        return;
    st->pidfds = malloc(sizeof(*st->pidfds) * (size_t)st->nlocal);
    st->peer_state = calloc((size_t)st->nlocal, sizeof(*st->peer_state));
    st->drain_mark = calloc((size_t)st->nlocal, sizeof(*st->drain_mark));
    if (!st->pidfds || !st->peer_state || !st->drain_mark) {
        MPIDI_SHM_liveness_finalize();
        st->liveness_ms = 0; /* no watching without memory; the launcher still ends the job */
        return;
    }
    for (int i = 0; i < st->nlocal; i++)
        st->pidfds[i] = (struct pollfd){.fd = -1, .events = POLLIN};
    st->pidfds_opened = 0;
    st->next_check_ms = now_ms() + st->liveness_ms;
}

void MPIDI_SHM_liveness_finalize(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    if (st->pidfds)
        for (int i = 0; i < st->nlocal; i++)
            if (st->pidfds[i].fd >= 0)
                close(st->pidfds[i].fd);
    free(st->pidfds);
    free(st->peer_state);
    free(st->drain_mark);
    st->pidfds = NULL;
    st->peer_state = NULL;
    st->drain_mark = NULL;
}

/* A peer in another pid namespace is not watched: its pid means nothing
 * here.  Without pidfds (old kernel, or out of descriptors) kill(pid, 0)
 * does the check. */
static void open_pidfds(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    uint64_t my_ns = MPIDI_SHM_roster(st->me)->pidns;
    st->pidfds_opened = 1;
    for (int i = 0; i < st->nlocal; i++) {
        uint64_t ns = MPIDI_SHM_roster(i)->pidns;
        if (i == st->me)
            continue;
        if (ns != 0 && my_ns != 0 && ns != my_ns) {
            st->peer_state[i] = MPIDI_SHM_PEER_UNWATCHED;
            continue;
        }
#ifdef SYS_pidfd_open
        st->pidfds[i].fd = (int)syscall(SYS_pidfd_open, MPIDI_SHM_pid(i), 0);
#endif
    }
}

/* After one poll() over the pidfds: has local peer i ended? */
static int process_ended(int i)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    if (st->pidfds[i].fd >= 0)
        return (st->pidfds[i].revents & POLLIN) != 0;
    return kill(MPIDI_SHM_pid(i), 0) != 0 && errno == ESRCH;
}

static void peer_died(int i)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    char msg[256];
    st->peer_state[i] = MPIDI_SHM_PEER_FAILED;
    st->nfailed++;
    MPIDI_SHM_help_drop(i); /* no MPIDU_op_done for an operation toward it from now on */
    snprintf(msg, sizeof(msg),
             "shm: rank %d (pid %ld, on this node) ended without finalizing; rank %d probably "
             "died",
             st->local_ranks[i], (long)MPIDI_SHM_pid(i), st->local_ranks[i]);
    MPIDU_peer_failed(st->local_ranks[i], MPIDU_err_create(MPI_ERR_OTHER, "%s", msg), msg);
}

/* The consumer dequeued a cell: is it the last one that was queued when a
 * peer's death was seen? */
void MPIDI_SHM_liveness_dequeued(MPIDI_SHM_off_t cell)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    for (int i = 0; i < st->nlocal; i++)
        if (st->peer_state[i] == MPIDI_SHM_PEER_DRAINING && st->drain_mark[i] == cell)
            st->drain_mark[i] = 0;
}

void MPIDI_SHM_liveness_check(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    /* MPIDI_SHM_progress calls this every MPIDI_SHM_LIVENESS_POLL_EVERY-th
     * time, or every time while a peer drains. */
    long long now = now_ms();
    if (now < st->next_check_ms && st->ndraining == 0)
        return;
    MPIDI_SHM_queue_t *recvq = &MPIDI_SHM_ctrl(st->me)->recvq;
    int checking = now >= st->next_check_ms;
    if (checking) {
        if (!st->pidfds_opened)
            open_pidfds();
        if (poll(st->pidfds, (nfds_t)st->nlocal, 0) < 0)
            checking = 0; /* EINTR or ENOMEM: the next check asks again */
    }
    for (int i = 0; i < st->nlocal; i++) {
        MPIDI_SHM_peer_state_t ps = st->peer_state[i];
        if (i == st->me || ps == MPIDI_SHM_PEER_FAILED || ps == MPIDI_SHM_PEER_UNWATCHED)
            continue;
        if (ps == MPIDI_SHM_PEER_ALIVE && checking && process_ended(i)) {
            /* Acquire: pairs with the owner's release store of the flag in
             * its finalize, which it made before exiting. */
            if (atomic_load_explicit(&MPIDI_SHM_roster(i)->finalized, memory_order_acquire)) {
                st->peer_state[i] = MPIDI_SHM_PEER_UNWATCHED;
                continue;
            }
            /* Everything it queued for us was queued before now: the cell
             * at the tail now (0 if the queue is empty) is the last that
             * can be its.  Acquire: see the cells linked up to that tail. */
            st->drain_mark[i] = atomic_load_explicit(&recvq->tail, memory_order_acquire);
            if (st->drain_mark[i] != 0 && !MPIDI_SHM_queue_maybe_nonempty(recvq, st->recvq_shadow))
                st->drain_mark[i] = 0;
            st->peer_state[i] = MPIDI_SHM_PEER_DRAINING;
            st->ndraining++;
        }
        if (st->peer_state[i] == MPIDI_SHM_PEER_DRAINING) {
            if (!MPIDI_SHM_queue_maybe_nonempty(recvq, st->recvq_shadow))
                st->drain_mark[i] = 0; /* the queue ran empty: the mark is behind us */
            /* A ring entry that is not the next expected one follows a
             * cell that never made it (the peer died linking it): it can
             * never be delivered, so it is not waited for. */
            const MPIDI_SHM_rent_t *e = st->ring_size ? MPIDI_SHM_ring_peek(i) : NULL;
            if (st->drain_mark[i] == 0 && (e == NULL || e->seq != (uint16_t)st->recv_seq[i])) {
                st->ndraining--;
                peer_died(i);
            }
        }
    }
    if (now >= st->next_check_ms)
        st->next_check_ms = now + st->liveness_ms;
}

int MPIDI_SHM_peer_failed(int li)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    if (!st->peer_state || st->peer_state[li] != MPIDI_SHM_PEER_FAILED)
        return MPI_SUCCESS;
    return MPIDU_err_create(MPI_ERR_OTHER, "shm: rank %d (pid %ld, on this node) is lost",
                            st->local_ranks[li], (long)MPIDI_SHM_pid(li));
}
