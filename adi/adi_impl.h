/* adi_impl.h: device internals shared by the files of adi/ and progress/. */
#ifndef ADI_IMPL_H_INCLUDED
#define ADI_IMPL_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "adi.h"
#include "am.h"
#include "err.h"
#include "method.h"

/* An operation on a peer's deferred queue: an active message the method
 * could not take yet (AGAIN), a pipeline stream being cut into DATA chunks,
 * or an rdma transfer whose next piece the method could not take. */
typedef enum { MPIDI_OP_AM, MPIDI_OP_STREAM, MPIDI_OP_XFER } MPIDI_op_kind_t;

typedef struct MPIDI_sendop {
    struct MPIDI_sendop *next;
    MPIDI_op_kind_t kind;
    int handler;
    unsigned flags; /* MPIDI_AM_* */
    size_t hdr_len;
    union {
        char bytes[MPIDI_MAX_HDR];
        MPIDI_data_hdr_t data;
        uint64_t align_;
    } hdr;
    MPIR_Request *req;  /* owner of the payload or of the transfer, or NULL */
    size_t first, last; /* payload range still to send */
    size_t chunk;       /* MPIDI_OP_STREAM: DATA chunk size */
} MPIDI_sendop_t;

/* The protocol counters of one method (adi/stats.c explains them). */
typedef struct MPIDI_proto_stats {
    unsigned long eager_sent, eager_bytes, eager_bytes_max;
    unsigned long rndv_sent, rndv_read, rndv_write, rndv_pipeline, rndv_fallback, rndv_refused;
} MPIDI_proto_stats_t;

typedef struct MPIDI_peer {
    const MPIDI_method_ops_t *method; /* bound lazily on first send */
    const MPIDI_method_caps_t *caps;
    size_t eager_limit;
    uint16_t send_seq;
    uint16_t recv_seq;
    MPIDI_sendop_t *deferred_head, *deferred_tail;
    int failed_code;            /* non-zero once the connection is lost */
    int wild_code;              /* the error of a wildcard receive that this loss makes fail */
    MPIDI_proto_stats_t *stats; /* the counters of the method it is bound to */
    uint8_t paused_by_peer;     /* the peer asked for rendezvous only (adi/flow.c) */
    uint8_t pause_asked;        /* this rank asked the peer for rendezvous only */
} MPIDI_peer_t;

extern MPIDI_peer_t *MPIDI_peers;
extern MPID_upcalls_t MPIDI_upcalls;

/* Method registry (adi/peer.c). */
typedef struct MPIDI_active_method {
    const MPIDI_method_ops_t *ops;
    MPIDI_method_caps_t caps;
    MPIDI_proto_stats_t stats;
} MPIDI_active_method_t;
#define MPIDI_MAX_METHODS 12 /* active at once */
extern MPIDI_active_method_t MPIDI_active[];
extern int MPIDI_methods_frozen; /* methods/methods.c: MPIDU_method_add is too late */
extern int MPIDI_nactive;

int MPIDI_methods_init(const MPIDI_job_t *job);
/* The node id of a world rank (adi/init.c's node map). */
int MPIDI_node_of(int rank);
int MPIDI_methods_publish(void);
int MPIDI_methods_post_init(void);
int MPIDI_methods_finalize(void);
/* Takes note of the active methods for the poll (progress/progress.c): after
 * methods_init has started them and after finalize has ended them. */
void MPIDI_progress_methods_set(void);
/* Binds a peer to a method at its first use (adi/peer.c). */
MPIDI_peer_t *MPIDI_peer_bind(int peer, int *errp);
/* The eager limit of a bound peer: its method's, or FERRY_EAGER_LIMIT capped at max_send (what
 * binding sets, and what a peer's PAUSE(0) gives back, adi/flow.c). */
size_t MPIDI_peer_eager_limit(const MPIDI_peer_t *p);
/* The peer, bound to a method; sets *errp and returns NULL if unreachable.
 * Inline: every message looks its peer up. */
