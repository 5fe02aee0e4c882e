/* ofi_rdma.c: rdma_get/rdma_put by fi_read/fi_write, split at the endpoint's max_msg_size;
 * pieces the provider will not take yet wait and are posted from progress. */
#include <stdlib.h>

#include "mpi.h"
#include "ofi_impl.h"

static void waiting_add(MPIDI_OFI_peer_t *p)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    st->waiting[st->nwaiting++] = p; /* a peer is listed while its queue is not empty */
}

/* Posts the op's pieces until done or the provider says -FI_EAGAIN.
 * Returns 0, or the libfabric error of a refused post. */
static int pump(MPIDI_OFI_rdma_op_t *op)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[op->peer];
    while (op->left > 0) {
        size_t n = op->left < st->max_rdma ? op->left : st->max_rdma;
        MPIDI_OFI_piece_t *pc = malloc(sizeof(*pc));
        if (!pc)
            return -FI_ENOMEM;
        pc->ctx.kind = MPIDI_OFI_CTX_RDMA;
        pc->op = op;
        ssize_t ret =
            op->is_get
                ? fi_read(st->ep, op->local, n, op->desc, p->addr, op->remote, op->key, &pc->ctx)
                : fi_write(st->ep, op->local, n, op->desc, p->addr, op->remote, op->key, &pc->ctx);
        if (ret) {
            free(pc);
            if (ret == -FI_EAGAIN)
                st->stats.eagain++;
            return (int)ret;
        }
        op->pieces_out++;
        op->left -= n;
        op->local += n;
        op->remote += n;
        if (op->is_get)
            st->stats.read_pieces++;
        else
            st->stats.write_pieces++;
    }
    return 0;
}

static int rdma(int is_get, int peer, void *local, size_t len, void *local_handle, uint64_t remote,
                uint64_t key, void *cookie)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[peer];
    const char *what = is_get ? "fi_read" : "fi_write";
    if (p->failed)
        return MPIDU_err_create(MPI_ERR_OTHER, "%s", p->fail_msg);
    if (p->addr == FI_ADDR_NOTAVAIL)
        return MPIDU_err_create(MPI_ERR_INTERN, "ofi: %s with rank %d before its address is known",
                                what, peer);
    if (st->mr_local && !local_handle)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "ofi: %s with rank %d without a local registration (FI_MR_LOCAL)",
                                what, peer);
    if (len == 0)
        return MPI_SUCCESS;
    /* Operations already waiting go first: the core parks this one. */
    if (p->rdma_head) {
        st->stats.rdma_waits++;
        return MPIDI_AGAIN;
    }
    MPIDI_OFI_rdma_op_t *op = calloc(1, sizeof(*op));
    if (!op)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "ofi: out of memory for an rdma operation");
    op->is_get = is_get;
    op->peer = peer;
    op->local = local;
    op->desc = local_handle ? MPIDI_OFI_desc(local_handle) : NULL;
    op->remote = remote;
    op->key = st->fault == MPIDI_OFI_FAULT_RKEY ? ~key : key; /* a key nobody handed out */
    op->left = len;
    op->cookie = cookie;
    int ret = pump(op);
    if (op->pieces_out == 0 && ret == -FI_EAGAIN) {
        free(op);
        st->stats.rdma_waits++;
        return MPIDI_AGAIN; /* took nothing: the core retries from progress */
    }
    if (op->pieces_out == 0) {
        free(op);
        /* Refused at once: the core falls back to the pipeline. */
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s of %zu bytes with rank %d on %s: %s (%d)",
                                what, len, peer, st->prov, MPIDI_OFI_strerror(ret), ret);
    }
    p->rdma_out++;
    if (is_get)
        st->stats.reads++;
    else
        st->stats.writes++;
    if (ret == -FI_EAGAIN) {
        p->rdma_head = p->rdma_tail = op;
        waiting_add(p);
    } else if (ret) {
        op->err = MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s with rank %d on %s: %s (%d)", what, peer,
                                   st->prov, MPIDI_OFI_strerror(ret), ret);
        op->left = 0; /* the pieces posted finish, then the error is reported */
    }
    return MPIDI_INPROGRESS;
}

int MPIDI_OFI_rdma_get(int peer, void *local, size_t len, void *local_handle, uint64_t remote_addr,
                       uint64_t rkey, void *cookie)
{
    return rdma(1, peer, local, len, local_handle, remote_addr, rkey, cookie);
}

int MPIDI_OFI_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                       uint64_t remote_addr, uint64_t rkey, void *cookie)
{
    return rdma(0, peer, (void *)local, len, local_handle, remote_addr, rkey, cookie);
}

static void op_finish(MPIDI_OFI_rdma_op_t *op)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    /* After the peer is lost the core hears nothing more of its operations. */
    if (!op->dropped && !st->peers[op->peer].failed) {
        st->peers[op->peer].rdma_out--;
        MPIDU_op_done(op->cookie, op->err);
    }
    free(op);
}

void MPIDI_OFI_rdma_piece_done(MPIDI_OFI_piece_t *pc, int err)
{
    MPIDI_OFI_rdma_op_t *op = pc->op;
    free(pc);
    op->pieces_out--;
    if (err && !op->err)
        op->err = err;
    if (op->pieces_out == 0 && op->left == 0)
        op_finish(op);
}

/* From progress: the waiting operations' next pieces. */
int MPIDI_OFI_rdma_pump_all(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    int kept = 0, made = 0;
    for (int i = 0; i < st->nwaiting; i++) {
        MPIDI_OFI_peer_t *p = st->waiting[i];
        while (p->rdma_head) {
            MPIDI_OFI_rdma_op_t *op = p->rdma_head;
            int before = op->pieces_out;
            int ret = pump(op);
            made |= op->pieces_out != before;
            if (ret == -FI_EAGAIN)
                break;
            if (ret) {
                op->err = MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s with rank %d on %s: %s (%d)",
                                           op->is_get ? "fi_read" : "fi_write", op->peer, st->prov,
                                           MPIDI_OFI_strerror(ret), ret);
                op->left = 0;
            }
            p->rdma_head = NULL; /* one operation waits per peer at most (rdma() parks others) */
            p->rdma_tail = NULL;
            if (op->pieces_out == 0)
                op_finish(op);
        }
        if (p->rdma_head)
            st->waiting[kept++] = p;
    }
    st->nwaiting = kept;
    return made;
}

/* The peer is lost: its operations are forgotten (the core fails their
 * requests); pieces still posted free theirs as they complete. */
void MPIDI_OFI_rdma_drop(int peer)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_peer_t *p = &st->peers[peer];
    MPIDI_OFI_rdma_op_t *op = p->rdma_head;
    p->rdma_head = p->rdma_tail = NULL;
    if (op) {
        op->dropped = 1;
        op->left = 0;
        if (op->pieces_out == 0)
            free(op);
    }
    p->rdma_out = 0;
}
