/* shm_progress.c: polls the fastboxes and the receive queue, dispatches in per-sender order. */
#include "mpi.h"
#include "shm_impl.h"
#include "shm_queue.h"

/* Ordering.  A sender stamps every message to a receiver with the next
 * value of a per-pair sequence number, whether it goes through the fastbox
 * or a cell.  The queue keeps one sender's cells in order, and the fastbox
 * holds at most one message, so the receiver only ever needs to decide
 * between the head of the line in the queue and the one fastbox message:
 * whichever carries the expected sequence number goes first. */

static int fbox_cursor; /* where the next fastbox sweep starts (fairness under the budget) */

static void deliver_fbox(int s, MPIDI_SHM_fbox_t *fb)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    st->recv_seq[s]++;
    MPIDU_am_dispatch(st->local_ranks[s], fb->handler, fb->data, fb->hdr_len,
                      fb->data + MPIDI_SHM_FBOX_PAYLOAD_OFF(fb->hdr_len), fb->payload_len);
    /* Release: every read of the slot (the dispatch above reads it in
     * place) happens before the sender, whose acquire load sees 0, writes
     * the next message into it. */
    atomic_store_explicit(&fb->full, 0, memory_order_release);
}

/* Delivers the fastbox message from local sender s if it is the next one
 * expected from s.  Returns 1 if it delivered. */
static int poll_fbox(int s)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_fbox_t *fb = MPIDI_SHM_fbox(s, st->me);

    /* Acquire: pairs with the sender's release store of 1, so seq, header
     * and payload read after this are the new message's. */
    if (atomic_load_explicit(&fb->full, memory_order_acquire) == 0)
        return 0;
    if (fb->seq != st->recv_seq[s])
        return 0; /* an earlier message from s is still in the queue */
    deliver_fbox(s, fb);
    return 1;
}

/* Delivers a dequeued cell (and first the fastbox message it must follow,
 * if any), then hands the cell back to its owner.  Adds to *count_p the
 * messages delivered. */
static int deliver_cell(MPIDI_SHM_cell_t *cell, int *count_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int s = cell->src;

    if (s >= st->nlocal || s == st->me)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm: cell at offset %llu names sender %d of %d",
                                (unsigned long long)MPIDI_SHM_rel(cell), s, st->nlocal);
    if (cell->seq != st->recv_seq[s]) {
        /* s sent the expected message through its fastbox before it
         * enqueued this cell.  The fastbox store is visible: it is sequenced
         * before the release store that linked this cell, which our dequeue
         * read with acquire.  So the fastbox must hold exactly that message. */
        if (!poll_fbox(s))
            return MPIDU_err_create(MPI_ERR_INTERN,
                                    "shm: message %u from rank %d arrived while %u was expected "
                                    "and the fastbox does not hold it",
                                    cell->seq, st->local_ranks[s], st->recv_seq[s]);
        (*count_p)++;
        if (cell->seq != st->recv_seq[s])
            return MPIDU_err_create(MPI_ERR_INTERN,
                                    "shm: message %u from rank %d arrived while %u was expected",
                                    cell->seq, st->local_ranks[s], st->recv_seq[s]);
    }

    st->recv_seq[s]++;
    MPIDU_am_dispatch(st->local_ranks[s], cell->handler, cell->hdr, cell->hdr_len,
                      (char *)cell + MPIDI_SHM_CELL_HDR_SIZE, cell->payload_len);
    (*count_p)++;
    /* The enqueue's release exchange orders our reads of the cell above
     * before the owner, who dequeues with acquire, refills it. */
    MPIDI_SHM_enqueue(&MPIDI_SHM_ctrl(s)->freeq, cell);
    return MPI_SUCCESS;
}

int MPIDI_SHM_progress(int *made_progress_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_queue_t *recvq;
    int count = 0, mpi_errno = MPI_SUCCESS;

    *made_progress_p = 0;
    /* A handler that calls progress again would deliver later messages
     * before the one it is handling; it gets nothing instead. */
    if (st->base == NULL || st->in_progress)
        return MPI_SUCCESS;
    st->in_progress = 1;

    /* Fastboxes first: they carry the latency-critical tiny messages.  At
     * most half the budget, so the queue is never starved by many senders. */
    int k;
    for (k = 0; k < st->nlocal && count < MPIDI_SHM_POLL_BUDGET / 2; k++) {
        int s = (fbox_cursor + k) % st->nlocal;
        if (s != st->me)
            count += poll_fbox(s);
    }
    fbox_cursor = (fbox_cursor + k) % st->nlocal;

    recvq = &MPIDI_SHM_ctrl(st->me)->recvq;
    /* A cell can bring the fastbox message it follows along: room for two. */
    while (count + 2 <= MPIDI_SHM_POLL_BUDGET &&
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
    if (st->liveness_ms && !mpi_errno)
        MPIDI_SHM_liveness_check();
    st->in_progress = 0;
    *made_progress_p = (count > 0);
    return mpi_errno;
}
