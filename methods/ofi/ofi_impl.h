/* ofi_impl.h: wire format, state and prototypes of the ofi method (libfabric, FI_EP_RDM). */
#ifndef OFI_IMPL_H_INCLUDED
#define OFI_IMPL_H_INCLUDED

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stddef.h>
#include <stdint.h>

#include "method.h"
#include "rcache.h"

/* ---- libfabric's own functions, from the library opened at run time ----
 * (ofi_dl.c says why it is not linked).  Everything else of its API is
 * inline calls through the objects' operation tables; fi_allocinfo, an
 * inline over the linked fi_dupinfo, is not used: fi_dupinfo(NULL) is. */
typedef struct MPIDI_OFI_lib {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    uint32_t (*version)(void);
} MPIDI_OFI_lib_t;
extern MPIDI_OFI_lib_t MPIDI_OFI_lib;
#define fi_getinfo MPIDI_OFI_lib.getinfo
#define fi_freeinfo MPIDI_OFI_lib.freeinfo
#define fi_dupinfo MPIDI_OFI_lib.dupinfo
#define fi_fabric MPIDI_OFI_lib.fabric
#define fi_strerror MPIDI_OFI_lib.strerror
#define fi_version MPIDI_OFI_lib.version
/* Opens libfabric once, keeping every signal's disposition; on failure
 * why says what went wrong. */
int MPIDI_OFI_lib_open(char *why, size_t why_len);

/* The libfabric API version asked of fi_getinfo: 1.10 has every call and
 * bit used here (FI_CONTEXT2, FI_MR_ENDPOINT, FI_OPT_MIN_MULTI_RECV). */
#define MPIDI_OFI_API FI_VERSION(1, 10)

/* ---- Wire format (doc/methods/ofi.md) ----
 *
 * Every message is one fi_send (or fi_inject) of this header, the core's
 * header and the payload.  The provider does no matching (no FI_TAGGED):
 * the core matches, so the header says who sent it (an RDM endpoint does
 * not tell the receiver without FI_SOURCE, which rxm lacks).  token proves
 * the sender belongs to the job (doc/security.md "ofi"): the first 8 bytes
 * of an HMAC-SHA256 under the job's secret over (src, dst, the receiver's
 * nonce from its card), which only a rank of the job can compute.
 *
 * seq numbers the messages from one sender to one receiver: a provider
 * may complete them out of order (rxm sends a message above its
 * FI_OFI_RXM_BUFFER_SIZE by its own rendezvous, which later small ones
 * overtake), and MPI's order is the core's only if the method hands them
 * over in sending order (doc/methods/ofi.md "Message order"). */
typedef struct MPIDI_OFI_hdr {
    uint32_t src;     /* the sender's world rank */
    uint32_t seq;     /* the pair's message number, from 0, wrapping */
    uint16_t handler; /* the core's handler */
    uint8_t hdr_len;  /* bytes of the core's header after this one */
    uint8_t version;  /* MPIDI_OFI_WIRE_VERSION */
    uint32_t pad;     /* zero: token stays 8-byte aligned */
    uint64_t token;   /* the pair's token (above) */
} MPIDI_OFI_hdr_t;
#define MPIDI_OFI_WIRE_VERSION 2
/* The handler of a keepalive probe (ofi_conn.c): no core message, no seq,
 * dropped by the receiver once its token is checked. */
#define MPIDI_OFI_HANDLER_KEEPALIVE 0xffff
#define MPIDI_OFI_MAX_HDR 64 /* the core's largest header */
#define MPIDI_OFI_NONCE_LEN 16

/* ---- Operation contexts ----
 *
 * Each context handed to libfabric starts with a struct fi_context2, which
 * is the space FI_CONTEXT and FI_CONTEXT2 providers may use, followed by
 * what the completion needs to know. */
typedef enum {
    MPIDI_OFI_CTX_SEND, /* a send buffer: freed by its completion */
    MPIDI_OFI_CTX_RECV, /* a receive buffer (multi-receive or single): dispatched, reposted */
    MPIDI_OFI_CTX_RDMA, /* one piece of an rdma_get/rdma_put */
} MPIDI_OFI_ctx_kind_t;

typedef struct MPIDI_OFI_ctx {
    struct fi_context2 fi; /* first: the provider's space */
    MPIDI_OFI_ctx_kind_t kind;
} MPIDI_OFI_ctx_t;

typedef struct MPIDI_OFI_sbuf {
    MPIDI_OFI_ctx_t ctx;
    struct MPIDI_OFI_sbuf *next; /* on the free list */
    /* While posted: on its peer's list of sends not completed, oldest
     * first (the sending window, ofi_send.c). */
    struct MPIDI_OFI_sbuf *out_prev, *out_next;
    uint32_t seq;
    int peer;      /* while posted: whom it goes to (for an error) */
    int keepalive; /* a probe: not on the peer's list (it has no seq) */
    char *addr;
} MPIDI_OFI_sbuf_t;

