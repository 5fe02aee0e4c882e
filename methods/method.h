/* method.h: the transport method table (netmod interface) and the upcalls a method may use. */
#ifndef METHOD_H_INCLUDED
#define METHOD_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "segment.h"

/* Status values a method returns besides MPI error codes (which are >= 0).
 * AGAIN is flow control, never an error: the core parks the operation on its
 * deferred queue and retries it from progress, in order per peer. */
#define MPIDI_AGAIN (-1)
/* The operation was accepted but still uses the caller's memory (payload or
 * rdma buffer); the method calls MPIDU_op_done(cookie, ...) when it stops. */
#define MPIDI_INPROGRESS (-2)

/* Rendezvous data movers a method offers (bits of caps.rndv_modes). */
#define MPIDI_RNDV_READ 0x1     /* rdma_get: receiver pulls from sender memory */
#define MPIDI_RNDV_WRITE 0x2    /* rdma_put: sender pushes into receiver memory */
#define MPIDI_RNDV_PIPELINE 0x4 /* CTS then DATA active messages (always possible) */

/* How a peer names memory this method exposed (caps.addr_mode). */
typedef enum {
    MPIDI_ADDR_VIRTUAL, /* the published address is the virtual address (verbs, CMA) */
    MPIDI_ADDR_OFFSET,  /* an offset from the registration's base (libfabric without
                           FI_MR_VIRT_ADDR); needs mem_reg */
} MPIDI_addr_mode_t;

/* Flags of an operations table. */
#define MPIDI_METHOD_ALWAYS                                                                        \
    0x1 /* started whatever FERRY_METHODS says (self: a rank always                                \
           reaches itself) */
#define MPIDI_METHOD_OFF_NODE                                                                      \
    0x2 /* exists to reach other nodes: not started in a job whose                                 \
           ranks all share one node once a node-scope method runs                                  \
           (shm reaches them all and wins by exclusivity), unless                                  \
           FERRY_METHODS names it */

/* Flags of am_send. */
#define MPIDI_AM_FENCE                                                                             \
    0x1 /* deliver only after every rdma operation issued earlier to                               \
           this peer has completed (verbs IBV_SEND_FENCE, FI_FENCE);                               \
           a method whose rdma completes before returning ignores it */
#define MPIDI_AM_ASKS_DATA                                                                         \
    0x2 /* a hint: the peer answers this message with DATA carrying                                \
           a payload (a pipeline CTS), so a method that reads a byte                               \
           stream may read the next frame's header alone and the                                   \
           payload straight into place (tcp); ignoring it is correct */

/* Access rights asked of mem_reg (a method may grant more). */
#define MPIDI_MEM_LOCAL_WRITE 0x1  /* the method writes into it (destination of rdma_get) */
#define MPIDI_MEM_REMOTE_READ 0x2  /* the peer reads it (the source an RTS offers) */
#define MPIDI_MEM_REMOTE_WRITE 0x4 /* the peer writes it (the buffer a CTS offers) */

/* One registration, as mem_reg returns it. */
typedef struct MPIDI_mem {
    void *handle;         /* the method's own object: given back to rdma_get/rdma_put as
                             the local handle, and to mem_dereg */
    uint64_t key;         /* what the peer passes as rkey (caps.key_size bytes matter) */
    uint64_t remote_addr; /* how the peer names the registered address itself (a virtual
                             address or an offset, caps.addr_mode); byte k of the buffer
                             is remote_addr + k */
} MPIDI_mem_t;

/* What the core tells a method about the job at init. */
typedef struct MPIDI_job {
    int rank;            /* world rank of this process */
    int size;            /* world size */
    const char *kvsname; /* unique per job: use it to name shared objects */
    const char *hostname;
    int node_id;            /* index of this node (ranks with equal node ids share a host) */
    int nlocal;             /* ranks on this node, including this one */
    int local_index;        /* this rank's position among them */
    const int *local_ranks; /* world ranks on this node, ascending; nlocal entries */
    const int *node_of;     /* node id of every world rank; size entries */
    int forced;             /* 1 when FERRY_METHODS names this method: it should reach every
                               peer it can, also on its own node */
    int oversubscribed;     /* more ranks on this node than CPUs: waiting ranks may sleep */
} MPIDI_job_t;

