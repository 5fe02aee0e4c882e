/* verbs_ring_test.c: the ring channel's arithmetic (methods/verbs/verbs_ring.h) and its double
 * mapping without a device: a sender's ring and a receiver's copy, "RDMA reads" done with memcpy
 * between them.  Checks: the two halves of a mapping are one memory; a message straddling the
 * end at every 8-byte offset arrives whole; the room a sender sees; reads bounded by max_read
 * that cover the new range exactly; partial landings, corrupt headers and impossible tails;
 * head advanced only over freed messages when they are freed out of order; the head write-back
 * rule; the back-off; and random schedules (tiny rings, reads landing late, frees held back)
 * in which every message arrives once, whole and in order, and the sender never stalls for
 * good, also when an earlier lap's header comes back where a message should be (a late
 * duplicate read response: it must be read again, never handed out).  Exits non-zero with a message
 * on the first failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "verbs_ring.h"

static int failures;
static long total_rereads; /* stale headers read again, over all random schedules */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            if (++failures > 20)                                                                   \
                exit(1);                                                                           \
        }                                                                                          \
    } while (0)

static uint64_t rng = 88172645463325252ULL;
static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? rng % n : 0;
}

typedef struct {
    MPIDI_VERBS_ring_out_t out;
    MPIDI_VERBS_ring_in_t in;
    uint64_t head_at_sender; /* what the last head write-back delivered */
} chan_t;

static void chan_open(chan_t *ch, uint64_t size)
{
    const char *why;
    memset(ch, 0, sizeof(*ch));
    ch->out.size = ch->in.size = size;
    ch->out.base = MPIDI_VERBS_ring_map(size, &why);
    ch->in.base = MPIDI_VERBS_ring_map(size, &why);
    ch->in.freed = calloc(size / MPIDI_VERBS_RING_ALIGN, sizeof(*ch->in.freed));
    if (!ch->out.base || !ch->in.base || !ch->in.freed) {
        perror(why);
        exit(1);
    }
}

static void chan_close(chan_t *ch)
{
    MPIDI_VERBS_ring_unmap(ch->out.base, ch->out.size);
    MPIDI_VERBS_ring_unmap(ch->in.base, ch->in.size);
    free(ch->in.freed);
}

/* A message whose bytes tell its sequence number and length. */
static int send_msg(chan_t *ch, uint32_t seq, uint32_t payload)
{
    uint32_t len = (uint32_t)sizeof(MPIDI_VERBS_rmsg_t) + 4 + payload;
    char *at =
        MPIDI_VERBS_ring_reserve(&ch->out, ch->head_at_sender, MPIDI_VERBS_ring_footprint(len));
    if (!at)
        return 0;
    MPIDI_VERBS_rmsg_t m = {.len = len,
                            .handler = (uint8_t)seq,
                            .stamp = MPIDI_VERBS_ring_stamp(ch->out.tail, ch->out.size),
                            .hdr_len = 4};
    memcpy(at, &m, sizeof(m));
    memcpy(at + sizeof(m), &seq, 4);
    for (uint32_t i = 0; i < payload; i++)
        at[sizeof(m) + 4 + i] = (char)(seq * 31 + i);
    ch->out.tail += MPIDI_VERBS_ring_footprint(len);
    return 1;
}

/* The message is what send_msg wrote for seq. */
static int check_msg(const MPIDI_VERBS_rmsg_t *m, const char *at, uint32_t seq)
{
    uint32_t got;
    memcpy(&got, at + sizeof(*m), 4);
    if (got != seq || m->handler != (uint8_t)seq || m->hdr_len != 4)
        return 0;
    uint32_t payload = m->len - (uint32_t)sizeof(*m) - 4;
    for (uint32_t i = 0; i < payload; i++)
        if (at[sizeof(*m) + 4 + i] != (char)(seq * 31 + i))
            return 0;
    return 1;
}

/* The receiver's RDMA read of [requested, requested + n): same offsets on both sides. */
static void read_range(chan_t *ch, uint64_t off, uint64_t n)
{
    memcpy(ch->in.base + off, ch->out.base + off, n);
}

static void test_double_map(void)
{
    long page = sysconf(_SC_PAGESIZE);
    const char *why;
    uint64_t size = 4 * (uint64_t)page;
    char *b = MPIDI_VERBS_ring_map(size, &why);
    CHECK(b != NULL, "ring_map: %s", why);
    if (!b)
        return;
    for (uint64_t k = 0; k < size; k += 97)
        b[k] = (char)k;
    for (uint64_t k = 0; k < size; k += 97)
        CHECK(b[size + k] == (char)k, "byte %llu not seen at size + %llu", (unsigned long long)k,
              (unsigned long long)k);
    b[2 * size - 1] = 42;
    CHECK(b[size - 1] == 42, "the second half does not write the first");
    MPIDI_VERBS_ring_unmap(b, size);
}