static inline MPIDI_peer_t *MPIDI_peer_get(int peer, int *errp)
{
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    return p->method ? p : MPIDI_peer_bind(peer, errp);
}

/* A send's payload event is over: the method copied it, released it or
 * failed (mpi_errno).  MPIDI_send_payload_done is this as the callback a
 * method calls later; a method that answers at once gets it inline. */
static inline void MPIDI_payload_done(MPIR_Request *req, int mpi_errno)
{
    MPIR_Request_set_error(req, mpi_errno);
    MPIDI_Request_complete_one(req);
}
void MPIDI_send_payload_done(MPIDI_cb_t *cb, int mpi_errno);

/* Hands an active message to the peer's method now.  Returns MPIDI_AGAIN if
 * the method took nothing; otherwise the payload's event on req (if any) is
 * complete or will complete when the method releases the payload, and the
 * result is MPI_SUCCESS or an error.  Inline: every message takes it (am.c's
 * try_op too, for a parked one). */
static inline int MPIDI_am_try(MPIDI_peer_t *p, int peer, int handler, const void *hdr,
                               size_t hdr_len, MPIR_Request *req, size_t first, size_t last,
                               unsigned flags)
{
    int rc = p->method->am_send(peer, handler, hdr, hdr_len, req ? &req->seg : NULL, first, last,
                                flags, req ? &req->cb_send : NULL);
    if (rc == MPIDI_AGAIN)
        return rc;
    if (req && rc != MPIDI_INPROGRESS)
        MPIDI_payload_done(req, rc);
    return rc == MPIDI_INPROGRESS ? MPI_SUCCESS : rc;
}

/* MPIDI_am_send when the message cannot go straight to the method (a peer
 * not bound yet or lost, something parked for it, or the method had no
 * room: tried). */
int MPIDI_am_send_queued(int peer, int handler, const void *hdr, size_t hdr_len,
                         MPIR_Request *req, size_t first, size_t last, unsigned flags, int tried);

/* Sends an active message now or queues it behind earlier ones to the same
 * peer.  With a req, [first, last) of its buffer is the payload and the
 * request holds one event that completes when the method releases the
 * payload (also on error); control messages pass req NULL.  On an error
 * return that event has been completed already.  flags: MPIDI_AM_*.  The
 * common case is inline: a bound peer, nothing parked for it, not lost. */
static inline int MPIDI_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                                MPIR_Request *req, size_t first, size_t last, unsigned flags)
{
    MPIDI_peer_t *p = &MPIDI_peers[peer];
    int tried = 0;
    if (p->method && !p->deferred_head && !p->failed_code) {
        int rc = MPIDI_am_try(p, peer, handler, hdr, hdr_len, req, first, last, flags);
        if (rc != MPIDI_AGAIN)
            return rc;
        tried = 1; /* took nothing: park it */
    }
    return MPIDI_am_send_queued(peer, handler, hdr, hdr_len, req, first, last, flags, tried);
}
/* Streams [first, last) of req's buffer as DATA chunks to the receiver's rreq. */
int MPIDI_am_stream(int peer, MPIR_Request *req, uint64_t rreq, size_t first, size_t last);
/* Issues req's rdma transfer now, or parks it behind earlier operations to
 * the peer when the method answers AGAIN (adi/rdma.c calls it). */
void MPIDI_submit_xfer(int peer, MPIR_Request *req);
/* A PAUSE from peer (adi/flow.c): the eager sends parked for it, which no method has taken yet,
 * go by rendezvous instead, each in its place in the queue (MPIDI_eager_to_rndv, adi/send.c). */
void MPIDI_deferred_eager_to_rndv(int peer);
size_t MPIDI_eager_to_rndv(MPIR_Request *sreq, void *hdr);
/* Retries deferred operations; returns 1 if any went out. */
int MPIDI_deferred_progress(void);
extern long MPIDI_ndeferred;
static inline int MPIDI_deferred_pending(void)
{
    return MPIDI_ndeferred > 0;
}

