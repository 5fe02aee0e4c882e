/* shm_send.c: am_send through the per-pair ring or a cell, and the sender's pool of free cells. */
#include <string.h>

#include "mpi.h"
#include "shm_impl.h"
#include "shm_queue.h"
#include "shm_ring.h"

/* Moves cells that receivers handed back from our shared free queue to the
 * private free stack.  Bounded by the pool size; never waits for a producer
 * that is still linking a cell (see MPIDI_SHM_dequeue). */
void MPIDI_SHM_reclaim_cells(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_queue_t *freeq = &MPIDI_SHM_ctrl(st->me)->freeq;
    MPIDI_SHM_cell_t *cell;

    if (!MPIDI_SHM_queue_maybe_nonempty(freeq, st->freeq_shadow))
        return;
    while (st->nfree < st->num_cells && (cell = MPIDI_SHM_dequeue(freeq, &st->freeq_shadow)))
        st->free_stack[st->nfree++] = MPIDI_SHM_rel(cell);
}

/* Takes a free cell of ours, or NULL when every one is in flight.  Returned
 * cells are taken back before every send, not only when the stack is empty:
 * the stack is LIFO, so the cell the receiver released last (still in both
 * caches) is reused, instead of cycling through the whole pool and touching
 * cold memory on every message. */
MPIDI_SHM_cell_t *MPIDI_SHM_cell_take(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    MPIDI_SHM_reclaim_cells();
    if (st->nfree == 0)
        return NULL;
    return MPIDI_SHM_abs(st->free_stack[--st->nfree]);
}

/* Puts back a cell of ours that was taken and never posted (or that its
 * receiver will not hand back: a shared read's, shm_cma.c). */
void MPIDI_SHM_cell_untake(MPIDI_SHM_cell_t *cell)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    st->free_stack[st->nfree++] = MPIDI_SHM_rel(cell);
}

/* Queues a filled cell to local peer li, next in the pair's order. */
void MPIDI_SHM_cell_post(int li, MPIDI_SHM_cell_t *cell)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    cell->seq = st->send_seq[li];
    cell->src = (uint16_t)st->me;
    /* The enqueue's release operations publish the cell contents. */
    MPIDI_SHM_enqueue(&MPIDI_SHM_ctrl(li)->recvq, cell);
    MPIDI_SHM_wake(li);
    st->send_seq[li]++;
}

static int check_args(int peer, int li, int handler, size_t hdr_len, const MPIR_Segment *seg,
                      size_t first, size_t last)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    if (li < 0 || li == st->me)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm am_send to rank %d: not a peer on this node",
                                peer);
    if (handler < 0 || handler > UINT8_MAX)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm am_send to rank %d: handler %d out of range",
                                peer, handler);
    if (hdr_len > MPIDI_SHM_MAX_HDR)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm am_send to rank %d: header of %zu bytes > %d",
                                peer, hdr_len, MPIDI_SHM_MAX_HDR);
    if (last < first || last - first > st->cell_size - MPIDI_SHM_CELL_HDR_SIZE)
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "shm am_send to rank %d: payload [%zu, %zu) exceeds max_send %zu",
                                peer, first, last, st->cell_size - MPIDI_SHM_CELL_HDR_SIZE);
    if (seg == NULL && last != first)
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "shm am_send to rank %d: %zu bytes without a segment", peer,
                                last - first);
    return MPI_SUCCESS;
}

static inline int pack(int peer, const MPIR_Segment *seg, size_t first, size_t last, void *dst)
{
    if (first == last)
        return MPI_SUCCESS;
    size_t got = MPIR_Segment_pack(seg, first, last, dst);
    if (got != last - first)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm am_send to rank %d: packed %zu of %zu bytes",
                                peer, got, last - first);
    return MPI_SUCCESS;
}

/* A ring entry's fields and header, before its payload. */
static inline void ring_fill(MPIDI_SHM_state_t *st, int li, MPIDI_SHM_rent_t *e, int handler,
                             const void *hdr, size_t hdr_len)
{
    e->seq = (uint16_t)st->send_seq[li];
    e->handler = (uint8_t)handler;
    e->hdr_len = (uint8_t)hdr_len;
    MPIR_Memcpy_small((char *)e + MPIDI_SHM_RING_HDR_OFF, hdr, hdr_len);
}

/* Publishes a filled ring entry of need bytes (wrap: as reserve set it) and
 * counts it in the pair's order and the counters. */
static inline void ring_post(MPIDI_SHM_state_t *st, int li, MPIDI_SHM_rent_t *e, size_t need,
                             size_t len, MPIDI_SHM_rent_t *wrap)
{
    MPIDI_SHM_ring_publish(li, e, need, len, wrap);
    MPIDI_SHM_wake(li);
    st->send_seq[li]++;
    st->stat_ring_sent++;
    if (len > st->stat_ring_bytes_max)
        st->stat_ring_bytes_max = len;
}

/* The ring path: when the entry is small enough and the ring has room.
 * Ordering against messages still in the cell queue is the receiver's job:
 * it delivers by sequence number. */
