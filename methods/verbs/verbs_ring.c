/* verbs_ring.c: the buffered ring channel (FERRY_VERBS_EAGER=ring): a passive sender copies
 * each message into its registered ring for the peer; the receiver pulls the new range with RDMA
 * reads (tail, then data), dispatches every message in it, and writes its head back now and
 * then.  The arithmetic is in verbs_ring.h; the design in doc/methods/verbs.md. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "verbs_impl.h"

#define CTRL_BYTES 4096 /* the control words' page */

static struct ibv_mr *reg(void *addr, size_t len, int access, const char **why_p)
{
    struct ibv_mr *mr = ibv_reg_mr(MPIDI_VERBS_state.pd, addr, len, access);
    if (!mr)
        *why_p = "ibv_reg_mr";
    return mr;
}

int MPIDI_VERBS_ring_open(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (st->eager != MPIDI_VERBS_EAGER_RING || c->rc)
        return MPI_SUCCESS;
    const char *why = "calloc";
    uint64_t size = st->ring_size;
    MPIDI_VERBS_rconn_t *rc = calloc(1, sizeof(*rc));
    if (!rc)
        goto fn_fail;
    c->rc = rc;
    rc->out.size = rc->in.size = size;
    if (!(rc->out.base = MPIDI_VERBS_ring_map(size, &why)) ||
        !(rc->in.base = MPIDI_VERBS_ring_map(size, &why)))
        goto fn_fail;
    why = "calloc";
    if (!(rc->in.freed = calloc(size / MPIDI_VERBS_RING_ALIGN, sizeof(*rc->in.freed))))
        goto fn_fail;
    void *ctrl;
    why = "posix_memalign";
    if ((errno = posix_memalign(&ctrl, CTRL_BYTES, CTRL_BYTES)) != 0)
        goto fn_fail;
    memset(ctrl, 0, CTRL_BYTES);
    rc->ctrl = ctrl;
    /* The whole double mapping is registered: a read that crosses the end
     * is one read of contiguous addresses. */
    if (!(rc->out_mr =
              reg(rc->out.base, 2 * size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, &why)) ||
        !(rc->in_mr = reg(rc->in.base, 2 * size, IBV_ACCESS_LOCAL_WRITE, &why)) ||
        !(rc->ctrl_mr =
              reg(ctrl, CTRL_BYTES,
                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE, &why)))
        goto fn_fail;
    rc->info_due = 1;
    return MPI_SUCCESS;

fn_fail : {
    int e = errno;
    MPIDI_VERBS_ring_close(c);
    return MPIDU_err_create(MPI_ERR_NO_MEM,
                            "verbs: the ring channel for rank %d (FERRY_RING_SIZE %llu, mapped "
                            "twice, registered): %s: %s (errno %d)",
                            c->peer, (unsigned long long)size, why, strerror(e), e);
}
}

void MPIDI_VERBS_ring_close(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_rconn_t *rc = c->rc;
    if (!rc)
        return;
    if (rc->out_mr)
        ibv_dereg_mr(rc->out_mr);
    if (rc->in_mr)
        ibv_dereg_mr(rc->in_mr);
    if (rc->ctrl_mr)
        ibv_dereg_mr(rc->ctrl_mr);
    MPIDI_VERBS_ring_unmap(rc->out.base, rc->out.size);
    MPIDI_VERBS_ring_unmap(rc->in.base, rc->in.size);
    free(rc->in.freed);
    free((void *)rc->ctrl);
    if (rc->info_seen)
        MPIDI_VERBS_state.nrings--;
    free(rc);
    c->rc = NULL;
}

