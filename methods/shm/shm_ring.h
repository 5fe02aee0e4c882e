/* shm_ring.h: the per-pair ring of small messages (inline), with the reason for every barrier. */
#ifndef SHM_RING_H_INCLUDED
#define SHM_RING_H_INCLUDED

#include "shm_impl.h"

/* Each ordered pair (sender s, receiver r) has a single-producer
 * single-consumer ring of ring_size bytes in r's region.  A message is one
 * entry: an 8-byte entry header, the active-message header, the payload,
 * rounded up to MPIDI_SHM_RING_GRAIN (16) bytes, so entries are packed: an
 * 8-byte message (16-byte match header) takes 32 bytes, two to a line.
 * Each line of entries is a transfer from the sender's core to the
 * receiver's, and the receiver learns where the next entry is only from
 * this one, so in a stream of small messages the lines per message bound
 * the rate (issue 12, doc/methods/shm.md).  A large payload starts at a
 * line instead (MPIDI_SHM_ring_payload_off).  Neither side ever does an
 * atomic read-modify-write: the sender stores, the receiver loads, and the
 * only line the receiver writes is its consumed count, which the sender
 * reads only when the ring looks full.
 *
 * How the receiver knows an entry is complete.  The first word of an entry
 * is its length word: 1 + the payload's length; 0 means "nothing yet".  The
 * entry's size follows from it, the header's length and the entry's place
 * (MPIDI_SHM_ring_need).  The sender writes the entry's body, then stores
 * the length word with release; the receiver loads it with acquire.  But
 * the bytes where the *next* entry will start may hold anything from the
 * previous lap (the middle of an old payload), so before publishing an
 * entry the sender stores 0 in the length word just past it: the
 * terminator.  Its store comes before the release of the entry's length,
 * so a receiver that has seen the entry sees the terminator or a newer
 * length, never stale bytes.  Whenever the receiver is caught up, the word
 * at its position is therefore 0, the length of a new entry, or WRAP.
 *
 * An entry that does not fit before the end of the data area goes to the
 * start: the sender writes it (and its terminator) at offset 0, then stores
 * WRAP with release where the receiver is looking, and the receiver skips
 * to the start.  The sender counts the skipped bytes as used.
 *
 * Space.  head (sender, private) and tail (receiver, private) count bytes
 * ever written and read, so head - consumed is what the receiver still has
 * to read.  An entry of `need` bytes (plus the skip of a wrap) may be
 * written only when head + need + one line for the terminator stays within
 * consumed + ring_size: the terminator never lands on a line the receiver
 * has not finished.  The receiver publishes tail in consumed (release)
 * after it has dispatched the entries before it; the sender reads consumed
 * with acquire before it writes over them.
 *
 * Order against cells.  A message that does not fit (too large, or the ring
 * is full) goes through the cell queue instead.  Both carry the per-pair
 * sequence number and the receiver delivers by it (shm_progress.c).  An
 * entry carries the number's low 16 bits: it is at most the number of cells
 * its sender owns (FERRY_SHM_NUM_CELLS, below 2^15) ahead of the one the
 * receiver expects, so the low bits tell whether it is the one. */

#define MPIDI_SHM_RING_WRAP 0xffffffffu /* length word: continue at the start of the data */
#define MPIDI_SHM_RING_ENTRY_HDR 8

typedef struct MPIDI_SHM_rent {
    _Atomic uint32_t len; /* 0: nothing yet; WRAP; else 1 + the payload's length */
    uint16_t seq;         /* the low bits of the per-pair sequence, shared with the cells */
    uint8_t handler;
    uint8_t hdr_len;
} MPIDI_SHM_rent_t;
_Static_assert(sizeof(MPIDI_SHM_rent_t) == MPIDI_SHM_RING_ENTRY_HDR, "ring entry header layout");

/* The active-message header follows the entry header.  A small payload
 * starts 8-byte aligned right after it, so that a message of a few bytes is
 * one line; a payload of at least MPIDI_SHM_RING_ALIGN_FROM bytes starts at
 * the next line, so that the sender's copy in and the receiver's copy out
 * move whole aligned lines (no load or store splits a line).  At that size
 * it costs at most one line more, none when the payload is a multiple of 64. */