/* A message that arrived before one the same peer sent earlier: a copy,
 * held until those before it have been handed to the core. */
typedef struct MPIDI_OFI_held {
    struct MPIDI_OFI_held *next; /* the peer's held messages, by seq */
    uint32_t seq;
    size_t len;
    char data[]; /* the whole message, our header first */
} MPIDI_OFI_held_t;

typedef struct MPIDI_OFI_rbuf {
    MPIDI_OFI_ctx_t ctx;
    char *addr;
    size_t len;
    int posted; /* 0: the provider said -FI_EAGAIN; progress posts it again */
} MPIDI_OFI_rbuf_t;

/* One rdma_get/rdma_put the core gave us, cut into pieces of at most
 * max_rdma bytes (the endpoint's max_msg_size or FERRY_OFI_RDMA_CHUNK).
 * Pieces the provider would not take (-FI_EAGAIN) wait on the peer's queue
 * and are posted again from progress. */
typedef struct MPIDI_OFI_rdma_op {
    struct MPIDI_OFI_rdma_op *next; /* on the peer's queue of operations with pieces left */
    int is_get;
    int peer;
    char *local;
    void *desc; /* the local registration's descriptor (FI_MR_LOCAL), else NULL */
    uint64_t remote, key;
    size_t left; /* bytes not posted yet */
    int pieces_out;
    int err; /* the first error of a piece (an MPI error code) */
    int dropped;
    void *cookie;
} MPIDI_OFI_rdma_op_t;

typedef struct MPIDI_OFI_piece {
    MPIDI_OFI_ctx_t ctx;
    MPIDI_OFI_rdma_op_t *op;
} MPIDI_OFI_piece_t;

typedef struct MPIDI_OFI_peer {
    fi_addr_t addr;     /* FI_ADDR_NOTAVAIL until connect inserted the peer's name */
    uint64_t token_out; /* what our messages to it carry (from its card's nonce) */
    uint64_t token_in;  /* what its messages to us carry */
    int token_in_set;
    int failed;      /* lost: operations toward it fail */
    int fail_report; /* lost, and the core has not been told yet */
    char fail_msg[512];
    int pid;                                    /* on this node: its process id (liveness) */
    int pidfd;                                  /* -1: not watched */
    long long dead_at;                          /* ms when its pidfd fired (0: alive) */
    int keepalive_out;                          /* a keepalive probe not completed */
    int probe_refusals; /* keepalive rounds in a row whose probe the provider refused */
    MPIDI_OFI_rdma_op_t *rdma_head, *rdma_tail; /* operations with pieces left to post */
    int rdma_out;                               /* operations toward it not completed */
    /* Order (doc/methods/ofi.md "Message order"). */
    uint32_t seq_out;                      /* the number of our next message to it */
    MPIDI_OFI_sbuf_t *out_head, *out_tail; /* our sends to it not completed, oldest first */
    uint32_t seq_in;                       /* the number of its next message to hand over */
    MPIDI_OFI_held_t *held;                /* its messages that came early, by seq */
    int nheld;
} MPIDI_OFI_peer_t;

/* FERRY_OFI_FAULT's choices: faults the tests inject to see errors reported. */
enum { MPIDI_OFI_FAULT_NONE, MPIDI_OFI_FAULT_RKEY };

/* Counters of what ran, registered as ofi_<name> (ofi_init.c lists them). */
typedef struct MPIDI_OFI_stats {
    unsigned long sends, injects, recvs, multi_recv_reposts, single_reposts;
    unsigned long reads, read_pieces, writes, write_pieces, rdma_waits;
    unsigned long eagain, no_sbuf, cq_reads, cq_batch_max, cq_errors, strangers, peers_lost;
    unsigned long held, held_max, window_waits, shm_stale, wait_sleeps;
    unsigned long keepalives, keepalives_in;
} MPIDI_OFI_stats_t;

