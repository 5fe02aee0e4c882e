/* shm_init.c: creating, checking and removing the node's shared segment; cards and reachability. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "shm_impl.h"
#include "shm_queue.h"
#include "shm_ring.h"

MPIDI_SHM_state_t MPIDI_SHM_state;

static int world_rank = -1; /* for messages */

static size_t round_up(size_t x, size_t align)
{
    return (x + align - 1) / align * align;
}

/* The bytes a node's segment may take when its sizes are left to Ferry:
 * MPIDI_SHM_ROOM_SHARE_QUARTERS of the size of /dev/shm, where shm_open puts
 * it (a container's is often 64 MiB).  Every rank of the node sees the same
 * size, so all of them choose the same layout.  0 (no bound) when it cannot
 * be read. */
static size_t room_for_segment(void)
{
    struct statvfs vs;
    if (statvfs("/dev/shm", &vs) != 0 || vs.f_blocks == 0)
        return 0;
    unsigned long long total = (unsigned long long)vs.f_blocks * vs.f_frsize;
    return (size_t)(total / 4 * MPIDI_SHM_ROOM_SHARE_QUARTERS);
}

/* The default size of each per-pair ring: MPIDI_SHM_RING_SIZE_DEFAULT, or
 * less with many ranks on the node (nlocal^2 rings) or a small /dev/shm (the
 * rings take at most a quarter of the room), down to
 * MPIDI_SHM_RING_AUTO_MIN; a power of two. */
static size_t auto_ring_size(int nlocal, size_t room)
{
    size_t size = MPIDI_SHM_RING_SIZE_DEFAULT, rings = (size_t)nlocal * (size_t)nlocal;
    while (size > MPIDI_SHM_RING_AUTO_MIN &&
           (size * rings > (size_t)MPIDI_SHM_RING_AUTO_TOTAL || (room && size * rings > room / 4)))
        size /= 2;
    return size;
}

/* Reads the tunables and checks their ranges (doc/methods/shm.md).
 *   FERRY_SHM_CELL_SIZE  bytes per cell including its 128-byte header, default 65536
 *   FERRY_SHM_NUM_CELLS  cells each process owns; unset: 64, fewer if /dev/shm is small (init)
 *   FERRY_SHM_CMA        1: offer single-copy rdma_get/put via CMA, 0: pipeline only
 *   FERRY_SHM_CMA_SPLIT  smallest rdma_get shared with the peer (shm_cma.c); 0: none; -1: auto
 *   FERRY_SHM_EAGER_LIMIT  largest eager message, at most a cell's payload; -1: auto
 *   FERRY_SHM_RING_SIZE  bytes of each per-pair ring, a power of two; 0: no rings; -1: auto
 *                        (auto_ring_size)
 *   FERRY_SHM_RING_MAX   largest payload sent through a ring; -1: auto (a quarter ring)
 *   FERRY_SHM_RING_PREFAULT  1: populate a ring's pages when a pair first uses it */
static int read_config(int nlocal, int oversubscribed)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    long cell_size = MPIDU_config_int("FERRY_SHM_CELL_SIZE");
    long num_cells = MPIDU_config_int("FERRY_SHM_NUM_CELLS");
    long cma = MPIDU_config_int("FERRY_SHM_CMA");
    long ring_size = MPIDU_config_int("FERRY_SHM_RING_SIZE");
    long ring_max = MPIDU_config_int("FERRY_SHM_RING_MAX");
    long cma_split = MPIDU_config_int("FERRY_SHM_CMA_SPLIT");
    long eager_limit = MPIDU_config_int("FERRY_SHM_EAGER_LIMIT");
    st->ring_prefault = MPIDU_config_int("FERRY_SHM_RING_PREFAULT") != 0;

    if (cell_size < MPIDI_SHM_CELL_SIZE_MIN || cell_size > MPIDI_SHM_CELL_SIZE_MAX)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_CELL_SIZE=%ld is outside [%d, %ld]",
                                cell_size, MPIDI_SHM_CELL_SIZE_MIN, MPIDI_SHM_CELL_SIZE_MAX);
    st->room = room_for_segment();
    st->cells_auto = !MPIDU_config_is_set("FERRY_SHM_NUM_CELLS");
    if (num_cells < 1 || num_cells > MPIDI_SHM_NUM_CELLS_MAX)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_NUM_CELLS=%ld is outside [1, %d]",
                                num_cells, MPIDI_SHM_NUM_CELLS_MAX);
    /* Whole cache lines, so no two cells share one (false sharing between a
     * sender filling one cell and a receiver reading its neighbour). */
    st->cell_size = round_up((size_t)cell_size, MPIDI_SHM_CACHELINE);
    st->num_cells = (size_t)num_cells;
    st->cma_enabled = (cma != 0);
    if (cma_split < -1)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_CMA_SPLIT=%ld is below -1", cma_split);
    /* -1 (the default): 128 KiB, but not on an oversubscribed node, where
     * the sender has no CPU of its own to copy with (doc/performance.md has
     * the measurements). */
    if (cma_split == -1)
        cma_split = oversubscribed ? 0 : MPIDI_SHM_CMA_SPLIT_AUTO;
    st->cma_split = (size_t)cma_split;

    if (ring_size == -1)
        ring_size = (long)auto_ring_size(nlocal, st->room);
    if (ring_size != 0 &&
        (ring_size < MPIDI_SHM_RING_SIZE_MIN || ring_size > MPIDI_SHM_RING_SIZE_MAX ||
         (ring_size & (ring_size - 1)) != 0))
        return MPIDU_err_create(
            MPI_ERR_ARG, "FERRY_SHM_RING_SIZE=%ld is not 0, -1 or a power of two in [%d, %ld]",
            ring_size, MPIDI_SHM_RING_SIZE_MIN, MPIDI_SHM_RING_SIZE_MAX);
    if (ring_max < -1)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_RING_MAX=%ld is below -1", ring_max);
    st->ring_size = (size_t)ring_size;
    st->ring_mask = st->ring_size ? st->ring_size - 1 : 0;
    st->ring_stride = MPIDI_SHM_RING_DATA_OFF + st->ring_size;
    /* ring_max bounds a whole entry.  A quarter of the ring by default, so
     * a few large messages do not push a stream of small ones into cells;
     * never more than half, so an entry always fits beside one in flight. */
    if (st->ring_size == 0)
        st->ring_max = 0;
    else if (ring_max == -1)
        st->ring_max = st->ring_size / 4;
    else
        /* A line more: where a large payload starts depends on the entry's place
         * (MPIDI_SHM_ring_payload_off), and a payload of ring_max bytes fits at any. */
        st->ring_max =
            MPIDI_SHM_ring_need(0, MPIDI_SHM_MAX_HDR, (size_t)ring_max) + MPIDI_SHM_CACHELINE;
    if (st->ring_max > st->ring_size / 2)
        st->ring_max = st->ring_size / 2;
