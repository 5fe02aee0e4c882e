/* shm_impl.h: segment layout, per-process state and internal prototypes of the shm method. */
#ifndef SHM_IMPL_H_INCLUDED
#define SHM_IMPL_H_INCLUDED

#include "method.h"
#include <stdatomic.h>
#include <stddef.h>
#include <poll.h>
#include <stdint.h>
#include <sys/types.h>

/* Every object shared between processes lives in one POSIX segment per node
 * that each process maps at its own address, so the segment holds only
 * offsets from its base (0 means "none": offset 0 is a control block, never a
 * cell).  The atomics below are used across processes, which is only sound
 * when they are lock-free (a lock-based atomic would use a process-local
 * lock); init checks that at run time for the 64-bit ones. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "shm needs lock-free 32-bit atomics");

#define MPIDI_SHM_CACHELINE 64
#define MPIDI_SHM_PAGE 4096

/* Largest active-message header.  The ADI's headers are a few dozen bytes;
 * 64 keeps the whole cell header in two cache lines. */
#define MPIDI_SHM_MAX_HDR 64

/* Messages dispatched per progress call at most, so a flood from shm cannot
 * starve the other methods the communication agent polls. */
#define MPIDI_SHM_POLL_BUDGET 32

/* Per-pair rings (shm_ring.h): the default size of each, and the bounds of
 * FERRY_SHM_RING_SIZE.  1 MiB: against 64 KiB, windows of 64 messages of
 * 64 B - 8 KiB went 1.2-2.1x faster one way and up to 1.6x both ways, with
 * no message through a cell in either (doc/methods/shm.md, "Rings of 1
 * MiB").  With more than 4 ranks on a node the default shrinks so that the
 * rings of a node stay under MPIDI_SHM_RING_AUTO_TOTAL (nlocal^2 rings):
 * 256 KiB for 8 ranks, 64 KiB for 16. */
#define MPIDI_SHM_RING_SIZE_DEFAULT (1024 * 1024)
#define MPIDI_SHM_RING_SIZE_MIN 1024
#define MPIDI_SHM_RING_SIZE_MAX (16L << 20)
#define MPIDI_SHM_RING_AUTO_TOTAL (16L << 20)
#define MPIDI_SHM_RING_AUTO_MIN 4096

/* How long a local rank waits for local rank 0 to create the segment.  All
 * of them passed a job-wide barrier just before, so rank 0 is alive and
 * only needs its turn on a CPU; 30 s covers hundreds of ranks per core. */
#define MPIDI_SHM_ATTACH_WAIT_MS 30000
/* How often a rank sleeping until the node's ranks are ready wakes to see
 * whether one of them failed (it removes the segment's name). */
#define MPIDI_SHM_READY_CHECK_MS 16

/* Hot and cold rings (shm_progress.c): with more than MPIDI_SHM_HOT_ALL
 * senders' rings joined, a poll looks at the rings that delivered lately (hot)
 * on every call and at the others (cold) on every MPIDI_SHM_COLD_POLL_EVERY-th
 * call, where a ready one turns hot; every MPIDI_SHM_HOT_EPOCH of those full
 * polls, the hot rings that delivered nothing since the last look turn cold.
 * An idle poll then costs what it costs with a few peers, however many ranks
 * the node has sent from once. */
#define MPIDI_SHM_HOT_ALL 4
#define MPIDI_SHM_COLD_POLL_EVERY 16
#define MPIDI_SHM_HOT_EPOCH 256

/* Progress calls between looks at the clock for the liveness check
 * (shm_liveness.c): the busy path pays nothing measurable. */
#define MPIDI_SHM_LIVENESS_POLL_EVERY 256

/* A cell whose handler is this carries a request to share a CMA read
 * (shm_cma.c), not an active message: core handlers are never negative. */
#define MPIDI_SHM_HANDLER_HELP (-1)
/* Shared reads a rank waits on at once at most; more are read alone. */
#define MPIDI_SHM_HELP_MAX 16

