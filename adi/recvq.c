/* recvq.c: the one matching engine: posted and unexpected queues binned by (context, source). */
#include <stdlib.h>
#include "adi_impl.h"

/* MPI's rule: a message matches the earliest posted receive that fits, and a
 * receive the earliest arrived message that fits; with per-peer FIFO delivery
 * that is the non-overtaking guarantee.  One list each would make every
 * match a linear search, and a receiver that takes a flood one source at a
 * time would walk all the other sources' messages on every receive (time
 * growing with the square of the queue).  So, as Open MPI's ob1 and UCX do,
 * the queues are binned:
 *
 * - a source bin per (context, source) holds the receives posted for that
 *   source and the messages arrived from it, each in order (links next/prev);
 * - a context bin per context (source MPI_ANY_SOURCE) holds the receives
 *   posted with MPI_ANY_SOURCE, in order, and every unexpected message of the
 *   context in arrival order (a second pair of links, arr_next/arr_prev).
 *
 * An arriving message takes the first fitting receive of its source bin and,
 * only while wildcard receives are posted at all, the first fitting one of
 * its context bin; of the two the one posted earlier wins (post_seq, a
 * counter over all posts, as UCX orders its wildcard queue).  A receive for
 * one source searches that source's bin, a wildcard one its context's
 * arrival list.  Tags are still compared in order inside a bin: one
 * comparison when the first entry fits, which is the common case. */

typedef struct queue {
    MPIR_Request *head, *tail;
} queue_t;

typedef struct MPIDI_recvq_bin {
    uint64_t key;
    queue_t posted; /* source bin: receives for this source; context bin: MPI_ANY_SOURCE ones */
    queue_t unexp;  /* source bin: messages from this source; context bin: all, by arrival */
    struct MPIDI_recvq_bin *ctx_bin; /* a source bin's context bin; NULL for a context bin */
} bin_t;

/* Open addressing over pointers to bins, which never move (requests point
 * at their bin) and are never freed before finalize: a job uses a bounded
 * set of (context, source) pairs, and a bin that empties is likely used again. */
static bin_t **table;
static size_t table_cap, table_used; /* capacity is a power of two, at most half full */
static bin_t *last_bin;              /* the bin of the last lookup: a ping-pong hits it */

static uint64_t post_counter; /* post_seq of the next posted receive */
static long nwild;            /* MPI_ANY_SOURCE receives posted */
static size_t unexp_bytes;

/* ---- lists ---- */

static void q_append(queue_t *q, MPIR_Request *r)
{
    r->next = NULL;
    r->prev = q->tail;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
}

static void q_remove(queue_t *q, MPIR_Request *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        q->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        q->tail = r->prev;
    r->next = r->prev = NULL;
}

static void arr_append(queue_t *q, MPIR_Request *r)
{
    r->arr_next = NULL;
    r->arr_prev = q->tail;
    if (q->tail)
        q->tail->arr_next = r;
    else
        q->head = r;
    q->tail = r;
}

static void arr_remove(queue_t *q, MPIR_Request *r)
{
    if (r->arr_prev)
        r->arr_prev->arr_next = r->arr_next;
    else
        q->head = r->arr_next;
    if (r->arr_next)
        r->arr_next->arr_prev = r->arr_prev;
    else
        q->tail = r->arr_prev;
    r->arr_next = r->arr_prev = NULL;
}

/* ---- bins ---- */

static uint64_t bin_key(int context_id, int src)
{
    return (uint64_t)(uint32_t)context_id << 32 | (uint32_t)src;
}