#if !defined(__linux__)
    st->cma_enabled = 0; /* process_vm_readv is Linux only */
#endif
    /* The kernel's ptrace rules are known now, so a host that refuses CMA
     * keeps the eager limit and the rendezvous modes of one without it. */
    char why[160];
    if (st->cma_enabled && nlocal > 1 && !MPIDI_SHM_cma_setup(why, sizeof(why))) {
        st->cma_enabled = 0;
        if (MPIDU_config_int("FERRY_VERBOSE") >= 2)
            fprintf(stderr, "ferry: rank %d: shm: no single-copy reads (CMA): %s\n", world_rank,
                    why);
    }
    /* -1 (the default): a message above 8 KiB goes faster by one CMA read
     * than by two copies through a cell (16-32 KiB ping-pongs 0.55-0.7x,
     * windows both ways 1.4-1.6x; one way 0.88-1.16x, where eager copies
     * on two CPUs and a read on one), but not on an
     * oversubscribed node, where the rendezvous waits for the peer to be
     * scheduled (one-way windows 0.6-0.8x), nor without CMA, where it would
     * be the copy pipeline (doc/methods/shm.md, "Eager or a read").  The
     * cell's payload caps it in init. */
    if (eager_limit < -1)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_EAGER_LIMIT=%ld is below -1", eager_limit);
    if (eager_limit == -1)
        eager_limit = st->cma_enabled && !oversubscribed ? MPIDI_SHM_EAGER_AUTO : LONG_MAX;
    st->eager_limit = (size_t)eager_limit;
    return MPI_SUCCESS;
}

/* Populates this process's page tables for a ring (its pages in whole, with the lines that
 * share its first and last page), when a pair first uses it: the sender for writing at its
 * join, the receiver for reading when it sees the join.  Otherwise the first lap takes a
 * page fault every 4 KiB on each side, inside the first messages (issue 12: ~63 faults in
 * the first measured size of a 64 KiB-ring ping-pong).  The segment's rings take at most
 * 16 MiB per node by default (FERRY_SHM_RING_SIZE), so populating the rings in use costs
 * bounded memory.  Only a hint: a kernel without MADV_POPULATE_* (before Linux 5.14) refuses
 * it, and the pages then fault in on first use, as without it.
 *
 * And the ring's lines are touched once, so its first lap runs as the later ones: the sender,
 * before its join is published (nobody reads the ring yet), writes the data with the zeros it
 * holds; the receiver reads it (below).  Without this the first lap of a ping-pong (about a
 * thousand 8-byte messages with 64 KiB rings) ran at about 4x the later laps' latency (0.64-0.69
 * against 0.14 us on this host, in the floor's fast state), which is what a short benchmark
 * measures at its first size. */