/* Defaults of the tunables (doc/methods/shm.md, doc/tuning.md). */
#define MPIDI_SHM_CELL_SIZE_DEFAULT 65536
#define MPIDI_SHM_CMA_SPLIT_AUTO (128 * 1024) /* FERRY_SHM_CMA_SPLIT=-1 (doc/methods/shm.md) */
#define MPIDI_SHM_EAGER_AUTO (8 * 1024)       /* FERRY_SHM_EAGER_LIMIT=-1 (doc/methods/shm.md) */
/* FERRY_SHM_NUM_CELLS unset halves the default down to this while the segment
 * would take more than MPIDI_SHM_ROOM_SHARE_QUARTERS of /dev/shm (shm_init.c). */
#define MPIDI_SHM_NUM_CELLS_AUTO_MIN 8
/* The share of /dev/shm's size (in quarters) a node's segment takes at most
 * when its sizes are left to Ferry; the auto ring sizes take at most a
 * quarter of that. */
#define MPIDI_SHM_ROOM_SHARE_QUARTERS 3
#define MPIDI_SHM_CELL_SIZE_MIN 256
#define MPIDI_SHM_CELL_SIZE_MAX (1L << 30)
/* A ring entry carries 16 bits of the pair's sequence number (shm.md). */
#define MPIDI_SHM_NUM_CELLS_MAX 32768

typedef uint64_t MPIDI_SHM_off_t; /* offset from the segment base */

/* A multi-producer single-consumer queue of cells.  head and tail sit on
 * separate cache lines: producers hammer tail, the consumer reads head. */
typedef struct MPIDI_SHM_queue {
    _Alignas(MPIDI_SHM_CACHELINE) _Atomic MPIDI_SHM_off_t head;
    _Alignas(MPIDI_SHM_CACHELINE) _Atomic MPIDI_SHM_off_t tail;
} MPIDI_SHM_queue_t;

/* The start of each process's region; written by its owner at init. */
typedef struct MPIDI_SHM_ctrl {
    _Alignas(MPIDI_SHM_CACHELINE) uint64_t cell_size; /* checked against local rank 0's */
    uint64_t num_cells;
    uint64_t nlocal;
    uint64_t ring_size; /* checked too: the rings are part of the layout */
    /* Only local rank 0's counts: how many local ranks have initialised their
     * region (start-up waits on this one word, not on every region).  32 bits:
     * it is also the futex the waiting ranks sleep on. */
    _Atomic uint32_t nready;
    /* Only local rank 0's counts: set by a rank that found the segment of
     * another size (another geometry) before it counted itself. */
    _Atomic uint32_t geometry_failed;
    /* How many senders have set their bit in this region's joined bitmap:
     * the owner polls only the rings of senders that have used them, and
     * rescans the bitmap only when this count moves. */
    _Atomic uint32_t ring_joins;
    /* 1 while the owner reads from a peer with CMA (shm_cma.c): a reader
     * does not ask a peer that is busy reading to help it (windows both
     * ways); written by the owner around each read, read by a peer before
     * each read it could share. */
    _Atomic uint32_t reading;
    /* The owner's doorbell, used only on an oversubscribed node (shm_wait.c):
     * the owner sets sleeping before it sleeps on bell (a futex); a sender
     * that finds it set clears it, bumps bell and wakes the owner.  A line of
     * its own: senders read it at every message of such a job. */
    _Alignas(MPIDI_SHM_CACHELINE) _Atomic uint32_t sleeping;
    _Atomic uint32_t bell;
    MPIDI_SHM_queue_t recvq; /* cells sent to this process */
    MPIDI_SHM_queue_t freeq; /* this process's cells handed back by receivers */
} MPIDI_SHM_ctrl_t;

/* What a local peer's liveness watch needs of each process, in one table
 * (local rank 0's region holds the node's): the watch reads a few pages,
 * not a page of every region (which cost a page table per peer and made
 * start-up and exit grow with the square of the ranks on the node). */