void MPIDI_VERBS_ring_info_recv(MPIDI_VERBS_conn_t *c, const void *payload, size_t len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_rconn_t *rc = c->rc;
    MPIDI_VERBS_ring_info_t info;
    if (!rc || rc->info_seen || len != sizeof(info)) {
        MPIDI_VERBS_conn_fail(c,
                              "an unexpected RING message (%zu bytes; FERRY_VERBS_EAGER %s here)",
                              len, rc ? "ring" : "sr");
        return;
    }
    memcpy(&info, payload, sizeof(info));
    if (info.size != st->ring_size) {
        MPIDI_VERBS_conn_fail(c,
                              "its ring has %u bytes, ours %llu: FERRY_RING_SIZE must be the "
                              "same on every rank",
                              info.size, (unsigned long long)st->ring_size);
        return;
    }
    rc->peer = info;
    rc->info_seen = 1;
    st->nrings++;
}

int MPIDI_VERBS_ring_send(MPIDI_VERBS_conn_t *c, int handler, const void *hdr, size_t hdr_len,
                          const MPIR_Segment *seg, size_t first, size_t last, unsigned flags)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_rconn_t *rc = c->rc;
    size_t len = sizeof(MPIDI_VERBS_rmsg_t) + hdr_len + (last - first);
    if (!rc)
        return MPIDU_err_create(MPI_ERR_INTERN, "verbs: no ring toward rank %d", c->peer);
    if (hdr_len > MPIDI_VERBS_MAX_HDR || len > st->ring_max_msg)
        return MPIDU_err_create(MPI_ERR_INTERN,
                                "verbs ring to rank %d: header %zu + payload %zu bytes exceed "
                                "the ring's largest message (%zu bytes, half of FERRY_RING_SIZE)",
                                c->peer, hdr_len, last - first, st->ring_max_msg);
    /* The reader pulls whenever it likes: a fenced message must not be in
     * the ring before our earlier rdma operations are complete. */
    if ((flags & MPIDI_AM_FENCE) && (c->rdma_head || c->rdma_out))
        return MPIDI_AGAIN;
    uint64_t head, word = __atomic_load_n(&rc->ctrl[MPIDI_VERBS_CTRL_OUT_HEAD], __ATOMIC_ACQUIRE);
    if (!MPIDI_VERBS_ring_word_read(word, rc->out_head, &head)) {
        /* The peer's write of it is landing: the head we had is still true. */
        st->stats.ring_torn_heads++;
        head = rc->out_head;
    }
    if (head != rc->out_head) {
        if (!MPIDI_VERBS_ring_head_valid(&rc->out, rc->out_head, head)) {
            MPIDI_VERBS_conn_fail(c, "it returned ring head %llu, outside %llu..%llu",
                                  (unsigned long long)head, (unsigned long long)rc->out_head,
                                  (unsigned long long)rc->out.tail);
            return MPIDU_err_create(MPI_ERR_OTHER, "verbs: the ring to rank %d is corrupt",
                                    c->peer);
        }
        rc->out_head = head;
    }
    uint64_t need = MPIDI_VERBS_ring_footprint(len);
    char *at = MPIDI_VERBS_ring_reserve(&rc->out, rc->out_head, need);
    if (!at) {
        st->stats.ring_full++;
        return MPIDI_AGAIN;
    }
    MPIDI_VERBS_rmsg_t m = {.len = (uint32_t)len,
                            .handler = (uint8_t)handler,
                            .stamp = MPIDI_VERBS_ring_stamp(rc->out.tail, rc->out.size),
                            .hdr_len = (uint16_t)hdr_len};
    memcpy(at, &m, sizeof(m));
    memcpy(at + sizeof(m), hdr, hdr_len);
    if (last > first)
        MPIR_Segment_pack(seg, first, last, at + sizeof(m) + hdr_len);
    rc->out.tail += need;
    /* The message is whole before the tail that shows it. */
    __atomic_store_n(&rc->ctrl[MPIDI_VERBS_CTRL_OUT_TAIL], MPIDI_VERBS_ring_word(rc->out.tail),
                     __ATOMIC_RELEASE);
    st->stats.ring_sends++;
    return MPI_SUCCESS;
}

