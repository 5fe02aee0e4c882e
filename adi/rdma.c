/* rdma.c: rendezvous transfers by rdma_get/rdma_put: pieces, AGAIN parking, bounce slots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adi_impl.h"
#include "mpidi_config.h"

/* A noncontiguous receive on a method that reads only into registered
 * memory: the data is read in chunks into a few registered slots and each
 * chunk is unpacked through the segment as it lands, while the next chunks
 * are being read, so the copy overlaps the transfer. */
#define MPIDI_BOUNCE_MAX_SLOTS 8
typedef struct MPIDI_bounce {
    char *buf;
    size_t slot_size;
    int nslots;
    MPIDI_reg_t reg;
    size_t offset[MPIDI_BOUNCE_MAX_SLOTS]; /* stream offset a busy slot is reading */
    size_t len[MPIDI_BOUNCE_MAX_SLOTS];
    int busy[MPIDI_BOUNCE_MAX_SLOTS];
    MPIDI_cb_t cb[MPIDI_BOUNCE_MAX_SLOTS];
} MPIDI_bounce_t;

int MPIDI_reg_acquire(const MPIDI_peer_t *p, void *addr, size_t len, unsigned access,
                      MPIDI_reg_t *reg)
{
    if (!p->method->mem_reg)
        return MPIR_Err_create(MPI_ERR_OTHER, "method %s cannot register memory", p->method->name);
    int err = p->method->mem_reg(addr, len, access, &reg->mem);
    if (err == MPI_SUCCESS)
        reg->held = 1;
    return err;
}

void MPIDI_reg_release(const MPIDI_peer_t *p, MPIDI_reg_t *reg)
{
    if (!reg->held)
        return;
    reg->held = 0;
    p->method->mem_dereg(reg->mem.handle);
}

static void bounce_free(const MPIDI_peer_t *p, MPIDI_bounce_t *b)
{
    MPIDI_reg_release(p, &b->reg);
    free(b->buf);
    free(b);
}

void MPIDI_request_drop_rdma(MPIR_Request *req)
{
    if (req->peer < 0 || !MPIDI_peers || !MPIDI_peers[req->peer].method)
        return;
    const MPIDI_peer_t *p = &MPIDI_peers[req->peer];
    MPIDI_reg_release(p, &req->send_reg);
    MPIDI_reg_release(p, &req->recv_reg);
    MPIDI_reg_release(p, &req->xfer.local);
    if (req->xfer.bounce) {
        bounce_free(p, req->xfer.bounce);
        req->xfer.bounce = NULL;
    }
}

int MPIDI_rndv_iov_ok(const MPIR_Segment *seg, const MPIDI_peer_t *p, int forced)
{
    size_t min = p->caps->rndv_iov_min_piece;
    if (min == 0 || p->caps->needs_local_reg)
        return 0;
    return forced || seg->size / MPIR_Segment_pieces(seg) >= min;
}

void MPIDI_rndv_note_refused(MPIR_Request *req, const char *what, int mpi_errno)
{
    MPIDI_COUNT(&MPIDI_peers[req->peer], rndv_refused, 1);
    if (MPIDI_config_int("FERRY_VERBOSE"))
        fprintf(stderr, "ferry: rank %d: %s with rank %d refused (%s); using the pipeline\n",
                MPIDI_world.rank, what, req->peer, MPIR_Err_string(mpi_errno));
}

static void finish_if_idle(MPIR_Request *req)
{
    MPIDI_xfer_t *x = &req->xfer;
    if (x->parked || x->inflight > 0 || !x->done)
        return;
    if (x->next < x->end && !x->err && !x->refused)
        return;
    void (*done)(MPIR_Request *) = x->done;
    x->done = NULL;
    MPIDI_reg_release(&MPIDI_peers[req->peer], &x->local);
    if (x->bounce) {
        bounce_free(&MPIDI_peers[req->peer], x->bounce);
        x->bounce = NULL;
    }
    done(req);
}

static void piece_done(MPIDI_cb_t *cb, int mpi_errno)
{
    MPIR_Request *req = cb->req;
    req->xfer.inflight--;
    if (mpi_errno && !req->xfer.err)
        req->xfer.err = mpi_errno;
    finish_if_idle(req);
}

static void slot_done(MPIDI_cb_t *cb, int mpi_errno)
{
    MPIR_Request *req = cb->req;
    MPIDI_xfer_t *x = &req->xfer;
    MPIDI_bounce_t *b = x->bounce;
    int s = cb->index;
    x->inflight--;
    if (mpi_errno && !x->err)
        x->err = mpi_errno;
    if (!x->err)
        MPIR_Segment_unpack(&req->seg, b->offset[s], b->offset[s] + b->len[s],
                            b->buf + (size_t)s * b->slot_size);
    b->busy[s] = 0;
    /* A freed slot takes the next chunk, unless the transfer waits on the
     * deferred queue (which will call MPIDI_xfer_try itself); a busy method
     * puts it there. */
    if (x->parked)
        finish_if_idle(req);
    else if (MPIDI_xfer_try(req) == MPIDI_AGAIN)
        MPIDI_park_xfer(req->peer, req);
}