/* Rendezvous transfers by rdma (adi/rdma.c).  MPIDI_xfer_start moves
 * [0, len) of req's buffer to or from the peer's (remote_addr, rkey) and
 * calls done once; per_piece: one operation per contiguous piece of a
 * noncontiguous buffer; bounce: read through registered bounce slots and
 * unpack (a noncontiguous receive on a method that needs registration);
 * issued (optional): called once the method has taken the last piece. */
void MPIDI_xfer_start(MPIR_Request *req, MPIDI_xfer_kind_t kind, size_t len, uint64_t remote_addr,
                      uint64_t rkey, int per_piece, int bounce, void (*done)(MPIR_Request *req),
                      void (*issued)(MPIR_Request *req));
/* Runs the transfer until the method says AGAIN (returned) or nothing is
 * left to issue (MPI_SUCCESS).  Called from the deferred queue. */
int MPIDI_xfer_try(MPIR_Request *req);
/* Puts a transfer the method answered AGAIN (outside the queue) on it. */
void MPIDI_park_xfer(int peer, MPIR_Request *req);
/* Registers [addr, addr + len) with the peer's method into *reg (held until
 * MPIDI_reg_release); returns an MPI error if the method refuses. */
int MPIDI_reg_acquire(const MPIDI_peer_t *p, void *addr, size_t len, unsigned access,
                      MPIDI_reg_t *reg);
void MPIDI_reg_release(const MPIDI_peer_t *p, MPIDI_reg_t *reg);
/* Drops every registration and bounce buffer a finished request holds. */
void MPIDI_request_drop_rdma(MPIR_Request *req);
/* A noncontiguous buffer may use one rdma operation per contiguous piece. */
int MPIDI_rndv_iov_ok(const MPIR_Segment *seg, const MPIDI_peer_t *p, int forced);
/* The method refused a read, a write or a registration of req's rendezvous at run time:
 * counted (rndv_refused) and, with FERRY_VERBOSE, reported; the caller falls back. */
void MPIDI_rndv_note_refused(MPIR_Request *req, const char *what, int mpi_errno);

/* Matching engine (adi/recvq.c). */
/* Takes the earliest posted receive that (context, comm rank src, tag) fits. */
MPIR_Request *MPIDI_recvq_find_posted(int context_id, int src, int tag);
/* MPI_Irecv's matching: takes and returns the earliest fitting unexpected
 * message, or appends rreq to the posted queue and returns NULL.  *err_p:
 * why rreq was not posted: refuse (nonzero when no message can come: a lost
 * peer), or no memory for its queue. */
MPIR_Request *MPIDI_recvq_take_unexp_or_post(MPIR_Request *rreq, int refuse, int *err_p);
int MPIDI_recvq_remove_posted(MPIR_Request *rreq);
/* Finds the first unexpected message matching; remove != 0 takes it out. */
MPIR_Request *MPIDI_recvq_find_unexp(int context_id, int src, int tag, int remove);
int MPIDI_recvq_append_unexp(MPIR_Request *ureq);
/* The unexpected message from peer that carried sender request sreq and
 * sequence number seq, taken out of the queue; NULL if it has matched. */
MPIR_Request *MPIDI_recvq_take_unexp_sent(int peer, uint64_t sreq, uint16_t seq);
size_t MPIDI_recvq_unexp_bytes(void);
/* The receives posted and the messages held unexpected now, counted by walking the queues (for
 * MPI_T's level variables; not for the message path). */
void MPIDI_recvq_lengths(size_t *posted, size_t *unexp);
/* Fails the posted receives the lost peer could have satisfied: those naming
 * it (mpi_errno) and wildcard ones on a communicator it belongs to (wild_errno). */
