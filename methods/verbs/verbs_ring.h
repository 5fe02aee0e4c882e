/* verbs_ring.h: the arithmetic of the buffered ring channel (FERRY_VERBS_EAGER=ring): the message
 * format in the ring, the sender's room, the receiver's pointers, frees and head, the next data
 * read, the tail-poll back-off.  Plain C, no device: test/unit/verbs_ring_test.c runs it. */
#ifndef VERBS_RING_H_INCLUDED
#define VERBS_RING_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Every message in a ring starts with this 8-byte header, then the core's
 * header (hdr_len bytes), then the payload; the next message starts at the
 * next multiple of 8 (doc/methods/verbs.md "The ring channel").  Pointers
 * into the ring are byte counts since the start (64 bits: they never wrap);
 * the position in the ring is the count modulo its size. */
typedef struct MPIDI_VERBS_rmsg {
    uint32_t len;     /* this header + core header + payload, unpadded */
    uint8_t handler;  /* the core's handler id */
    uint8_t stamp;    /* MPIDI_VERBS_ring_stamp of where it starts: which lap of the ring */
    uint16_t hdr_len; /* core header bytes */
} MPIDI_VERBS_rmsg_t;
_Static_assert(sizeof(MPIDI_VERBS_rmsg_t) == 8, "ring message header (doc/methods/verbs.md)");
#define MPIDI_VERBS_RING_ALIGN 8

/* A message's stamp tells bytes of this lap from those an earlier lap left
 * at the same place (a late duplicate of an old read can bring them back;
 * rxe retransmitting under heavy load did). */
static inline uint8_t MPIDI_VERBS_ring_stamp(uint64_t pos, uint64_t size)
{
    return (uint8_t)(0xa5 + pos / size);
}

/* ---- The control words: the tail the peer reads, the head it writes back ----
 * An RDMA read or write of 8 aligned bytes is not atomic against the CPU's
 * store or load of them at the other end: rxe copies them byte by byte, and a
 * read racing with the sender's store of a new tail returned the old tail's
 * low byte with the new one's upper bytes, a tail up to 255 bytes beyond any
 * the sender wrote (issue 9; doc/methods/verbs.md "Control words").  So a
 * pointer travels as a word that tells a torn copy: its low 32 bits, and a
 * 32-bit mix of them above.  Bytes of two words joined at any one byte
 * boundary (a copy in either direction, however slow) pass the check only
 * when the low half is whole, and then they are that word; bytes mixed in
 * another way pass by chance only (about 2^-32).  The 64-bit pointer is
 * rebuilt from one known to lie within 2^31 of it (a ring is at most 1 GiB). */

/* A bijection of 32 bits whose every output bit depends on every input bit. */
static inline uint32_t MPIDI_VERBS_ring_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

/* The word that carries ptr (0 carries 0: the zeroed control page is valid). */
static inline uint64_t MPIDI_VERBS_ring_word(uint64_t ptr)
{
    uint32_t lo = (uint32_t)ptr;
    return (uint64_t)lo | (uint64_t)MPIDI_VERBS_ring_mix(lo) << 32;
}

/* The pointer a word carries, rebuilt near ref; 0 when the word is torn. */
static inline int MPIDI_VERBS_ring_word_read(uint64_t word, uint64_t ref, uint64_t *ptr_p)
{
    uint32_t lo = (uint32_t)word;
    if ((uint32_t)(word >> 32) != MPIDI_VERBS_ring_mix(lo))
        return 0;
    *ptr_p = ref + (uint64_t)(int64_t)(int32_t)(lo - (uint32_t)ref);
    return 1;
}

/* Bytes a message of len (header included) takes in the ring. */
static inline uint64_t MPIDI_VERBS_ring_footprint(uint64_t len)
{
    return (len + MPIDI_VERBS_RING_ALIGN - 1) & ~(uint64_t)(MPIDI_VERBS_RING_ALIGN - 1);
}

/* ---- The sender's side: its ring for one peer ---- */

/* base is mapped twice back to back (2 * size bytes, verbs_ring_map.c), so a
 * message that crosses the end is written, read and dispatched as one
 * piece. */
typedef struct MPIDI_VERBS_ring_out {
    char *base;
    uint64_t size;
    uint64_t tail; /* bytes ever written: the next message goes at tail % size */
} MPIDI_VERBS_ring_out_t;