/* A message straddling the end at every 8-byte offset: a filler puts the tail
 * there, then the message crosses the end; it must arrive whole, be seen as one
 * piece, and free the ring again. */
static void test_straddle_every_offset(void)
{
    uint64_t size = 4096;
    const uint32_t payloads[] = {1, 60, 300, 1500, (uint32_t)(size / 2 - 12)};
    for (size_t pi = 0; pi < sizeof(payloads) / sizeof(payloads[0]); pi++) {
        uint32_t payload = payloads[pi];
        uint64_t foot = MPIDI_VERBS_ring_footprint(sizeof(MPIDI_VERBS_rmsg_t) + 4 + payload);
        for (uint64_t start = size - foot + 8; start < size; start += 8) {
            chan_t ch;
            chan_open(&ch, size);
            /* Everything before start is sent, read and freed: the tail sits at start. */
            ch.out.tail = ch.in.head = ch.in.read_ptr = ch.in.fetched = ch.in.requested =
                ch.in.remote_tail = ch.in.head_sent = ch.head_at_sender = start;
            CHECK(send_msg(&ch, 7, payload), "no room at offset %llu", (unsigned long long)start);
            CHECK(MPIDI_VERBS_ring_tail_seen(&ch.in, ch.out.tail) == MPIDI_VERBS_TAIL_MOVED,
                  "tail not seen");
            uint64_t off, n = MPIDI_VERBS_ring_next_read(&ch.in, size, &off);
            CHECK(n == foot && off == start, "read %llu at %llu", (unsigned long long)n,
                  (unsigned long long)off);
            read_range(&ch, off, n);
            ch.in.fetched = ch.in.requested;
            MPIDI_VERBS_rmsg_t m;
            char *at = NULL;
            CHECK(MPIDI_VERBS_ring_peek(&ch.in, size / 2, &m, &at) == MPIDI_VERBS_MSG_READY,
                  "not ready at offset %llu", (unsigned long long)start);
            CHECK(at && check_msg(&m, at, 7), "payload %u straddling at offset %llu arrived wrong",
                  payload, (unsigned long long)start);
            uint64_t pos = MPIDI_VERBS_ring_take(&ch.in, &m);
            MPIDI_VERBS_ring_free(&ch.in, pos, &m);
            CHECK(ch.in.head == start + foot, "head %llu after the straddling message",
                  (unsigned long long)ch.in.head);
            CHECK(MPIDI_VERBS_ring_head_due(&ch.in, size), "caught up, head not due");
            chan_close(&ch);
        }
    }
}

