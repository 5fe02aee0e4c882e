/* verbs_impl.h: wire format, device, connection and buffer state, and prototypes of the verbs
 * method. */
#ifndef VERBS_IMPL_H_INCLUDED
#define VERBS_IMPL_H_INCLUDED

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <stddef.h>
#include <stdint.h>

#include "hmac.h"
#include "method.h"
#include "rcache.h"
#include "verbs_credit.h"
#include "verbs_ring.h"

/* The connection handshake (doc/security.md "verbs"), in rdma_cm's private
 * data: the connector's REQ (at most 56 bytes) carries a fresh nonce and a
 * MAC under the job's secret; the acceptor's REP (or REJ) its own nonce and
 * a MAC over both; then the connector's first message on the queue pair is
 * AUTH, a MAC over both nonces.  The acceptor attaches the queue pair to the
 * rank it claims only once AUTH checks. */
#define MPIDI_VERBS_MAGIC 0x56595247u /* "GRYV": the handshake's version 2 */
#define MPIDI_VERBS_NONCE_LEN 16
#define MPIDI_VERBS_REQ_MAC_LEN 16 /* a truncated HMAC-SHA256: REQ has 56 bytes */
enum {
    MPIDI_VERBS_REJ_LOSE = 1,
    MPIDI_VERBS_REJ_WRONG = 2,
    MPIDI_VERBS_REJ_FULL = 3,
    MPIDI_VERBS_REJ_EAGER = 4 /* the eager protocol or its ring size differ (in the REJ) */
};
/* What both ends of a connection must agree on, in the REQ and the REP (or
 * REJ): FERRY_VERBS_EAGER, and for the ring FERRY_RING_SIZE (0 under sr). */
typedef struct MPIDI_VERBS_proto {
    uint16_t eager; /* MPIDI_VERBS_EAGER_* */
    uint16_t pad;
    uint32_t ring_size; /* at most 1 GiB */
} MPIDI_VERBS_proto_t;
typedef struct MPIDI_VERBS_req {
    uint32_t magic;
    uint32_t rank;    /* the connector's world rank */
    uint32_t to;      /* the world rank it wants */
    uint16_t credits; /* receive buffers the connector holds for the acceptor */
    uint16_t reserved;
    MPIDI_VERBS_proto_t proto;
    uint8_t nonce[MPIDI_VERBS_NONCE_LEN];
    uint8_t mac[MPIDI_VERBS_REQ_MAC_LEN]; /* over everything before it */
} MPIDI_VERBS_req_t;
_Static_assert(sizeof(MPIDI_VERBS_req_t) <= 56, "rdma_cm REQ private data limit");
typedef struct MPIDI_VERBS_rep {
    uint32_t magic;
    uint32_t rank;    /* the acceptor's world rank */
    uint16_t credits; /* REP: receive buffers the acceptor holds for the connector */
    uint16_t reason;  /* REJ: MPIDI_VERBS_REJ_* (0 in a REP) */
    MPIDI_VERBS_proto_t proto;
    uint8_t nonce[MPIDI_VERBS_NONCE_LEN];
    uint8_t mac[MPIDU_SHA256_LEN]; /* over everything before it and the REQ's nonce */
} MPIDI_VERBS_rep_t;
_Static_assert(sizeof(MPIDI_VERBS_rep_t) <= 148, "rdma_cm REJ private data limit");

/* Largest core header a message carries (the core needs 64). */
#define MPIDI_VERBS_MAX_HDR 64
/* Inline sends are staged in this many bytes per batched work request. */
#define MPIDI_VERBS_INLINE_MAX 256
/* Work requests of one connection posted with one doorbell at most. */
#define MPIDI_VERBS_POST_BATCH 16

/* ---- State ---- */

typedef struct MPIDI_VERBS_rbuf {
    struct MPIDI_VERBS_rbuf *next; /* on the stash of unposted buffers */
    char *addr;
    uint32_t lkey;
} MPIDI_VERBS_rbuf_t;

/* Buffers are allocated and registered in slabs, kept until finalize (the
 * SRQ or a send may hold any of their buffers). */
