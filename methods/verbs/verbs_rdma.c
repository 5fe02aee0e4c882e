/* verbs_rdma.c: rdma_get/rdma_put: RDMA READ and WRITE pieces, split at max_msg_sz, reads bounded.
 */
#include <stdlib.h>

#include "mpi.h"
#include "verbs_impl.h"

/* An operation is cut into pieces of at most max_rdma bytes (the port's
 * max_msg_sz, or FERRY_VERBS_RDMA_CHUNK).  Reads in flight on a connection
 * are bounded by the negotiated initiator depth (max_rd_atomic): more would
 * only stall in the device's send queue, and the sends behind them with
 * them.  Pieces that cannot go yet wait on the connection's queue and are
 * posted as earlier reads complete.  Every piece is signalled: its
 * operation must learn when it is over. */

int MPIDI_VERBS_rdma_pump(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    while (c->rdma_head && c->state == MPIDI_VERBS_CONN_UP) {
        MPIDI_VERBS_rdma_op_t *op = c->rdma_head;
        while (op->left > 0) {
            if (op->is_get && c->reads_out >= c->rd_depth)
                return 0;
            if (c->sq_used >= c->sq_depth - 1)
                return 0;
            size_t n = op->left < st->max_rdma ? op->left : st->max_rdma;
            struct ibv_sge sge = {
                .addr = (uintptr_t)op->local, .length = (uint32_t)n, .lkey = op->lkey};
            struct ibv_send_wr wr = {.opcode = op->is_get ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
                                     .sg_list = &sge,
                                     .num_sge = 1,
                                     .wr.rdma = {.remote_addr = op->remote, .rkey = op->rkey}};
            MPIDI_VERBS_tx_t tx = {.kind = op->is_get ? MPIDI_VERBS_TX_READ : MPIDI_VERBS_TX_WRITE,
                                   .op = op};
            op->pieces_out++;
            c->rdma_out++;
            c->reads_out += op->is_get;
            op->left -= n;
            op->local += n;
            op->remote += n;
            st->stats.read_pieces += (unsigned long)op->is_get;
            st->stats.write_pieces += (unsigned long)!op->is_get;
            if ((unsigned long)c->reads_out > st->stats.reads_inflight_max)
                st->stats.reads_inflight_max = (unsigned long)c->reads_out;
            if (MPIDI_VERBS_post(c, &wr, &tx, NULL, 0) != MPI_SUCCESS)
                return -1; /* the connection failed; its operations are dropped */
        }
        c->rdma_head = op->next;
        if (!c->rdma_head)
            c->rdma_tail = NULL;
    }
    return 0;
}

static int rdma(int is_get, int peer, void *local, size_t len, void *local_handle, uint64_t remote,
                uint64_t rkey, void *cookie)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_conn_t *c = MPIDI_VERBS_conn_get(peer);
    if (!c)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for a connection");
    if (c->state == MPIDI_VERBS_CONN_FAILED)
        return MPIDU_err_create(MPI_ERR_OTHER, "verbs: the connection to rank %d is lost", peer);
    if (!local_handle)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: rdma with rank %d without a local "
                                "registration",
                                peer);
    if (len == 0)
        return MPI_SUCCESS;
    if (!MPIDI_VERBS_conn_ready(c))
        return MPIDI_AGAIN;
    /* Busy: no read slot or send-queue room for even the first piece, or
     * pieces already waiting: the core parks the transfer (flow control). */
    if ((is_get && c->reads_out >= c->rd_depth) || c->sq_used >= c->sq_depth - 1 || c->rdma_head) {
        st->stats.rdma_waits++;
        return MPIDI_AGAIN;
    }
    MPIDI_VERBS_rdma_op_t *op = calloc(1, sizeof(*op));
    if (!op)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for an rdma operation");
    op->is_get = is_get;
    op->local = local;
    op->remote = remote;
    op->left = len;
    op->lkey = MPIDI_VERBS_lkey(local_handle);
    op->rkey = (uint32_t)rkey;
    if (st->fault == MPIDI_VERBS_FAULT_RKEY)
        op->rkey = ~op->rkey; /* a key the peer never handed out: a remote access error */
    op->cookie = cookie;
    if (c->rdma_tail)
        c->rdma_tail->next = op;
    else
        c->rdma_head = op;
    c->rdma_tail = op;
    if (is_get)
        st->stats.reads++;
    else
        st->stats.writes++;
    MPIDI_VERBS_rdma_pump(c);
    return MPIDI_INPROGRESS;
}

int MPIDI_VERBS_rdma_get(int peer, void *local, size_t len, void *local_handle,
                         uint64_t remote_addr, uint64_t rkey, void *cookie)
{
    return rdma(1, peer, local, len, local_handle, remote_addr, rkey, cookie);
}

int MPIDI_VERBS_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                         uint64_t remote_addr, uint64_t rkey, void *cookie)
{
    return rdma(0, peer, (void *)local, len, local_handle, remote_addr, rkey, cookie);
}

void MPIDI_VERBS_rdma_piece_done(MPIDI_VERBS_conn_t *c, MPIDI_VERBS_rdma_op_t *op, int ok)
{
    op->pieces_out--;
    c->rdma_out--;
    c->reads_out -= op->is_get;
    if (!ok && !op->err)
        op->err = MPI_ERR_OTHER;
    if (op->pieces_out > 0 || op->left > 0)
        return;
    if (!op->dropped)
        MPIDU_op_done(op->cookie, op->err ? MPIDU_err_create(MPI_ERR_OTHER,
                                                             "verbs: RDMA %s "
                                                             "with rank %d failed",
                                                             op->is_get ? "read" : "write", c->peer)
                                          : MPI_SUCCESS);
    free(op);
}

/* The connection failed: operations are forgotten (the core fails their
 * requests); those with pieces still posted are freed as those retire. */
void MPIDI_VERBS_rdma_drop(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_rdma_op_t *op = c->rdma_head;
    c->rdma_head = c->rdma_tail = NULL;
    while (op) {
        MPIDI_VERBS_rdma_op_t *next = op->next;
        op->dropped = 1;
        op->left = 0;
        if (op->pieces_out == 0)
            free(op);
        op = next;
    }
    /* Operations fully posted are no longer queued but still referenced by
     * the send ring: mark them through it. */
    for (unsigned i = c->ring_tail; i != c->ring_head; i++) {
        MPIDI_VERBS_tx_t *tx = &c->ring[i % (unsigned)c->sq_depth];
        if (tx->op)
            tx->op->dropped = 1;
    }
}
