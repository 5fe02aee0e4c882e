/* verbs_send.c: eager sends: credits, send buffers, inline data, doorbell batching, selective
 * signalling. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "verbs_impl.h"

/* Send work requests carry bit 63 in their wr_id (then the peer and the
 * ring slot); receive work requests carry the buffer's descriptor address,
 * which never has it.  An error completion's opcode is undefined, so the
 * wr_id is what tells them apart. */
#define SEND_WRID(peer, slot) ((1ULL << 63) | ((uint64_t)(peer) << 32) | (uint64_t)(slot))

int MPIDI_VERBS_sbufs_create(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    char *mem;
    void *d;
    uint32_t lkey;
    int err = MPIDI_VERBS_slab_new(st->nsbufs, sizeof(MPIDI_VERBS_sbuf_t), "send", &mem, &d, &lkey);
    if (err)
        return err;
    MPIDI_VERBS_sbuf_t *descs = d;
    for (int i = 0; i < st->nsbufs; i++) {
        descs[i].addr = mem + (size_t)i * st->buf_size;
        descs[i].lkey = lkey;
        descs[i].next = st->sfree;
        st->sfree = &descs[i];
    }
    st->nsfree = st->nsbufs;
    return MPI_SUCCESS;
}

/* Selective signalling: a completion is asked for every signal_interval
 * work requests (completions are in order, so it retires all before it),
 * for every rdma piece (its operation must learn it finished), when the
 * send queue is nearly full, and when send buffers run short (they come
 * back only with a completion). */
static int want_signal(const MPIDI_VERBS_conn_t *c, const MPIDI_VERBS_tx_t *tx)
{
    const MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    return tx->kind != MPIDI_VERBS_TX_SEND || c->unsignalled + 1 >= st->signal_interval ||
           c->sq_used + 1 >= c->sq_depth - 1 || (tx->sbuf && st->nsfree < st->nsbufs / 4);
}

static int post_batch(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (c->nbatch == 0)
        return MPI_SUCCESS;
    struct ibv_send_wr *bad;
    int n = c->nbatch;
    c->nbatch = 0;
    int rc = ibv_post_send(c->qp, &c->batch[0], &bad);
    st->stats.doorbells++;
    st->stats.posted_wrs += (unsigned long)n;
    if ((unsigned long)n > st->stats.batch_max)
        st->stats.batch_max = (unsigned long)n;
    if (rc) {
        /* Those from bad on were not posted: they are the failure's to give back. */
        for (struct ibv_send_wr *w = bad; w; w = w->next)
            c->nbatch++;
        MPIDI_VERBS_conn_fail(c, "ibv_post_send of %d work requests: %s (errno %d)", n,
                              strerror(rc), rc);
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}

void MPIDI_VERBS_batch_drop(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    /* The batch is the newest entries of the ring: give back what they hold. */
    for (; c->nbatch > 0; c->nbatch--) {
        c->ring_head--;
        c->sq_used--;
        MPIDI_VERBS_tx_t *tx = &c->ring[c->ring_head % (unsigned)c->sq_depth];
        c->signal_pending -= tx->signalled;
        if (tx->sbuf) {
            tx->sbuf->next = st->sfree;
            st->sfree = tx->sbuf;
            st->nsfree++;
        }
        if (tx->op)
            MPIDI_VERBS_rdma_piece_done(c, tx->op, 0);
        else if (tx->kind >= MPIDI_VERBS_TX_RING_TAIL)
            MPIDI_VERBS_ring_retired(c, tx, 0);
        *tx = (MPIDI_VERBS_tx_t){0};
    }
}

int MPIDI_VERBS_flush_batches(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    for (int i = 0; i < st->nlist; i++)
        if (st->list[i]->nbatch)
            post_batch(st->list[i]);
    return MPI_SUCCESS;
}

int MPIDI_VERBS_post(MPIDI_VERBS_conn_t *c, struct ibv_send_wr *wr, const MPIDI_VERBS_tx_t *tx,
                     const void *inline_data, size_t inline_len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    unsigned slot = c->ring_head % (unsigned)c->sq_depth;
    c->ring[slot] = *tx;
    c->ring[slot].signalled = (uint8_t)want_signal(c, tx);
    if (c->ring[slot].signalled) {
        wr->send_flags |= IBV_SEND_SIGNALED;
        c->unsignalled = 0;
        c->signal_pending++;
        st->stats.signalled++;
    } else {
        c->unsignalled++;
    }
    c->ring_head++;
    c->sq_used++;
    wr->wr_id = SEND_WRID(c->peer, slot);
    wr->next = NULL;
    if (!st->batching) {
        /* Outside progress (the application's own call): post at once, so
         * a message never waits for the next MPI call.  Inline data is
         * copied by ibv_post_send itself. */
        struct ibv_send_wr *bad;
        c->nbatch = 0;
        int rc = ibv_post_send(c->qp, wr, &bad);
        st->stats.doorbells++;
        st->stats.posted_wrs++;
        if (st->stats.batch_max == 0)
            st->stats.batch_max = 1;
        if (rc) {
            c->nbatch = 1; /* (so that the failure gives its ring entry back) */
            MPIDI_VERBS_conn_fail(c, "ibv_post_send: %s (errno %d)", strerror(rc), rc);
            return MPIDU_err_create(MPI_ERR_OTHER, "verbs: ibv_post_send to rank %d: %s (errno %d)",
                                    c->peer, strerror(rc), rc);
        }
        return MPI_SUCCESS;
    }
    /* During a progress pass the replies of a whole CQ batch (CTS, FIN, credits,
     * the next rdma pieces) go out with one doorbell per connection. */
    int i = c->nbatch++;
    c->batch[i] = *wr;
    if (wr->num_sge) {
        c->batch_sge[i] = wr->sg_list[0];
        c->batch[i].sg_list = &c->batch_sge[i];
        if (inline_data) {
            memcpy(c->batch_inline[i], inline_data, inline_len);
            c->batch_sge[i].addr = (uintptr_t)c->batch_inline[i];
        }
    }
    if (i > 0)
        c->batch[i - 1].next = &c->batch[i];
    if (c->nbatch == MPIDI_VERBS_POST_BATCH)
        return post_batch(c);
    return MPI_SUCCESS;
}

/* A signalled completion (or an error one) for slot: every work request
 * up to it is done. */
void MPIDI_VERBS_retire(MPIDI_VERBS_conn_t *c, unsigned slot, int ok)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    while (c->ring_tail != c->ring_head) {
        unsigned s = c->ring_tail % (unsigned)c->sq_depth;
        MPIDI_VERBS_tx_t tx = c->ring[s];
        c->ring_tail++;
        c->sq_used--;
        if (tx.signalled)
            c->signal_pending--;
        if (tx.sbuf) {
            tx.sbuf->next = st->sfree;
            st->sfree = tx.sbuf;
            st->nsfree++;
        }
        if (tx.op)
            MPIDI_VERBS_rdma_piece_done(c, tx.op, ok);
        else if (tx.kind >= MPIDI_VERBS_TX_RING_TAIL)
            MPIDI_VERBS_ring_retired(c, &tx, ok);
        if (s == slot)
            break;
    }
}