typedef struct MPIDI_SHM_roster {
    uint64_t pid;               /* for pidfd_open, kill and process_vm_readv/writev */
    uint64_t pidns;             /* inode of its pid namespace (0: unknown) */
    _Atomic uint32_t finalized; /* set by the owner's finalize: its exit is no failure */
    uint32_t reserved;
} MPIDI_SHM_roster_t;

/* Cell header; the payload follows at MPIDI_SHM_CELL_HDR_SIZE.  Cells belong
 * to the sender's pool and go back to the sender's free queue after use. */
typedef struct MPIDI_SHM_cell {
    _Atomic MPIDI_SHM_off_t next; /* queue link; only one queue holds a cell at a time */
    uint32_t seq;                 /* per (sender, receiver) sequence, shared with the rings */
    uint16_t src;                 /* sender's local index (also owner of the cell) */
    uint16_t hdr_len;
    int32_t handler;
    uint32_t reserved;
    uint64_t payload_len;
    _Alignas(MPIDI_SHM_CACHELINE) char hdr[MPIDI_SHM_MAX_HDR];
} MPIDI_SHM_cell_t;
#define MPIDI_SHM_CELL_HDR_SIZE sizeof(MPIDI_SHM_cell_t) /* payload is 64-byte aligned */
_Static_assert(sizeof(MPIDI_SHM_cell_t) == 128, "cell header layout (doc/methods/shm.md)");

/* A shared CMA read (shm_cma.c): the reader of a large rdma_get cuts it in
 * chunks and asks the owner of the memory, in a cell of the reader's (in
 * cell->hdr), to help: the reader takes chunks from the front and reads
 * them, the helper takes chunks from the back and writes them into the
 * reader's buffer with process_vm_writev, until none is left, so both CPUs
 * copy.  `taken` counts the chunks each side took (front in the low half,
 * back in the high half), advanced by compare-and-swap.  The cell stays the
 * reader's: the helper CLAIMED it before taking chunks and stores DONE or
 * REFUSED after its last access (then the reader puts the cell back on its
 * free stack); a reader that ran out of chunks before the helper came TOOK
 * it BACK, and the helper, finding the cell in its queue later, hands it
 * back as any cell. */
typedef enum {
    MPIDI_SHM_HELP_POSTED = 1,
    MPIDI_SHM_HELP_CLAIMED,
    MPIDI_SHM_HELP_DONE,
    MPIDI_SHM_HELP_REFUSED, /* a write of the helper's failed (err): the reader reads its chunks */
    MPIDI_SHM_HELP_TAKEN_BACK,
} MPIDI_SHM_help_state_t;

typedef struct MPIDI_SHM_help {
    _Atomic uint32_t state; /* MPIDI_SHM_help_state_t */
    int32_t err;            /* the helper's errno with REFUSED */
    _Atomic uint64_t taken; /* chunks taken: from the front (low 32 bits), from the back (high) */
    uint64_t dst;           /* the whole read: in the reader's address space */
    uint64_t src;           /* in the helper's */
    uint64_t len;
    uint64_t chunk; /* bytes per chunk (the last may be shorter) */
    uint32_t nchunks;
} MPIDI_SHM_help_t;

/* The reader's side of a shared read that the helper claimed: completed
 * from progress (MPIDU_op_done) when the helper is done. */
typedef struct MPIDI_SHM_help_wait {
    MPIDI_SHM_cell_t *cell;
    int li;
    void *cookie;
} MPIDI_SHM_help_wait_t;

/* The shared part of the ring from one sender to one receiver (in the
 * receiver's region): the receiver's count of bytes it has finished with,
 * alone on its line, then ring_size bytes of entries (shm_ring.h). */
typedef struct MPIDI_SHM_ring {
    _Alignas(MPIDI_SHM_CACHELINE) _Atomic uint64_t consumed;
} MPIDI_SHM_ring_t;
#define MPIDI_SHM_RING_DATA_OFF MPIDI_SHM_CACHELINE

/* The sender's private view of one ring: where it is, bytes written so far,
 * and the receiver's consumed count as last read (re-read only when the ring
 * looks full, so the sender does not pull the receiver's line on every
 * message). */
