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
    MPIR_REQ_UNEXP, /* an arrived message nobody has asked for yet */
} MPIR_Request_kind_t;

/* What an unexpected message or a matched rendezvous receive learnt from its
 * first header. */
typedef struct MPIDI_rts_info {
    uint64_t sreq;    /* sender's request id, echoed in CTS/FIN/SYNC_ACK */
    uint64_t addr;    /* sender's buffer for rdma_get; 0 if not offered */
    uint64_t rkey;
    int is_rndv;
    int sync;         /* sender waits for a match acknowledgement */
} MPIDI_rts_info_t;

struct MPIR_Request;
/* A continuation handed to a method as the cookie of an operation that may
 * finish later (MPIDI_INPROGRESS); MPIDU_op_done calls fn. */
typedef struct MPIDI_cb {
    void (*fn)(struct MPIR_Request *req, int mpi_errno);
    struct MPIR_Request *req;
} MPIDI_cb_t;

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
    MPIDI_cb_t cb_send;  /* payload of an am_send released */
    MPIDI_cb_t cb_rdma;  /* rdma_get / rdma_put finished */
} MPIR_Request;

MPIR_Request *MPIR_Request_create(MPIR_Request_kind_t kind);
/* A send or receive request with its buffer and envelope set (complete at
 * once for MPI_PROC_NULL); NULL when out of memory. */
MPIR_Request *MPIDI_Request_create_pt2pt(MPIR_Request_kind_t kind, const void *buf,
                                         MPI_Aint count, MPI_Datatype type, int rank, int tag,
                                         MPIR_Comm *comm, int context_offset);
/* Drops one reference; the object returns to the pool at zero. */
void MPIR_Request_release(MPIR_Request *req);
/* Looks up a live request by handle (NULL if it is not one). */
MPIR_Request *MPIR_Request_get(MPI_Request handle);
/* Counts one event as done; at zero the request is complete and the device
 * drops its reference. */
void MPIDI_Request_complete_one(MPIR_Request *req);
static inline int MPIR_Request_is_complete(const MPIR_Request *req) { return req->cc == 0; }
/* Records the request's first error in status.MPI_ERROR. */
void MPIR_Request_set_error(MPIR_Request *req, int mpi_errno);
int MPIR_Request_pool_live(void);

#endif /* REQUEST_H_INCLUDED */