/* Where a message taking need bytes goes, given the head the receiver
 * returned; NULL when the ring lacks room (the send answers AGAIN). */
static inline char *MPIDI_VERBS_ring_reserve(const MPIDI_VERBS_ring_out_t *r, uint64_t head,
                                             uint64_t need)
{
    if (r->tail + need - head > r->size)
        return NULL;
    return r->base + r->tail % r->size;
}

/* Whether a head the receiver wrote can be true: between what was returned
 * before and the tail. */
static inline int MPIDI_VERBS_ring_head_valid(const MPIDI_VERBS_ring_out_t *r, uint64_t old_head,
                                              uint64_t head)
{
    return head >= old_head && head <= r->tail;
}

/* ---- The receiver's side: its copy of a peer's ring ---- */

/* The receiver reads the peer's tail, then the bytes between what it has and
 * that tail into its own copy of the ring (at the same offsets, mapped twice
 * too), and hands out the messages in it.
 *   head <= read_ptr <= fetched <= requested <= remote_tail <= head + size
 * head: the oldest message not freed (everything before it is the sender's
 * again once written back); read_ptr: the next message to hand out;
 * fetched: bytes landed; requested: bytes asked for by data reads posted;
 * remote_tail: the sender's tail as last read. */
typedef struct MPIDI_VERBS_ring_in {
    char *base; /* the local copy, mapped twice */
    uint64_t size;
    uint64_t head, read_ptr, fetched, requested, remote_tail;
    uint64_t head_sent; /* the head last written back to the sender */
    uint32_t *freed;    /* per 8-byte unit: the footprint / 8 of the message that starts
                           there once it is freed, else 0 */
} MPIDI_VERBS_ring_in_t;

/* What the last tail read means. */
typedef enum {
    MPIDI_VERBS_TAIL_SAME,  /* nothing new */
    MPIDI_VERBS_TAIL_MOVED, /* new bytes to read */
    MPIDI_VERBS_TAIL_STALE, /* behind what we know: an old value (a late duplicate), ignored */
    MPIDI_VERBS_TAIL_BAD,   /* beyond the room we returned: corrupt */
} MPIDI_VERBS_tail_t;

static inline MPIDI_VERBS_tail_t MPIDI_VERBS_ring_tail_seen(MPIDI_VERBS_ring_in_t *r, uint64_t tail)
{
    if (tail < r->remote_tail)
        return MPIDI_VERBS_TAIL_STALE;
    if (tail - r->head > r->size)
        return MPIDI_VERBS_TAIL_BAD;
    if (tail == r->remote_tail)
        return MPIDI_VERBS_TAIL_SAME;
    r->remote_tail = tail;
    return MPIDI_VERBS_TAIL_MOVED;
}

/* The next data read: up to max_read bytes from requested on (0: nothing to
 * ask for).  *off_p is the offset in both rings; with the double mapping
 * the range is contiguous even when it crosses the end. */
static inline uint64_t MPIDI_VERBS_ring_next_read(MPIDI_VERBS_ring_in_t *r, uint64_t max_read,
                                                  uint64_t *off_p)
{
    uint64_t n = r->remote_tail - r->requested;
    if (n > max_read)
        n = max_read;
    *off_p = r->requested % r->size;
    r->requested += n;
    return n;
}

/* What the next message is. */
typedef enum {
    MPIDI_VERBS_MSG_NONE,    /* not landed whole yet */
    MPIDI_VERBS_MSG_READY,   /* *m and *at_p describe it */
    MPIDI_VERBS_MSG_STALE,   /* an earlier lap's bytes where it should be: read it again */
    MPIDI_VERBS_MSG_CORRUPT, /* its header cannot be true */
} MPIDI_VERBS_msg_state_t;

/* The message at read_ptr, if it has landed whole: its header in *m, its
 * start (header included) in *at_p.  max_len bounds a message's length
 * (what the sender may put in one). */
