/* shm_init.c: creating, checking and removing the node's shared segment; cards and reachability. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
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

/* The default size of each per-pair ring: MPIDI_SHM_RING_SIZE_DEFAULT, or
 * less with many ranks on the node (nlocal^2 rings), down to
 * MPIDI_SHM_RING_AUTO_MIN; a power of two. */
static size_t auto_ring_size(int nlocal)
{
    size_t size = MPIDI_SHM_RING_SIZE_DEFAULT;
    while (size > MPIDI_SHM_RING_AUTO_MIN &&
           size * (size_t)nlocal * (size_t)nlocal > (size_t)MPIDI_SHM_RING_AUTO_TOTAL)
        size /= 2;
    return size;
}

/* Reads the tunables and checks their ranges (doc/methods/shm.md).
 *   FERRY_SHM_CELL_SIZE  bytes per cell including its 128-byte header, default 65536
 *   FERRY_SHM_NUM_CELLS  cells each process owns, default 64
 *   FERRY_SHM_CMA        1: offer single-copy rdma_get/put via CMA, 0: pipeline only
 *   FERRY_SHM_RING_SIZE  bytes of each per-pair ring, a power of two; 0: no rings; -1: auto
 *   FERRY_SHM_RING_MAX   largest payload sent through a ring; -1: auto (a quarter ring) */
static int read_config(int nlocal)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    long cell_size = MPIDU_config_int("FERRY_SHM_CELL_SIZE");
    long num_cells = MPIDU_config_int("FERRY_SHM_NUM_CELLS");
    long cma = MPIDU_config_int("FERRY_SHM_CMA");
    long ring_size = MPIDU_config_int("FERRY_SHM_RING_SIZE");
    long ring_max = MPIDU_config_int("FERRY_SHM_RING_MAX");

    if (cell_size < MPIDI_SHM_CELL_SIZE_MIN || cell_size > MPIDI_SHM_CELL_SIZE_MAX)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_CELL_SIZE=%ld is outside [%d, %ld]",
                                cell_size, MPIDI_SHM_CELL_SIZE_MIN, MPIDI_SHM_CELL_SIZE_MAX);
    if (num_cells < 1 || num_cells > MPIDI_SHM_NUM_CELLS_MAX)
        return MPIDU_err_create(MPI_ERR_ARG, "FERRY_SHM_NUM_CELLS=%ld is outside [1, %d]",
                                num_cells, MPIDI_SHM_NUM_CELLS_MAX);
    /* Whole cache lines, so no two cells share one (false sharing between a
     * sender filling one cell and a receiver reading its neighbour). */
    st->cell_size = round_up((size_t)cell_size, MPIDI_SHM_CACHELINE);
    st->num_cells = (size_t)num_cells;
    st->cma_enabled = (cma != 0);

    if (ring_size == -1)
        ring_size = (long)auto_ring_size(nlocal);
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
        st->ring_max = MPIDI_SHM_ring_need(MPIDI_SHM_MAX_HDR, (size_t)ring_max);
    if (st->ring_max > st->ring_size / 2)
        st->ring_max = st->ring_size / 2;
#if !defined(__linux__)
    st->cma_enabled = 0; /* process_vm_readv is Linux only */
#endif
    return MPI_SUCCESS;
}

/* shm_open names start with '/' and contain no other '/'.  The cell
 * geometry is part of the name: a rank started with different tunables then
 * maps a different segment (which post_init reports) instead of resizing and
 * corrupting the shared one under its peers. */
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
    snprintf(st->name, sizeof(st->name), "/ferry-shm-%s-n%d-%zux%zu-r%zu", kvs, job->node_id,
             st->cell_size, st->num_cells, st->ring_size);
    return MPI_SUCCESS;
}

static int compute_layout(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    st->rings_off = round_up(sizeof(MPIDI_SHM_ctrl_t), MPIDI_SHM_CACHELINE);
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
    free(st->pids);
    free(st->send_seq);
    free(st->recv_seq);
    free(st->ring_tx);
    free(st->ring_rx);
    free(st->free_stack);
    memset(st, 0, sizeof(*st));
}

static int alloc_private(const MPIDI_job_t *job)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int n = job->nlocal;

    st->local_ranks = malloc(sizeof(int) * n);
    st->world_to_local = malloc(sizeof(int) * job->size);
    st->pids = calloc(n, sizeof(pid_t));
    st->send_seq = calloc(n, sizeof(uint32_t));
    st->recv_seq = calloc(n, sizeof(uint32_t));
    st->ring_tx = calloc(n, sizeof(MPIDI_SHM_ring_tx_t));
    st->ring_rx = calloc(n, sizeof(MPIDI_SHM_ring_rx_t));
    st->free_stack = malloc(sizeof(MPIDI_SHM_off_t) * st->num_cells);
    if (!st->local_ranks || !st->world_to_local || !st->pids || !st->send_seq || !st->recv_seq ||
        !st->ring_tx || !st->ring_rx || !st->free_stack)
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