#define MPIDI_SHM_RING_ALIGN_FROM 256
#define MPIDI_SHM_RING_GRAIN 16 /* entries start and end at multiples of it */
#define MPIDI_SHM_RING_HDR_OFF MPIDI_SHM_RING_ENTRY_HDR
/* The payload's offset in an entry at offset pos of the ring's data (a
 * multiple of the grain; the data area starts a line). */
static inline size_t MPIDI_SHM_ring_payload_off(size_t pos, size_t hdr_len, size_t payload_len)
{
    size_t off = MPIDI_SHM_RING_ENTRY_HDR + ((hdr_len + 7) & ~(size_t)7);
    if (payload_len >= MPIDI_SHM_RING_ALIGN_FROM)
        off = ((pos + off + MPIDI_SHM_CACHELINE - 1) & ~(size_t)(MPIDI_SHM_CACHELINE - 1)) - pos;
    return off;
}

/* Bytes an entry at offset pos takes in the ring. */
static inline size_t MPIDI_SHM_ring_need(size_t pos, size_t hdr_len, size_t payload_len)
{
    size_t end = MPIDI_SHM_ring_payload_off(pos, hdr_len, payload_len) + payload_len;
    return (end + MPIDI_SHM_RING_GRAIN - 1) & ~(size_t)(MPIDI_SHM_RING_GRAIN - 1);
}

/* The payload's length of a published entry (its length word, not 0 or WRAP). */
static inline size_t MPIDI_SHM_rent_payload_len(uint32_t len)
{
    return (size_t)len - 1;
}

static inline char *MPIDI_SHM_ring_data(MPIDI_SHM_ring_t *ring)
{
    return (char *)ring + MPIDI_SHM_RING_DATA_OFF;
}

static inline MPIDI_SHM_rent_t *MPIDI_SHM_ring_entry(MPIDI_SHM_ring_t *ring, uint64_t pos)
{
    return (MPIDI_SHM_rent_t *)(MPIDI_SHM_ring_data(ring) + (pos & MPIDI_SHM_state.ring_mask));
}

/* Receiver: nonzero when the ring from s may hold something (one load of a
 * line that stays in our cache until the sender writes it).  Relaxed: only
 * a hint; MPIDI_SHM_ring_peek loads the length again with acquire. */
static inline uint32_t MPIDI_SHM_ring_ready(const MPIDI_SHM_ring_rx_t *rx)
{
    return atomic_load_explicit(rx->watch, memory_order_relaxed);
}

/* Receiver: the private tail of rx moved to new_tail. */
static inline void MPIDI_SHM_ring_move_tail(MPIDI_SHM_ring_rx_t *rx, uint64_t new_tail)
{
    rx->tail = new_tail;
    rx->watch = (const _Atomic uint32_t *)(rx->data + (new_tail & MPIDI_SHM_state.ring_mask));
}

/* Sender: before its first entry to local peer li, sets its bit in li's
 * joined bitmap and counts the join in li's control block, so li starts
 * polling this ring (a receiver polls only the rings of senders that have
 * used them: polling all would read a line of every local rank's ring, on
 * as many pages, at every idle poll).  Both release: a receiver that reads
 * the new count with acquire sees the bit; the entries come after.  The
 * ring is prefaulted (and its lines written once) before the join is
 * published: nobody reads it yet. */
static inline void MPIDI_SHM_ring_join(int li)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    if (st->ring_prefault)
        MPIDI_SHM_ring_prefault(st->ring_tx[li].ring, 1);
    atomic_fetch_or_explicit(&MPIDI_SHM_joined(li)[st->me / 64], (uint64_t)1 << (st->me % 64),
                             memory_order_release);
    atomic_fetch_add_explicit(&MPIDI_SHM_ctrl(li)->ring_joins, 1, memory_order_release);
    st->ring_tx[li].joined = 1;
}

/* Asks for the line at p in the state a store needs (exclusive), without
 * waiting for it.  x86's PREFETCHW (a no-op where it is missing); elsewhere
 * the compiler's write prefetch. */
