/* am.c: active-message dispatch, the send path into methods and the deferred queue. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adi_impl.h"
#include "mpidi_config.h"

/* Operations parked on any peer's queue; read inline by the progress loop
 * (MPIDI_deferred_pending), which then skips a call when it is 0. */
long MPIDI_ndeferred;

typedef void (*handler_fn_t)(int peer, const void *hdr, size_t hdr_len, const void *data,
                             size_t len);
static const handler_fn_t handlers[MPIDI_AM_NUM_HANDLERS] = {
    [MPIDI_AM_EAGER] = MPIDI_handle_eager,
    [MPIDI_AM_RTS] = MPIDI_handle_rts,
    [MPIDI_AM_SYNC_ACK] = MPIDI_handle_sync_ack,
    [MPIDI_AM_CTS] = MPIDI_handle_cts,
    [MPIDI_AM_DATA] = MPIDI_handle_data,
    [MPIDI_AM_FIN] = MPIDI_handle_fin,
    [MPIDI_AM_PUT_DONE] = MPIDI_handle_put_done,
    [MPIDI_AM_CANCEL_SEND] = MPIDI_handle_cancel_send,
    [MPIDI_AM_CANCEL_RESP] = MPIDI_handle_cancel_resp,
    [MPIDI_AM_PAUSE] = MPIDI_handle_pause,
};

void MPIDI_fatal(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    MPID_Abort(1, msg);
}

void MPIDU_am_dispatch(int peer, int handler, const void *hdr, size_t hdr_len, const void *payload,
                       size_t payload_len)
{
    if (handler < 0 || handler >= MPIDI_AM_NUM_HANDLERS || peer < 0 || peer >= MPIDI_world.size)
        MPIDI_fatal("rank %d: a method delivered handler %d from rank %d: corrupt message",
                    MPIDI_world.rank, handler, peer);
    handlers[handler](peer, hdr, hdr_len, payload, payload_len);
}

/* A message a method receives in place (MPIDU_am_recv_begin): what the
 * core needs again when its payload is complete. */
typedef struct recv_token {
    int peer, handler;
    size_t len;
    MPIR_Request *rreq;
    MPIDI_match_hdr_t m; /* EAGER: the match header */
} recv_token_t;

void *MPIDU_am_recv_begin(int peer, int handler, const void *hdr, size_t hdr_len,
                          size_t payload_len, void **dst_p)
{
    MPIR_Request *rreq = NULL;
    *dst_p = NULL;
    if (peer < 0 || peer >= MPIDI_world.size)
        MPIDI_fatal("rank %d: a method began handler %d from rank %d: corrupt message",
                    MPIDI_world.rank, handler, peer);
    if (handler == MPIDI_AM_EAGER)
        rreq = MPIDI_eager_recv_begin(peer, hdr, payload_len, dst_p);
    else if (handler == MPIDI_AM_DATA)
        rreq = MPIDI_data_recv_begin(peer, hdr, payload_len, dst_p);
    if (!rreq)
        return NULL;
    recv_token_t *t = malloc(sizeof(*t));
    if (!t)
        MPIDI_fatal("rank %d: out of memory receiving %zu bytes from rank %d", MPIDI_world.rank,
                    payload_len, peer);
    t->peer = peer;
    t->handler = handler;
    t->len = payload_len;
    t->rreq = rreq;
    if (handler == MPIDI_AM_EAGER)
        memcpy(&t->m, hdr, sizeof(t->m));
    return t;
}

void MPIDU_am_recv_done(void *token, const void *payload, int mpi_errno)
{
    recv_token_t *t = token;
    if (mpi_errno)
        MPIR_Request_set_error(t->rreq, mpi_errno); /* MPIDU_peer_failed completes it */
    else if (t->handler == MPIDI_AM_EAGER)
        MPIDI_eager_recv_done(t->rreq, &t->m, t->peer, payload, t->len);
    else
        MPIDI_data_recv_done(t->rreq, payload, t->len);
    free(t);
}

void MPIDU_op_done(void *cookie, int mpi_errno)
{
    MPIDI_cb_t *cb = cookie;
    cb->fn(cb, mpi_errno);
}

void MPIDI_send_payload_done(MPIDI_cb_t *cb, int mpi_errno)
{
    MPIDI_payload_done(cb->req, mpi_errno);
}

/* Tries one operation on the method.  Returns MPIDI_AGAIN if nothing went
 * out, MPI_SUCCESS once the whole operation is handed over, or an error. */
