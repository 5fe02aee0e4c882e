/* shm_queue.h: the lock-free multi-producer single-consumer cell queue (receive and free queues).
 */
#ifndef SHM_QUEUE_H_INCLUDED
#define SHM_QUEUE_H_INCLUDED

#include "shm_impl.h"

/* The queue is a singly linked list of cells threaded through cell->next,
 * with a shared head and tail.  A producer claims its place with one atomic
 * exchange of the tail, then links itself behind the previous tail (or
 * publishes itself as head when the queue was empty).  The single consumer
 * keeps a private shadow head: it takes the whole shared list at once and
 * walks it without touching the shared head again, so in steady state the
 * consumer and the producers write different cache lines.
 *
 * Between a producer's exchange and its link the list is briefly broken.
 * The consumer never waits for the link: it leaves the last cell in place
 * and reports "nothing yet"; the next progress call finds the link.  That
 * keeps every function free of busy-waiting, which matters when there are
 * more processes than cores and the producer may be descheduled.
 *
 * All links are offsets from the segment base (the segment maps at a
 * different address in each process); 0 is "none". */

static inline void MPIDI_SHM_queue_init(MPIDI_SHM_queue_t *q)
{
    /* Only the owner initialises, before the job-wide barrier that makes it
     * visible to the producers, so relaxed stores suffice. */
    atomic_store_explicit(&q->head, 0, memory_order_relaxed);
    atomic_store_explicit(&q->tail, 0, memory_order_relaxed);
}

static inline void MPIDI_SHM_enqueue(MPIDI_SHM_queue_t *q, MPIDI_SHM_cell_t *cell)
{
    MPIDI_SHM_off_t off = MPIDI_SHM_rel(cell);

    /* Relaxed: published by the release operations below, which order this
     * store (and the cell's header and payload) before the cell becomes
     * reachable through the tail, head or prev->next. */
    atomic_store_explicit(&cell->next, 0, memory_order_relaxed);

    /* Release: a producer that later links behind us through prev->next, or
     * the consumer that succeeds its tail CAS on us, must see our cell's next
     * == 0 and contents.  Acquire: we write prev->next below; the acquire
     * makes the previous producer's initialisation of prev (its next = 0)
     * happen before our link, so its late relaxed store of 0 can never
     * overwrite our link.  It also reads the consumer's tail reset, which
     * orders the consumer's earlier "head = 0" before our "head = cell". */
    MPIDI_SHM_off_t prev = atomic_exchange_explicit(&q->tail, off, memory_order_acq_rel);

    if (prev == 0) {
        /* Release: the consumer's acquire load of head must not see the
         * cell before its header and payload are written. */
        atomic_store_explicit(&q->head, off, memory_order_release);
    } else {
        MPIDI_SHM_cell_t *p = MPIDI_SHM_abs(prev);
        /* Release: same reason, for a consumer that walks to us from prev. */
        atomic_store_explicit(&p->next, off, memory_order_release);
    }
}

/* Takes the oldest cell, or returns NULL when the queue is empty or its last
 * cell is still being linked by a producer.  Only the owner calls it;
 * *shadow is the consumer's private head. */
static inline MPIDI_SHM_cell_t *MPIDI_SHM_dequeue(MPIDI_SHM_queue_t *q, MPIDI_SHM_off_t *shadow)
{
    if (*shadow == 0) {
        /* Acquire: pairs with the producer's release store of head, so the
         * cell's header and payload are visible before we read them. */
        MPIDI_SHM_off_t h = atomic_load_explicit(&q->head, memory_order_acquire);
        if (h == 0)
            return NULL;
        *shadow = h;
        /* Relaxed: no producer writes head while the tail is non-zero, and
         * our tail CAS below (release) orders this store before the next
         * producer that finds the queue empty stores a new head. */
        atomic_store_explicit(&q->head, 0, memory_order_relaxed);
    }

    MPIDI_SHM_cell_t *cell = MPIDI_SHM_abs(*shadow);
    /* Acquire: pairs with the release store of the link, so the next
     * cell's contents are visible before we later read them. */
    MPIDI_SHM_off_t next = atomic_load_explicit(&cell->next, memory_order_acquire);
    if (next != 0) {
        *shadow = next;
        return cell;
    }

    /* cell looks like the last one.  If the tail still names it, swing the
     * tail back to empty.  Release: orders our "head = 0" above (and all
     * reads of earlier cells) before a producer that then finds an empty
     * queue; acquire on failure: we read the tail a producer wrote and will
     * load cell->next again next time, which its release store covers. */
    MPIDI_SHM_off_t expected = *shadow;
    if (atomic_compare_exchange_strong_explicit(&q->tail, &expected, 0, memory_order_acq_rel,
                                                memory_order_acquire)) {
        *shadow = 0;
        return cell;
    }

    /* A producer has exchanged the tail but not yet written cell->next.  Do
     * not wait for it: keep the cell and report nothing this time. */
    return NULL;
}

/* Nonzero when a dequeue could find something (cheap poll, no writes).
 * Relaxed: it is only a hint; MPIDI_SHM_dequeue re-reads head with acquire
 * before touching any cell, and a stale 0 just means "next call". */
static inline int MPIDI_SHM_queue_maybe_nonempty(MPIDI_SHM_queue_t *q, MPIDI_SHM_off_t shadow)
{
    return shadow != 0 || atomic_load_explicit(&q->head, memory_order_relaxed) != 0;
}

#endif /* SHM_QUEUE_H_INCLUDED */