static void test_room_and_reads(void)
{
    chan_t ch;
    uint64_t size = 4096;
    chan_open(&ch, size);
    int n = 0;
    while (send_msg(&ch, (uint32_t)n, 120)) /* 136 bytes each */
        n++;
    CHECK(n == (int)(size / 136), "%d messages of 136 bytes fit in %llu", n,
          (unsigned long long)size);
    CHECK(ch.out.tail + 136 > size && ch.out.tail <= size, "tail %llu",
          (unsigned long long)ch.out.tail);
    /* Reads of at most 1000 bytes cover the range exactly. */
    MPIDI_VERBS_ring_tail_seen(&ch.in, ch.out.tail);
    uint64_t covered = 0, off, r;
    while ((r = MPIDI_VERBS_ring_next_read(&ch.in, 1000, &off)) > 0) {
        CHECK(r <= 1000, "a read of %llu", (unsigned long long)r);
        CHECK(off == covered, "read at %llu, expected %llu", (unsigned long long)off,
              (unsigned long long)covered);
        read_range(&ch, off, r);
        covered += r;
        /* Landed so far: every message wholly inside is ready, the one cut is not. */
        ch.in.fetched = covered;
        MPIDI_VERBS_rmsg_t m;
        char *at = NULL;
        MPIDI_VERBS_msg_state_t s;
        while ((s = MPIDI_VERBS_ring_peek(&ch.in, size / 2, &m, &at)) == MPIDI_VERBS_MSG_READY) {
            CHECK(check_msg(&m, at, (uint32_t)(ch.in.read_ptr / 136)), "message at %llu",
                  (unsigned long long)ch.in.read_ptr);
            MPIDI_VERBS_ring_take(&ch.in, &m);
        }
        CHECK(s == MPIDI_VERBS_MSG_NONE, "state %d", (int)s);
        CHECK(ch.in.read_ptr == covered / 136 * 136, "read_ptr %llu after %llu landed",
              (unsigned long long)ch.in.read_ptr, (unsigned long long)covered);
    }
    CHECK(covered == ch.out.tail, "covered %llu of %llu", (unsigned long long)covered,
          (unsigned long long)ch.out.tail);
    /* Nothing freed yet: the sender has no room. */
    CHECK(!send_msg(&ch, 99, 120), "room without a head returned");
    /* Out of order: free 2, 0, 3, then 1; head stops at the first still held. */
    uint64_t starts[4] = {0, 136, 272, 408};
    MPIDI_VERBS_rmsg_t m136 = {.len = 136};
    MPIDI_VERBS_ring_free(&ch.in, starts[2], &m136);
    CHECK(ch.in.head == 0, "head %llu after freeing message 2", (unsigned long long)ch.in.head);
    MPIDI_VERBS_ring_free(&ch.in, starts[0], &m136);
    CHECK(ch.in.head == 136, "head %llu after freeing 2, 0", (unsigned long long)ch.in.head);
    MPIDI_VERBS_ring_free(&ch.in, starts[3], &m136);
    CHECK(ch.in.head == 136, "head %llu after freeing 2, 0, 3", (unsigned long long)ch.in.head);
    CHECK(!MPIDI_VERBS_ring_head_due(&ch.in, 1000), "136 freed of 1000: not due");
    CHECK(MPIDI_VERBS_ring_head_due(&ch.in, 100), "136 freed of 100: due");
    MPIDI_VERBS_ring_free(&ch.in, starts[1], &m136);
    CHECK(ch.in.head == 544, "head %llu after freeing 0..3", (unsigned long long)ch.in.head);
    ch.head_at_sender = ch.in.head_sent = ch.in.head;
    CHECK(send_msg(&ch, 99, 120), "no room after the head came back");
    /* Impossible tails: behind, or beyond the room returned. */
    CHECK(MPIDI_VERBS_ring_tail_seen(&ch.in, ch.in.remote_tail - 8) == MPIDI_VERBS_TAIL_STALE,
          "a tail going back is not taken as stale");
    CHECK(MPIDI_VERBS_ring_tail_seen(&ch.in, ch.in.head + size + 8) == MPIDI_VERBS_TAIL_BAD,
          "a tail beyond the room");
    CHECK(MPIDI_VERBS_ring_tail_seen(&ch.in, ch.in.remote_tail) == MPIDI_VERBS_TAIL_SAME,
          "the same tail");
    /* A corrupt header. */
    MPIDI_VERBS_ring_tail_seen(&ch.in, ch.out.tail);
    r = MPIDI_VERBS_ring_next_read(&ch.in, size, &off);
    read_range(&ch, off, r);
    ch.in.fetched = ch.in.requested;
    ch.in.base[ch.in.read_ptr % size + 4] ^= 1; /* handler: still fine */
    ch.in.base[ch.in.read_ptr % size + 5] ^= 1; /* stamp: an earlier lap's bytes */
    MPIDI_VERBS_rmsg_t m;
    char *at = NULL;
    CHECK(MPIDI_VERBS_ring_peek(&ch.in, size / 2, &m, &at) == MPIDI_VERBS_MSG_STALE,
          "a wrong stamp passed");
    /* Read again, the message is right. */
    MPIDI_VERBS_ring_reread(&ch.in);
    r = MPIDI_VERBS_ring_next_read(&ch.in, size, &off);
    read_range(&ch, off, r);
    ch.in.fetched = ch.in.requested;
    CHECK(MPIDI_VERBS_ring_peek(&ch.in, size / 2, &m, &at) == MPIDI_VERBS_MSG_READY,
          "not ready after reading again");
    uint32_t big = (uint32_t)size;
    memcpy(ch.in.base + ch.in.read_ptr % size, &big, 4);
    CHECK(MPIDI_VERBS_ring_peek(&ch.in, size / 2, &m, &at) == MPIDI_VERBS_MSG_CORRUPT,
          "a length beyond the largest message passed");
    chan_close(&ch);
}