/* A zero-length RDMA write, signalled: retires the unsignalled sends of an
 * idle connection, whose buffers would otherwise wait for its next send. */
int MPIDI_VERBS_post_flush(MPIDI_VERBS_conn_t *c)
{
    if (c->state != MPIDI_VERBS_CONN_UP || c->sq_used >= c->sq_depth)
        return MPIDI_AGAIN;
    struct ibv_send_wr wr = {.opcode = IBV_WR_RDMA_WRITE, .num_sge = 0};
    MPIDI_VERBS_tx_t tx = {.kind = MPIDI_VERBS_TX_FLUSH};
    MPIDI_VERBS_state.stats.flushes++;
    return MPIDI_VERBS_post(c, &wr, &tx, NULL, 0);
}

static void flush_idle(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->unsignalled && !c->signal_pending)
            MPIDI_VERBS_post_flush(c);
    }
}

static int conn_usable(MPIDI_VERBS_conn_t *c, int peer)
{
    if (!c)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for a connection");
    if (c->state == MPIDI_VERBS_CONN_FAILED)
        return MPIDU_err_create(MPI_ERR_OTHER, "verbs: the connection to rank %d is lost", peer);
    return MPIDI_VERBS_conn_ready(c) ? MPI_SUCCESS : MPIDI_AGAIN;
}