void MPIDI_SHM_ring_prefault(MPIDI_SHM_ring_t *ring, int for_write)
{
#if defined(MADV_POPULATE_WRITE) && defined(MADV_POPULATE_READ)
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)ring & ~(page - 1);
    uintptr_t hi = ((uintptr_t)ring + MPIDI_SHM_state.ring_stride + page - 1) & ~(page - 1);
    (void)madvise((void *)lo, hi - lo, for_write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#endif
    char *data = MPIDI_SHM_ring_data(ring);
    if (for_write) {
        memset(data, 0, MPIDI_SHM_state.ring_size);
        return;
    }
    /* The receiver, when it sees the join, reads every line once (the value does not matter,
     * and may be the sender's first entries): it then holds the ring's lines as it does in every
     * later lap.  With only the sender's pass the first lap of an 8-byte ping-pong still ran at
     * about 2x (0.23-0.40 us); with both, as the later laps (0.13-0.14 us). */
    for (size_t o = 0; o < MPIDI_SHM_state.ring_size; o += MPIDI_SHM_CACHELINE)
        (void)atomic_load_explicit((_Atomic uint32_t *)(data + o), memory_order_relaxed);
}

/* shm_open names start with '/' and contain no other '/'.  One name per job
 * and node; a rank started with other tunables than local rank 0 finds the
 * segment of another size and says so (only rank 0 ever sizes it). */
static int make_name(const MPIDI_job_t *job)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    char kvs[160];
    size_t i;

    for (i = 0; job->kvsname[i] != '\0' && i < sizeof(kvs) - 1; i++) {
        char c = job->kvsname[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
        kvs[i] = ok ? c : '_';
    }
    kvs[i] = '\0';
    if (job->kvsname[i] != '\0')
        return MPIDU_err_create(MPI_ERR_OTHER, "shm: kvsname '%s' is longer than %zu characters",
                                job->kvsname, sizeof(kvs) - 1);
    snprintf(st->name, sizeof(st->name), "/ferry-shm-%s-n%d", kvs, job->node_id);
    return MPI_SUCCESS;
}

/* 64-bit words of a bitmap with a bit per local rank. */
static size_t bitmap_words(int nlocal)
{
    return ((size_t)nlocal + 63) / 64;
}

static int compute_layout(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    st->roster_off = round_up(sizeof(MPIDI_SHM_ctrl_t), MPIDI_SHM_CACHELINE);
    st->joined_off = round_up(st->roster_off + (size_t)st->nlocal * sizeof(MPIDI_SHM_roster_t),
                              MPIDI_SHM_CACHELINE);
    st->rings_off =
        round_up(st->joined_off + bitmap_words(st->nlocal) * sizeof(uint64_t), MPIDI_SHM_CACHELINE);
    /* Cells start on a page so large payload copies run on aligned memory. */
    st->cells_off = round_up(st->rings_off + (size_t)st->nlocal * st->ring_stride, MPIDI_SHM_PAGE);
    if (st->num_cells > (SIZE_MAX / 4 - st->cells_off) / st->cell_size)
        return MPIDU_err_create(MPI_ERR_ARG,
                                "shm: %zu cells of %zu bytes overflow the segment size",
                                st->num_cells, st->cell_size);
    st->region_size = round_up(st->cells_off + st->num_cells * st->cell_size, MPIDI_SHM_PAGE);
    if (st->region_size > SIZE_MAX / 4 / (size_t)st->nlocal)
        return MPIDU_err_create(MPI_ERR_ARG,
                                "shm: %d regions of %zu bytes overflow the segment size",
                                st->nlocal, st->region_size);
    st->seg_size = st->region_size * (size_t)st->nlocal;
    return MPI_SUCCESS;
}

static void free_private(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    free(st->local_ranks);
    free(st->world_to_local);
    free(st->send_seq);
    free(st->recv_seq);
    free(st->ring_tx);
    free(st->ring_rx);
    free(st->ring_active);
    free(st->ring_seen_bits);
    free(st->free_stack);
    memset(st, 0, sizeof(*st));
}

static int alloc_private(const MPIDI_job_t *job)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int n = job->nlocal;

    st->local_ranks = malloc(sizeof(int) * n);
    st->world_to_local = malloc(sizeof(int) * job->size);
    st->send_seq = calloc(n, sizeof(uint32_t));
    st->recv_seq = calloc(n, sizeof(uint32_t));
    st->ring_tx = calloc(n, sizeof(MPIDI_SHM_ring_tx_t));
    st->ring_rx = calloc(n, sizeof(MPIDI_SHM_ring_rx_t));
    st->ring_active = malloc(sizeof(int) * n);
    st->ring_seen_bits = calloc(bitmap_words(n), sizeof(uint64_t));
    st->free_stack = malloc(sizeof(MPIDI_SHM_off_t) * st->num_cells);
    if (!st->local_ranks || !st->world_to_local || !st->send_seq || !st->recv_seq || !st->ring_tx ||
        !st->ring_rx || !st->ring_active || !st->ring_seen_bits || !st->free_stack)
        return MPIDU_err_create(MPI_ERR_NO_MEM,
                                "shm: out of memory for the state of %d local ranks", n);
    for (int r = 0; r < job->size; r++)
        st->world_to_local[r] = -1;
    for (int i = 0; i < n; i++) {
        int r = job->local_ranks[i];
        if (r < 0 || r >= job->size || job->node_of[r] != job->node_id)
            return MPIDU_err_create(MPI_ERR_INTERN,
                                    "shm: local_ranks[%d] = %d is not a rank of node %d", i, r,
                                    job->node_id);
        st->local_ranks[i] = r;
        st->world_to_local[r] = i;
    }
    if (st->world_to_local[job->rank] != job->local_index)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm: rank %d is not local_ranks[%d]", job->rank,
                                job->local_index);
    return MPI_SUCCESS;
}