static int try_op(int peer, MPIDI_peer_t *p, MPIDI_sendop_t *op)
{
    MPIR_Request *req = op->req;
    if (op->kind == MPIDI_OP_XFER)
        return MPIDI_xfer_try(req);
    if (op->kind == MPIDI_OP_AM)
        return MPIDI_am_try(p, peer, op->handler, op->hdr.bytes, op->hdr_len, req, op->first,
                            op->last, op->flags);
    /* A DATA stream: each chunk that stays in flight holds one more event on
     * the request, so the request cannot complete before its last byte. */
    while (op->first < op->last) {
        size_t n = op->last - op->first < op->chunk ? op->last - op->first : op->chunk;
        op->hdr.data.offset = op->first;
        req->cc++;
        int rc = p->method->am_send(peer, MPIDI_AM_DATA, op->hdr.bytes, sizeof(op->hdr.data),
                                    &req->seg, op->first, op->first + n, 0, &req->cb_send);
        if (rc == MPIDI_AGAIN) {
            req->cc--;
            return rc;
        }
        if (rc != MPIDI_INPROGRESS)
            MPIDI_payload_done(req, rc);
        if (rc > 0)
            break; /* an error: the stream is abandoned, the request carries it */
        op->first += n;
    }
    /* The stream itself was one event. */
    MPIDI_Request_complete_one(req);
    return MPI_SUCCESS;
}

static void enqueue(MPIDI_peer_t *p, MPIDI_sendop_t *op)
{
    op->next = NULL;
    if (p->deferred_tail)
        p->deferred_tail->next = op;
    else
        p->deferred_head = op;
    p->deferred_tail = op;
    MPIDI_ndeferred++;
    MPIDI_stats.deferred++;
}

/* An active message's payload event ends when its operation is dropped (a
 * stream's and a transfer's events are their owners' to complete). */
static void drop_op(MPIDI_sendop_t *op, int mpi_errno)
{
    if (op->req && op->kind == MPIDI_OP_AM)
        MPIDI_payload_done(op->req, mpi_errno);
}

/* Parks the operation proto describes behind the peer's deferred queue; tried: the method has
 * already answered AGAIN to it (so it is not offered again now). */
static int submit(int peer, MPIDI_sendop_t *proto, int tried)
{
    int err = MPI_SUCCESS;
    MPIDI_peer_t *p = MPIDI_peer_get(peer, &err);
    if (!p)
        return err;
    if (p->failed_code) {
        drop_op(proto, p->failed_code);
        return p->failed_code;
    }
    /* Anything already parked for this peer goes first: order per peer is
     * what MPI's non-overtaking rule rests on. */
    if (!p->deferred_head && !tried) {
        int rc = try_op(peer, p, proto);
        if (rc != MPIDI_AGAIN)
            return rc;
    }
    MPIDI_sendop_t *op = malloc(sizeof(*op));
    if (!op) {
        int err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory queueing a message to rank %d",
                                  peer);
        drop_op(proto, err);
        return err;
    }
    *op = *proto;
    enqueue(p, op);
    if (op->kind == MPIDI_OP_XFER)
        op->req->xfer.parked = 1;
    return MPI_SUCCESS;
}

int MPIDI_am_send_queued(int peer, int handler, const void *hdr, size_t hdr_len,
                         MPIR_Request *req, size_t first, size_t last, unsigned flags, int tried)
{
    int err = MPI_SUCCESS;
    if (!MPIDI_peer_get(peer, &err))
        return err; /* not reachable (the request's event is the caller's to end) */
    MPIDI_sendop_t op = {.kind = MPIDI_OP_AM,
                         .handler = handler,
                         .flags = flags,
                         .hdr_len = hdr_len,
                         .req = req,
                         .first = first,
                         .last = last};
    memcpy(op.hdr.bytes, hdr, hdr_len);
    return submit(peer, &op, tried);
}

int MPIDI_am_stream(int peer, MPIR_Request *req, uint64_t rreq, size_t first, size_t last)
{
    int err = MPI_SUCCESS;
    MPIDI_peer_t *p = MPIDI_peer_get(peer, &err);
    if (!p)
        return err;
    size_t chunk = (size_t)MPIDI_config_int("FERRY_PIPELINE_CHUNK");
    if (chunk == 0 || chunk > p->caps->max_send)
        chunk = p->caps->max_send;
    MPIDI_sendop_t op = {.kind = MPIDI_OP_STREAM,
                         .handler = MPIDI_AM_DATA,
                         .hdr_len = sizeof(MPIDI_data_hdr_t),
                         .req = req,
                         .first = first,
                         .last = last,
                         .chunk = chunk};
    op.hdr.data.rreq = rreq;
    return submit(peer, &op, 0);
}

void MPIDI_park_xfer(int peer, MPIR_Request *req)
{
    MPIDI_sendop_t *op = calloc(1, sizeof(*op));
    if (!op) {
        req->xfer.err =
            MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory parking a transfer with rank %d", peer);
        MPIDI_xfer_try(req); /* ends it once nothing is in flight */
        return;
    }
    op->kind = MPIDI_OP_XFER;
    op->req = req;
    req->xfer.parked = 1;
    enqueue(&MPIDI_peers[peer], op);
}

void MPIDI_submit_xfer(int peer, MPIR_Request *req)
{
    MPIDI_sendop_t op = {.kind = MPIDI_OP_XFER, .req = req};
    int err = submit(peer, &op, 0);
    if (err) {
        /* The peer is lost, or no memory to park the transfer: it ends here. */
        if (!req->xfer.err)
            req->xfer.err = err;
        MPIDI_xfer_try(req);
    }
}