void MPIDI_recvq_fail_peer(int peer, int mpi_errno, int wild_errno);
/* The first of the lost world ranks that is a member of comm, or -1. */
int MPIDI_recvq_comm_lost_peer(const MPIR_Comm *comm, const int *lost, int nlost);
void MPIDI_recvq_finalize(void);
void MPIDI_requests_fail_peer(int peer, int mpi_errno);
/* World ranks whose connection is lost, in the order they were lost (adi/am.c);
 * the first MPIDI_nlost_failed of them have had their pending work failed. */
extern int *MPIDI_lost_peers;
extern int MPIDI_nlost, MPIDI_nlost_failed;
/* The error a wildcard receive on comm gets because a member is lost, or 0. */
int MPIDI_wildcard_lost_code(const MPIR_Comm *comm);
/* Fails the pending work of peers lost since the last call (the end of
 * every progress call: never from inside a call into a method). */
void MPIDI_lost_peers_fail(void);
static inline int MPIDI_lost_peers_pending(void)
{
    return MPIDI_nlost_failed < MPIDI_nlost;
}

/* Back-pressure on unexpected eager data (adi/flow.c): when the eager data this rank keeps for
 * receives not yet posted passes MPIDI_unexp_limit (FERRY_UNEXP_LIMIT), each peer whose eager
 * message it keeps from then on is asked to send by rendezvous (PAUSE); when the kept data falls
 * to half the limit, every peer asked is told to resume.  The queue (adi/recvq.c) calls
 * MPIDI_flow_over and MPIDI_flow_under as its byte count moves. */
extern size_t MPIDI_unexp_limit; /* bytes; 0: no limit */
extern int MPIDI_npaused;        /* peers this rank has asked to pause */
void MPIDI_flow_init(void);
void MPIDI_flow_over(int peer);
void MPIDI_flow_under(void);
void MPIDI_handle_pause(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);

/* Protocols (adi/send.c, adi/recv.c, adi/rndv.c). */
void MPIDI_recv_deliver_eager(MPIR_Request *rreq, const MPIDI_match_hdr_t *m, int peer,
                              const void *data, size_t len);
