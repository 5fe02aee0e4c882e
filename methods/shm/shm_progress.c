/* shm_progress.c: polls the per-pair rings and the receive queue, dispatches in per-sender order.
 */
#include "mpi.h"
#include "shm_impl.h"
#include "shm_queue.h"
#include "shm_ring.h"

/* Ordering.  A sender stamps every message to a receiver with the next
 * value of a per-pair sequence number, whether it goes through the ring or
 * a cell.  The ring and the queue each keep one sender's messages in order,
 * so the receiver only ever decides between the head of the ring from s and
 * the next cell from s: whichever carries the expected number goes first.
 * A ring entry ahead of the expected number waits for a cell still in the
 * queue; a cell ahead of it follows ring entries that are already visible
 * (see deliver_cell). */

static void deliver_ring(int s, MPIDI_SHM_rent_t *e, size_t payload_len, size_t need)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    const char *base = (const char *)e;

    st->recv_seq[s]++;
    size_t pos = (size_t)(base - st->ring_rx[s].data);
    MPIDU_am_dispatch(st->local_ranks[s], e->handler, base + MPIDI_SHM_RING_HDR_OFF, e->hdr_len,
                      base + MPIDI_SHM_ring_payload_off(pos, e->hdr_len, payload_len), payload_len);
    MPIDI_SHM_ring_consume(s, need);
}

/* The size of entry e from s, checked: fields that cannot be the sender's
 * mean the segment was overwritten (a stray write of the application, or a
 * bug), an error. */
static int check_entry(int s, const MPIDI_SHM_rent_t *e, size_t *payload_len_p, size_t *need_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    uint32_t len = atomic_load_explicit(&e->len, memory_order_relaxed);
    size_t pos = (size_t)((const char *)e - st->ring_rx[s].data);
    size_t payload_len = MPIDI_SHM_rent_payload_len(len);

    if (e->hdr_len > MPIDI_SHM_MAX_HDR || payload_len > st->ring_size)
        goto fn_fail;
    *payload_len_p = payload_len;
    *need_p = MPIDI_SHM_ring_need(pos, e->hdr_len, payload_len);
    if (*need_p > st->ring_size - pos)
        goto fn_fail;
    return MPI_SUCCESS;
fn_fail:
    return MPIDU_err_create(MPI_ERR_INTERN,
                            "shm: corrupt ring entry from rank %d at offset %zu: length word %u, "
                            "header %u",
                            st->local_ranks[s], pos, len, e->hdr_len);
}

/* Delivers the ring entries from local sender s that are next in order, at
 * most budget of them.  Adds to *count_p the messages delivered. */
static int poll_ring(int s, int budget, int *count_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_rent_t *e;
    int n = 0, mpi_errno = MPI_SUCCESS;
    size_t payload_len = 0, need = 0;

    while (n < budget && (e = MPIDI_SHM_ring_peek(s)) != NULL) {
        if (e->seq != (uint16_t)st->recv_seq[s])
            break; /* an earlier message from s is still in the queue */
        if ((mpi_errno = check_entry(s, e, &payload_len, &need)))
            break;
        deliver_ring(s, e, payload_len, need);
        n++;
    }
    if (n) {
        MPIDI_SHM_ring_release(s);
        st->ring_rx[s].used = 1;
    }
    *count_p += n;
    return mpi_errno;
}

/* Delivers a dequeued cell (and first the ring entries it must follow, if
 * any), then hands the cell back to its owner.  Adds to *count_p the
 * messages delivered. */
static int deliver_cell(MPIDI_SHM_cell_t *cell, int *count_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int s = cell->src;

    if (s >= st->nlocal || s == st->me)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm: cell at offset %llu names sender %d of %d",
                                (unsigned long long)MPIDI_SHM_rel(cell), s, st->nlocal);
    if (cell->seq != st->recv_seq[s]) {
        /* s sent the messages from the expected number up to this cell's
         * through its ring before it enqueued this cell.  They are visible:
         * their release stores are sequenced before the release store that
         * linked this cell, which our dequeue read with acquire.  So the ring
         * must hold exactly them, in order. */
        uint32_t missing = cell->seq - st->recv_seq[s];
        int n = 0;
        int mpi_errno =
            poll_ring(s, (int)(missing < (uint32_t)INT32_MAX ? missing : INT32_MAX), &n);
        if (mpi_errno)
            return mpi_errno;
        *count_p += n;
        if (cell->seq != st->recv_seq[s])
            return MPIDU_err_create(MPI_ERR_INTERN,
                                    "shm: message %u from rank %d arrived while %u was expected "
                                    "and the ring does not hold the ones between",
                                    cell->seq, st->local_ranks[s], st->recv_seq[s]);
    }

    st->recv_seq[s]++;
    (*count_p)++;
    if (cell->handler == MPIDI_SHM_HANDLER_HELP) {
        if (MPIDI_SHM_help_run(s, cell))
            return MPI_SUCCESS; /* the cell is its owner's again, not ours to hand back */
    } else {
        MPIDU_am_dispatch(st->local_ranks[s], cell->handler, cell->hdr, cell->hdr_len,
                          (char *)cell + MPIDI_SHM_CELL_HDR_SIZE, cell->payload_len);
    }
    /* The enqueue's release exchange orders our reads of the cell above
     * before the owner, who dequeues with acquire, refills it. */
    MPIDI_SHM_enqueue(&MPIDI_SHM_ctrl(s)->freeq, cell);
    return MPI_SUCCESS;
}