void MPIDI_VERBS_ring_retired(MPIDI_VERBS_conn_t *c, const MPIDI_VERBS_tx_t *tx, int ok)
{
    MPIDI_VERBS_rconn_t *rc = c->rc;
    if (!rc)
        return;
    switch (tx->kind) {
    case MPIDI_VERBS_TX_RING_TAIL:
        rc->tail_out = 0;
        rc->tail_landed = ok;
        c->reads_out--;
        break;
    case MPIDI_VERBS_TX_RING_DATA:
        rc->data_out--;
        c->reads_out--;
        /* (reads of one queue pair complete in order) */
        if (ok && tx->end > rc->in.fetched)
            rc->in.fetched = tx->end;
        break;
    case MPIDI_VERBS_TX_RING_HEAD:
        rc->head_out = 0; /* its source word may change again */
        break;
    default:
        break;
    }
}

int MPIDI_VERBS_ring_drained(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_rconn_t *rc = c->rc;
    uint64_t head;
    return !rc || (MPIDI_VERBS_ring_word_read(
                       __atomic_load_n(&rc->ctrl[MPIDI_VERBS_CTRL_OUT_HEAD], __ATOMIC_ACQUIRE),
                       rc->out_head, &head) &&
                   head == rc->out.tail);
}

/* One RDMA operation of the ring; the caller checked the room. */
static int post(MPIDI_VERBS_conn_t *c, int kind, void *local, uint32_t lkey, uint64_t remote,
                uint32_t rkey, size_t len, uint64_t end)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_sge sge = {.addr = (uintptr_t)local, .length = (uint32_t)len, .lkey = lkey};
    struct ibv_send_wr wr = {.opcode = kind == MPIDI_VERBS_TX_RING_HEAD ? IBV_WR_RDMA_WRITE
                                                                        : IBV_WR_RDMA_READ,
                             .sg_list = &sge,
                             .num_sge = 1,
                             .wr.rdma = {.remote_addr = remote, .rkey = rkey}};
    MPIDI_VERBS_tx_t tx = {.kind = (uint8_t)kind, .end = end};
    if (kind != MPIDI_VERBS_TX_RING_HEAD) {
        c->reads_out++;
        if ((unsigned long)c->reads_out > st->stats.reads_inflight_max)
            st->stats.reads_inflight_max = (unsigned long)c->reads_out;
    }
    return MPIDI_VERBS_post(c, &wr, &tx, NULL, 0);
}

static int room(const MPIDI_VERBS_conn_t *c, int read)
{
    return c->state == MPIDI_VERBS_CONN_UP && c->sq_used < c->sq_depth - 1 &&
           (!read || c->reads_out < c->rd_depth);
}

/* The messages that landed whole, in order; each is freed once the core
 * has it (MPIDU_am_dispatch copies what it keeps). */
static void dispatch(MPIDI_VERBS_conn_t *c, int *made)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_ring_in_t *in = &c->rc->in;
    MPIDI_VERBS_rmsg_t m;
    char *at;
    /* (Set by the loop before any use below: a connection not up returns first.  The value
     * only quiets -Wmaybe-uninitialized at -O1 with the sanitizers.) */
    MPIDI_VERBS_msg_state_t s = MPIDI_VERBS_MSG_READY;
    while (c->state == MPIDI_VERBS_CONN_UP &&
           (s = MPIDI_VERBS_ring_peek(in, st->ring_max_msg, &m, &at)) == MPIDI_VERBS_MSG_READY) {
        uint64_t pos = MPIDI_VERBS_ring_take(in, &m);
        st->stats.ring_msgs++;
        if (pos % in->size + m.len > in->size)
            st->stats.ring_straddles++;
        size_t payload = m.len - sizeof(m) - m.hdr_len;
        MPIDU_am_dispatch(c->peer, m.handler, at + sizeof(m), m.hdr_len, at + sizeof(m) + m.hdr_len,
                          payload);
        MPIDI_VERBS_ring_free(in, pos, &m);
        *made = 1;
    }
    if (c->state != MPIDI_VERBS_CONN_UP)
        return;
    if (s == MPIDI_VERBS_MSG_STALE && c->rc->data_out == 0) {
        /* Read again; bytes that stay stale are corrupt after all. */
        if (c->rc->rereads_at != in->read_ptr) {
            c->rc->rereads_at = in->read_ptr;
            c->rc->rereads = 0;
        }
        if (++c->rc->rereads <= MPIDI_VERBS_RING_REREADS) {
            MPIDI_VERBS_ring_reread(in);
            st->stats.ring_rereads++;
            return;
        }
    }
    if (s == MPIDI_VERBS_MSG_CORRUPT || (s == MPIDI_VERBS_MSG_STALE && c->rc->data_out == 0))
        MPIDI_VERBS_conn_fail(c,
                              "the ring message at byte %llu has a corrupt header (length %u, "
                              "header %u, stamp %#x)",
                              (unsigned long long)in->read_ptr, m.len, m.hdr_len, m.stamp);
}