int MPIDI_VERBS_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                        const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                        void *cookie)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_conn_t *c = MPIDI_VERBS_conn_get(peer);
    int rc = conn_usable(c, peer);
    if (rc)
        return rc;
    /* The ring channel carries every message of the core; send-receive
     * only the method's own (credits, BYE, AUTH, RING). */
    if (st->eager == MPIDI_VERBS_EAGER_RING)
        return MPIDI_VERBS_ring_send(c, handler, hdr, hdr_len, seg, first, last, flags);
    size_t len = last - first;
    size_t total = sizeof(MPIDI_VERBS_hdr_t) + hdr_len + len;
    if (hdr_len > MPIDI_VERBS_MAX_HDR || total > st->buf_size)
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "verbs am_send to rank %d: header %zu + payload "
                                "%zu bytes exceed the %zu-byte buffer",
                                peer, hdr_len, len, st->buf_size);
    /* One slot stays free for a flush. */
    if (c->sq_used >= c->sq_depth - 1) {
        st->stats.sq_full++;
        return MPIDI_AGAIN;
    }
    MPIDI_VERBS_spend_t spend = MPIDI_VERBS_credit_peek(&c->cr, 0);
    if (spend == MPIDI_VERBS_SPEND_NONE) {
        st->stats.no_credit++;
        return MPIDI_AGAIN;
    }
    /* A fence orders us after rdma posted before, not after pieces still
     * waiting in our own queue: wait until those are posted. */
    if ((flags & MPIDI_AM_FENCE) && c->rdma_head)
        return MPIDI_AGAIN;
    int inl = (int)total <= c->max_inline;
    char stage[MPIDI_VERBS_INLINE_MAX];
    char *buf = stage;
    MPIDI_VERBS_tx_t tx = {.kind = MPIDI_VERBS_TX_SEND};
    if (!inl) {
        if (!st->sfree) {
            st->stats.no_sbuf++;
            flush_idle();
            return MPIDI_AGAIN;
        }
        tx.sbuf = st->sfree;
        st->sfree = tx.sbuf->next;
        st->nsfree--;
        buf = tx.sbuf->addr;
    }
    MPIDI_VERBS_hdr_t h = {.handler = (uint8_t)handler, .hdr_len = (uint16_t)hdr_len};
    st->stats.credits_piggy += (unsigned long)MPIDI_VERBS_credit_spend(&c->cr, spend, &h);
    memcpy(buf, &h, sizeof(h));
    memcpy(buf + sizeof(h), hdr, hdr_len);
    if (len)
        MPIR_Segment_pack(seg, first, last, buf + sizeof(h) + hdr_len);
    struct ibv_sge sge = {
        .addr = (uintptr_t)buf, .length = (uint32_t)total, .lkey = inl ? 0 : tx.sbuf->lkey};
    struct ibv_send_wr wr = {.opcode = IBV_WR_SEND,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .send_flags = (inl ? IBV_SEND_INLINE : 0) |
                                           ((flags & MPIDI_AM_FENCE) ? IBV_SEND_FENCE : 0)};
    st->stats.sends++;
    st->stats.inline_sends += (unsigned long)inl;
    return MPIDI_VERBS_post(c, &wr, &tx, inl ? stage : NULL, total);
}

/* A message of the method's own (CREDIT, BYE, AUTH with its payload): in the
 * connection's reserved slot at the peer when that is free, else with a
 * regular credit. */
int MPIDI_VERBS_send_ctrl(MPIDI_VERBS_conn_t *c, int handler, const void *payload, size_t len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (c->state != MPIDI_VERBS_CONN_UP)
        return MPI_ERR_OTHER;
    MPIDI_VERBS_spend_t spend = MPIDI_VERBS_credit_peek(&c->cr, 1);
    if (c->sq_used >= c->sq_depth - 1 || spend == MPIDI_VERBS_SPEND_NONE)
        return MPIDI_AGAIN;
    size_t total = sizeof(MPIDI_VERBS_hdr_t) + len;
    char stage[sizeof(MPIDI_VERBS_hdr_t) + MPIDU_SHA256_LEN];
    if (total > sizeof(stage))
        return MPIDU_err_create(MPI_ERR_INTERN, "verbs: a %zu-byte control message", len);
    MPIDI_VERBS_tx_t tx = {.kind = MPIDI_VERBS_TX_SEND};
    int inl = (int)total <= c->max_inline;
    if (!inl && !st->sfree)
        return MPIDI_AGAIN;
    MPIDI_VERBS_hdr_t h = {.handler = (uint8_t)handler};
    MPIDI_VERBS_credit_spend(&c->cr, spend, &h);
    char *buf = stage;
    if (!inl) {
        tx.sbuf = st->sfree;
        st->sfree = tx.sbuf->next;
        st->nsfree--;
        buf = tx.sbuf->addr;
    }
    memcpy(buf, &h, sizeof(h));
    if (len)
        memcpy(buf + sizeof(h), payload, len);
    struct ibv_sge sge = {
        .addr = (uintptr_t)buf, .length = (uint32_t)total, .lkey = inl ? 0 : tx.sbuf->lkey};
    struct ibv_send_wr wr = {.opcode = IBV_WR_SEND,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .send_flags = inl ? IBV_SEND_INLINE : 0};
    if (handler == MPIDI_VERBS_CREDIT)
        st->stats.credit_msgs++;
    else if (handler == MPIDI_VERBS_BYE)
        c->said_bye = 1;
    return MPIDI_VERBS_post(c, &wr, &tx, inl ? stage : NULL, total);
}

/* Credits flow back on every message; a connection whose traffic goes one
 * way returns them in a CREDIT message (MPIDI_VERBS_credit_due). */
int MPIDI_VERBS_return_credits(int *made)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->state != MPIDI_VERBS_CONN_UP ||
            !MPIDI_VERBS_credit_due(&c->cr, st->credit_return, c->said_bye, c->peer_closed))
            continue;
        if (MPIDI_VERBS_send_ctrl(c, MPIDI_VERBS_CREDIT, NULL, 0) == MPI_SUCCESS)
            *made = 1;
    }
    return MPI_SUCCESS;
}