/* Which peers a method can reach at all, known from the job description
 * alone: the core fetches no business card of a peer outside the scope. */
typedef enum {
    MPIDI_SCOPE_ANY = 0, /* any rank (a network): its card decides */
    MPIDI_SCOPE_NODE,    /* only ranks of this node (shared memory) */
    MPIDI_SCOPE_SELF,    /* only this rank */
} MPIDI_method_scope_t;

/* Limits and capabilities a method reports from init. */
typedef struct MPIDI_method_caps {
    size_t size;         /* sizeof(MPIDI_method_caps_t), so the struct can grow */
    size_t max_hdr;      /* largest header am_send accepts */
    size_t eager_limit;  /* default largest payload sent eagerly */
    size_t max_send;     /* largest payload of one am_send (pipeline chunk bound) */
    unsigned rndv_modes; /* MPIDI_RNDV_* mask */
    /* Remote memory access.  needs_reg: memory a peer reads or writes must be
     * registered with mem_reg, and the peer needs its key and remote_addr.
     * needs_local_reg: the local buffer of rdma_get/rdma_put needs a handle
     * from mem_reg too (verbs lkey, FI_MR_LOCAL); otherwise the core passes
     * NULL. */
    int needs_reg;
    int needs_local_reg;
    unsigned key_size;           /* bytes of a key that matter (verbs 4, libfabric up to 8);
                                    keys travel as 64 bits */
    MPIDI_addr_mode_t addr_mode; /* MPIDI_ADDR_OFFSET requires needs_reg */
    /* A noncontiguous buffer meets a contiguous one by one rdma operation per
     * contiguous piece when the pieces average at least this many bytes
     * (each operation has a fixed cost, a pack copy a cost per byte); 0: never,
     * use the pipeline (or, for a read into registered memory, the bounce
     * buffer).  A forced FERRY_RNDV_PROTOCOL takes the per-piece path
     * whatever the average, where this is not 0. */
    size_t rndv_iov_min_piece;
    int exclusivity;            /* among methods that reach a peer, the highest wins */
    MPIDI_method_scope_t scope; /* left 0: MPIDI_SCOPE_ANY */
    /* 1: reachable and connect need nothing from the peer (the job's node
     * map is enough, as for self and shm): no card is published or fetched,
     * which spares every rank a PMI get per peer at its first message. */
    int cardless;
} MPIDI_method_caps_t;