/* Counts this rank in local rank 0's ready count; the rank that completes
 * it wakes those sleeping on it (a futex on the shared word: no private
 * flag, the ranks are processes).  Release: a rank that reads the full
 * count (acquire) sees every region as its owner wrote it, and the failure
 * flag of a rank that set it first. */
static void count_ready(MPIDI_SHM_ctrl_t *c0)
{
    uint32_t n = atomic_fetch_add_explicit(&c0->nready, 1, memory_order_release) + 1;
    if (n == (uint32_t)MPIDI_SHM_state.nlocal)
        syscall(SYS_futex, &c0->nready, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Sleeps while the ready count is still `seen`: until the rank that
 * completes it wakes us, or MPIDI_SHM_READY_CHECK_MS pass (to look for a
 * failed rank), whichever is first.  Returns 1 instead once start-up has
 * waited MPIDI_SHM_ATTACH_WAIT_MS since t0.  With more local ranks than
 * CPUs, the 1 ms naps this replaces were a tenth of the CPU time of a
 * 256-rank start: every waiting rank woke a thousand times a second. */
static int sleep_on_ready(MPIDI_SHM_ctrl_t *c0, uint32_t seen, const struct timespec *t0)
{
    struct timespec now, pause = {0, MPIDI_SHM_READY_CHECK_MS * 1000000L};
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000 >=
        MPIDI_SHM_ATTACH_WAIT_MS)
        return 1;
    /* Returns at once (EAGAIN) when the count has moved already. */
    syscall(SYS_futex, &c0->nready, FUTEX_WAIT, seen, &pause, NULL, 0);
    return 0;
}

/* Initialises this process's own region only: its control block, its two
 * queues, its roster entry, the private views of its rings, and its private
 * list of free cells.  Peers never write into it before it counts itself
 * ready.  The rings it receives from start empty because the segment is new
 * (O_EXCL, sized by ftruncate: zero pages), never one left by another job:
 * nothing consumed, and a 0 length where the receiver looks first (the rest
 * needs no clearing: the sender writes a 0 after every entry it publishes,
 * shm_ring.h).  Not clearing them keeps their pages untouched until a peer
 * sends.  Cells need no initialisation: a sender writes every header field
 * it uses. */
static void init_own_region(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ctrl_t *ctrl = MPIDI_SHM_ctrl(st->me);
    char *region = (char *)ctrl;

    MPIDI_SHM_roster_t *me = MPIDI_SHM_roster(st->me);
    struct stat ns;
    ctrl->cell_size = st->cell_size;
    ctrl->num_cells = st->num_cells;
    ctrl->nlocal = (uint64_t)st->nlocal;
    ctrl->ring_size = st->ring_size;
    me->pid = (uint64_t)getpid();
    me->pidns = stat("/proc/self/ns/pid", &ns) == 0 ? (uint64_t)ns.st_ino : 0;
    atomic_store_explicit(&me->finalized, 0, memory_order_relaxed);
    /* No sender has joined yet: none may send before every rank is ready. */
    atomic_store_explicit(&ctrl->ring_joins, 0, memory_order_relaxed);
    atomic_store_explicit(&ctrl->reading, 0, memory_order_relaxed);
    _Atomic uint64_t *joined = MPIDI_SHM_joined(st->me);
    for (size_t w = 0; w < bitmap_words(st->nlocal); w++)
        atomic_store_explicit(&joined[w], 0, memory_order_relaxed);
    MPIDI_SHM_queue_init(&ctrl->recvq);
    MPIDI_SHM_queue_init(&ctrl->freeq);
    static uint32_t no_entry; /* what the ring from ourselves (or no ring) always shows: nothing */
    for (int s = 0; s < st->nlocal; s++) {
        st->ring_rx[s].data = (char *)&no_entry;
        st->ring_rx[s].watch = (const _Atomic uint32_t *)&no_entry;
        if (st->ring_size == 0)
            continue;
        st->ring_rx[s].ring = MPIDI_SHM_ring(s, st->me);
        if (s != st->me) {
            st->ring_rx[s].data = MPIDI_SHM_ring_data(st->ring_rx[s].ring);
            st->ring_rx[s].watch = (const _Atomic uint32_t *)st->ring_rx[s].data;
            st->ring_tx[s].ring = MPIDI_SHM_ring(st->me, s);
        }
    }

    /* Pushed in reverse so the first cells used are the first in memory. */
    st->nfree = 0;
    for (size_t i = st->num_cells; i-- > 0;)
        st->free_stack[st->nfree++] = MPIDI_SHM_rel(region + st->cells_off + i * st->cell_size);
    st->recvq_shadow = 0;
    st->freeq_shadow = 0;

    /* Counted in local rank 0's block (zero since ftruncate made it, and
     * never written by init_own_region). */
    count_ready(MPIDI_SHM_ctrl(0));
}

/* Sleeps 1 ms, unless start-up has waited MPIDI_SHM_ATTACH_WAIT_MS since t0
 * already: then returns 1.  The waits of start-up are for other local ranks,
 * which passed the same fence and only need their turn on a CPU. */
static int nap_or_give_up(const struct timespec *t0)
{
    struct timespec now, pause = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &now);
    if ((now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000 >=
        MPIDI_SHM_ATTACH_WAIT_MS)
        return 1;
    nanosleep(&pause, NULL);
    return 0;
}

/* This rank found the segment of another size than its own geometry
 * needs.  Removing the name at once would leave the local ranks that have
 * not opened it yet waiting 30 s for it to appear; instead it counts itself
 * in with the failure flag set (both in local rank 0's block, at the start
 * of any size), so every rank's wait ends with an error once all are in,
 * and waits for that itself before its error path removes the name. */
static void arrive_failed(int fd, size_t size)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    if (size < sizeof(MPIDI_SHM_ctrl_t))
        return;
    MPIDI_SHM_ctrl_t *c0 = mmap(NULL, sizeof(*c0), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (c0 == MAP_FAILED)
        return;
    atomic_store_explicit(&c0->geometry_failed, 1, memory_order_relaxed);
    count_ready(c0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        uint32_t ready = atomic_load_explicit(&c0->nready, memory_order_acquire);
        if (ready >= (uint32_t)st->nlocal || sleep_on_ready(c0, ready, &t0))
            break;
    }
    munmap(c0, sizeof(*c0));
}

/* Gives the new segment its size with every page reserved (fallocate), so
 * that a /dev/shm too small for it (a container's 64 MiB and 16 ranks, say)
 * is an error here that names the sizes, not a SIGBUS at the first touch of
 * a page tmpfs cannot give, maybe long after start-up.  tmpfs sets the size
 * only once all pages are there, so the other ranks, which wait for the full
 * size, never map a segment that is still growing.  A file system without
 * fallocate gets the sparse ftruncate. */
static int size_segment(int fd)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int err = 0;
    if (fallocate(fd, 0, 0, (off_t)st->seg_size) != 0) {
        err = errno;
        if ((err == EOPNOTSUPP || err == ENOSYS) && ftruncate(fd, (off_t)st->seg_size) == 0)
            err = 0;
    }
    if (err == 0)
        return MPI_SUCCESS;
    if (err == ENOSPC) {
        struct statvfs vs;
        unsigned long long avail =
            fstatvfs(fd, &vs) == 0 ? (unsigned long long)vs.f_bavail * vs.f_frsize : 0;
        return MPIDU_err_create(
            MPI_ERR_NO_MEM,
            "shm: the segment of %d ranks on this node needs %.1f MiB in /dev/shm (each rank "
            "%zu cells of %zu bytes and %d rings of %zu bytes) but only %.1f MiB are free: give "
            "/dev/shm more room (docker run --shm-size=...), or set FERRY_SHM_NUM_CELLS or "
            "FERRY_SHM_RING_SIZE lower, or leave shm out of FERRY_METHODS",
            st->nlocal, (double)st->seg_size / 1048576.0, st->num_cells, st->cell_size, st->nlocal,
            st->ring_size, (double)avail / 1048576.0);
    }
    return MPIDU_err_create(MPI_ERR_OTHER,
                            "sizing the shm segment %s to %zu bytes on rank %d: %s (errno %d)",
                            st->name, st->seg_size, world_rank, strerror(err), err);
}