typedef struct MPIDI_VERBS_slab {
    struct ibv_mr *mr;
    char *mem;
    void *descs; /* the buffers' descriptors */
} MPIDI_VERBS_slab_t;

typedef struct MPIDI_VERBS_sbuf {
    struct MPIDI_VERBS_sbuf *next;
    char *addr;
    uint32_t lkey;
} MPIDI_VERBS_sbuf_t;

/* One rdma_get/rdma_put the core gave us: cut into pieces of at most the
 * device's max_msg_sz; reads in flight per connection are bounded by the
 * negotiated initiator depth. */
typedef struct MPIDI_VERBS_rdma_op {
    struct MPIDI_VERBS_rdma_op *next; /* waiting for a read slot or send queue room */
    int is_get;
    char *local;
    uint64_t remote;
    size_t left; /* bytes not posted yet */
    uint32_t lkey, rkey;
    int pieces_out; /* posted, not completed */
    int err;
    int dropped; /* the connection failed: no MPIDU_op_done, freed when idle */
    void *cookie;
} MPIDI_VERBS_rdma_op_t;

enum {
    MPIDI_VERBS_TX_SEND,
    MPIDI_VERBS_TX_READ,
    MPIDI_VERBS_TX_WRITE,
    MPIDI_VERBS_TX_FLUSH,
    MPIDI_VERBS_TX_RING_TAIL, /* the ring channel's read of a sender's tail */
    MPIDI_VERBS_TX_RING_DATA, /* its read of a range of a sender's ring */
    MPIDI_VERBS_TX_RING_HEAD, /* its write of the head back to the sender */
};

/* A posted work request, in send-queue order: completions arrive in that
 * order, so a signalled one retires every entry before it. */
typedef struct MPIDI_VERBS_tx {
    uint8_t kind;
    uint8_t signalled;
    MPIDI_VERBS_sbuf_t *sbuf;  /* send buffer to free (NULL: inline or none) */
    MPIDI_VERBS_rdma_op_t *op; /* read/write piece of this operation */
    uint64_t end;              /* TX_RING_DATA: the ring position the read ends at */
} MPIDI_VERBS_tx_t;

/* The ring channel of one connection (verbs_ring.c, doc/methods/verbs.md
 * "The ring channel"): our ring for the peer, our copy of the peer's ring,
 * and one registered page of control words. */
#define MPIDI_VERBS_TAIL_SLOTS 8   /* landing words for reads of the peer's tail, in turn */
#define MPIDI_VERBS_RING_REREADS 8 /* stale bytes read again this often before it is corruption */
enum {
    /* Tails and heads are stored as MPIDI_VERBS_ring_word()s (a copy torn by
     * a racing RDMA read or write is told from a true one). */
    MPIDI_VERBS_CTRL_OUT_TAIL, /* our ring's tail: the peer reads it */
    MPIDI_VERBS_CTRL_OUT_HEAD, /* the head of our ring: the peer writes it */
    MPIDI_VERBS_CTRL_IN_HEAD,  /* the head we write back to the peer, from here (unchanged
                                  while the write is in flight: head_out) */
    MPIDI_VERBS_CTRL_IN_TAIL,  /* where reads of the peer's tail land (TAIL_SLOTS words) */
    MPIDI_VERBS_CTRL_WORDS = MPIDI_VERBS_CTRL_IN_TAIL + MPIDI_VERBS_TAIL_SLOTS
};
/* What a RING message carries: where the sender's ring and control words are. */
typedef struct MPIDI_VERBS_ring_info {
    uint64_t ring_addr; /* the ring, mapped twice: 2 * size bytes */
    uint64_t ctrl_addr; /* the control words (MPIDI_VERBS_CTRL_*) */
    uint32_t ring_rkey, ctrl_rkey;
    uint32_t size;
    uint32_t reserved;
} MPIDI_VERBS_ring_info_t;
_Static_assert(sizeof(MPIDI_VERBS_ring_info_t) == MPIDU_SHA256_LEN, "fits a control message");
typedef struct MPIDI_VERBS_rconn {
    MPIDI_VERBS_ring_out_t out;
    MPIDI_VERBS_ring_in_t in;
    uint64_t out_head; /* the last head the peer returned that we checked */
    volatile uint64_t *ctrl;
    struct ibv_mr *out_mr, *in_mr, *ctrl_mr;
    int info_due;  /* our RING message is still to be sent */
    int info_seen; /* the peer's RING message came: its ring can be read */
    MPIDI_VERBS_ring_info_t peer;
    int tail_out; /* a tail read is posted */
    int head_out; /* a head write is posted */
    int tail_landed;
    int tail_slot;       /* the landing word of the last tail read posted */
    uint64_t rereads_at; /* where stale bytes were last read again */
    int rereads;         /* how often there */
    int data_out;        /* data reads posted */
    int empty;           /* tail reads in a row that found nothing new */
    double next_poll;
} MPIDI_VERBS_rconn_t;