void MPIDI_rndv_recv_start(MPIR_Request *rreq);
void MPIDI_handle_rts(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
void MPIDI_handle_sync_ack(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
void MPIDI_handle_cts(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
void MPIDI_handle_data(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
void MPIDI_handle_fin(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
void MPIDI_handle_put_done(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
void MPIDI_handle_cancel_send(int peer, const void *hdr, size_t hdr_len, const void *data,
                              size_t len);
void MPIDI_handle_cancel_resp(int peer, const void *hdr, size_t hdr_len, const void *data,
                              size_t len);
void MPIDI_handle_eager(int peer, const void *hdr, size_t hdr_len, const void *data, size_t len);
/* Receive in place (MPIDU_am_recv_begin/done): the request, or NULL for a
 * normal dispatch; *dst_p is where the payload may be written, or NULL. */
MPIR_Request *MPIDI_eager_recv_begin(int peer, const MPIDI_match_hdr_t *m, size_t len,
                                     void **dst_p);
void MPIDI_eager_recv_done(MPIR_Request *rreq, const MPIDI_match_hdr_t *m, int peer,
                           const void *payload, size_t len);
MPIR_Request *MPIDI_data_recv_begin(int peer, const MPIDI_data_hdr_t *d, size_t len, void **dst_p);
void MPIDI_data_recv_done(MPIR_Request *rreq, const void *payload, size_t len);
/* Sets the envelope fields of a receive's status from a matched header. */
void MPIDI_recv_set_envelope(MPIR_Request *rreq, const MPIDI_match_hdr_t *m, int peer,
                             size_t msg_size);
/* Reports an unrecoverable device error and kills the job. */
void MPIDI_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* The job's secret (adi/job_key.c): obtained (or drawn by rank 0 and put)
 * at start-up, before the first barrier; wiped at finalize. */
int MPIDI_job_key_init(void);
void MPIDI_job_key_finalize(void);

/* FERRY_RNDV_PROTOCOL: the values in the order of its choices in adi/config.c. */
typedef enum MPIDI_rndv_want {
    MPIDI_RNDV_WANT_AUTO,
    MPIDI_RNDV_WANT_READ,
    MPIDI_RNDV_WANT_WRITE,
    MPIDI_RNDV_WANT_PIPELINE
} MPIDI_rndv_want_t;
#define MPIDI_RNDV_WANT_NAMES "auto|read|write|pipeline"
MPIDI_rndv_want_t MPIDI_rndv_wanted(void);
/* FERRY_VERBOSE levels. */
#define MPIDI_VERBOSE_PROTOCOL 3 /* one line per rendezvous: size, mover, fall-back */

/* The device's counters (adi/stats.c), printed at finalize with FERRY_VERBOSE=1 and written to
 * FERRY_STATS_FILE: the protocol counters of each method (named <method>_<counter>) and their
 * sums over the methods (named <counter>), then the rest.  Sends are counted by the sender.  Each
 * rendezvous is counted once, summed over the job, under the mover that carried its data: read
 * and pipeline by the receiver, which chooses; write by the receiver when PUT_DONE arrives, or
 * by the sender as pipeline when it streams instead.  rndv_fallback counts rendezvous that did
 * not use the mover asked for (a forced FERRY_RNDV_PROTOCOL the method or the buffers cannot
 * do, or a refusal at run time); rndv_refused the reads and writes a method refused at run time
 * (CMA not permitted). */
typedef struct MPIDI_stats {
    MPIDI_proto_stats_t proto; /* summed over the methods */
    unsigned long deferred, unexpected, unexpected_bytes_max;
    unsigned long progress_yields; /* idle polls of a blocking wait that yielded the CPU */
    unsigned long progress_sleeps; /* sleeps of a blocking wait on a method's doorbell */
    unsigned long rdma_parked;     /* rdma operations the method answered AGAIN to (parked) */
    unsigned long unexp_pauses;    /* PAUSEs this rank sent: its unexpected data passed the limit */
    unsigned long unexp_resumes;   /* resumes it sent: the data fell to half the limit */
    unsigned long eager_paused;    /* PAUSEs it obeyed: a receiver asked it for rendezvous only */
    unsigned long eager_to_rndv;   /* parked eager sends a PAUSE turned into rendezvous */
} MPIDI_stats_t;
extern MPIDI_stats_t MPIDI_stats;
/* Counts n events of a protocol counter for peer p's method and in the sum. */
#define MPIDI_COUNT(p, counter, n)                                                                 \
    do {                                                                                           \
        (p)->stats->counter += (n);                                                                \
        MPIDI_stats.proto.counter += (n);                                                          \
    } while (0)
/* An eager send of size bytes to peer p, for its method and in the sum. */
static inline void MPIDI_count_eager(MPIDI_peer_t *p, size_t size)
{
    MPIDI_COUNT(p, eager_sent, 1);
    MPIDI_COUNT(p, eager_bytes, size);
    if (size > p->stats->eager_bytes_max)
        p->stats->eager_bytes_max = size;
    if (size > MPIDI_stats.proto.eager_bytes_max)
        MPIDI_stats.proto.eager_bytes_max = size;
}
/* An eager send counted by MPIDI_count_eager that went by rendezvous after all (a PAUSE found
 * it parked: adi/send.c); the largest eager size seen stays. */
static inline void MPIDI_uncount_eager(MPIDI_peer_t *p, size_t size)
{
    p->stats->eager_sent--;
    p->stats->eager_bytes -= size;
    MPIDI_stats.proto.eager_sent--;
    MPIDI_stats.proto.eager_bytes -= size;
}
/* Registers the protocol counters of each started method (after MPIDI_methods_init). */
int MPIDI_stats_register_methods(void);
/* Registers the device's counters and opens FERRY_STATS_FILE (after PMI gave the rank). */
int MPIDI_stats_init(void);
/* Prints (FERRY_VERBOSE) and writes the counters; before the methods finalize. */
void MPIDI_stats_finalize(void);

#endif /* ADI_IMPL_H_INCLUDED */