void MPIDI_deferred_eager_to_rndv(int peer)
{
    for (MPIDI_sendop_t *op = MPIDI_peers[peer].deferred_head; op; op = op->next)
        if (op->kind == MPIDI_OP_AM && op->handler == MPIDI_AM_EAGER && op->req &&
            op->last > op->first) {
            op->handler = MPIDI_AM_RTS;
            op->hdr_len = MPIDI_eager_to_rndv(op->req, op->hdr.bytes);
            op->req = NULL; /* the request's event is now the transfer's end */
            op->first = op->last = 0;
        }
}

#define MPIDI_DEFERRED_PER_CALL 32

int MPIDI_deferred_progress(void)
{
    if (MPIDI_ndeferred == 0)
        return 0;
    int made = 0;
    for (int i = 0; i < MPIDI_world.size; i++) {
        MPIDI_peer_t *p = &MPIDI_peers[i];
        /* At most a few operations per peer and call: a peer that takes them as fast as they
         * go could otherwise keep this loop going without a poll of what arrives, a PAUSE
         * among it (adi/flow.c). */
        for (int budget = MPIDI_DEFERRED_PER_CALL; p->deferred_head && budget > 0; budget--) {
            MPIDI_sendop_t *op = p->deferred_head;
            size_t before = op->first;
            int rc = try_op(i, p, op);
            if (rc == MPIDI_AGAIN) {
                made |= op->first != before; /* part of a stream went out */
                break;
            }
            if (rc != MPI_SUCCESS && op->req)
                MPIR_Request_set_error(op->req, rc);
            p->deferred_head = op->next;
            if (!p->deferred_head)
                p->deferred_tail = NULL;
            MPIDI_ndeferred--;
            MPIR_Request *xreq = op->kind == MPIDI_OP_XFER ? op->req : NULL;
            free(op);
            made = 1;
            if (xreq) {
                /* Off the queue: completions may finish the transfer now. */
                xreq->xfer.parked = 0;
                if (MPIDI_xfer_try(xreq) == MPIDI_AGAIN)
                    MPIDI_park_xfer(i, xreq);
            }
        }
    }
    return made;
}

int *MPIDI_lost_peers;
int MPIDI_nlost;
int MPIDI_nlost_failed;

int MPIDI_wildcard_lost_code(const MPIR_Comm *comm)
{
    if (MPIDI_nlost == 0)
        return 0;
    int w = MPIDI_recvq_comm_lost_peer(comm, MPIDI_lost_peers, MPIDI_nlost);
    return w < 0 ? 0 : MPIDI_peers[w].wild_code;
}

/* The connection to a peer is gone.  From now on every new operation toward
 * it fails at once (failed_code).  What is already pending for it is failed
 * by MPIDI_lost_peers_fail at the end of the progress call: a method may
 * report the loss from inside a call the core is making for one of those
 * very requests (an am_send whose write fails, a connect out of
 * descriptors), and that call's caller completes the request's event with
 * the error it returns; failing it here too would complete it twice. */
void MPIDU_peer_failed(int peer, int mpi_errno, const char *msg)
{
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    if (p->failed_code)
        return;
    p->failed_code = MPIR_Err_create(MPIR_Err_class(mpi_errno), "%s", msg);
    /* A wildcard receive does not name the peer, so its message says which
     * member is lost (MPI 4's fault tolerance chapter makes such a receive
     * fail the same way, with MPI_ERR_PROC_FAILED). */
    p->wild_code = MPIR_Err_create(MPI_ERR_OTHER,
                                   "an MPI_ANY_SOURCE receive cannot complete: world rank %d, "
                                   "a possible sender, is lost: %s",
                                   peer, msg);
    MPIDI_lost_peers[MPIDI_nlost++] = peer; /* room for every peer, from init */
    if (MPIDI_config_int("FERRY_VERBOSE"))
        fprintf(stderr, "ferry: rank %d: %s\n", MPIDI_world.rank, msg);
}

/* Fails what is queued for, posted for (wildcard receives it could have
 * satisfied included) and waiting on each peer lost since the last call. */
void MPIDI_lost_peers_fail(void)
{
    while (MPIDI_nlost_failed < MPIDI_nlost) {
        int peer = MPIDI_lost_peers[MPIDI_nlost_failed++];
        MPIDI_peer_t *p = &MPIDI_peers[peer];
        while (p->deferred_head) {
            MPIDI_sendop_t *op = p->deferred_head;
            p->deferred_head = op->next;
            MPIDI_ndeferred--;
            drop_op(op, p->failed_code);
            free(op);
        }
        p->deferred_tail = NULL;
        MPIDI_recvq_fail_peer(peer, p->failed_code, p->wild_code);
        MPIDI_requests_fail_peer(peer, p->failed_code);
    }
}