typedef enum {
    MPIDI_VERBS_CONN_NONE,       /* nothing yet */
    MPIDI_VERBS_CONN_RESOLVING,  /* we connect: address and route being resolved */
    MPIDI_VERBS_CONN_CONNECTING, /* we connect: request sent */
    MPIDI_VERBS_CONN_ACCEPTING,  /* the peer connects: accepted, waiting to be established */
    MPIDI_VERBS_CONN_UP,
    MPIDI_VERBS_CONN_FAILED,
} MPIDI_VERBS_conn_state_t;

typedef struct MPIDI_VERBS_conn {
    int peer;
    MPIDI_VERBS_conn_state_t state;
    struct rdma_cm_id *id;  /* the id whose queue pair carries the traffic */
    struct rdma_cm_id *out; /* our own attempt while it lasts */
    struct ibv_qp *qp;
    char card[128];
    int attempts;
    double retry_at;                          /* a failed attempt is retried after this (seconds) */
    double out_deadline;                      /* our attempt is given up after this */
    uint8_t out_nonce[MPIDI_VERBS_NONCE_LEN]; /* our attempt's REQ nonce */
    /* A connection the peer made that has not proven itself yet (its AUTH
     * has not come): kept apart, so nothing about the rank it claims
     * changes before the proof. */
    struct rdma_cm_id *in_id;
    uint8_t in_nonce_c[MPIDI_VERBS_NONCE_LEN], in_nonce_a[MPIDI_VERBS_NONCE_LEN];
    int in_reserved, in_granted, in_credits, in_rd_depth, in_max_inline;
    double in_deadline;
    MPIDI_VERBS_credit_t cr; /* credits both ways (verbs_credit.h) */
    int reserved;            /* buffers this connection takes from the pool: granted + 1 */
    int said_bye;            /* we sent BYE (finalize) */
    int fail_report;         /* failed: the core has not been told yet */
    char fail_msg[384];
    int peer_closed; /* the peer said BYE */
    /* Send queue. */
    int sq_depth;
    int sq_used;                                  /* posted or batched, not retired */
    int unsignalled;                              /* since the last signalled work request */
    int signal_pending;                           /* a signalled work request is in flight */
    MPIDI_VERBS_tx_t *ring;                       /* sq_depth entries, by slot */
    unsigned ring_head, ring_tail;                /* next slot to use, oldest not retired */
    int reads_out, rd_depth;                      /* reads in flight, and their bound */
    MPIDI_VERBS_rdma_op_t *rdma_head, *rdma_tail; /* pieces waiting */
    /* Doorbell batching: work requests built during progress, posted at its end. */
    struct ibv_send_wr batch[MPIDI_VERBS_POST_BATCH];
    struct ibv_sge batch_sge[MPIDI_VERBS_POST_BATCH];
    char batch_inline[MPIDI_VERBS_POST_BATCH][MPIDI_VERBS_INLINE_MAX];
    int nbatch;
    int max_inline;
    int rdma_out;            /* pieces of the core's rdma operations posted, not completed */
    MPIDI_VERBS_rconn_t *rc; /* FERRY_VERBS_EAGER=ring: the ring channel, from connection up */
} MPIDI_VERBS_conn_t;