/* The next piece: where it lies locally, how long it is, which cookie. */
static int next_piece(MPIR_Request *req, void **local_p, size_t *len_p, MPIDI_cb_t **cb_p)
{
    MPIDI_xfer_t *x = &req->xfer;
    size_t off = x->next;
    if (x->bounce) {
        MPIDI_bounce_t *b = x->bounce;
        for (int s = 0; s < b->nslots; s++) {
            if (b->busy[s])
                continue;
            size_t n = x->end - off < b->slot_size ? x->end - off : b->slot_size;
            b->offset[s] = off;
            b->len[s] = n;
            *local_p = b->buf + (size_t)s * b->slot_size;
            *len_p = n;
            *cb_p = &b->cb[s];
            return s;
        }
        return -1; /* every slot busy: wait for one */
    }
    *cb_p = &req->cb_rdma;
    if (!x->per_piece) {
        *local_p = MPIR_Segment_contig_ptr(&req->seg, off);
        *len_p = x->end - off;
        return 0;
    }
    struct iovec iov;
    size_t end = x->end;
    MPIR_Segment_to_iov(&req->seg, off, &end, &iov, 1);
    *local_p = iov.iov_base;
    *len_p = iov.iov_len;
    return 0;
}

int MPIDI_xfer_try(MPIR_Request *req)
{
    MPIDI_xfer_t *x = &req->xfer;
    const MPIDI_peer_t *p = &MPIDI_peers[req->peer];
    while (x->next < x->end && !x->err && !x->refused) {
        void *local;
        size_t len;
        MPIDI_cb_t *cb;
        int slot = next_piece(req, &local, &len, &cb);
        if (slot < 0)
            break;
        uint64_t remote = x->remote_addr + x->next;
        int rc =
            x->kind == MPIDI_XFER_GET
                ? p->method->rdma_get(req->peer, local, len, x->local_handle, remote, x->rkey, cb)
                : p->method->rdma_put(req->peer, local, len, x->local_handle, remote, x->rkey, cb);
        if (rc == MPIDI_AGAIN) {
            MPIDI_stats.rdma_parked++;
            return MPIDI_AGAIN;
        }
        if (rc == MPIDI_INPROGRESS) {
            x->inflight++;
            if (x->bounce)
                x->bounce->busy[slot] = 1;
        } else if (rc == MPI_SUCCESS) {
            if (x->bounce)
                MPIR_Segment_unpack(&req->seg, x->next, x->next + len, local);
        } else {
            x->refused = rc;
            break;
        }
        x->next += len;
    }
    if (x->issued && x->next == x->end && !x->err && !x->refused) {
        void (*issued)(MPIR_Request *) = x->issued;
        x->issued = NULL;
        issued(req);
    }
    finish_if_idle(req);
    return MPI_SUCCESS;
}

static int bounce_create(MPIR_Request *req, size_t len)
{
    const MPIDI_peer_t *p = &MPIDI_peers[req->peer];
    size_t slot = (size_t)MPIDI_config_int("FERRY_RNDV_BOUNCE_CHUNK");
    int nslots = (int)MPIDI_config_int("FERRY_RNDV_BOUNCE_SLOTS");
    if (slot > len)
        slot = len;
    if ((size_t)nslots * slot > len)
        nslots = (int)((len + slot - 1) / slot);
    MPIDI_bounce_t *b = calloc(1, sizeof(*b));
    if (!b)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a bounce buffer");
    if (posix_memalign((void **)&b->buf, 4096, (size_t)nslots * slot) != 0) {
        free(b);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a %zu-byte bounce buffer",
                               (size_t)nslots * slot);
    }
    int err = MPIDI_reg_acquire(p, b->buf, (size_t)nslots * slot, MPIDI_MEM_LOCAL_WRITE, &b->reg);
    if (err) {
        free(b->buf);
        free(b);
        return err;
    }
    b->slot_size = slot;
    b->nslots = nslots;
    for (int s = 0; s < nslots; s++) {
        b->cb[s].fn = slot_done;
        b->cb[s].req = req;
        b->cb[s].index = s;
    }
    req->xfer.bounce = b;
    return MPI_SUCCESS;
}

void MPIDI_xfer_start(MPIR_Request *req, MPIDI_xfer_kind_t kind, size_t len, uint64_t remote_addr,
                      uint64_t rkey, int per_piece, int bounce, void (*done)(MPIR_Request *req),
                      void (*issued)(MPIR_Request *req))
{
    MPIDI_xfer_t *x = &req->xfer;
    const MPIDI_peer_t *p = &MPIDI_peers[req->peer];
    memset(x, 0, sizeof(*x));
    x->kind = kind;
    x->end = len;
    x->remote_addr = remote_addr;
    x->rkey = rkey;
    x->per_piece = per_piece;
    x->done = done;
    x->issued = issued;
    req->cb_rdma.fn = piece_done;
    int err = MPI_SUCCESS;
    if (bounce) {
        err = bounce_create(req, len);
        if (!err)
            x->local_handle = x->bounce->reg.mem.handle;
    } else if (p->caps->needs_local_reg && len > 0) {
        if (kind == MPIDI_XFER_PUT && req->send_reg.held) {
            x->local_handle = req->send_reg.mem.handle; /* registered for the RTS already */
        } else {
            err = MPIDI_reg_acquire(p, MPIR_Segment_contig_ptr(&req->seg, 0), len,
                                    kind == MPIDI_XFER_GET ? MPIDI_MEM_LOCAL_WRITE : 0, &x->local);
            x->local_handle = x->local.mem.handle;
        }
    }
    if (err) {
        x->refused = err; /* nothing moved: the protocol falls back */
        finish_if_idle(req);
        return;
    }
    MPIDI_submit_xfer(req->peer, req);
}