/* Local rank 0 creates the segment (O_EXCL: never one that exists, whoever
 * made it); the others open it, waiting until it exists with its full size.
 * So once any rank has removed the name (every failure path does, and
 * post_init once all are ready), nobody can create it again: a start-up that
 * fails halfway leaves nothing in /dev/shm, even when the launcher kills the
 * other ranks before they get to their own clean-up.  Owner and mode are
 * checked, so an object another user planted under the (predictable) name
 * is refused, never mapped. */
static int open_segment(int *fd_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    struct stat sb;
    int fd;

    if (st->me == 0) {
        fd = shm_open(st->name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0)
            return MPIDU_err_create(MPI_ERR_OTHER, "shm_open(%s) on rank %d: %s (errno %d)%s",
                                    st->name, world_rank, strerror(errno), errno,
                                    errno == EEXIST ? ": a segment of that name exists already "
                                                      "(left by a crashed job, or made by "
                                                      "someone else); remove it"
                                                    : "");
        st->created = st->opened = 1;
        int err = size_segment(fd);
        if (err) {
            close(fd);
            return err;
        }
        *fd_p = fd;
        return MPI_SUCCESS;
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        fd = shm_open(st->name, O_RDWR, 0);
        if (fd >= 0) {
            if (fstat(fd, &sb) < 0) {
                int err = errno;
                close(fd);
                return MPIDU_err_create(MPI_ERR_OTHER, "fstat(%s) on rank %d: %s (errno %d)",
                                        st->name, world_rank, strerror(err), err);
            }
            if (sb.st_uid != geteuid() || (sb.st_mode & 077) != 0) {
                close(fd);
                return MPIDU_err_create(MPI_ERR_OTHER,
                                        "shm segment %s on rank %d belongs to uid %u with mode "
                                        "%03o, not to us (uid %u) with mode 600: refused",
                                        st->name, world_rank, (unsigned)sb.st_uid,
                                        (unsigned)(sb.st_mode & 0777), (unsigned)geteuid());
            }
            st->opened = 1; /* ours: a failure from here on removes the name */
            if ((size_t)sb.st_size == st->seg_size) {
                *fd_p = fd;
                return MPI_SUCCESS;
            }
            if (sb.st_size != 0) {
                arrive_failed(fd, (size_t)sb.st_size);
                close(fd);
                return MPIDU_err_create(MPI_ERR_OTHER,
                                        "shm segment %s has %lld bytes, rank %d needs %zu: "
                                        "local rank 0 (world rank %d) has other "
                                        "FERRY_SHM_CELL_SIZE, FERRY_SHM_NUM_CELLS or "
                                        "FERRY_SHM_RING_SIZE",
                                        st->name, (long long)sb.st_size, world_rank, st->seg_size,
                                        st->local_ranks[0]);
            }
            close(fd);
            /* created, not yet sized: wait */
        } else if (errno != ENOENT) {
            return MPIDU_err_create(MPI_ERR_OTHER, "shm_open(%s) on rank %d: %s (errno %d)",
                                    st->name, world_rank, strerror(errno), errno);
        }
        if (nap_or_give_up(&t0))
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "shm: rank %d waited %d s for local rank 0 (world rank %d) "
                                    "to create %s",
                                    world_rank, MPIDI_SHM_ATTACH_WAIT_MS / 1000, st->local_ranks[0],
                                    st->name);
    }
}