/* FERRY_VERBS_EAGER's choices, in its order (adi/config.c). */
enum { MPIDI_VERBS_EAGER_SR, MPIDI_VERBS_EAGER_RING };
/* FERRY_VERBS_FAULT's choices: faults the tests inject to see errors reported. */
enum { MPIDI_VERBS_FAULT_NONE, MPIDI_VERBS_FAULT_RKEY, MPIDI_VERBS_FAULT_QP_FATAL };

/* Counters of what ran (FERRY_VERBOSE, and the tests' expectations). */
/* Counters of what ran, registered as verbs_<name> (FERRY_VERBOSE=1,
 * FERRY_STATS_FILE; verbs_init.c lists them). */
typedef struct MPIDI_VERBS_stats {
    unsigned long sends, inline_sends, signalled, doorbells, posted_wrs, batch_max;
    unsigned long no_credit, sq_full, no_sbuf, credit_msgs, credits_piggy;
    unsigned long recvs, reposts, srq_limit_events, srq_grows, bonus_credits, srq_buffers_max;
    unsigned long reads, read_pieces, reads_inflight_max, rdma_waits, writes, write_pieces;
    unsigned long flushes, conn_out, conn_in, conn_lost_race, cq_resizes, strangers;
    unsigned long ring_sends, ring_full, ring_tail_reads, ring_tail_empty, ring_prefetches;
    unsigned long ring_data_reads, ring_data_bytes, ring_read_bytes_max, ring_bounded_reads;
    unsigned long ring_msgs, ring_straddles, ring_head_writes, ring_backoffs;
    unsigned long ring_stale_tails, ring_rereads, ring_torn_tails, ring_torn_heads;
} MPIDI_VERBS_stats_t;

typedef struct MPIDI_VERBS_state {
    int rank, size;
    uint64_t job_id;
    int available; /* a device with an active port was found */
    int forced;    /* FERRY_METHODS names verbs: reach peers on this node too */
    const int *node_of;
    int node_id;
    int verbose;
    /* Device. */
    struct ibv_context **devlist;
    struct ibv_context *ctx;
    char devname[32];
    int port;
    int gid_index;
    char ip[64]; /* the address rdma_cm listens on (from the GID table) */
    struct ibv_device_attr dev_attr;
    struct ibv_port_attr port_attr;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    int cq_size;
    struct ibv_comp_channel *comp; /* completion events, for sleeping waits */
    int epfd;                      /* the completion, rdma_cm and async descriptors together */
    int armed;                     /* a completion event was asked for and not consumed */
    int woke;                      /* we slept: look at every event source next time */
    struct ibv_srq *srq;
    struct rdma_event_channel *ch;
    struct rdma_cm_id *listen_id;
    int listen_port;
    char card[256];
    /* Sizes (adi/config.c, doc/tuning.md). */
    size_t buf_size; /* bytes of one receive or send buffer */
    int srq_size, srq_max, srq_low;
    int credits_max, credit_return;
    int cq_batch, signal_interval, sq_depth;
    int inline_max;
    int nsbufs;
    int rd_atomic;
    int rnr_retry, retry_count, timeout;
    double connect_timeout; /* FERRY_VERBS_CONNECT_TIMEOUT, in seconds */
    int eager;       /* FERRY_VERBS_EAGER: MPIDI_VERBS_EAGER_* */
    int fault;       /* FERRY_VERBS_FAULT: MPIDI_VERBS_FAULT_* (tests) */
    int fault_done;  /* the one-shot fault (qp_fatal) was injected */
    size_t max_rdma; /* largest piece of one read or write */
    /* The ring channel (FERRY_RING_*). */
    uint64_t ring_size, ring_max_read, ring_head_interval;
    size_t ring_max_msg; /* largest message in a ring, headers included */
    double ring_backoff_us;
    int ring_prefetch;
    int nrings; /* peers whose ring we read (the back-off's cap grows with them) */
    /* Receive buffers. */
    MPIDI_VERBS_rbuf_t *stash; /* not posted: reposted before the next batch is dispatched */
    int nstash;
    int nbufs;                 /* receive buffers allocated */
    int posted;                /* on the SRQ */
    int reserved;              /* sum of the connections' reservations */
    int spare;                 /* grown by the limit event, not yet granted */
    MPIDI_VERBS_slab_t *slabs; /* receive and send buffers, registered in slabs */
    int nslabs;
    /* Send buffers. */
    MPIDI_VERBS_sbuf_t *sfree;
    int nsfree;
    /* Peers. */
    MPIDI_VERBS_conn_t **conns; /* by world rank, allocated lazily */
    MPIDI_VERBS_conn_t **list;  /* the allocated ones, in order: what loops walk */
    int nlist;
    int cm_busy;     /* an attempt is under way: poll rdma_cm at every progress */
    int in_progress; /* inside our progress function (no re-entry) */
    int batching;    /* from progress to progress_done: work requests wait in batches */
    int finalizing;
    int fail_pending; /* a connection failed and the core has not been told */
    unsigned long polls;
    MPIDU_rcache_t *rcache;
    MPIDI_VERBS_stats_t stats;
} MPIDI_VERBS_state_t;