typedef struct MPIDI_SHM_ring_tx {
    MPIDI_SHM_ring_t *ring; /* NULL for ourselves */
    uint64_t head;
    uint64_t consumed_seen;
    int joined; /* our bit is set in the receiver's joined bitmap */
} MPIDI_SHM_ring_tx_t;

/* The receiver's private view: where the ring is, the next byte to read, and
 * what it last published in the ring's consumed.  The ring from ourselves
 * points at a length word that stays 0, so the poll needs no test for it. */
typedef struct MPIDI_SHM_ring_rx {
    /* The length word at tail, where the next entry will appear: an idle
     * poll loads it and nothing else (kept with tail). */
    const _Atomic uint32_t *watch;
    MPIDI_SHM_ring_t *ring;
    char *data;
    uint64_t tail;
    uint64_t published;
    int used; /* delivered since the last look for quiet hot rings */
} MPIDI_SHM_ring_rx_t;

/* What this process knows about a local peer's life (shm_liveness.c). */
typedef enum {
    MPIDI_SHM_PEER_ALIVE,     /* running (or not checked yet) */
    MPIDI_SHM_PEER_DRAINING,  /* ended; what it sent before is still being delivered */
    MPIDI_SHM_PEER_FAILED,    /* ended without finalizing; the core has been told */
    MPIDI_SHM_PEER_UNWATCHED, /* finalized, or not watchable (another pid namespace) */
} MPIDI_SHM_peer_state_t;