static int map_segment(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int fd = -1;
    int mpi_errno = open_segment(&fd);
    if (mpi_errno)
        return mpi_errno;
    void *p = mmap(NULL, st->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "mmap(%s, %zu) on rank %d: %s (errno %d)",
                                     st->name, st->seg_size, world_rank, strerror(errno), errno);
    else
        st->base = p;
    close(fd); /* the mapping keeps the object alive */
    return mpi_errno;
}

int MPIDI_SHM_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int mpi_errno;

    memset(st, 0, sizeof(*st));
    world_rank = job->rank;
    mpi_errno = read_config(job->nlocal, job->oversubscribed);
    if (mpi_errno)
        goto fn_fail;
    if (job->nlocal < 1 || job->nlocal > UINT16_MAX || job->local_index < 0 ||
        job->local_index >= job->nlocal) {
        mpi_errno = MPIDU_err_create(MPI_ERR_INTERN, "shm: local_index %d of %d local ranks",
                                     job->local_index, job->nlocal);
        goto fn_fail;
    }
    st->me = job->local_index;
    st->nlocal = job->nlocal;
    st->world_size = job->size;
    st->node_id = job->node_id;
    st->doorbell = job->oversubscribed;
    st->tick_countdown = MPIDI_SHM_COLD_POLL_EVERY;
    st->epoch_countdown = MPIDI_SHM_HOT_EPOCH;
    /* The counters that tell tests which path messages took (doc/methods/shm.md). */
    if ((mpi_errno = MPIDU_stat_register("shm_ring_sent", &st->stat_ring_sent)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_bytes_max", &st->stat_ring_bytes_max)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_full", &st->stat_ring_full)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_wrap", &st->stat_ring_wrap)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_cooled", &st->stat_ring_cooled)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_warmed", &st->stat_ring_warmed)) ||
        (mpi_errno = MPIDU_stat_register("shm_cell_sent", &st->stat_cell_sent)) ||
        (mpi_errno = MPIDU_stat_register("shm_cma_split", &st->stat_cma_split)) ||
        (mpi_errno = MPIDU_stat_register("shm_cma_taken_back", &st->stat_cma_taken_back)) ||
        (mpi_errno = MPIDU_stat_register("shm_cma_helped", &st->stat_cma_helped)) ||
        (mpi_errno = MPIDU_stat_register("shm_cma_peer_busy", &st->stat_cma_peer_busy)))
        goto fn_fail;

    mpi_errno = alloc_private(job);
    if (mpi_errno)
        goto free_state;
    mpi_errno = compute_layout();
    /* Cells left to Ferry: fewer while the segment would not fit the room
     * (a container's small /dev/shm), so that a job that fits starts; one
     * that does not fails in open_segment with the sizes named. */
    while (!mpi_errno && st->cells_auto && st->room && st->seg_size > st->room &&
           st->num_cells > MPIDI_SHM_NUM_CELLS_AUTO_MIN) {
        st->num_cells /= 2;
        mpi_errno = compute_layout();
    }
    if (mpi_errno)
        goto free_state;
    if (st->me == 0 && MPIDU_config_int("FERRY_VERBOSE") >= 2)
        fprintf(stderr,
                "ferry: rank %d: shm: segment of %.1f MiB for %d ranks: each %zu cells of %zu "
                "bytes, rings of %zu bytes; sizes left to Ferry take at most %.1f MiB (%d/4 "
                "of /dev/shm; 0: its size unknown)\n",
                world_rank, (double)st->seg_size / 1048576.0, st->nlocal, st->num_cells,
                st->cell_size, st->ring_size, (double)st->room / 1048576.0,
                MPIDI_SHM_ROOM_SHARE_QUARTERS);

    /* Caps: a cell carries the header in its fixed 128-byte head, so the
     * payload limit is the rest of the cell. */
    caps_p->size = sizeof(MPIDI_method_caps_t);
    caps_p->max_hdr = MPIDI_SHM_MAX_HDR;
    caps_p->max_send = st->cell_size - MPIDI_SHM_CELL_HDR_SIZE;
    caps_p->eager_limit = st->eager_limit < caps_p->max_send ? st->eager_limit : caps_p->max_send;
    caps_p->rndv_modes = MPIDI_RNDV_PIPELINE;
    if (st->cma_enabled)
        caps_p->rndv_modes |= MPIDI_RNDV_READ | MPIDI_RNDV_WRITE;
    caps_p->needs_reg = 0;
    caps_p->addr_mode = MPIDI_ADDR_VIRTUAL;
    /* Each CMA call costs about a system call, so one per contiguous piece
     * pays only for large pieces; below this average the pipeline's pack
     * and unpack copies are cheaper. */
    caps_p->rndv_iov_min_piece = 16384;
    /* Above any network method: when a peer shares the node, shm is both
     * faster and keeps node-local traffic off the NIC. */
    caps_p->exclusivity = 100;
    caps_p->scope = MPIDI_SCOPE_NODE;
    /* The node map says who shares the segment; the segment's name comes
     * from the kvsname and node id, which every local rank knows. */
    caps_p->cardless = 1;

    /* Alone on the node: nobody to reach, nothing to share. */
    if (st->nlocal == 1)
        return MPI_SUCCESS;

    /* The segment is made in post_init, after the core's fence: every rank
     * of the job has passed its own init by then, so a start-up that fails
     * before it (a bad variable on one rank, a method that cannot start)
     * has no segment to leave behind. */
    mpi_errno = make_name(job);
    if (mpi_errno)
        goto free_state;
    return MPI_SUCCESS;