static inline MPIDI_VERBS_msg_state_t MPIDI_VERBS_ring_peek(const MPIDI_VERBS_ring_in_t *r,
                                                            uint64_t max_len, MPIDI_VERBS_rmsg_t *m,
                                                            char **at_p)
{
    if (r->fetched - r->read_ptr < sizeof(*m))
        return MPIDI_VERBS_MSG_NONE;
    char *at = r->base + r->read_ptr % r->size;
    memcpy(m, at, sizeof(*m));
    if (m->stamp != MPIDI_VERBS_ring_stamp(r->read_ptr, r->size))
        return MPIDI_VERBS_MSG_STALE;
    if (m->len < sizeof(*m) || m->len > max_len || (uint64_t)m->hdr_len + sizeof(*m) > m->len ||
        MPIDI_VERBS_ring_footprint(m->len) > r->remote_tail - r->read_ptr)
        return MPIDI_VERBS_MSG_CORRUPT;
    if (MPIDI_VERBS_ring_footprint(m->len) > r->fetched - r->read_ptr)
        return MPIDI_VERBS_MSG_NONE;
    *at_p = at;
    return MPIDI_VERBS_MSG_READY;
}

/* The message at read_ptr is handed out: returns its start, by which it is
 * freed later. */
static inline uint64_t MPIDI_VERBS_ring_take(MPIDI_VERBS_ring_in_t *r, const MPIDI_VERBS_rmsg_t *m)
{
    uint64_t at = r->read_ptr;
    r->read_ptr += MPIDI_VERBS_ring_footprint(m->len);
    return at;
}

/* The message m that starts at `at` is freed (in any order): head moves
 * over every freed message at its front, and stops at the first one still
 * held.  Each free records the message's size, so the head never depends on
 * bytes of the copy read again later. */
static inline void MPIDI_VERBS_ring_free(MPIDI_VERBS_ring_in_t *r, uint64_t at,
                                         const MPIDI_VERBS_rmsg_t *m)
{
    r->freed[(at % r->size) / MPIDI_VERBS_RING_ALIGN] =
        (uint32_t)(MPIDI_VERBS_ring_footprint(m->len) / MPIDI_VERBS_RING_ALIGN);
    while (r->head < r->read_ptr) {
        uint64_t unit = (r->head % r->size) / MPIDI_VERBS_RING_ALIGN;
        uint32_t units = r->freed[unit];
        if (!units)
            break;
        r->freed[unit] = 0;
        r->head += (uint64_t)units * MPIDI_VERBS_RING_ALIGN;
    }
}

/* Bytes landed at read_ptr are an earlier lap's: ask for everything from
 * read_ptr again (only when no data read is in flight, which would land
 * over it). */
static inline void MPIDI_VERBS_ring_reread(MPIDI_VERBS_ring_in_t *r)
{
    r->fetched = r->requested = r->read_ptr;
}

/* Whether the head goes back to the sender now: once `interval` bytes were
 * freed since the last write-back, or when the receiver has caught up (all
 * it knows of is freed), so a sender waiting for room never waits on a
 * receiver with nothing left to read.  A write-back records the head sent. */
static inline int MPIDI_VERBS_ring_head_due(const MPIDI_VERBS_ring_in_t *r, uint64_t interval)
{
    if (r->head == r->head_sent)
        return 0;
    return r->head - r->head_sent >= interval || r->head == r->remote_tail;
}

/* Microseconds to wait before the next tail read of a sender whose last
 * `empty` reads found nothing new: none for the first few (a reply is
 * usually close behind), then doubling from 1 us up to cap_us. */
#define MPIDI_VERBS_RING_EAGER_POLLS 8
static inline double MPIDI_VERBS_ring_backoff_us(int empty, double cap_us)
{
    if (empty < MPIDI_VERBS_RING_EAGER_POLLS || cap_us <= 0)
        return 0;
    int k = empty - MPIDI_VERBS_RING_EAGER_POLLS;
    double us = k >= 30 ? cap_us : (double)(1u << k);
    return us < cap_us ? us : cap_us;
}

/* ---- The double mapping (verbs_ring_map.c) ---- */

/* size bytes (a multiple of the page size) mapped twice back to back: byte
 * k and byte size + k are the same memory.  Returns the base (2 * size
 * bytes) or NULL with errno set; *why_p names the call that failed. */
char *MPIDI_VERBS_ring_map(uint64_t size, const char **why_p);
void MPIDI_VERBS_ring_unmap(char *base, uint64_t size);

#endif /* VERBS_RING_H_INCLUDED */