typedef struct MPIDI_OFI_state {
    int rank, size, node_id, forced, verbose;
    const int *node_of;
    int available; /* a provider was found and opened */
    /* libfabric objects. */
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    uint64_t mr_mode;
    int mr_local, mr_virt, mr_prov_key, mr_endpoint;
    int multi_recv;  /* FI_MULTI_RECV in use */
    int can_write;   /* FI_WRITE and FI_REMOTE_WRITE granted */
    int local_only;  /* the provider reaches only this node (shm) */
    int rxm_srx_set; /* we set FI_OFI_RXM_USE_SRX=1 (ofi_info.c says why) */
    size_t inject_size, max_rdma;
    uint64_t key_mask, next_key; /* requested keys (without FI_MR_PROV_KEY) */
    char prov[64], fabric_name[96];
    uint8_t nonce[MPIDI_OFI_NONCE_LEN]; /* published in the card: peers' tokens to us */
    char card[1024];
    /* Sizes (adi/config.c, doc/tuning.md). */
    size_t buf_size;   /* bytes of a send buffer, and of the largest message */
    size_t mrecv_size; /* bytes of a multi-receive buffer */
    int nrbufs, nsbufs, cq_batch;
    int wait_fd; /* the CQ's FI_WAIT_FD descriptor, or -1: polled */
    int window;  /* messages to a peer past its oldest send not completed, at most */
    int fault;
    /* Buffers, registered in one region each when FI_MR_LOCAL. */
    char *rmem, *smem;
    struct fid_mr *rmr, *smr;
    void *rdesc, *sdesc;
    MPIDI_OFI_rbuf_t *rbufs;
    MPIDI_OFI_sbuf_t *sbufs, *sfree;
    int nsfree;
    /* Peers. */
    MPIDI_OFI_peer_t *peers;
    MPIDI_OFI_peer_t **waiting; /* peers with rdma pieces to post */
    int nwaiting;
    int fail_pending;
    int in_progress;
    int finalizing;
    unsigned long recv_events; /* receive completions so far (keepalive: heard anything?) */
    MPIDU_rcache_t *rcache;
    MPIDI_OFI_stats_t stats;
} MPIDI_OFI_state_t;

extern MPIDI_OFI_state_t MPIDI_OFI_state;

/* ofi_info.c: choosing the provider */
/* Asks fi_getinfo for an RDM endpoint with what the method needs; on
 * failure *why_p says what fi_getinfo said. */
int MPIDI_OFI_getinfo(struct fi_info **info_p, char *why, size_t why_len);
/* The text of a libfabric return code (negative). */
const char *MPIDI_OFI_strerror(int ret);
/* ofi_init.c */
int MPIDI_OFI_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
int MPIDI_OFI_get_business_card(char *buf, size_t len);
int MPIDI_OFI_finalize(void);
/* ofi_probe.c */
int MPIDI_OFI_probe(char *buf, size_t len);
/* ofi_conn.c: cards, the address vector, tokens, lost peers */
int MPIDI_OFI_reachable(int peer, const char *card);
int MPIDI_OFI_connect(int peer, const char *card);
uint64_t MPIDI_OFI_token(int src, int dst, const uint8_t nonce[MPIDI_OFI_NONCE_LEN]);
/* Marks the peer lost (reported to the core at the end of progress). */
void MPIDI_OFI_peer_fail(int peer, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void MPIDI_OFI_report_failures(void);
/* Same-node peers are watched through pidfds, the others probed after a
 * silence (keepalive); returns 1 if a peer was found dead or probed. */
int MPIDI_OFI_liveness(void);
/* ofi_send.c */
int MPIDI_OFI_bufs_create(void);
void MPIDI_OFI_bufs_destroy(void);
int MPIDI_OFI_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                      const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                      void *cookie);
void MPIDI_OFI_send_done(MPIDI_OFI_sbuf_t *b);
/* Sends a keepalive probe to the peer: 0 sent, 1 not now (no buffer),
 * 2 refused (-FI_EAGAIN), else the provider's error (negative). */
int MPIDI_OFI_keepalive_send(int peer);
/* ofi_recv.c */
int MPIDI_OFI_recv_post_all(void);
/* Frees the messages held for the peer (lost peer, finalize). */
void MPIDI_OFI_held_drop(int peer);
/* A receive completion: the message at buf of len bytes; flags from the CQ. */
int MPIDI_OFI_recv_done(MPIDI_OFI_rbuf_t *rb, const void *buf, size_t len, uint64_t flags);
/* ofi_rdma.c */
int MPIDI_OFI_rdma_get(int peer, void *local, size_t len, void *local_handle, uint64_t remote_addr,
                       uint64_t rkey, void *cookie);
int MPIDI_OFI_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                       uint64_t remote_addr, uint64_t rkey, void *cookie);
void MPIDI_OFI_rdma_piece_done(MPIDI_OFI_piece_t *pc, int err);
int MPIDI_OFI_rdma_pump_all(void);
void MPIDI_OFI_rdma_drop(int peer);
/* ofi_mr.c */
int MPIDI_OFI_rcache_create(void);
int MPIDI_OFI_mr_reg(void *addr, size_t len, uint64_t access, struct fid_mr **mr_p);
int MPIDI_OFI_mem_reg(void *addr, size_t len, unsigned access, MPIDI_mem_t *mem_p);
int MPIDI_OFI_mem_dereg(void *handle);
void *MPIDI_OFI_desc(void *handle);
/* ofi_progress.c */
int MPIDI_OFI_progress(int *made_progress_p);
/* The CQ's descriptor when the rank may sleep on it now (fi_trywait said
 * so), else -1 (no wait object, or work is pending). */
int MPIDI_OFI_wait_fd(void);

#endif /* OFI_IMPL_H_INCLUDED */