/* Per-process (private) state. */
typedef struct MPIDI_SHM_state {
    char *base; /* where this process mapped the segment */
    size_t seg_size;
    char name[256]; /* shm_open name, kept to unlink */
    int created;    /* this process made the segment (local rank 0) */
    int opened;     /* this process opened it (checked ours): its failure removes the name */
    int unlinked;

    int me; /* local index */
    int nlocal;
    int node_id;
    int world_size;
    int *local_ranks;    /* local index -> world rank */
    int *world_to_local; /* world rank -> local index, -1 when not on this node */

    size_t cell_size;
    size_t num_cells;
    int cells_auto;     /* FERRY_SHM_NUM_CELLS unset: num_cells may shrink to fit room */
    size_t room;        /* bytes the segment may take when left to Ferry; 0: unknown */
    size_t region_size; /* bytes per process region, page aligned */
    size_t roster_off;  /* roster offset inside a region (only region 0's is used) */
    size_t joined_off;  /* joined bitmap offset inside a region: bit s, s has used its ring */
    size_t rings_off;   /* ring array offset inside a region (ring s carries s -> owner) */
    size_t ring_size;   /* data bytes of each ring, a power of two; 0: no rings */
    size_t ring_mask;   /* ring_size - 1 */
    size_t ring_stride; /* bytes from one ring to the next: MPIDI_SHM_RING_DATA_OFF + ring_size */
    size_t ring_max;    /* largest entry (headers and payload) that goes through a ring */
    size_t cells_off;   /* first cell offset inside a region */
    int cma_enabled;    /* FERRY_SHM_CMA and no EPERM/ENOSYS seen */
    size_t cma_split;   /* FERRY_SHM_CMA_SPLIT: smallest read shared with its peer; 0: none */
    size_t eager_limit; /* FERRY_SHM_EAGER_LIMIT, resolved (a cell's payload caps it) */
    int ring_prefault;  /* FERRY_SHM_RING_PREFAULT: populate a ring's pages at its first use */

    uint32_t *send_seq;           /* next sequence to each local peer */
    uint32_t *recv_seq;           /* next sequence expected from each local peer */
    MPIDI_SHM_ring_tx_t *ring_tx; /* per local peer: our ring into its region */
    MPIDI_SHM_ring_rx_t *ring_rx; /* per local peer: its ring into ours */
    int *ring_active;             /* local indices of the senders whose rings we poll */
    int nring_active;
    int nring_hot;            /* ring_active[0, nring_hot) are hot, polled on every call */
    int tick_countdown;       /* calls until the next tick: a full poll, the liveness count */
    int epoch_countdown;      /* full polls until the next look for quiet hot rings */
    int ring_cursor;          /* where the next sweep of the hot rings starts (fairness) */
    uint64_t *ring_seen_bits; /* the joined bits already in ring_active */
    uint32_t ring_joins_seen; /* our ctrl's ring_joins when ring_active was last updated */

    MPIDI_SHM_off_t *free_stack; /* own free cells, private; num_cells entries */
    size_t nfree;
    MPIDI_SHM_off_t recvq_shadow; /* consumer-private heads (nemesis "my_head") */
    MPIDI_SHM_off_t freeq_shadow;

    int in_progress; /* re-entrancy guard: a handler that calls progress gets nothing */

    /* Counters (FERRY_STATS_FILE, registered in init): which path messages took. */
    unsigned long stat_ring_sent;      /* messages sent through a ring */
    unsigned long stat_ring_bytes_max; /* the largest payload sent through a ring */
    unsigned long stat_ring_full;      /* small enough for a ring, but it was full: a cell */
    unsigned long stat_ring_wrap;      /* entries that went back to the start of a ring */
    unsigned long stat_ring_cooled;    /* hot rings that turned cold (quiet for an epoch) */
    unsigned long stat_ring_warmed;    /* cold rings that turned hot (a full poll found data) */
    unsigned long stat_cell_sent;      /* messages sent in a cell */
    unsigned long stat_cma_split;      /* reads whose second part we asked the peer to write */
    unsigned long stat_cma_taken_back; /* ... which the peer did not join in time: read alone */
    unsigned long stat_cma_helped;     /* chunks we wrote into a peer's buffer for its read */
    unsigned long stat_cma_peer_busy;  /* reads not shared: the peer was reading itself */

    /* Shared reads the helper claimed, completed from progress. */
    MPIDI_SHM_help_wait_t help_wait[MPIDI_SHM_HELP_MAX];
    int nhelp_wait;
    int doorbell; /* the node is oversubscribed: ring a sleeping receiver (shm_wait.c) */
    /* Peer liveness (shm_liveness.c). */
    long liveness_ms;      /* FERRY_SHM_LIVENESS_MS; 0: not watching */
    struct pollfd *pidfds; /* local index -> pidfd (fd -1: none, kill(pid, 0) then) */
    int pidfds_opened;     /* pidfds are opened at the first check */
    MPIDI_SHM_peer_state_t *peer_state;
    MPIDI_SHM_off_t *drain_mark; /* DRAINING: the cell to dequeue before failing; 0: done */
    int ndraining;
    int nfailed;        /* peers in MPIDI_SHM_PEER_FAILED: am_send checks only when non-zero */
    int live_countdown; /* ticks (shm_progress.c) until the next liveness look */
    long long next_check_ms;
} MPIDI_SHM_state_t;

extern MPIDI_SHM_state_t MPIDI_SHM_state;

static inline void *MPIDI_SHM_abs(MPIDI_SHM_off_t off)
{
    return MPIDI_SHM_state.base + off;
}

static inline MPIDI_SHM_off_t MPIDI_SHM_rel(const void *p)
{
    return (MPIDI_SHM_off_t)((const char *)p - MPIDI_SHM_state.base);
}

static inline MPIDI_SHM_ctrl_t *MPIDI_SHM_ctrl(int local)
{
    return (MPIDI_SHM_ctrl_t *)(MPIDI_SHM_state.base + (size_t)local * MPIDI_SHM_state.region_size);
}

static inline MPIDI_SHM_roster_t *MPIDI_SHM_roster(int local)
{
    return (MPIDI_SHM_roster_t *)(MPIDI_SHM_state.base + MPIDI_SHM_state.roster_off) + local;
}

/* A local peer's pid, read from the roster whenever asked: written once
 * before its owner counts itself ready (post_init's wait orders it), then
 * never changed, so there is nothing to cache privately. */
static inline pid_t MPIDI_SHM_pid(int local)
{
    return (pid_t)MPIDI_SHM_roster(local)->pid;
}