/* The tail read landed: new bytes, or one more empty read (then the next
 * waits, doubling up to the cap). */
static void tail_landed(MPIDI_VERBS_conn_t *c, int *made, double *now_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_rconn_t *rc = c->rc;
    uint64_t t, word = __atomic_load_n(&rc->ctrl[MPIDI_VERBS_CTRL_IN_TAIL + rc->tail_slot],
                                       __ATOMIC_ACQUIRE);
    rc->tail_landed = 0;
    if (!MPIDI_VERBS_ring_word_read(word, rc->in.remote_tail, &t)) {
        /* The read met the sender's store of a new tail: read it again. */
        st->stats.ring_torn_tails++;
        return;
    }
    switch (MPIDI_VERBS_ring_tail_seen(&rc->in, t)) {
    case MPIDI_VERBS_TAIL_STALE:
        st->stats.ring_stale_tails++;
        return;
    case MPIDI_VERBS_TAIL_BAD:
        MPIDI_VERBS_conn_fail(c, "its ring's tail %llu is outside %llu..%llu",
                              (unsigned long long)t, (unsigned long long)rc->in.remote_tail,
                              (unsigned long long)(rc->in.head + rc->in.size));
        return;
    case MPIDI_VERBS_TAIL_MOVED:
        rc->empty = 0;
        *made = 1;
        return;
    case MPIDI_VERBS_TAIL_SAME:
        break;
    }
    st->stats.ring_tail_empty++;
    rc->empty++;
    /* The cap grows with the number of senders we read, so that together
     * their empty reads cost about one per FERRY_RING_POLL_BACKOFF us. */
    double cap = st->ring_backoff_us * (st->nrings > 1 ? st->nrings : 1);
    double us = MPIDI_VERBS_ring_backoff_us(rc->empty, cap);
    if (us > 0) {
        if (*now_p == 0)
            *now_p = MPIDI_VERBS_now();
        rc->next_poll = *now_p + us * 1e-6;
        st->stats.ring_backoffs++;
    }
}

/* Tells the peer where our ring for it is (by send-receive: after AUTH on
 * the connector's side); retried from progress while it cannot go. */
static void send_info(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_rconn_t *rc = c->rc;
    MPIDI_VERBS_ring_info_t info = {.ring_addr = (uintptr_t)rc->out.base,
                                    .ctrl_addr = (uintptr_t)rc->ctrl,
                                    .ring_rkey = rc->out_mr->rkey,
                                    .ctrl_rkey = rc->ctrl_mr->rkey,
                                    .size = (uint32_t)rc->out.size};
    if (MPIDI_VERBS_send_ctrl(c, MPIDI_VERBS_RING, &info, sizeof(info)) == MPI_SUCCESS)
        rc->info_due = 0;
}