free_state:
    free_private();
fn_fail:
    return mpi_errno;
}

/* Waits until every local rank has initialised its region (the count in
 * local rank 0's block is full), which is also when every one has mapped
 * the segment: the node-local barrier before the name may go.  One word is
 * read, not every region: start-up must not touch a page per local rank
 * (with 256 ranks on a node that was most of the job's start-up time).  A
 * rank that fails instead removes the name (nothing else removes it before
 * this wait is over), which ends the wait at the next look (every
 * MPIDI_SHM_READY_CHECK_MS). */
static int wait_for_regions(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ctrl_t *c0 = MPIDI_SHM_ctrl(0);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (unsigned sleeps = 0;; sleeps++) {
        uint32_t ready = atomic_load_explicit(&c0->nready, memory_order_acquire);
        if (ready == (uint32_t)st->nlocal) {
            if (atomic_load_explicit(&MPIDI_SHM_ctrl(0)->geometry_failed, memory_order_relaxed))
                return MPIDU_err_create(MPI_ERR_OTHER,
                                        "shm: a rank on this node found %s of another size "
                                        "(another FERRY_SHM_CELL_SIZE, FERRY_SHM_NUM_CELLS "
                                        "or FERRY_SHM_RING_SIZE than local rank 0's)",
                                        st->name);
            return MPI_SUCCESS;
        }
        if (sleeps > 0) { /* woken by the pause: has a rank failed? */
            int fd = shm_open(st->name, O_RDWR, 0);
            if (fd >= 0)
                close(fd);
            /* The name also goes once every rank is ready (each removes
             * it after this wait): if the count filled up since we read
             * it, that is what happened. */
            else if (errno == ENOENT && atomic_load_explicit(&c0->nready, memory_order_acquire) ==
                                            (uint32_t)st->nlocal)
                continue;
            else if (errno == ENOENT)
                return MPIDU_err_create(MPI_ERR_OTHER,
                                        "shm: a rank on this node failed to start (it removed "
                                        "%s before every rank was ready)",
                                        st->name);
        }
        if (sleep_on_ready(c0, ready, &t0))
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "shm: rank %d waited %d s for the ranks of this node to "
                                    "initialise %s (%u of %d ready)",
                                    world_rank, MPIDI_SHM_ATTACH_WAIT_MS / 1000, st->name,
                                    (unsigned)ready, st->nlocal);
    }
}