static inline int try_ring(int peer, int li, int handler, const void *hdr, size_t hdr_len,
                           const MPIR_Segment *seg, size_t first, size_t last, int *done_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    size_t need, len = last - first;
    MPIDI_SHM_rent_t *e, *wrap;

    *done_p = 0;
    e = MPIDI_SHM_ring_reserve(li, hdr_len, len, &need, &wrap);
    if (!e) {
        if (need <= st->ring_max)
            st->stat_ring_full++;
        return MPI_SUCCESS;
    }
    if (!st->ring_tx[li].joined)
        MPIDI_SHM_ring_join(li);
    ring_fill(st, li, e, handler, hdr, hdr_len);
    size_t pos = (size_t)((char *)e - MPIDI_SHM_ring_data(st->ring_tx[li].ring));
    char *payload = (char *)e + MPIDI_SHM_ring_payload_off(pos, hdr_len, len);
    MPIDI_SHM_ring_prepare(payload, len);
    int mpi_errno = pack(peer, seg, first, last, payload);
    if (mpi_errno)
        return mpi_errno; /* nothing published: the ring is as it was */
    ring_post(st, li, e, need, len, wrap);
    *done_p = 1;
    return MPI_SUCCESS;
}

/* am_send's common case: a header of at most MAX_SMALL bytes and at most
 * MAX_SMALL bytes of contiguous payload, to a peer whose ring it has joined,
 * with room before the ring's end.  Kept apart from the general path, whose
 * checks, cells and register saves it does not need (issue 12: an 8-byte
 * MPI_Isend spent 190 instructions in am_send).  Returns 1 when it sent the
 * message, 0 when the general path must (having changed nothing). */
#define MPIDI_SHM_MAX_SMALL 16
static inline int send_small(int peer, int handler, const void *hdr, size_t hdr_len,
                             const MPIR_Segment *seg, size_t first, size_t last)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    size_t len = last - first; /* huge when last < first: then the size test fails */

    if (hdr_len > MPIDI_SHM_MAX_SMALL || len > MPIDI_SHM_MAX_SMALL ||
        (unsigned)handler > UINT8_MAX || st->nfailed || (unsigned)peer >= (unsigned)st->world_size)
        return 0;
    if (len && !(seg && seg->is_contig && last <= seg->size))
        return 0;
    int li = st->world_to_local[peer];
    /* Joined: rings are on, the peer is local and not ourselves. */
    if (li < 0 || !st->ring_tx[li].joined)
        return 0;
    MPIDI_SHM_ring_tx_t *tx = &st->ring_tx[li];
    /* The entry where MPIDI_SHM_ring_reserve would put it, when that needs
     * no wrap and no new look at the receiver's count (the general path
     * does both).  A small entry is always within ring_max, which has room
     * for a largest header and a line more. */
    size_t pos = tx->head & st->ring_mask;
    size_t need = MPIDI_SHM_ring_need(pos, hdr_len, len);
    if (pos + need > st->ring_size || !MPIDI_SHM_ring_fits_seen(tx, need))
        return 0;
    MPIDI_SHM_rent_t *e = MPIDI_SHM_ring_entry(tx->ring, tx->head);
    ring_fill(st, li, e, handler, hdr, hdr_len);
    if (len) /* without a payload seg may be NULL */
        MPIR_Memcpy_small((char *)e + MPIDI_SHM_ring_payload_off(pos, hdr_len, len),
                          seg->buf + first, len);
    ring_post(st, li, e, need, len, NULL);
    return 1;
}

static int am_send_any(int peer, int handler, const void *hdr, size_t hdr_len,
                       const MPIR_Segment *seg, size_t first, size_t last);

int MPIDI_SHM_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                      const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                      void *cookie)
{
    /* MPIDI_AM_FENCE holds already: rdma_get and rdma_put finish their own
     * copies before they return, and the part of a shared read left to the
     * peer (shm_cma.c) is written by the peer before it takes any later
     * message of ours out of its queue.  The payload is copied before
     * return: never MPIDI_INPROGRESS, so the cookie is not kept. */
    (void)flags;
    (void)cookie;
    if (send_small(peer, handler, hdr, hdr_len, seg, first, last))
        return MPI_SUCCESS;
    return am_send_any(peer, handler, hdr, hdr_len, seg, first, last);
}

/* am_send's general path: checks, the ring (its first use, a wrap, a larger
 * entry) or a cell. */
__attribute__((noinline)) static int am_send_any(int peer, int handler, const void *hdr,
                                                 size_t hdr_len, const MPIR_Segment *seg,
                                                 size_t first, size_t last)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int li = (st->base && peer >= 0 && peer < st->world_size) ? st->world_to_local[peer] : -1;
    int done, mpi_errno;

    mpi_errno = check_args(peer, li, handler, hdr_len, seg, first, last);
    if (mpi_errno)
        return mpi_errno;
    /* Nobody would ever take a cell out of a dead process's queue. */
    if (st->nfailed && (mpi_errno = MPIDI_SHM_peer_failed(li)))
        return mpi_errno;

    mpi_errno = try_ring(peer, li, handler, hdr, hdr_len, seg, first, last, &done);
    if (mpi_errno || done)
        return mpi_errno;

    MPIDI_SHM_cell_t *cell = MPIDI_SHM_cell_take();
    if (!cell)
        return MPIDI_AGAIN; /* every cell is in flight; the core retries from progress */
    cell->hdr_len = (uint16_t)hdr_len;
    cell->handler = handler;
    cell->payload_len = last - first;
    memcpy(cell->hdr, hdr, hdr_len);
    mpi_errno = pack(peer, seg, first, last, (char *)cell + MPIDI_SHM_CELL_HDR_SIZE);
    if (mpi_errno) {
        MPIDI_SHM_cell_untake(cell);
        return mpi_errno;
    }
    MPIDI_SHM_cell_post(li, cell);
    st->stat_cell_sent++;
    return MPI_SUCCESS;
}