static void test_backoff(void)
{
    for (int k = 0; k < MPIDI_VERBS_RING_EAGER_POLLS; k++)
        CHECK(MPIDI_VERBS_ring_backoff_us(k, 50) == 0, "backoff after %d empty polls", k);
    double prev = 0;
    for (int k = MPIDI_VERBS_RING_EAGER_POLLS; k < 100; k++) {
        double us = MPIDI_VERBS_ring_backoff_us(k, 50);
        CHECK(us >= prev && us <= 50 && us > 0, "backoff %g after %d empty polls", us, k);
        prev = us;
    }
    CHECK(prev == 50, "the cap is not reached: %g", prev);
    CHECK(MPIDI_VERBS_ring_backoff_us(40, 0) == 0, "a cap of 0 is no back-off");
}

/* Random schedules: the sender sends while there is room; the receiver reads the
 * tail now and then, reads the new range in pieces that land later, hands out
 * what landed, holds up to `hold` messages and frees them in random order, and
 * writes the head back by the rule. */
static void test_random(uint64_t size, uint64_t max_read, uint64_t interval, int hold,
                        uint32_t max_payload, int nmsg)
{
    chan_t ch;
    chan_open(&ch, size);
    uint32_t sent = 0, got = 0;
    uint64_t pending_end[64]; /* reads posted, not landed, in order */
    int npend = 0;
    uint64_t held[64];
    MPIDI_VERBS_rmsg_t held_m[64];
    int nheld = 0;
    long steps = 0, rereads = 0;
    while (got < (uint32_t)nmsg) {
        if (++steps > 50L * nmsg + 100000) {
            CHECK(0, "stalled: sent %u got %u (size %llu max_read %llu interval %llu hold %d)",
                  sent, got, (unsigned long long)size, (unsigned long long)max_read,
                  (unsigned long long)interval, hold);
            break;
        }
        switch (rnd(7)) {
        case 0: /* the sender */
            while (sent < (uint32_t)nmsg && rnd(4) &&
                   send_msg(&ch, sent, (uint32_t)rnd(max_payload + 1)))
                sent++;
            break;
        case 1: /* a tail read lands */
            CHECK(MPIDI_VERBS_ring_tail_seen(&ch.in, ch.out.tail) != MPIDI_VERBS_TAIL_BAD,
                  "a true tail was refused");
            break;
        case 2: { /* data reads posted */
            uint64_t off, n;
            while (npend < 64 && (n = MPIDI_VERBS_ring_next_read(&ch.in, max_read, &off)) > 0) {
                CHECK(n <= max_read, "read of %llu", (unsigned long long)n);
                read_range(&ch, off, n); /* the bytes are there already when read */
                pending_end[npend++] = ch.in.requested;
            }
            break;
        }
        case 3: /* the oldest read lands */
            if (npend) {
                ch.in.fetched = pending_end[0];
                memmove(pending_end, pending_end + 1, (size_t)--npend * sizeof(uint64_t));
            }
            break;
        case 5: /* a late duplicate of an old read brings an earlier lap's header back */
            if (ch.in.fetched - ch.in.read_ptr >= 16 && rnd(4) == 0) {
                ch.in.base[ch.in.read_ptr % size + 5] ^= (char)0x80; /* its stamp */
                ch.in.base[ch.in.read_ptr % size + 8] ^= (char)0x55; /* and its contents */
            }
            break;
        case 4: { /* hand out what landed */
            MPIDI_VERBS_rmsg_t m;
            char *at = NULL;
            MPIDI_VERBS_msg_state_t s = MPIDI_VERBS_MSG_NONE;
            while (nheld < hold && (s = MPIDI_VERBS_ring_peek(&ch.in, size / 2, &m, &at)) ==
                                       MPIDI_VERBS_MSG_READY) {
                CHECK(check_msg(&m, at, got), "message %u arrived wrong", got);
                got++;
                held_m[nheld] = m;
                held[nheld++] = MPIDI_VERBS_ring_take(&ch.in, &m);
            }
            CHECK(nheld == hold || s != MPIDI_VERBS_MSG_CORRUPT, "a corrupt message");
            if (s == MPIDI_VERBS_MSG_STALE && npend == 0) {
                MPIDI_VERBS_ring_reread(&ch.in);
                rereads++;
            }
            break;
        }
        default: /* free held messages in random order, then maybe write the head back */
            while (nheld && rnd(3)) {
                int i = (int)rnd((uint64_t)nheld);
                uint64_t before = ch.in.head;
                MPIDI_VERBS_ring_free(&ch.in, held[i], &held_m[i]);
                held_m[i] = held_m[nheld - 1];
                held[i] = held[--nheld];
                CHECK(ch.in.head >= before && ch.in.head <= ch.in.read_ptr, "head %llu",
                      (unsigned long long)ch.in.head);
                for (int j = 0; j < nheld; j++)
                    CHECK(held[j] >= ch.in.head, "head %llu passed a held message at %llu",
                          (unsigned long long)ch.in.head, (unsigned long long)held[j]);
            }
            if (MPIDI_VERBS_ring_head_due(&ch.in, interval)) {
                ch.in.head_sent = ch.in.head;
                ch.head_at_sender = ch.in.head;
            }
            break;
        }
    }
    CHECK(got == (uint32_t)nmsg && sent == got, "sent %u got %u of %d", sent, got, nmsg);
    total_rereads += rereads;
    chan_close(&ch);
}

