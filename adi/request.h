/* request.h: request objects, their pool and completion counters. */
#ifndef REQUEST_H_INCLUDED
#define REQUEST_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "mpi.h"
#include "datatype.h"
#include "comm.h"
#include "segment.h"
#include "method.h"

typedef enum {
    MPIR_REQ_SEND,
    MPIR_REQ_RECV,
    MPIR_REQ_UNEXP,      /* an arrived message nobody has asked for yet (or an MPI_Message) */
    MPIR_REQ_PERSISTENT, /* MPI_Send_init ...: inactive, or started with an inner request */
    MPIR_REQ_GREQ,       /* a generalized request: the user completes it */
    MPIR_REQ_COMPOSITE,  /* completes when its child requests have (MPI_Isendrecv ...) */
    MPIR_REQ_PART,       /* MPI_Psend_init, MPI_Precv_init: inactive, or a round under way */
} MPIR_Request_kind_t;

/* What an unexpected message or a matched rendezvous receive learnt from its
 * first header (receive and unexpected requests only). */
typedef struct MPIDI_rts_info {
    uint64_t sreq;    /* sender's request id, echoed in CTS/FIN/SYNC_ACK */
    uint64_t addr;    /* sender's buffer as its method names it (valid with has_addr) */
    uint64_t rkey;
    int has_addr; /* the sender offered its buffer for rdma_get */
    int is_rndv;
    int sync;         /* sender waits for a match acknowledgement */
    uint16_t seq;     /* the sender's sequence number: with sreq, names the message for a
                       * cancel request */
} MPIDI_rts_info_t;

struct MPIR_Request;
/* A continuation handed to a method as the cookie of an operation that may
 * finish later (MPIDI_INPROGRESS); MPIDU_op_done calls fn with the cookie.
 * index tells apart the cookies of one request (bounce-buffer slots). */
typedef struct MPIDI_cb {
    void (*fn)(struct MPIDI_cb *cb, int mpi_errno);
    struct MPIR_Request *req;
    int index;
} MPIDI_cb_t;

/* A registration the request holds until it completes (method's mem_reg). */
typedef struct MPIDI_reg {
    MPIDI_mem_t mem;
    int held;
} MPIDI_reg_t;

typedef enum { MPIDI_XFER_GET, MPIDI_XFER_PUT } MPIDI_xfer_kind_t;

struct MPIDI_bounce;
/* The rdma transfer a request drives: reads on the receiver (read mode), puts
 * on the sender (write mode).  Stream bytes [next, end) of the request's
 * buffer are still to be issued; byte k of the stream is remote_addr + k at
 * the peer.  Pieces the method accepted but has not finished are counted in
 * inflight.  See adi/rdma.c. */
typedef struct MPIDI_xfer {
    MPIDI_xfer_kind_t kind;
    size_t next, end;
    uint64_t remote_addr;
    uint64_t rkey;
    MPIDI_reg_t local;  /* the local buffer's registration, made for this transfer */
    void *local_handle; /* what rdma_get/rdma_put get as local handle (NULL: none needed) */
    int per_piece;      /* noncontiguous local buffer: one operation per piece */
    int inflight;
    int err;                     /* an operation failed: the transfer fails */
    int refused;                 /* the method refused an operation: the protocol falls back */
    int parked;                  /* waiting on the peer's deferred queue (the method said AGAIN) */
    struct MPIDI_bounce *bounce; /* reads land in registered slots, then are unpacked */
    /* Called once, when nothing is in flight any more and either every byte
     * moved, or err or refused is set. */
    void (*done)(struct MPIR_Request *req);
    /* Optional: called once, when the method has accepted the last piece
     * (FERRY_RNDV_FIN_FENCE sends FIN from here, fenced behind the reads). */
    void (*issued)(struct MPIR_Request *req);
    int fin_sent; /* the read's FIN went out already (fenced) */
} MPIDI_xfer_t;

/* The MPI layer's state of a persistent, generalized or composite request (a partitioned
 * request's is mpi/part.c's MPIR_Part). */