static void ring_step(MPIDI_VERBS_conn_t *c, int *made, double *now_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_rconn_t *rc = c->rc;
    MPIDI_VERBS_ring_in_t *in = &rc->in;
    if (rc->info_due)
        send_info(c);
    /* After the peer's BYE nothing more comes: it said it once we had
     * freed everything it sent. */
    if (!rc->info_seen || c->peer_closed)
        return;
    if (rc->tail_landed)
        tail_landed(c, made, now_p);
    dispatch(c, made);
    if (c->state != MPIDI_VERBS_CONN_UP)
        return;
    /* One head write at a time: the device copies the word when it sends,
     * and a word changed under that copy would reach the peer torn. */
    if (!rc->head_out && MPIDI_VERBS_ring_head_due(in, st->ring_head_interval) && room(c, 0)) {
        rc->ctrl[MPIDI_VERBS_CTRL_IN_HEAD] = MPIDI_VERBS_ring_word(in->head);
        rc->head_out = 1;
        in->head_sent = in->head;
        st->stats.ring_head_writes++;
        if (post(c, MPIDI_VERBS_TX_RING_HEAD, (void *)&rc->ctrl[MPIDI_VERBS_CTRL_IN_HEAD],
                 rc->ctrl_mr->lkey,
                 rc->peer.ctrl_addr + MPIDI_VERBS_CTRL_OUT_HEAD * sizeof(uint64_t),
                 rc->peer.ctrl_rkey, sizeof(uint64_t), 0))
            return;
    }
    /* Data: the new range, in reads of at most FERRY_RING_MAX_READ so that
     * the first messages of a large batch are handed out early. */
    while (in->requested < in->remote_tail && room(c, 1)) {
        uint64_t off, left = in->remote_tail - in->requested;
        uint64_t n = MPIDI_VERBS_ring_next_read(in, st->ring_max_read, &off);
        st->stats.ring_bounded_reads += n < left;
        st->stats.ring_data_reads++;
        st->stats.ring_data_bytes += n;
        if (n > st->stats.ring_read_bytes_max)
            st->stats.ring_read_bytes_max = n;
        rc->data_out++;
        if (post(c, MPIDI_VERBS_TX_RING_DATA, in->base + off, rc->in_mr->lkey,
                 rc->peer.ring_addr + off, rc->peer.ring_rkey, n, in->requested))
            return;
    }
    /* The tail: with prefetch, read as soon as every known byte is asked
     * for (so it travels with the data read and the next batch is known
     * when this one lands); without, only once everything is handed out. */
    if (rc->tail_out || in->requested != in->remote_tail || !room(c, 1))
        return;
    if (!st->ring_prefetch && in->read_ptr != in->remote_tail)
        return;
    if (rc->empty >= MPIDI_VERBS_RING_EAGER_POLLS && rc->next_poll > 0) {
        if (*now_p == 0)
            *now_p = MPIDI_VERBS_now();
        if (*now_p < rc->next_poll)
            return;
    }
    rc->tail_out = 1;
    /* Each read lands in the next of several words: a late duplicate of an
     * older read cannot overwrite the answer to this one. */
    rc->tail_slot = (rc->tail_slot + 1) % MPIDI_VERBS_TAIL_SLOTS;
    st->stats.ring_tail_reads++;
    st->stats.ring_prefetches += rc->data_out > 0;
    post(c, MPIDI_VERBS_TX_RING_TAIL, (void *)&rc->ctrl[MPIDI_VERBS_CTRL_IN_TAIL + rc->tail_slot],
         rc->ctrl_mr->lkey, rc->peer.ctrl_addr + MPIDI_VERBS_CTRL_OUT_TAIL * sizeof(uint64_t),
         rc->peer.ctrl_rkey, sizeof(uint64_t), 0);
}

int MPIDI_VERBS_ring_progress(int *made)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (st->eager != MPIDI_VERBS_EAGER_RING)
        return MPI_SUCCESS;
    double now = 0; /* read once, when a back-off needs it */
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->rc && c->state == MPIDI_VERBS_CONN_UP)
            ring_step(c, made, &now);
    }
    return MPI_SUCCESS;
}