static inline void MPIDI_SHM_prefetch_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Sender: asks for every line of a payload of ALIGN_FROM to PREPARE_MAX
 * bytes (which starts on a line), to be written, before it is copied in.
 * The receiver read those lines last, so each first store waits for the
 * receiver's copy to be invalidated; asked for at once, the lines come
 * together instead of one after another as the copy reaches them.  In-process
 * A/B (bench/knob_ab.c), 1 MiB rings: one-way latency 0.85 -> 0.74 us at
 * 1 KiB, 1.48 -> 1.37 at 4 KiB, 2.22 -> 2.15 at 8 KiB; 1 KiB windows 242 ->
 * 211 ns per message.  Not below ALIGN_FROM (128 B: within the noise); not
 * above 8 KiB, the default eager limit (larger ring payloads come only
 * without CMA: 32 KiB latency 5.7 -> 6.2 us, 60,000 B 9.0 -> 10.2); not for
 * cells, which gained nothing (doc/methods/shm.md, "A payload's lines asked
 * for at once"). */
#define MPIDI_SHM_RING_PREPARE_MAX 8192
static inline void MPIDI_SHM_ring_prepare(char *payload, size_t payload_len)
{
    if (payload_len < MPIDI_SHM_RING_ALIGN_FROM || payload_len > MPIDI_SHM_RING_PREPARE_MAX)
        return;
    for (size_t off = 0; off < payload_len; off += MPIDI_SHM_CACHELINE)
        MPIDI_SHM_prefetch_write(payload + off);
}

/* Sender: whether bytes more (an entry, and the skip of a wrap) fit in the
 * ring tx as the receiver's consumed count was last seen, leaving a line for
 * the terminator (the space rule above). */
static inline int MPIDI_SHM_ring_fits_seen(const MPIDI_SHM_ring_tx_t *tx, uint64_t bytes)
{
    return tx->head + bytes - tx->consumed_seen <= MPIDI_SHM_state.ring_size - MPIDI_SHM_CACHELINE;
}

/* Sender: finds room for an entry of hdr_len and payload_len bytes in the
 * ring to local peer li and sets *need_p to its size.  Returns the entry to
 * fill (at the start of the data when it does not fit before the end:
 * *wrap_p then names the place of the WRAP), or NULL when the ring has no
 * room or the entry is larger than ring_max.  Nothing changes until
 * MPIDI_SHM_ring_publish, so a sender that gives up after this leaves the
 * ring as it was. */
static inline MPIDI_SHM_rent_t *MPIDI_SHM_ring_reserve(int li, size_t hdr_len, size_t payload_len,
                                                       size_t *need_p, MPIDI_SHM_rent_t **wrap_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ring_tx_t *tx = &st->ring_tx[li];
    MPIDI_SHM_ring_t *ring = tx->ring;
    size_t pos = tx->head & st->ring_mask;
    size_t need = MPIDI_SHM_ring_need(pos, hdr_len, payload_len), skip = 0;
    if (pos + need > st->ring_size) {
        skip = st->ring_size - pos;
        need = MPIDI_SHM_ring_need(0, hdr_len, payload_len);
    }
    *need_p = need;
    if (need > st->ring_max)
        return NULL;
    if (!MPIDI_SHM_ring_fits_seen(tx, skip + need)) {
        /* Acquire: pairs with the receiver's release store of consumed, so
         * its reads of the entries it has finished with happen before we
         * write over them. */
        tx->consumed_seen = atomic_load_explicit(&ring->consumed, memory_order_acquire);
        if (!MPIDI_SHM_ring_fits_seen(tx, skip + need))
            return NULL;
    }
    *wrap_p = skip ? MPIDI_SHM_ring_entry(ring, tx->head) : NULL;
    return MPIDI_SHM_ring_entry(ring, tx->head + skip);
}

/* Sender: publishes the entry reserve returned, once its body is written.
 * need: its size; payload_len: its payload's; wrap: what reserve set in
 * *wrap_p. */
static inline void MPIDI_SHM_ring_publish(int li, MPIDI_SHM_rent_t *e, size_t need,
                                          size_t payload_len, MPIDI_SHM_rent_t *wrap)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ring_tx_t *tx = &st->ring_tx[li];
    MPIDI_SHM_ring_t *ring = tx->ring;

    if (wrap)
        tx->head += st->ring_size - (tx->head & st->ring_mask);
    /* The terminator.  Relaxed: the release store below orders it before
     * the entry becomes visible, which is all the receiver relies on. */
    atomic_store_explicit(&MPIDI_SHM_ring_entry(ring, tx->head + need)->len, 0,
                          memory_order_relaxed);
    uint64_t old_head = tx->head;
    tx->head += need;
    if (wrap) {
        /* Relaxed: the receiver reads this length only after it has seen
         * the WRAP below with acquire, and the release of WRAP orders it. */
        atomic_store_explicit(&e->len, (uint32_t)payload_len + 1, memory_order_relaxed);
        /* Release: a receiver that sees WRAP sees the entry at the start,
         * its terminator and its length. */
        atomic_store_explicit(&wrap->len, MPIDI_SHM_RING_WRAP, memory_order_release);
        st->stat_ring_wrap++;
    } else {
        /* Release: a receiver that sees the length sees the entry's body and
         * the terminator after it, never bytes of an earlier lap. */
        atomic_store_explicit(&e->len, (uint32_t)payload_len + 1, memory_order_release);
    }
    /* A small entry that ended on a new line: the line after it is asked
     * for, to be written, now.  Every line of the ring was last read by
     * the receiver, so the sender's first store to a line waits for the
     * receiver's copy to be invalidated; asked for a line early, a stream
     * of small messages overlaps that wait with its work (issue 12, quiet
     * in-process A/B of 8-byte windows: 142.6 against 127.5 ns per message,
     * 64-byte 173.6 against 151.2, 0.39 us latency unchanged).  Not for
     * entries of ALIGN_FROM bytes or more (asked for two lines ahead, 512-byte
     * windows took 1.3-1.6x as long: the receiver streams through those lines
     * too), and only for a line the receiver has finished with. */
    if (need < MPIDI_SHM_RING_ALIGN_FROM &&
        ((old_head ^ tx->head) & ~(uint64_t)(MPIDI_SHM_CACHELINE - 1)) &&
        tx->head + 2 * MPIDI_SHM_CACHELINE - tx->consumed_seen <= st->ring_size)
        MPIDI_SHM_prefetch_write(MPIDI_SHM_ring_entry(ring, tx->head + MPIDI_SHM_CACHELINE));
}