/* Runs after the core's fence.  Makes the segment (local rank 0) or maps
 * it, initialises this rank's region, waits until every local rank has
 * (node-local: no more PMI), then removes the name: the mappings keep the
 * memory alive, and a job that crashes from now on leaves nothing in
 * /dev/shm.  Every failure on the way removes the name too. */
int MPIDI_SHM_post_init(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int mpi_errno;

    if (st->nlocal <= 1 || st->name[0] == '\0')
        return MPI_SUCCESS;
    mpi_errno = map_segment();
    if (mpi_errno)
        goto unlink_segment;
    if (!atomic_is_lock_free(&MPIDI_SHM_ctrl(0)->recvq.tail)) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER,
                                     "shm: 64-bit atomics are not lock-free on this machine");
        goto unlink_segment;
    }
    init_own_region();
    mpi_errno = wait_for_regions();
    if (mpi_errno)
        goto unlink_segment;
    if (shm_unlink(st->name) < 0 && errno != ENOENT) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "shm_unlink(%s) on rank %d: %s (errno %d)",
                                     st->name, world_rank, strerror(errno), errno);
        goto unlink_segment;
    }
    st->unlinked = 1;

    /* Every rank compares itself with local rank 0 (the segment's size,
     * checked when it was opened, does not tell every difference): a rank
     * that differs fails its start with the reason, which ends the job. */
    MPIDI_SHM_ctrl_t *c = MPIDI_SHM_ctrl(0);
    if (c->cell_size != st->cell_size || c->num_cells != st->num_cells ||
        c->nlocal != (uint64_t)st->nlocal || c->ring_size != st->ring_size)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "shm: rank %d has %llu cells of %llu bytes and rings of %llu "
                                "for %llu ranks, rank %d has %zu of %zu and %zu for %d",
                                st->local_ranks[0], (unsigned long long)c->num_cells,
                                (unsigned long long)c->cell_size, (unsigned long long)c->ring_size,
                                (unsigned long long)c->nlocal, world_rank, st->num_cells,
                                st->cell_size, st->ring_size, st->nlocal);
    MPIDI_SHM_liveness_init();
    return MPI_SUCCESS;

unlink_segment:
    /* Whoever fails removes the name, so no file outlives a failed start
     * (unless it is another's: refused, never opened). */
    if (st->opened && !st->unlinked && shm_unlink(st->name) < 0 && errno != ENOENT)
        fprintf(stderr, "shm_unlink(%s): %s (errno %d)\n", st->name, strerror(errno), errno);
    st->unlinked = 1;
    return mpi_errno;
}

int MPIDI_SHM_finalize(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    if (st->base != NULL) {
        /* Release: peers that see us gone and then this flag (acquire) know
         * we exited in order, after everything we did in the segment. */
        atomic_store_explicit(&MPIDI_SHM_roster(st->me)->finalized, 1, memory_order_release);
        if (!st->unlinked && shm_unlink(st->name) < 0 && errno != ENOENT)
            fprintf(stderr, "shm_unlink(%s): %s (errno %d)\n", st->name, strerror(errno), errno);
        munmap(st->base, st->seg_size);
    }
    MPIDI_SHM_liveness_finalize();
    free_private();
    return MPI_SUCCESS;
}

int MPIDI_SHM_get_business_card(char *buf, size_t len)
{
    char host[256];

    if (gethostname(host, sizeof(host)) < 0)
        snprintf(host, sizeof(host), "unknown");
    host[sizeof(host) - 1] = '\0';
    int n = snprintf(buf, len, "host=%s;node=%d;local=%d;pid=%ld", host, MPIDI_SHM_state.node_id,
                     MPIDI_SHM_state.me, (long)getpid());
    if (n < 0 || (size_t)n >= len)
        return MPIDU_err_create(MPI_ERR_OTHER, "shm business card needs %d bytes, %zu given", n + 1,
                                len);
    return MPI_SUCCESS;
}

/* The job description already says who shares the node; the card is not
 * needed.  Sends to oneself belong to the self method. */
int MPIDI_SHM_reachable(int peer, const char *card)
{
    (void)card;
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    /* Known from init on (the segment itself comes in post_init, before any
     * message can be sent). */
    if (st->world_to_local == NULL || st->nlocal < 2 || peer < 0 || peer >= st->world_size ||
        peer == world_rank)
        return 0;
    return st->world_to_local[peer] >= 0;
}

int MPIDI_SHM_connect(int peer, const char *card)
{
    if (!MPIDI_SHM_reachable(peer, card))
        return MPIDU_err_create(MPI_ERR_INTERN, "shm connect to rank %d: not on this node", peer);
    return MPI_SUCCESS;
}