typedef struct MPIR_Preq {
    int op;         /* MPIR_PREQ_* in mpi/ */
    int active;     /* started and not yet completed by a Wait/Test */
    const void *buf;
    MPI_Aint count;
    MPI_Datatype type;
    struct MPIR_Sched *sched; /* a persistent collective's schedule (mpi/sched.c) */
} MPIR_Preq;

typedef struct MPIR_Greq {
    int (*query_fn)(void *extra_state, MPI_Status *status);
    int (*free_fn)(void *extra_state);
    int (*cancel_fn)(void *extra_state, int complete);
    void *extra_state;
} MPIR_Greq;

/* Creating a request clears only its head (MPIR_Request_create): the handle
 * and the two callbacks' req are set once, when the slot is first handed
 * out, and never change; the segment is written whole by each creation (a
 * point-to-point request's describes its buffer, any other's is empty);
 * the tail (from on_complete on) is zero in every free request.  Its first
 * part, the MPI layer's links and buffers, MPIR_Request_release clears
 * field by field, always; the rest holds what only a rendezvous or a
 * persistent, generalized or composite request writes, and release clears
 * it for the requests that can have written it (MPIR_Request_tail_used).
 * An eager message's request so clears a third of the object (issue 12,
 * bench/budget.py: clearing the whole object, an MPI_Isend took 795
 * instructions; the head alone, 750; the segment and the MPI layer's
 * fields out of the head, the head went from 416 bytes to 200). */
typedef struct MPIR_Request {
    /* Set once per slot. */
    MPI_Request handle;
    MPIDI_cb_t cb_send; /* payload of an am_send released */
    MPIDI_cb_t cb_rdma; /* one rdma_get / rdma_put piece finished (fn set by each transfer) */
    /* User buffer as a byte stream: set whole at creation. */
    MPIR_Segment seg;
    /* The head: cleared at creation. */
    MPIR_Request_kind_t kind;
    /* Completion counter: the request is complete when it reaches 0.  Each
     * outstanding event (local send done, sync ack, rendezvous done) holds 1. */
    int cc;
    /* References: one for the user's handle, one while the device works on it. */
    int ref;
    MPIR_Comm *comm;
    MPI_Status status;
    /* Envelope: for a send the destination, for a receive the requested
     * source (maybe MPI_ANY_SOURCE) in comm ranks. */
    int rank;
    int tag;
    int context_id;
    int peer; /* world rank of the partner once known */
    /* Matching queue links (adi/recvq.c): the request's bin list (an
     * unexpected message's context arrival list is in the tail). */
    struct MPIR_Request *next, *prev;
    struct MPIDI_recvq_bin *rq_bin; /* the bin it is queued in, NULL if none */
    uint64_t post_seq;              /* posted receive: order among all posts */
    size_t msg_size; /* bytes the sender sends */
    int is_sync;
    int mode; /* rendezvous data mover in use (MPIDI_RNDV_*), on both sides */
    int cancelled; /* withdrawn by MPI_Cancel (a receive before its match, a send the
                      receiver had not matched) */

    /* Receive and unexpected requests. */
    size_t bytes_needed; /* bytes that will land in the buffer (less if truncated) */
    size_t bytes_recvd;  /* DATA bytes arrived (pipeline) */
    MPIDI_rts_info_t rts;
    int in_posted;       /* on the posted queue, not matched yet */

    /* Send requests. */
    int is_rndv_send;     /* an RTS went out; the transfer's end is one event */
    int cancel_pending;   /* a CANCEL_SEND awaits its answer (one event) */
    uint16_t send_seq;    /* the sequence number its message carries */

    /* The tail, zero while free.  First what MPIR_Request_release clears
     * field by field in every request (the unexpected queue unlinks
     * arr_next/arr_prev itself). */
    void *unexp_data; /* unexpected eager payload, exactly msg_size bytes */
    struct MPIR_Request *arr_next, *arr_prev; /* an unexpected message's context arrival list */
    /* Set by the MPI layer: called when cc reaches 0, before the device drops
     * its reference (a child telling its parent, a buffered send's space). */
    void (*on_complete)(struct MPIR_Request *req);
    /* Set by the MPI layer: called when the last reference goes, to free what the MPI layer
     * hung on the request (a persistent collective's schedule). */
    void (*on_release)(struct MPIR_Request *req);
    struct MPIR_Request *parent; /* the persistent or composite request that owns this one */
    /* The operation this request stands for (a started persistent request's
     * inner one, a buffered send's internal one): a reference released with
     * this request, so a late MPI_Cancel still reaches it. */
    struct MPIR_Request *linked;
    void *tmpbuf;                /* freed with the request (packed data of a composite) */
    int user_freed;              /* MPI_Request_free came before completion */

    /* Then what release clears only where it can have been written: a
     * rendezvous's receive side, its send side, either side's transfer, then
     * the MPI layer's state. */
    MPIDI_reg_t recv_reg; /* the receive buffer, registered for the sender's rdma_put */
    uint64_t cts_rreq;    /* the receiver's request id from CTS, echoed in PUT_DONE */
    size_t cts_len;       /* bytes CTS asked for */
    MPIDI_reg_t send_reg; /* the send buffer, registered for the receiver's rdma_get */
    MPIDI_xfer_t xfer;
    union {
        MPIR_Preq preq;
        MPIR_Greq greq;
        struct MPIR_Part *part; /* a partitioned request's state (mpi/part.c) */
    } u;
} MPIR_Request;