/* Receiver: the next entry from local sender s, or NULL when there is none
 * yet.  Follows a WRAP (that moves the private tail only). */
static inline MPIDI_SHM_rent_t *MPIDI_SHM_ring_peek(int s)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ring_rx_t *rx = &st->ring_rx[s];
    MPIDI_SHM_ring_t *ring = rx->ring;
    MPIDI_SHM_rent_t *e = MPIDI_SHM_ring_entry(ring, rx->tail);
    /* Acquire: pairs with the sender's release store of the length (or of
     * WRAP), so the body read after this is the new entry's. */
    uint32_t len = atomic_load_explicit(&e->len, memory_order_acquire);

    if (len == 0)
        return NULL;
    if (len == MPIDI_SHM_RING_WRAP) {
        MPIDI_SHM_ring_move_tail(rx, rx->tail + st->ring_size - (rx->tail & st->ring_mask));
        e = MPIDI_SHM_ring_entry(ring, rx->tail);
        /* Acquire for symmetry; the WRAP's acquire already covers it. */
        len = atomic_load_explicit(&e->len, memory_order_acquire);
        if (len == 0)
            return NULL; /* cannot happen: the sender wrote it before the WRAP */
    }
    return e;
}

/* Receiver: done with the entry from s at its tail, of need bytes (its
 * reads are over).  The space is handed back in MPIDI_SHM_ring_release,
 * once per sweep. */
static inline void MPIDI_SHM_ring_consume(int s, size_t need)
{
    MPIDI_SHM_ring_rx_t *rx = &MPIDI_SHM_state.ring_rx[s];
    MPIDI_SHM_ring_move_tail(rx, rx->tail + need);
}

/* Receiver: hands the space of the consumed entries from s back to it. */
static inline void MPIDI_SHM_ring_release(int s)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ring_rx_t *rx = &st->ring_rx[s];

    if (rx->published == rx->tail)
        return;
    rx->published = rx->tail;
    /* Release: our reads of the consumed entries (the dispatch reads them in
     * place) happen before the sender, whose acquire load sees this count,
     * writes over them. */
    atomic_store_explicit(&rx->ring->consumed, rx->tail, memory_order_release);
}

#endif /* SHM_RING_H_INCLUDED */