/* The receiver's bitmap of the senders that have used their ring to it. */
static inline _Atomic uint64_t *MPIDI_SHM_joined(int receiver)
{
    return (_Atomic uint64_t *)(MPIDI_SHM_state.base +
                                (size_t)receiver * MPIDI_SHM_state.region_size +
                                MPIDI_SHM_state.joined_off);
}

/* The ring in receiver's region that sender writes. */
static inline MPIDI_SHM_ring_t *MPIDI_SHM_ring(int sender, int receiver)
{
    return (MPIDI_SHM_ring_t *)(MPIDI_SHM_state.base +
                                (size_t)receiver * MPIDI_SHM_state.region_size +
                                MPIDI_SHM_state.rings_off +
                                (size_t)sender * MPIDI_SHM_state.ring_stride);
}

/* Lifecycle and connectivity (shm_init.c). */
void MPIDI_SHM_ring_prefault(MPIDI_SHM_ring_t *ring, int for_write);
int MPIDI_SHM_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p);
int MPIDI_SHM_post_init(void);
int MPIDI_SHM_probe(char *buf, size_t len);
/* Whether the kernel's ptrace rules let this node's ranks read each other's memory (CMA), after
 * lifting what can be lifted (Yama scope 1); 0 with the reason in why otherwise (shm_cma.c). */
int MPIDI_SHM_cma_setup(char *why, size_t len);
/* Yama's kernel.yama.ptrace_scope, or -1 when the kernel has no Yama (shm_cma.c). */
int MPIDI_SHM_yama_scope(void);
int MPIDI_SHM_finalize(void);
int MPIDI_SHM_get_business_card(char *buf, size_t len);
int MPIDI_SHM_reachable(int peer, const char *card);
int MPIDI_SHM_connect(int peer, const char *card);

/* Data path. */
int MPIDI_SHM_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                      const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                      void *cookie);
int MPIDI_SHM_progress(int *made_progress_p);
void MPIDI_SHM_reclaim_cells(void);
MPIDI_SHM_cell_t *MPIDI_SHM_cell_take(void);
void MPIDI_SHM_cell_untake(MPIDI_SHM_cell_t *cell);
void MPIDI_SHM_cell_post(int li, MPIDI_SHM_cell_t *cell);
int MPIDI_SHM_rdma_get(int peer, void *local, size_t len, void *local_handle, uint64_t remote_addr,
                       uint64_t rkey, void *cookie);
int MPIDI_SHM_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                       uint64_t remote_addr, uint64_t rkey, void *cookie);
/* Shared reads (shm_cma.c): the helper's side of a HELP cell from local
 * sender s (1: the cell stays its owner's; 0: hand it back as usual), and
 * the reader's poll of the reads its helpers claimed (the count completed). */
int MPIDI_SHM_help_run(int s, MPIDI_SHM_cell_t *cell);
int MPIDI_SHM_help_poll(void);
/* Forgets the shared reads waiting on local peer li, which died. */
void MPIDI_SHM_help_drop(int li);

/* The doorbell (shm_wait.c): the agent's wait_word, and the sender's side. */
_Atomic uint32_t *MPIDI_SHM_wait_word(uint32_t *seen_p);
void MPIDI_SHM_ring_bell(int li);
/* After a message to local peer li is published: wakes li if it sleeps.
 * Only on an oversubscribed node, so other jobs' sends pay one branch. */
static inline void MPIDI_SHM_wake(int li)
{
    if (MPIDI_SHM_state.doorbell)
        MPIDI_SHM_ring_bell(li);
}

/* Peer liveness (shm_liveness.c). */
void MPIDI_SHM_liveness_init(void);
void MPIDI_SHM_liveness_finalize(void);
/* Throttled: looks at the peers' processes every FERRY_SHM_LIVENESS_MS. */
void MPIDI_SHM_liveness_check(void);
/* The consumer took cell (offset) from its queue. */
void MPIDI_SHM_liveness_dequeued(MPIDI_SHM_off_t cell);
/* An error code if local peer li is known lost, else MPI_SUCCESS. */
int MPIDI_SHM_peer_failed(int li);

#endif /* SHM_IMPL_H_INCLUDED */