extern MPIDI_VERBS_state_t MPIDI_VERBS_state;

/* verbs_init.c */
int MPIDI_VERBS_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
int MPIDI_VERBS_get_business_card(char *buf, size_t len);
int MPIDI_VERBS_finalize(void);
double MPIDI_VERBS_now(void);
/* verbs_device.c */
int MPIDI_VERBS_open_device(const char **why_p);
/* verbs_auth.c: nonces and MACs of the handshake (seal fills mac; check is 1 if it holds). */
int MPIDI_VERBS_nonce(uint8_t nonce[MPIDI_VERBS_NONCE_LEN]);
int MPIDI_VERBS_req_seal(MPIDI_VERBS_req_t *r);
int MPIDI_VERBS_req_check(const MPIDI_VERBS_req_t *r);
int MPIDI_VERBS_rep_seal(MPIDI_VERBS_rep_t *r, const uint8_t req_nonce[MPIDI_VERBS_NONCE_LEN]);
int MPIDI_VERBS_rep_check(const MPIDI_VERBS_rep_t *r,
                          const uint8_t req_nonce[MPIDI_VERBS_NONCE_LEN]);
int MPIDI_VERBS_auth_mac(int connector, int acceptor, const uint8_t nonce_c[MPIDI_VERBS_NONCE_LEN],
                         const uint8_t nonce_a[MPIDI_VERBS_NONCE_LEN],
                         unsigned char out[MPIDU_SHA256_LEN]);
/* verbs_probe.c */
int MPIDI_VERBS_probe(char *buf, size_t len);
/* verbs_conn.c */
int MPIDI_VERBS_listen(void);
int MPIDI_VERBS_reachable(int peer, const char *card);
int MPIDI_VERBS_connect(int peer, const char *card);
MPIDI_VERBS_conn_t *MPIDI_VERBS_conn_get(int peer);
/* A message on a connection the peer made and has not proven yet: it must be
 * AUTH with the right MAC, which attaches the connection to the rank (1);
 * anything else drops it (0).  The caller then accounts the message's
 * credits on the attached connection only. */
/* Drops the connection the peer made that has not proven itself. */
void MPIDI_VERBS_drop_in(MPIDI_VERBS_conn_t *c);
int MPIDI_VERBS_auth_recv(MPIDI_VERBS_conn_t *c, const MPIDI_VERBS_hdr_t *h, const void *payload,
                          size_t len);
/* Moves a connection that is not up yet along; 1 if it is up now. */
int MPIDI_VERBS_conn_ready(MPIDI_VERBS_conn_t *c);
int MPIDI_VERBS_cm_progress(int *made);
void MPIDI_VERBS_conn_fail(MPIDI_VERBS_conn_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Tells the core of the connections that failed since (from progress only). */
void MPIDI_VERBS_report_failures(void);
void MPIDI_VERBS_conn_close_all(void);
/* verbs_srq.c */
/* n registered buffers of buf_size and their descriptors (desc_size each,
 * zeroed), freed at finalize. */
int MPIDI_VERBS_slab_new(int n, size_t desc_size, const char *what, char **mem_p, void **descs_p,
                         uint32_t *lkey_p);
int MPIDI_VERBS_srq_create(void);
int MPIDI_VERBS_srq_reserve(int buffers);
void MPIDI_VERBS_srq_release(int buffers);
int MPIDI_VERBS_srq_repost(int n);
void MPIDI_VERBS_srq_return(MPIDI_VERBS_rbuf_t *b);
int MPIDI_VERBS_srq_limit_event(void);
int MPIDI_VERBS_cq_fit(void);
void MPIDI_VERBS_srq_destroy(void);
/* verbs_send.c */
int MPIDI_VERBS_sbufs_create(void);
int MPIDI_VERBS_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                        const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                        void *cookie);
/* Adds a work request to the connection (batched inside progress, posted
 * at once outside); the caller has checked sq room. */