#define MPIR_REQUEST_HEAD offsetof(MPIR_Request, kind)
#define MPIR_REQUEST_TAIL offsetof(MPIR_Request, unexp_data)
#define MPIR_REQUEST_RARE offsetof(MPIR_Request, recv_reg)

/* Whether the request is (or was) a rendezvous: an RTS sent, or received
 * (rts.is_rndv); mode is set on both sides before a transfer.  Only a
 * rendezvous holds registrations, a transfer or bounce buffers. */
static inline int MPIR_Request_is_rndv(const MPIR_Request *req)
{
    return (req->is_rndv_send | req->rts.is_rndv | req->mode) != 0;
}

/* Whether the request may have written its tail: a rendezvous, and the
 * kinds that keep their state in u. */
static inline int MPIR_Request_tail_used(const MPIR_Request *req)
{
    _Static_assert(MPIR_REQ_GREQ > MPIR_REQ_PERSISTENT &&
                       MPIR_REQ_COMPOSITE > MPIR_REQ_PERSISTENT &&
                       MPIR_REQ_PART > MPIR_REQ_PERSISTENT,
                   "the kinds that keep state in u come last");
    return MPIR_Request_is_rndv(req) || req->kind >= MPIR_REQ_PERSISTENT;
}

MPIR_Request *MPIR_Request_create(MPIR_Request_kind_t kind);
/* Drops one reference; the object returns to the pool at zero. */
void MPIR_Request_release(MPIR_Request *req);

/* The pool's chunks (request.c): a handle's low bits are chunk * CHUNK + slot. */
#define MPIR_REQUEST_CHUNK 256
#define MPIR_REQUEST_MAX_CHUNKS 16384
extern MPIR_Request *MPIR_Request_chunks[MPIR_REQUEST_MAX_CHUNKS];
extern int MPIR_Request_nchunks;

/* Looks up a live request by handle (NULL if it is not one).  Inline: every
 * wait and every protocol message naming a request does it. */
static inline MPIR_Request *MPIR_Request_get(MPI_Request handle)
{
    if ((handle & 0xfc000000) != MPIR_HANDLE_KIND_REQUEST)
        return NULL;
    int idx = handle & 0x03ffffff;
    if (idx <= 0 || idx / MPIR_REQUEST_CHUNK >= MPIR_Request_nchunks)
        return NULL;
    MPIR_Request *r = &MPIR_Request_chunks[idx / MPIR_REQUEST_CHUNK][idx % MPIR_REQUEST_CHUNK];
    /* A slot never handed out has handle 0 (request.c takes them lazily). */
    return r->cc < 0 || r->handle != handle ? NULL : r;
}
/* Counts one event as done; at zero the request is complete and the device
 * drops its reference.  Inline for the last event of a request that nothing
 * hangs on: no callback of the MPI layer, no rendezvous (so no registration
 * or bounce buffer to drop), the user's handle still held;
 * then completing it is dropping the device's reference.  That is every
 * eager send a method copies at once and every eager receive (issue 12: the
 * calls were a twentieth of an MPI_Isend and a tenth of a delivery). */