/* Hot and cold rings.  ring_active lists the senders that have joined; its
 * first nring_hot entries are hot and polled on every call, the rest cold and
 * polled on every MPIDI_SHM_COLD_POLL_EVERY-th call (a full poll).  While at
 * most MPIDI_SHM_HOT_ALL have joined every ring stays hot, so a job with few
 * local peers polls as before.  A joining sender is hot (it just sent); a full
 * poll that finds a cold ring ready makes it hot; every MPIDI_SHM_HOT_EPOCH
 * full polls the hot rings that delivered nothing since the last look turn
 * cold.  The first message on a cold ring waits at most the calls up to the
 * next full poll; the doorbell's last poll before sleeping is a full one
 * (MPIDI_SHM_wait_word), so no message is slept through. */
static inline void ring_swap(MPIDI_SHM_state_t *st, int a, int b)
{
    int t = st->ring_active[a];
    st->ring_active[a] = st->ring_active[b];
    st->ring_active[b] = t;
}

/* A full poll: the cold rings that hold an entry turn hot. */
static void warm_ready_rings(MPIDI_SHM_state_t *st)
{
    for (int k = st->nring_hot; k < st->nring_active; k++)
        if (MPIDI_SHM_ring_ready(&st->ring_rx[st->ring_active[k]])) {
            ring_swap(st, k, st->nring_hot++);
            st->stat_ring_warmed++;
        }
}

/* The hot rings that delivered nothing since the last look turn cold. */
static void cool_quiet_rings(MPIDI_SHM_state_t *st)
{
    for (int k = 0; k < st->nring_hot;) {
        MPIDI_SHM_ring_rx_t *rx = &st->ring_rx[st->ring_active[k]];
        if (rx->used) {
            rx->used = 0;
            k++;
        } else {
            ring_swap(st, k, --st->nring_hot);
            st->stat_ring_cooled++;
        }
    }
}

/* Adds to ring_active the senders that have joined since the last look
 * (MPIDI_SHM_ring_join): only they can have written to their rings.  They
 * join hot. */
static void take_joins(MPIDI_SHM_state_t *st)
{
    /* Acquire: pairs with the joins' release increments, so the bits set
     * before them are visible below. */
    uint32_t joins =
        atomic_load_explicit(&MPIDI_SHM_ctrl(st->me)->ring_joins, memory_order_acquire);
    if (joins == st->ring_joins_seen)
        return;
    st->ring_joins_seen = joins;
    _Atomic uint64_t *bits = MPIDI_SHM_joined(st->me);
    for (int w = 0; w < (st->nlocal + 63) / 64; w++) {
        uint64_t fresh =
            atomic_load_explicit(&bits[w], memory_order_relaxed) & ~st->ring_seen_bits[w];
        st->ring_seen_bits[w] |= fresh;
        for (; fresh; fresh &= fresh - 1) {
            int s = w * 64 + __builtin_ctzll(fresh);
            if (s < st->nlocal && s != st->me) {
                st->ring_active[st->nring_active++] = s;
                ring_swap(st, st->nring_active - 1, st->nring_hot++);
                if (st->ring_prefault)
                    MPIDI_SHM_ring_prefault(st->ring_rx[s].ring, 0);
            }
        }
    }
}

/* Is there anything to do?  The idle case of every progress call, kept to a
 * few loads of lines that stay in our cache until a peer writes them and no
 * call, so polling costs little when nothing arrives: the hot rings, the
 * count of new ones, the queues. */
static inline int shm_idle(const MPIDI_SHM_state_t *st)
{
    for (int k = 0; k < st->nring_hot; k++)
        if (MPIDI_SHM_ring_ready(&st->ring_rx[st->ring_active[k]]))
            return 0;
    const MPIDI_SHM_ctrl_t *ctrl = MPIDI_SHM_ctrl(st->me);
    if (atomic_load_explicit((_Atomic uint32_t *)&ctrl->ring_joins, memory_order_relaxed) !=
        st->ring_joins_seen)
        return 0;
    return !MPIDI_SHM_queue_maybe_nonempty((MPIDI_SHM_queue_t *)&ctrl->recvq, st->recvq_shadow) &&
           !MPIDI_SHM_queue_maybe_nonempty((MPIDI_SHM_queue_t *)&ctrl->freeq, st->freeq_shadow);
}

