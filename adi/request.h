/* request.h: request objects, their pool and completion counters. */
#ifndef REQUEST_H_INCLUDED
#define REQUEST_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "mpi.h"
#include "comm.h"
#include "segment.h"

typedef enum {
    MPIR_REQ_SEND,
    MPIR_REQ_RECV,
    MPIR_REQ_UNEXP,      /* an arrived message nobody has asked for yet (or an MPI_Message) */
    MPIR_REQ_PERSISTENT, /* MPI_Send_init ...: inactive, or started with an inner request */
    MPIR_REQ_GREQ,       /* a generalized request: the user completes it */
    MPIR_REQ_COMPOSITE,  /* completes when its child requests have (MPI_Isendrecv ...) */
} MPIR_Request_kind_t;

/* What an unexpected message or a matched rendezvous receive learnt from its
 * first header. */
typedef struct MPIDI_rts_info {
    uint64_t sreq;    /* sender's request id, echoed in CTS/FIN/SYNC_ACK */
    uint64_t addr;    /* sender's buffer for rdma_get; 0 if not offered */
    uint64_t rkey;
    int is_rndv;
    int sync;         /* sender waits for a match acknowledgement */
    uint16_t seq;     /* the sender's sequence number: with sreq, names the message for a
                       * cancel request */
} MPIDI_rts_info_t;

struct MPIR_Request;
/* A continuation handed to a method as the cookie of an operation that may
 * finish later (MPIDI_INPROGRESS); MPIDU_op_done calls fn. */
typedef struct MPIDI_cb {
    void (*fn)(struct MPIR_Request *req, int mpi_errno);
    struct MPIR_Request *req;
} MPIDI_cb_t;

/* The MPI layer's state of a persistent, generalized or composite request. */
typedef struct MPIR_Preq {
    int op;         /* MPIR_PREQ_* in mpi/ */
    int active;     /* started and not yet completed by a Wait/Test */
    const void *buf;
    MPI_Aint count;
    MPI_Datatype type;
} MPIR_Preq;

typedef struct MPIR_Greq {
    int (*query_fn)(void *extra_state, MPI_Status *status);
    int (*free_fn)(void *extra_state);
    int (*cancel_fn)(void *extra_state, int complete);
    void *extra_state;
} MPIR_Greq;

typedef struct MPIR_Request {
    MPI_Request handle;
    MPIR_Request_kind_t kind;
    /* Completion counter: the request is complete when it reaches 0.  Each
     * outstanding event (local send done, sync ack, rendezvous done) holds 1. */
    int cc;
    /* References: one for the user's handle, one while the device works on it. */
    int ref;
    MPIR_Comm *comm;
    MPI_Status status;
    /* User buffer as a byte stream. */
    MPIR_Segment seg;
    /* Envelope: for a send the destination, for a receive the requested
     * source (maybe MPI_ANY_SOURCE) in comm ranks. */
    int rank;
    int tag;
    int context_id;
    int peer; /* world rank of the partner once known */
    /* Matching queue links (adi/recvq.c): the request's bin list, and for an
     * unexpected message also its context's arrival list. */
    struct MPIR_Request *next, *prev;
    struct MPIR_Request *arr_next, *arr_prev;
    struct MPIDI_recvq_bin *rq_bin; /* the bin it is queued in, NULL if none */
    uint64_t post_seq;              /* posted receive: order among all posts */
    /* Protocol state. */
    size_t msg_size;     /* bytes the sender sent */
    size_t bytes_done;   /* pipeline progress */
    size_t bytes_needed; /* receive: bytes that will land in the buffer */
    MPIDI_rts_info_t rts;
    void *unexp_data;    /* unexpected eager payload, exactly msg_size bytes */
    void *reg_handle;    /* method registration of the send buffer */
    int mode;            /* rendezvous mode chosen (MPIDI_RNDV_*) */
    int is_sync;
    int in_posted;       /* on the posted queue, not matched yet */
    int cancelled;
    int is_rndv_send;    /* send: an RTS went out; the transfer's end is one event */
    int cancel_pending;  /* send: a CANCEL_SEND awaits its answer (one event) */
    uint16_t send_seq;   /* send: the sequence number its message carries */
    MPIDI_cb_t cb_send;  /* payload of an am_send released */
    MPIDI_cb_t cb_rdma;  /* rdma_get / rdma_put finished */
    /* Set by the MPI layer: called when cc reaches 0, before the device drops
     * its reference (a child telling its parent, a buffered send's space). */
    void (*on_complete)(struct MPIR_Request *req);
    struct MPIR_Request *parent; /* the persistent or composite request that owns this one */
    /* The operation this request stands for (a started persistent request's
     * inner one, a buffered send's internal one): a reference released with
     * this request, so a late MPI_Cancel still reaches it. */
    struct MPIR_Request *linked;
    void *tmpbuf;                /* freed with the request (packed data of a composite) */
    int user_freed;              /* MPI_Request_free came before completion */
    union {
        MPIR_Preq preq;
        MPIR_Greq greq;
    } u;
} MPIR_Request;

MPIR_Request *MPIR_Request_create(MPIR_Request_kind_t kind);
/* A send or receive request with its buffer and envelope set (complete at
 * once for MPI_PROC_NULL); NULL when out of memory. */
MPIR_Request *MPIDI_Request_create_pt2pt(MPIR_Request_kind_t kind, const void *buf, MPI_Aint count,
                                         MPI_Datatype type, int rank, int tag, MPIR_Comm *comm,
                                         int context_offset);
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
    return r->cc < 0 ? NULL : r;
}
/* Counts one event as done; at zero the request is complete and the device
 * drops its reference. */
void MPIDI_Request_complete_one(MPIR_Request *req);
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

#endif /* REQUEST_H_INCLUDED */