void MPIDI_Request_complete_any(MPIR_Request *req);
static inline void MPIDI_Request_complete_one(MPIR_Request *req)
{
    if (req->cc == 1 && req->ref > 1 && !req->on_complete && !MPIR_Request_is_rndv(req)) {
        req->cc = 0;
        req->ref--;
        return;
    }
    MPIDI_Request_complete_any(req);
}
static inline int MPIR_Request_is_complete(const MPIR_Request *req)
{
    return req->cc == 0;
}
/* Records the request's first error in status.MPI_ERROR. */
static inline void MPIR_Request_set_error(MPIR_Request *req, int mpi_errno)
{
    if (mpi_errno != MPI_SUCCESS && req->status.MPI_ERROR == MPI_SUCCESS)
        req->status.MPI_ERROR = mpi_errno;
}
int MPIR_Request_pool_live(void);

/* The pool's free requests (request.c), and how many are handed out. */
extern MPIR_Request *MPIR_Request_free_list;
extern int MPIR_Request_live;
MPIR_Request *MPIR_Request_take_unused(void);
/* FERRY_CHECK_REQUESTS: aborts unless a free request's tail is clean (request.c). */
void MPIR_Request_check_free(const MPIR_Request *r);

/* A request with its head cleared and its segment not yet written; NULL
 * when out of memory.  Inline, as MPIDI_Request_create_pt2pt: every message
 * takes one (issue 12: the calls were a twentieth of an MPI_Isend). */
static inline MPIR_Request *MPIR_Request_take(MPIR_Request_kind_t kind)
{
    MPIR_Request *r = MPIR_Request_free_list;
    if (r)
        MPIR_Request_free_list = r->next;
    else if (!(r = MPIR_Request_take_unused()))
        return NULL;
#ifdef FERRY_CHECK_REQUESTS
    MPIR_Request_check_free(r);
#endif
    /* The head only: the handle and callbacks stay, the tail is clean. */
    memset((char *)r + MPIR_REQUEST_HEAD, 0, MPIR_REQUEST_TAIL - MPIR_REQUEST_HEAD);
    r->kind = kind;
    r->cc = 1;
    r->ref = 2; /* the user's handle and the device's work */
    r->status.MPI_ERROR = MPI_SUCCESS;
    r->peer = -1; /* no partner yet: a lost peer must not fail it */
    MPIR_Request_live++;
    return r;
}

/* A send or receive request with its buffer and envelope set (complete at
 * once for MPI_PROC_NULL); NULL when out of memory.  The common start of
 * every point-to-point request: buffer, envelope, and the references
 * (communicator, datatype) it holds until it is released. */
static inline MPIR_Request *MPIDI_Request_create_pt2pt(MPIR_Request_kind_t kind, const void *buf,
                                                       MPI_Aint count, MPI_Datatype type, int rank,
                                                       int tag, MPIR_Comm *comm, int context_offset)
{
    MPIR_Request *req = MPIR_Request_take(kind);
    if (!req)
        return NULL;
    req->comm = comm;
    comm->ref++;
    if (MPIR_Segment_init(&req->seg, buf, count, type) != MPI_SUCCESS)
        req->seg = (MPIR_Segment){0};   /* cannot happen: the MPI layer checked the type */
    MPIR_Datatype_add_ref(req->seg.dt); /* MPI_Type_free while pending must be safe */
    req->rank = rank;
    req->tag = tag;
    req->context_id = comm->context_id + context_offset;
    if (rank == MPI_PROC_NULL) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->status.MPI_TAG = MPI_ANY_TAG;
        MPIDI_Request_complete_one(req);
    }
    return req;
}

#endif /* REQUEST_H_INCLUDED */