/* Every MPIDI_SHM_COLD_POLL_EVERY-th call (a tick): the throttled liveness
 * watch (shm_liveness.c: idle polls count too, a dead peer is what an idle
 * rank may be waiting for), the periodic look for quiet hot rings, and a full
 * poll, where the cold rings that hold an entry turn hot. */
static void shm_tick(MPIDI_SHM_state_t *st)
{
    st->tick_countdown = MPIDI_SHM_COLD_POLL_EVERY;
    if (--st->live_countdown <= 0) {
        st->live_countdown = MPIDI_SHM_LIVENESS_POLL_EVERY / MPIDI_SHM_COLD_POLL_EVERY;
        if (st->liveness_ms)
            MPIDI_SHM_liveness_check();
    }
    if (st->nring_active <= MPIDI_SHM_HOT_ALL)
        return;
    if (--st->epoch_countdown <= 0) {
        st->epoch_countdown = MPIDI_SHM_HOT_EPOCH;
        cool_quiet_rings(st);
    }
    warm_ready_rings(st);
}

/* Not inlined: its register saves would otherwise be paid by every idle poll. */
__attribute__((noinline)) static int shm_progress_busy(MPIDI_SHM_state_t *st, int *made_progress_p)
{
    MPIDI_SHM_queue_t *recvq;
    int count = 0, mpi_errno = MPI_SUCCESS;

    /* A handler that calls progress again would deliver later messages
     * before the one it is handling; it gets nothing instead. */
    if (st->in_progress)
        return MPI_SUCCESS;
    st->in_progress = 1;

    /* Rings first: they carry the small, latency-critical messages.  At
     * most half the budget, so the queue is never starved by many senders;
     * the sweep starts where the last one stopped, for fairness. */
    if (st->ring_size) {
        take_joins(st);
        int nhot = st->nring_hot;
        int a = st->ring_cursor < nhot ? st->ring_cursor : 0;
        for (int k = 0; k < nhot && count < MPIDI_SHM_POLL_BUDGET / 2; k++) {
            int s = st->ring_active[a];
            if (MPIDI_SHM_ring_ready(&st->ring_rx[s]) &&
                (mpi_errno = poll_ring(s, MPIDI_SHM_POLL_BUDGET / 2 - count, &count)))
                goto fn_exit;
            if (++a == nhot)
                a = 0;
        }
        st->ring_cursor = a;
    }

    recvq = &MPIDI_SHM_ctrl(st->me)->recvq;
    while (count < MPIDI_SHM_POLL_BUDGET &&
           MPIDI_SHM_queue_maybe_nonempty(recvq, st->recvq_shadow)) {
        MPIDI_SHM_cell_t *cell = MPIDI_SHM_dequeue(recvq, &st->recvq_shadow);
        if (cell == NULL)
            break;
        if (st->ndraining)
            MPIDI_SHM_liveness_dequeued(MPIDI_SHM_rel(cell));
        mpi_errno = deliver_cell(cell, &count);
        if (mpi_errno)
            break;
    }

    MPIDI_SHM_reclaim_cells();
fn_exit:
    st->in_progress = 0;
    /* Reads that a peer helps with (shm_cma.c) end without a message. */
    if (st->nhelp_wait && MPIDI_SHM_help_poll())
        count++;
    *made_progress_p = (count > 0);
    return mpi_errno;
}

/* A tick's progress call: the tick, then the busy path if anything is there.
 * Not inlined, like the busy path (bench/budget.py counts that one's calls as
 * the delivering polls). */
__attribute__((noinline)) static int shm_progress_tick(MPIDI_SHM_state_t *st, int *made_progress_p)
{
    /* A handler's nested call delivers nothing: the tick waits for the next
     * call (the countdown stays at or below 0). */
    if (st->in_progress)
        return MPI_SUCCESS;
    shm_tick(st);
    if (shm_idle(st) && !st->nhelp_wait)
        return MPI_SUCCESS;
    return shm_progress_busy(st, made_progress_p);
}

int MPIDI_SHM_progress(int *made_progress_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int mpi_errno = MPI_SUCCESS;

    *made_progress_p = 0;
    if (st->base == NULL)
        return MPI_SUCCESS;
    if (--st->tick_countdown <= 0)
        mpi_errno = shm_progress_tick(st, made_progress_p);
    else if (!shm_idle(st) || st->nhelp_wait)
        mpi_errno = shm_progress_busy(st, made_progress_p);
    /* While a dead peer's messages drain, the liveness watch runs on every
     * call.  Not from a handler's nested call. */
    if (st->ndraining && st->liveness_ms && !mpi_errno && !st->in_progress)
        MPIDI_SHM_liveness_check();
    return mpi_errno;
}
