/* shm_wait.c: the doorbell a rank of an oversubscribed node sleeps on while it waits. */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shm_impl.h"

/* Why: with more ranks than CPUs, a rank that waits long (MPI_Finalize's
 * barrier while the last ranks of a 256-rank job still start) would yield
 * the CPU again and again, scheduled among hundreds of runnable ranks.  It
 * sleeps instead, and whoever sends to it wakes it.
 *
 * The protocol, a Dekker pair of seq_cst fences:
 * - the owner reads bell, then sets sleeping, fence, polls once more (the
 *   agent does), and sleeps on bell only if bell still holds what it read;
 * - a sender publishes its message, fence, and if sleeping is set it clears
 *   it (exchange: one sender rings), bumps bell and wakes the owner.
 * Either the owner's last poll sees the message or the sender sees the flag.
 * bell is read before the flag is set: a sender that clears the flag bumps
 * bell after that read, so the futex cannot sleep through the ring.  A flag
 * that stays set after a wake by timeout costs the next sender one wake of
 * nobody. */

_Atomic uint32_t *MPIDI_SHM_wait_word(uint32_t *seen_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    /* Not from a wait inside a handler: shm delivers nothing there, and the
     * liveness watch below must not run there (as in MPIDI_SHM_progress). */
    if (st->base == NULL || !st->doorbell || st->in_progress)
        return NULL;
    /* A dead peer rings no bell: the watch runs here too (it is throttled by
     * the clock), since a sleeping rank makes few progress calls. */
    if (st->liveness_ms)
        MPIDI_SHM_liveness_check();
    if (st->ndraining)
        return NULL; /* a dead peer's messages drain: keep polling */
    /* The agent's poll after the arming looks at the cold rings too
     * (shm_progress.c): a message on one of them must not be slept through. */
    st->tick_countdown = 1;
    MPIDI_SHM_ctrl_t *ctrl = MPIDI_SHM_ctrl(st->me);
    *seen_p = atomic_load_explicit(&ctrl->bell, memory_order_acquire);
    atomic_store_explicit(&ctrl->sleeping, 1, memory_order_seq_cst);
    atomic_thread_fence(memory_order_seq_cst);
    return &ctrl->bell;
}

void MPIDI_SHM_ring_bell(int li)
{
    MPIDI_SHM_ctrl_t *ctrl = MPIDI_SHM_ctrl(li);
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&ctrl->sleeping, memory_order_relaxed) ||
        !atomic_exchange_explicit(&ctrl->sleeping, 0, memory_order_seq_cst))
        return;
    atomic_fetch_add_explicit(&ctrl->bell, 1, memory_order_seq_cst);
    /* Not FUTEX_PRIVATE: the word is in a segment other processes map. */
    syscall(SYS_futex, &ctrl->bell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