/* Bytes [0, k) of a, the rest of b: what a copy of 8 bytes made one byte at
 * a time in ascending order returns when the other side stores b over a
 * after byte k - 1 was copied (or a over b when copied downwards). */
static uint64_t join(uint64_t a, uint64_t b, int k)
{
    uint64_t low = k >= 8 ? ~0ULL : (1ULL << (8 * k)) - 1;
    return (a & low) | (b & ~low);
}

/* The control words (issue 9): a torn copy of a tail or head word is never
 * taken for a pointer; whole words are read back exactly near any reference
 * within 2^30. */
static void test_torn_words(void)
{
    /* The case rxe produced: a tail read racing with the store of 16392
     * over 16352 returned the old low byte and the new upper bytes. */
    uint64_t plain = join(16352, 16392, 1), v = 0;
    CHECK(plain == 16608, "join gives %llu", (unsigned long long)plain);
    CHECK(!MPIDI_VERBS_ring_word_read(
              join(MPIDI_VERBS_ring_word(16352), MPIDI_VERBS_ring_word(16392), 1), 16352, &v),
          "the torn tail of issue 9 was taken for %llu", (unsigned long long)v);
    CHECK(MPIDI_VERBS_ring_word_read(0, 0, &v) && v == 0, "the zeroed word is not pointer 0");
    long torn = 0;
    for (int i = 0; i < 200000; i++) {
        uint64_t old = rnd(1ULL << 62) & ~7ULL;
        uint64_t step = rnd(i % 3 == 0 ? 256 : 1ULL << 30) + 1;
        uint64_t mid = old + rnd(step), nw = old + step;
        uint64_t ref = old - rnd(old < (1ULL << 29) ? old + 1 : 1ULL << 29);
        uint64_t wo = MPIDI_VERBS_ring_word(old), wm = MPIDI_VERBS_ring_word(mid),
                 wn = MPIDI_VERBS_ring_word(nw);
        CHECK(MPIDI_VERBS_ring_word_read(wn, ref, &v) && v == nw,
              "%llu read back as %llu near %llu", (unsigned long long)nw, (unsigned long long)v,
              (unsigned long long)ref);
        CHECK(MPIDI_VERBS_ring_word_read(wo, nw, &v) && v == old,
              "%llu read back as %llu near the later %llu", (unsigned long long)old,
              (unsigned long long)v, (unsigned long long)nw);
        for (int k = 1; k < 8; k++) {
            /* Upwards and downwards copies, and an upwards copy slow enough
             * to see two stores (old, then mid, then new). */
            int j = k + (int)rnd((uint64_t)(8 - k));
            uint64_t mixes[3] = {join(wo, wn, k), join(wn, wo, k), join(join(wo, wm, k), wn, j)};
            for (int t = 0; t < 3; t++) {
                if (!MPIDI_VERBS_ring_word_read(mixes[t], ref, &v)) {
                    torn++;
                    continue;
                }
                CHECK(v == old || v == mid || v == nw,
                      "a torn word (%d at byte %d of %llu, %llu, %llu) read as %llu", t, k,
                      (unsigned long long)old, (unsigned long long)mid, (unsigned long long)nw,
                      (unsigned long long)v);
            }
        }
    }
    CHECK(torn > 0, "no torn word was told from a true one");
}

int main(void)
{
    test_double_map();
    test_straddle_every_offset();
    test_room_and_reads();
    test_backoff();
    test_torn_words();
    long page = sysconf(_SC_PAGESIZE);
    uint64_t small = (uint64_t)page;
    test_random(small, small, small / 4, 1, 200, 20000);
    test_random(small, 64, 8, 8, (uint32_t)(small / 2 - 12), 20000);
    test_random(small, 100, small, 32, 60, 20000);
    test_random(4 * small, 1000, small, 16, 1000, 20000);
    test_random(16 * small, 16 * small, 0, 64, 4000, 5000);
    CHECK(total_rereads > 0, "no stale header was read again in any schedule");
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("verbs ring arithmetic: all checks passed\n");
    return 0;
}