typedef struct MPIDI_method_ops {
    size_t size; /* sizeof(MPIDI_method_ops_t), so the table can grow */
    const char *name;
    unsigned flags; /* MPIDI_METHOD_* */

    /* Lifecycle.  init creates local resources; every rank's business card is
     * published as P<rank>-<name> before a barrier (unless caps.cardless),
     * then post_init runs. */
    int (*init)(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
    int (*get_business_card)(char *buf, size_t len);
    int (*post_init)(void); /* optional: after every rank has initialised */
    /* Completes or drops all outstanding work; no more upcalls after it. */
    int (*finalize)(void);

    /* Connectivity.  reachable returns 1 if this method can carry traffic to
     * peer (whose card is given), 0 if not.  connect may be lazy. */
    int (*reachable)(int peer, const char *card);
    int (*connect)(int peer, const char *card);

    /* Active message: header hdr[0..hdr_len) followed by the payload bytes
     * [first, last) of seg (seg may be NULL when first == last).  The header is
     * copied before return.  Returns MPI_SUCCESS when the payload has been
     * copied out too, MPIDI_INPROGRESS when the method still reads seg's
     * memory (it calls MPIDU_op_done(cookie) when done), MPIDI_AGAIN when it
     * took nothing, or an MPI error code.  Messages to one peer arrive in the
     * order they were accepted.  flags: MPIDI_AM_*.  cookie NULL: seg's
     * memory is valid only during the call (a blocking send without a
     * request, a control message), so the method copies what it keeps and
     * never returns MPIDI_INPROGRESS. */
    int (*am_send)(int peer, int handler, const void *hdr, size_t hdr_len, const MPIR_Segment *seg,
                   size_t first, size_t last, unsigned flags, void *cookie);

    /* Polls the method and dispatches what arrived.  Sets *made_progress_p to 1
     * only when something really happened (a message or a completion). */
    int (*progress)(int *made_progress_p);

    /* Optional rendezvous movers (see rndv_modes): len bytes between local
     * (covered by local_handle, a registration from mem_reg, when
     * caps.needs_local_reg; else NULL) and the peer's remote_addr, named with
     * rkey, both as the peer's mem_reg published them.  The method splits
     * what its device cannot do in one operation.  Returns MPI_SUCCESS (all
     * done), MPIDI_INPROGRESS (MPIDU_op_done(cookie, err) follows: an error
     * there fails the transfer), MPIDI_AGAIN (took nothing; the core retries
     * it from progress, never falls back), or an MPI error code, which means
     * the method refuses this transfer (CMA not permitted, no registration):
     * the core falls back to the pipeline. */
    int (*rdma_get)(int peer, void *local, size_t len, void *local_handle, uint64_t remote_addr,
                    uint64_t rkey, void *cookie);
    int (*rdma_put)(int peer, const void *local, size_t len, void *local_handle,
                    uint64_t remote_addr, uint64_t rkey, void *cookie);
    /* Optional (needs_reg): registers [addr, addr + len) with at least the
     * MPIDI_MEM_* rights in access and fills *mem_p.  Methods keep a
     * registration cache (methods/util/rcache.h), so this is cheap when the
     * buffer was registered before.  An error means "not registrable": the
     * core uses the pipeline. */
    int (*mem_reg)(void *addr, size_t len, unsigned access, MPIDI_mem_t *mem_p);
    int (*mem_dereg)(void *handle);

    /* Optional, for ferry_info: whether the method can run on this machine,
     * found without a job (devices and ports, permissions, addresses, as
     * FERRY_ variables select them; the registry is read).  Writes lines
     * into buf, the first a summary, each later one a detail; returns 1 if
     * usable, 0 if not (the lines say why).  NULL: always usable. */
    int (*probe)(char *buf, size_t len);

    /* Optional wait object: arms the method's notifications and returns a
     * file descriptor that becomes readable when progress has work (a
     * completion, a connection event), or -1 when it cannot block now.  The
     * agent calls progress once more after arming before it sleeps, so an
     * event that came just before is not missed; progress consumes what
     * made the descriptor readable. */
    int (*wait_fd)(void);

    /* Optional doorbell for a method whose peers write to shared memory, used
     * only on an oversubscribed node: arms it and returns a 32-bit word in
     * memory shared with the peers (futex, not private), with *seen_p the value
     * it held before arming, or NULL when it cannot sleep now.  A peer that
     * sends to this process after the arming changes the word and wakes its
     * sleepers.  As with wait_fd, the agent calls progress once more after
     * arming and then sleeps (FUTEX_WAIT on the word, bounded); waking
     * needs nothing from the method. */
    _Atomic uint32_t *(*wait_word)(uint32_t *seen_p);

    /* Optional: called after every progress pass, once the core has retried
     * its deferred operations.  A method may hold back what it was asked to
     * send during the pass and post it all here (verbs: one doorbell per
     * connection for the replies of a completion batch and the sends its
     * returned credits released).  What the application sends outside a
     * pass must not wait for this. */
    void (*progress_done)(void);

    /* Optional: a word that is 0 exactly when progress would find nothing
     * (self: the count of queued messages).  The agent then skips the call:
     * an idle poll costs what the methods that must look at shared memory or
     * the network cost, nothing for the others. */
    const int *work_hint;
} MPIDI_method_ops_t;

/* ---- Upcalls into the core (implemented in adi/) ---- */

/* Delivers one incoming active message.  hdr and payload are valid only
 * during the call; the core copies what it keeps. */
void MPIDU_am_dispatch(int peer, int handler, const void *hdr, size_t hdr_len, const void *payload,
                       size_t payload_len);
/* Optional receive in place, for methods that read a byte stream (tcp).
 * When the header of an active message has arrived but not its payload of
 * payload_len bytes, a method may ask the core where that payload belongs.
 * NULL: nothing was decided; collect the payload and MPIDU_am_dispatch the
 * message as usual.  A token: the message has taken its place in MPI order
 * (an EAGER message matched its receive, a DATA chunk found its request),
 * and the method ends it with MPIDU_am_recv_done(token, ...).  If *dst_p is
 * not NULL the method writes the payload there (payload_len contiguous bytes
 * of the user's buffer) and passes payload NULL; if *dst_p is NULL it
 * collects the payload in memory of its own and passes that.  A method that
 * cannot finish (the peer is lost) passes mpi_errno != 0 instead, then calls
 * MPIDU_peer_failed, which completes the request with the error. */
void *MPIDU_am_recv_begin(int peer, int handler, const void *hdr, size_t hdr_len,
                          size_t payload_len, void **dst_p);
void MPIDU_am_recv_done(void *token, const void *payload, int mpi_errno);
/* An operation that returned MPIDI_INPROGRESS is finished (mpi_errno is
 * MPI_SUCCESS or an error code for it). */
void MPIDU_op_done(void *cookie, int mpi_errno);
/* The connection to peer is lost: every request involving it fails with
 * mpi_errno, and msg (naming the peer and the cause) is reported. */
void MPIDU_peer_failed(int peer, int mpi_errno, const char *msg);

/* Builds an MPI error code of class errclass whose MPI_Error_string is the
 * formatted message; the function that first detects an error calls it. */
int MPIDU_err_create(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message of an error code (as MPI_Error_string gives it). */
const char *MPIDU_err_string(int code);

/* Where the job's secret came from (doc/security.md). */
typedef enum {
    MPIDI_JOB_KEY_LAUNCHER, /* our mpiexec, over each rank's own PMI connection */
    MPIDI_JOB_KEY_KVS,      /* drawn by rank 0 and put in another process manager's KVS */
} MPIDI_job_key_source_t;
/* The job's secret (at least 128 random bits, the same on every rank), for
 * proving that a connection comes from a rank of this job; source_p may be
 * NULL.  Valid after init; the first call may make a PMI round trip. */
int MPIDU_job_key(const unsigned char **key_p, size_t *len_p, MPIDI_job_key_source_t *source_p);

/* Appends one line (formatted, newline added) to a probe report of len
 * bytes; a full report keeps what it has. */
void MPIDU_probe_line(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Registers a counter the method increments itself (an unsigned long that stays valid until
 * MPI_Finalize), under the name FERRY_VERBOSE=1 prints and tests read from FERRY_STATS_FILE:
 * lower-case letters, digits and '_', prefixed by the method ("tcp_recv_in_place").  A name
 * ending in "_max" is a maximum (tests take the largest over the ranks), any other a count
 * (summed).  Call it from init; returns an MPI error code (bad or duplicate name). */
int MPIDU_stat_register(const char *name, const unsigned long *counter_p);
/* A method's counters as one table, registered in order (the first error stops it). */
typedef struct {
    const char *name;
    const unsigned long *counter;
} MPIDU_stat_t;
int MPIDU_stat_register_all(const MPIDU_stat_t *table, size_t n);

/* Configuration values (adi/config.c) a method may read. */
long MPIDU_config_int(const char *name);
const char *MPIDU_config_str(const char *name);
/* 1 when the user set the variable, 0 when it has its default: a method may
 * then size what is left to it to the host (shm's cells to /dev/shm). */
int MPIDU_config_is_set(const char *name);

/* The methods compiled in (methods/methods.c). */
extern const MPIDI_method_ops_t *const MPIDI_methods_all[];
/* Adds a method from outside the library (a test's fake method), before
 * MPI_Init; it is then chosen like the built-in ones.  Returns 0, or -1 when
 * the table is full or it is too late. */
int MPIDU_method_add(const MPIDI_method_ops_t *ops);
/* The i-th method known (built in, then added), NULL past the end. */
const MPIDI_method_ops_t *MPIDI_method_at(int i);

#endif /* METHOD_H_INCLUDED */