static size_t slot_of(uint64_t key, size_t cap)
{
    /* Fibonacci hashing: consecutive ranks of one context spread evenly. */
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static int grow_table(void)
{
    size_t cap = table_cap ? table_cap * 2 : 64;
    bin_t **t = calloc(cap, sizeof(*t));
    if (!t)
        return -1;
    for (size_t i = 0; i < table_cap; i++) {
        if (!table[i])
            continue;
        size_t s = slot_of(table[i]->key, cap);
        while (t[s])
            s = (s + 1) & (cap - 1);
        t[s] = table[i];
    }
    free(table);
    table = t;
    table_cap = cap;
    return 0;
}

/* The table's bin of key (bin_get has tried last_bin already). */
static bin_t *lookup(uint64_t key)
{
    if (!table_cap)
        return NULL;
    for (size_t s = slot_of(key, table_cap);; s = (s + 1) & (table_cap - 1)) {
        if (!table[s])
            return NULL;
        if (table[s]->key == key)
            return last_bin = table[s];
    }
}

static bin_t *insert(uint64_t key)
{
    if ((table_used + 1) * 2 > table_cap && grow_table() != 0)
        return NULL;
    bin_t *b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->key = key;
    size_t s = slot_of(key, table_cap);
    while (table[s])
        s = (s + 1) & (table_cap - 1);
    table[s] = b;
    table_used++;
    return last_bin = b;
}

static bin_t *bin_get_slow(int context_id, int src, int create);

/* The bin of (context, src), created with its context bin when asked; NULL
 * when it does not exist (or, with create, when memory ran out).  The bin
 * used last is the answer most of the time (a receive is posted, then its
 * message matches it): that test is inline, the rest out of line. */
static inline bin_t *bin_get(int context_id, int src, int create)
{
    uint64_t key = bin_key(context_id, src);
    if (last_bin && last_bin->key == key)
        return last_bin;
    return bin_get_slow(context_id, src, create);
}

static __attribute__((noinline)) bin_t *bin_get_slow(int context_id, int src, int create)
{
    bin_t *b = lookup(bin_key(context_id, src));
    if (b || !create)
        return b;
    bin_t *cb = NULL;
    if (src != MPI_ANY_SOURCE) {
        cb = bin_get(context_id, MPI_ANY_SOURCE, 1);
        if (!cb)
            return NULL;
    }
    b = insert(bin_key(context_id, src));
    if (b)
        b->ctx_bin = cb;
    return b;
}

static int is_ctx_bin(const bin_t *b)
{
    return b->ctx_bin == NULL;
}

/* ---- posted receives ---- */

static MPIR_Request *first_posted(const bin_t *b, int tag)
{
    for (MPIR_Request *r = b->posted.head; r; r = r->next)
        if (r->tag == MPI_ANY_TAG || r->tag == tag)
            return r;
    return NULL;
}

static void take_posted(bin_t *b, MPIR_Request *r)
{
    q_remove(&b->posted, r);
    r->in_posted = 0;
    r->rq_bin = NULL;
    if (is_ctx_bin(b))
        nwild--;
}

MPIR_Request *MPIDI_recvq_find_posted(int context_id, int src, int tag)
{
    bin_t *b = bin_get(context_id, src, 0);
    MPIR_Request *r = b ? first_posted(b, tag) : NULL;
    if (nwild > 0) {
        bin_t *cb = b ? b->ctx_bin : bin_get(context_id, MPI_ANY_SOURCE, 0);
        MPIR_Request *w = cb ? first_posted(cb, tag) : NULL;
        if (w && (!r || w->post_seq < r->post_seq)) {
            r = w;
            b = cb;
        }
    }
    if (r)
        take_posted(b, r);
    return r;
}

static void post_in(bin_t *b, MPIR_Request *rreq)
{
    rreq->post_seq = post_counter++;
    q_append(&b->posted, rreq);
    rreq->rq_bin = b;
    rreq->in_posted = 1;
    if (is_ctx_bin(b))
        nwild++;
}

static int no_posted_bin(const MPIR_Request *rreq)
{
    return MPIR_Err_create(MPI_ERR_NO_MEM,
                           "out of memory for the receive queue of context %d, source %d",
                           rreq->context_id, rreq->rank);
}

int MPIDI_recvq_remove_posted(MPIR_Request *rreq)
{
    if (!rreq->in_posted)
        return 0;
    take_posted(rreq->rq_bin, rreq);
    return 1;
}

/* ---- unexpected messages ---- */

static void take_unexp(MPIR_Request *u)
{
    bin_t *b = u->rq_bin;
    q_remove(&b->unexp, u);
    arr_remove(&b->ctx_bin->unexp, u);
    u->rq_bin = NULL;
    if (u->unexp_data) {
        unexp_bytes -= u->msg_size;
        if (MPIDI_npaused && unexp_bytes <= MPIDI_unexp_limit / 2)
            MPIDI_flow_under();
    }
}

/* The earliest fitting message of bin b, the bin of (context, src): for MPI_ANY_SOURCE the
 * context bin's arrival list. */
static MPIR_Request *first_unexp(const bin_t *b, int src, int tag)
{
    MPIR_Request *u;
    if (src == MPI_ANY_SOURCE) {
        for (u = b->unexp.head; u; u = u->arr_next)
            if (tag == MPI_ANY_TAG || u->tag == tag)
                return u;
    } else {
        for (u = b->unexp.head; u; u = u->next)
            if (tag == MPI_ANY_TAG || u->tag == tag)
                return u;
    }
    return NULL;
}

MPIR_Request *MPIDI_recvq_find_unexp(int context_id, int src, int tag, int remove)
{
    bin_t *b = bin_get(context_id, src, 0);
    MPIR_Request *u = b ? first_unexp(b, src, tag) : NULL;
    if (u && remove)
        take_unexp(u);
    return u;
}

/* A receive searches and, when nothing fits, is posted in the same bin (its
 * source's, or its context's for MPI_ANY_SOURCE): one lookup instead of two
 * (issue 12's per-message budget). */
MPIR_Request *MPIDI_recvq_take_unexp_or_post(MPIR_Request *rreq, int refuse, int *err_p)
{
    *err_p = MPI_SUCCESS;
    bin_t *b = bin_get(rreq->context_id, rreq->rank, 1);
    if (!b) {
        *err_p = no_posted_bin(rreq);
        return NULL;
    }
    MPIR_Request *u = first_unexp(b, rreq->rank, rreq->tag);
    if (u)
        take_unexp(u);
    else if (refuse)
        *err_p = refuse;
    else
        post_in(b, rreq);
    return u;
}

/* A cancel names the message by its sender's request and sequence number,
 * not by its envelope, so every source bin is searched: cancels are rare. */
MPIR_Request *MPIDI_recvq_take_unexp_sent(int peer, uint64_t sreq, uint16_t seq)
{
    for (size_t i = 0; i < table_cap; i++) {
        bin_t *b = table[i];
        if (!b || is_ctx_bin(b))
            continue;
        for (MPIR_Request *u = b->unexp.head; u; u = u->next) {
            if (u->peer == peer && u->rts.sreq == sreq && u->rts.seq == seq) {
                take_unexp(u);
                return u;
            }
        }
    }
    return NULL;
}

int MPIDI_recvq_append_unexp(MPIR_Request *ureq)
{
    bin_t *b = bin_get(ureq->context_id, ureq->rank, 1);
    if (!b)
        return MPIR_Err_create(MPI_ERR_NO_MEM,
                               "out of memory for the unexpected queue of "
                               "context %d, source %d",
                               ureq->context_id, ureq->rank);
    q_append(&b->unexp, ureq);
    arr_append(&b->ctx_bin->unexp, ureq);
    ureq->rq_bin = b;
    if (ureq->unexp_data) {
        unexp_bytes += ureq->msg_size;
        if (unexp_bytes > MPIDI_stats.unexpected_bytes_max)
            MPIDI_stats.unexpected_bytes_max = unexp_bytes;
        if (MPIDI_unexp_limit && unexp_bytes > MPIDI_unexp_limit)
            MPIDI_flow_over(ureq->peer);
    }
    return MPI_SUCCESS;
}

size_t MPIDI_recvq_unexp_bytes(void)
{
    return unexp_bytes;
}

static size_t q_length(const queue_t *q)
{
    size_t n = 0;
    for (const MPIR_Request *r = q->head; r; r = r->next)
        n++;
    return n;
}

void MPIDI_recvq_lengths(size_t *posted, size_t *unexp)
{
    *posted = *unexp = 0;
    for (size_t i = 0; i < table_cap; i++) {
        const bin_t *b = table[i];
        if (!b)
            continue;
        *posted += q_length(&b->posted);
        /* A context bin's list repeats its source bins' messages (by arrival). */
        if (!is_ctx_bin(b))
            *unexp += q_length(&b->unexp);
    }
}

/* ---- lost peers ---- */

/* Whether world rank peer is one a receive on comm may hear from: a member
 * of its group, or of the remote group of an intercommunicator. */
static int comm_has(const MPIR_Comm *comm, int peer)
{
    if (!comm)
        return 0;
    int n = MPIR_Comm_peer_size(comm);
    if (!comm->world_ranks)
        return peer < n;
    for (int i = 0; i < n; i++)
        if (comm->world_ranks[i] == peer)
            return 1;
    return 0;
}

static void fail_posted(bin_t *b, MPIR_Request *r, int mpi_errno)
{
    take_posted(b, r);
    MPIR_Request_set_error(r, mpi_errno);
    r->status.MPI_SOURCE = r->rank;
    r->status.MPI_TAG = r->tag;
    MPIDI_Request_complete_one(r);
}

/* Receives naming the lost peer can never match now, and a wildcard receive
 * on a communicator the peer belongs to may wait for a message only that
 * peer would have sent: both fail (a wildcard one with wild_errno, which
 * says so).  Messages that arrived from the peer before it was lost stay
 * and can still be received. */
void MPIDI_recvq_fail_peer(int peer, int mpi_errno, int wild_errno)
{
    for (size_t i = 0; i < table_cap; i++) {
        bin_t *b = table[i];
        if (!b)
            continue;
        MPIR_Request *r = b->posted.head;
        while (r) {
            MPIR_Request *next = r->next;
            if (is_ctx_bin(b) ? comm_has(r->comm, peer) : r->peer == peer)
                fail_posted(b, r, is_ctx_bin(b) ? wild_errno : mpi_errno);
            r = next;
        }
    }
}

int MPIDI_recvq_comm_lost_peer(const MPIR_Comm *comm, const int *lost, int nlost)
{
    for (int i = 0; i < nlost; i++)
        if (comm_has(comm, lost[i]))
            return lost[i];
    return -1;
}

void MPIDI_recvq_finalize(void)
{
    for (size_t i = 0; i < table_cap; i++)
        free(table[i]);
    free(table);
    table = NULL;
    table_cap = table_used = 0;
    last_bin = NULL;
    nwild = 0;
}