/* Initialises this process's own region only: its control block, its two
 * queues, the rings it receives from, and its private list of free
 * cells.  Peers never write into it before the job-wide barrier that follows
 * init.  Cells need no initialisation: a sender writes every header field it
 * uses.  Explicit initialisation (rather than trusting a fresh segment to be
 * zero) also makes a stale segment left by a crashed job harmless. */
static void init_own_region(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_ctrl_t *ctrl = MPIDI_SHM_ctrl(st->me);
    char *region = (char *)ctrl;

    ctrl->pid = (uint64_t)getpid();
    ctrl->cell_size = st->cell_size;
    ctrl->num_cells = st->num_cells;
    ctrl->nlocal = (uint64_t)st->nlocal;
    ctrl->ring_size = st->ring_size;
    MPIDI_SHM_queue_init(&ctrl->recvq);
    MPIDI_SHM_queue_init(&ctrl->freeq);
    /* Each ring starts empty: nothing consumed, and a 0 length where the
     * receiver looks first.  The rest of the data needs no clearing: the
     * sender writes a 0 after every entry it publishes (shm_ring.h). */
    static uint32_t no_entry; /* what the ring from ourselves (or no ring) always shows: nothing */
    for (int s = 0; s < st->nlocal; s++) {
        MPIDI_SHM_ring_t *ring = MPIDI_SHM_ring(s, st->me);
        st->ring_rx[s].data = (char *)&no_entry;
        if (st->ring_size == 0)
            continue;
        atomic_store_explicit(&ring->consumed, 0, memory_order_relaxed);
        atomic_store_explicit(&MPIDI_SHM_ring_entry(ring, 0)->len, 0, memory_order_relaxed);
        st->ring_rx[s].ring = ring;
        if (s != st->me) {
            st->ring_rx[s].data = MPIDI_SHM_ring_data(ring);
            st->ring_tx[s].ring = MPIDI_SHM_ring(st->me, s);
        }
    }

    /* Pushed in reverse so the first cells used are the first in memory. */
    st->nfree = 0;
    for (size_t i = st->num_cells; i-- > 0;)
        st->free_stack[st->nfree++] = MPIDI_SHM_rel(region + st->cells_off + i * st->cell_size);
    st->recvq_shadow = 0;
    st->freeq_shadow = 0;

    /* Release: a peer that reads the magic (acquire, in post_init) sees the
     * fields above.  The barrier between init and post_init orders them too;
     * this keeps the check meaningful on its own. */
    atomic_store_explicit(&ctrl->magic, MPIDI_SHM_MAGIC, memory_order_release);
}

static int map_segment(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int mpi_errno = MPI_SUCCESS;
    struct stat sb;

    /* Every local rank opens with O_CREAT: whoever comes first creates it,
     * no leader election, no race on who initialises what. */
    int fd = shm_open(st->name, O_CREAT | O_RDWR, 0600);
    if (fd < 0)
        return MPIDU_err_create(MPI_ERR_OTHER, "shm_open(%s) on rank %d: %s (errno %d)", st->name,
                                world_rank, strerror(errno), errno);

    /* Only grow: every rank computes the same size (the geometry is in the
     * name), so an existing object of another size is a stale leftover. */
    if (fstat(fd, &sb) < 0) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "fstat(%s) on rank %d: %s (errno %d)", st->name,
                                     world_rank, strerror(errno), errno);
        goto close_fd;
    }
    if ((size_t)sb.st_size != st->seg_size) {
        if ((size_t)sb.st_size > st->seg_size) {
            mpi_errno = MPIDU_err_create(MPI_ERR_OTHER,
                                         "shm segment %s has %lld bytes, expected %zu (stale?)",
                                         st->name, (long long)sb.st_size, st->seg_size);
            goto close_fd;
        }
        if (ftruncate(fd, (off_t)st->seg_size) < 0) {
            mpi_errno =
                MPIDU_err_create(MPI_ERR_OTHER, "ftruncate(%s, %zu) on rank %d: %s (errno %d)",
                                 st->name, st->seg_size, world_rank, strerror(errno), errno);
            goto close_fd;
        }
    }

    void *p = mmap(NULL, st->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER, "mmap(%s, %zu) on rank %d: %s (errno %d)",
                                     st->name, st->seg_size, world_rank, strerror(errno), errno);
        goto close_fd;
    }
    st->base = p;

close_fd:
    close(fd); /* the mapping keeps the object alive */
    return mpi_errno;
}