int MPIDI_VERBS_post(MPIDI_VERBS_conn_t *c, struct ibv_send_wr *wr, const MPIDI_VERBS_tx_t *tx,
                     const void *inline_data, size_t inline_len);
int MPIDI_VERBS_flush_batches(void);
/* The connection failed: its batched work requests are never posted. */
void MPIDI_VERBS_batch_drop(MPIDI_VERBS_conn_t *c);
int MPIDI_VERBS_send_ctrl(MPIDI_VERBS_conn_t *c, int handler, const void *payload, size_t len);
int MPIDI_VERBS_return_credits(int *made);
void MPIDI_VERBS_retire(MPIDI_VERBS_conn_t *c, unsigned slot, int ok);
int MPIDI_VERBS_post_flush(MPIDI_VERBS_conn_t *c);
/* verbs_rdma.c */
int MPIDI_VERBS_rdma_get(int peer, void *local, size_t len, void *local_handle,
                         uint64_t remote_addr, uint64_t rkey, void *cookie);
int MPIDI_VERBS_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                         uint64_t remote_addr, uint64_t rkey, void *cookie);
void MPIDI_VERBS_rdma_piece_done(MPIDI_VERBS_conn_t *c, MPIDI_VERBS_rdma_op_t *op, int ok);
int MPIDI_VERBS_rdma_pump(MPIDI_VERBS_conn_t *c);
void MPIDI_VERBS_rdma_drop(MPIDI_VERBS_conn_t *c);
/* verbs_ring.c */
/* The connection is up: our ring for the peer and our copy of its ring. */
int MPIDI_VERBS_ring_open(MPIDI_VERBS_conn_t *c);
void MPIDI_VERBS_ring_close(MPIDI_VERBS_conn_t *c);
/* am_send over the ring (the connection is up). */
int MPIDI_VERBS_ring_send(MPIDI_VERBS_conn_t *c, int handler, const void *hdr, size_t hdr_len,
                          const MPIR_Segment *seg, size_t first, size_t last, unsigned flags);
/* The peer's RING message. */
void MPIDI_VERBS_ring_info_recv(MPIDI_VERBS_conn_t *c, const void *payload, size_t len);
/* A ring read or write retired (ok: it succeeded). */
void MPIDI_VERBS_ring_retired(MPIDI_VERBS_conn_t *c, const MPIDI_VERBS_tx_t *tx, int ok);
/* Every ring: messages landed are dispatched, heads written back, reads posted. */
int MPIDI_VERBS_ring_progress(int *made);
/* Everything we put in the ring for the peer was freed (finalize waits for it). */
int MPIDI_VERBS_ring_drained(MPIDI_VERBS_conn_t *c);
/* verbs_mr.c */
int MPIDI_VERBS_rcache_create(void);
int MPIDI_VERBS_mem_reg(void *addr, size_t len, unsigned access, MPIDI_mem_t *mem_p);
int MPIDI_VERBS_mem_dereg(void *handle);
uint32_t MPIDI_VERBS_lkey(void *handle);
/* verbs_progress.c */
int MPIDI_VERBS_progress(int *made_progress_p);
/* The end of a progress pass: credits still due, then every batch posted. */
void MPIDI_VERBS_progress_done(void);
/* Polls the CQ until it is empty (before a loss is declared). */
int MPIDI_VERBS_cq_poll_all(int *made);
int MPIDI_VERBS_async_progress(void);
int MPIDI_VERBS_wait_fd(void);

#endif /* VERBS_IMPL_H_INCLUDED */