int MPIDI_SHM_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int mpi_errno;

    memset(st, 0, sizeof(*st));
    world_rank = job->rank;
    mpi_errno = read_config(job->nlocal);
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
    /* The counters that tell tests which path messages took (doc/methods/shm.md). */
    if ((mpi_errno = MPIDU_stat_register("shm_ring_sent", &st->stat_ring_sent)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_bytes_max", &st->stat_ring_bytes_max)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_full", &st->stat_ring_full)) ||
        (mpi_errno = MPIDU_stat_register("shm_ring_wrap", &st->stat_ring_wrap)) ||
        (mpi_errno = MPIDU_stat_register("shm_cell_sent", &st->stat_cell_sent)))
        goto fn_fail;

    mpi_errno = alloc_private(job);
    if (mpi_errno)
        goto free_state;
    mpi_errno = compute_layout();
    if (mpi_errno)
        goto free_state;

    /* Caps: a cell carries the header in its fixed 128-byte head, so the
     * payload limit is the rest of the cell. */
    caps_p->size = sizeof(MPIDI_method_caps_t);
    caps_p->max_hdr = MPIDI_SHM_MAX_HDR;
    caps_p->eager_limit = st->cell_size - MPIDI_SHM_CELL_HDR_SIZE;
    caps_p->max_send = caps_p->eager_limit;
    caps_p->rndv_modes = MPIDI_RNDV_PIPELINE;
    if (st->cma_enabled)
        caps_p->rndv_modes |= MPIDI_RNDV_READ | MPIDI_RNDV_WRITE;
    caps_p->needs_reg = 0;
    /* Above any network method: when a peer shares the node, shm is both
     * faster and keeps node-local traffic off the NIC. */
    caps_p->exclusivity = 100;
    caps_p->scope = MPIDI_SCOPE_NODE;

    /* Alone on the node: nobody to reach, nothing to share. */
    if (st->nlocal == 1)
        return MPI_SUCCESS;

    mpi_errno = make_name(job);
    if (mpi_errno)
        goto free_state;
    mpi_errno = map_segment();
    if (mpi_errno)
        goto unlink_segment;

    if (!atomic_is_lock_free(&MPIDI_SHM_ctrl(0)->recvq.tail)) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER,
                                     "shm: 64-bit atomics are not lock-free on this machine");
        goto unmap_segment;
    }
    init_own_region();
    return MPI_SUCCESS;

unmap_segment:
    munmap(st->base, st->seg_size);
unlink_segment:
    /* Whoever fails removes the name, so no file outlives a failed start. */
    if (shm_unlink(st->name) < 0 && errno != ENOENT)
        fprintf(stderr, "shm_unlink(%s): %s (errno %d)\n", st->name, strerror(errno), errno);
free_state:
    free_private();
fn_fail:
    return mpi_errno;
}

/* Runs after every local rank initialised its region (the core's barrier).
 * The name is removed at once: the mappings keep the memory alive, and a job
 * that crashes from now on leaves nothing in /dev/shm. */
int MPIDI_SHM_post_init(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    if (st->base == NULL)
        return MPI_SUCCESS;
    if (!st->unlinked) {
        if (shm_unlink(st->name) < 0 && errno != ENOENT)
            return MPIDU_err_create(MPI_ERR_OTHER, "shm_unlink(%s) on rank %d: %s (errno %d)",
                                    st->name, world_rank, strerror(errno), errno);
        st->unlinked = 1;
    }

    for (int i = 0; i < st->nlocal; i++) {
        MPIDI_SHM_ctrl_t *c = MPIDI_SHM_ctrl(i);
        /* Acquire: pairs with the owner's release store of the magic, so the
         * fields read below are the ones it wrote. */
        if (atomic_load_explicit(&c->magic, memory_order_acquire) != MPIDI_SHM_MAGIC)
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "shm: rank %d did not initialise its part of %s (different "
                                    "FERRY_SHM_CELL_SIZE or FERRY_SHM_NUM_CELLS?)",
                                    st->local_ranks[i], st->name);
        if (c->cell_size != st->cell_size || c->num_cells != st->num_cells ||
            c->nlocal != (uint64_t)st->nlocal || c->ring_size != st->ring_size)
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "shm: rank %d has %llu cells of %llu bytes and rings of %llu "
                                    "for %llu ranks, rank %d has %zu of %zu and %zu for %d",
                                    st->local_ranks[i], (unsigned long long)c->num_cells,
                                    (unsigned long long)c->cell_size,
                                    (unsigned long long)c->ring_size, (unsigned long long)c->nlocal,
                                    world_rank, st->num_cells, st->cell_size, st->ring_size,
                                    st->nlocal);
        st->pids[i] = (pid_t)c->pid;
    }
    return MPI_SUCCESS;
}

int MPIDI_SHM_finalize(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    if (st->base != NULL) {
        if (!st->unlinked && shm_unlink(st->name) < 0 && errno != ENOENT)
            fprintf(stderr, "shm_unlink(%s): %s (errno %d)\n", st->name, strerror(errno), errno);
        munmap(st->base, st->seg_size);
    }
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

    if (st->base == NULL || peer < 0 || peer >= st->world_size || peer == world_rank)
        return 0;
    return st->world_to_local[peer] >= 0;
}

int MPIDI_SHM_connect(int peer, const char *card)
{
    if (!MPIDI_SHM_reachable(peer, card))
        return MPIDU_err_create(MPI_ERR_INTERN, "shm connect to rank %d: not on this node", peer);
    return MPI_SUCCESS;
}
