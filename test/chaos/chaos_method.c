/* chaos_method.c: a fake method over shm that answers AGAIN and INPROGRESS at random, completes
 * out of call order, needs registration, and checks every handle and key the core gives it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "chaos.h"
#include "rcache.h"

/* It runs the core's protocols the way an RDMA method would, which shm and
 * self never do:
 *   - am_send answers AGAIN (took nothing) or INPROGRESS (keeps reading the
 *     caller's memory until a later progress call sends it) at random; a
 *     peer's active messages still go out in the order they were accepted;
 *   - rdma_get/rdma_put answer AGAIN, complete at once, or complete later,
 *     in random order across every peer and request (the copy itself is
 *     done only then, as a device would);
 *   - memory must be registered (needs_reg, needs_local_reg), through the
 *     shared registration cache; keys are checked against the owner's
 *     registry, read from its memory, so a wrong key, a region freed too
 *     early, a missing local handle or wrong rights abort the job; the
 *     published address is an offset from the region's base when
 *     CHAOS_OFFSET=1 (libfabric without FI_MR_VIRT_ADDR);
 *   - MPIDI_AM_FENCE is honoured: a fenced message waits for the peer's
 *     earlier rdma operations.
 * The data itself moves through shm (cells and CMA). */

extern const MPIDI_method_ops_t MPIDI_shm_ops;
static const MPIDI_method_ops_t *const shm = &MPIDI_shm_ops;

/* ---- randomness, from CHAOS_SEED ---- */
static unsigned long long rng;
static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}
static unsigned pct_again, pct_delay, pct_refuse;

static int my_rank, world;
static int offset_mode;
static unsigned long long counts[CHAOS_NCOUNTS];

static void die(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "chaos: rank %d (seed %llu): %s\n", my_rank, chaos_seed, msg);
    fflush(stderr);
    abort();
}

/* ---- the registry: what a peer's key refers to ---- */
#define NREG 4096
typedef struct reg_entry {
    uint64_t key; /* (generation << 16) | index; 0: free */
    uintptr_t base;
    size_t len;
    unsigned access;
} reg_entry_t;
static reg_entry_t registry[NREG];
static unsigned reg_gen;
static MPIDU_rcache_t *rcache;

static int cb_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle_p,
                  unsigned *granted_p)
{
    for (int i = 1; i < NREG; i++) {
        if (registry[i].key)
            continue;
        registry[i].base = (uintptr_t)addr;
        registry[i].len = len;
        registry[i].access = access;
        registry[i].key = ((uint64_t)++reg_gen << 16) | (uint64_t)i;
        *handle_p = &registry[i];
        *granted_p = access;
        counts[CHAOS_REGS]++;
        return 0;
    }
    return MPIDU_err_create(MPI_ERR_OTHER, "chaos: registry full");
}

static void cb_dereg(void *ctx, void *handle)
{
    reg_entry_t *e = handle;
    if (!e->key)
        die("a registration was deregistered twice");
    e->key = 0;
}

static const MPIDU_rcache_ops_t rcache_ops = {.reg = cb_reg, .dereg = cb_dereg};

static int chaos_mem_reg(void *addr, size_t len, unsigned access, MPIDI_mem_t *mem_p)
{
    MPIDU_rcache_region_t *r;
    int err = MPIDU_rcache_get(rcache, addr, len, access, &r);
    if (err)
        return err;
    reg_entry_t *e = r->handle;
    mem_p->handle = r;
    mem_p->key = e->key;
    mem_p->remote_addr = offset_mode ? (uintptr_t)addr - e->base : (uintptr_t)addr;
    return MPI_SUCCESS;
}

static int chaos_mem_dereg(void *handle)
{
    MPIDU_rcache_put(rcache, handle);
    return MPI_SUCCESS;
}

/* ---- peers: pids and registry addresses from the cards ---- */
typedef struct am_entry {
    struct am_entry *next;
    int handler;
    size_t hdr_len;
    char hdr[256];
    const MPIR_Segment *seg;
    size_t first, last;
    unsigned flags;
    void *cookie; /* non-NULL: we answered INPROGRESS and owe an MPIDU_op_done */
    /* Given no cookie, the caller's memory is valid only during the call
     * (MPID_Send, doc/method-api.md): the payload is copied here. */
    MPIR_Segment copy_seg;
    char *copy;
} am_entry_t;

typedef struct peer {
    int known;
    pid_t pid;
    uintptr_t registry;
    am_entry_t *head, *tail; /* accepted, not yet given to shm, in order */
    int rdma_pending;        /* rdma operations not completed yet (for fences) */
} peer_t;
static peer_t *peers;

typedef struct rdma_op {
    int is_get, peer;
    void *local;
    size_t len;
    uintptr_t remote; /* virtual address at the peer */
    void *cookie;
} rdma_op_t;
static rdma_op_t *pending;
static size_t npending, cap_pending;

static char my_card[512];
static int flush_peer(int peer);

static int chaos_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps)
{
    my_rank = job->rank;
    world = job->size;
    const char *s = getenv("CHAOS_SEED");
    chaos_seed = s ? strtoull(s, NULL, 0) : 1;
    rng = chaos_seed * 2654435761ULL + (unsigned long long)job->rank * 40503ULL + 1;
    pct_again = (s = getenv("CHAOS_AGAIN")) ? (unsigned)atoi(s) : 25;
    pct_delay = (s = getenv("CHAOS_DELAY")) ? (unsigned)atoi(s) : 50;
    pct_refuse = (s = getenv("CHAOS_REFUSE")) ? (unsigned)atoi(s) : 0;
    offset_mode = (s = getenv("CHAOS_OFFSET")) ? atoi(s) : 0;
    peers = calloc((size_t)world, sizeof(*peers));
    MPIDI_method_caps_t shm_caps = {.size = sizeof(shm_caps)};
    int err = shm->init(job, &shm_caps);
    if (err)
        return err;
    const char *why = NULL;
    int hooks = MPIDU_memhooks_install(&why);
    if (!hooks && getenv("CHAOS_VERBOSE"))
        fprintf(stderr, "chaos: registration cache off: %s\n", why);
    s = getenv("CHAOS_RCACHE_REGIONS");
    rcache = MPIDU_rcache_create("chaos", &rcache_ops, NULL, hooks, s ? strtoul(s, NULL, 0) : 16,
                                 1UL << 30);
    *caps = shm_caps;
    caps->size = sizeof(*caps);
    caps->needs_reg = 1;
    caps->needs_local_reg = 1;
    caps->key_size = 8;
    caps->addr_mode = offset_mode ? MPIDI_ADDR_OFFSET : MPIDI_ADDR_VIRTUAL;
    caps->rndv_iov_min_piece = 0; /* needs_local_reg: noncontiguous reads go through bounce */
    caps->exclusivity = 1;
    caps->cardless = 0; /* (shm's is: ours carries the pid and registry address) */
    return MPI_SUCCESS;
}

static int chaos_card(char *buf, size_t len)
{
    char shm_card[400];
    int err = shm->get_business_card(shm_card, sizeof(shm_card));
    if (err)
        return err;
    snprintf(my_card, sizeof(my_card), "%ld:%lx:%s", (long)getpid(), (unsigned long)registry,
             shm_card);
    snprintf(buf, len, "%s", my_card);
    return MPI_SUCCESS;
}

static const char *parse_card(int peer, const char *card)
{
    long pid;
    unsigned long reg;
    int n = 0;
    if (sscanf(card, "%ld:%lx:%n", &pid, &reg, &n) != 2 || n == 0)
        return NULL;
    peers[peer].pid = (pid_t)pid;
    peers[peer].registry = reg;
    peers[peer].known = 1;
    return card + n;
}

static int chaos_reachable(int peer, const char *card)
{
    const char *shm_card = parse_card(peer, card);
    return shm_card && shm->reachable(peer, shm_card);
}

static int chaos_connect(int peer, const char *card)
{
    const char *shm_card = parse_card(peer, card);
    return shm_card ? shm->connect(peer, shm_card)
                    : MPIDU_err_create(MPI_ERR_OTHER, "chaos: bad card of rank %d", peer);
}

static int chaos_post_init(void)
{
    return shm->post_init ? shm->post_init() : 0;
}

static int chaos_finalize(void)
{
    /* Messages accepted but not yet given to shm must still go out: the
     * peer may be waiting for the last one of the finalize barrier. */
    for (int busy = 1; busy;) {
        busy = 0;
        int made = 0;
        shm->progress(&made);
        for (int q = 0; q < world; q++)
            if (peers[q].head) {
                flush_peer(q);
                busy = 1;
            }
    }
    if (npending)
        die("finalize with %zu rdma operations pending", npending);
    MPIDU_rcache_stats_t st;
    MPIDU_rcache_get_stats(rcache, &st);
    counts[CHAOS_RCACHE_HITS] = st.hits;
    MPIDU_rcache_destroy(rcache);
    rcache = NULL;
    chaos_report();
    return shm->finalize();
}

/* ---- active messages ---- */

/* Gives queued messages of one peer to shm, in order; a fenced one waits
 * for the peer's rdma operations.  Returns 1 if any went. */
static int flush_peer(int peer)
{
    peer_t *p = &peers[peer];
    int made = 0;
    while (p->head) {
        am_entry_t *e = p->head;
        if ((e->flags & MPIDI_AM_FENCE) && p->rdma_pending)
            break;
        int rc = shm->am_send(peer, e->handler, e->hdr, e->hdr_len, e->seg, e->first, e->last, 0,
                              e->cookie);
        if (rc == MPIDI_AGAIN)
            break;
        p->head = e->next;
        if (!p->head)
            p->tail = NULL;
        if (e->cookie && rc != MPIDI_INPROGRESS)
            MPIDU_op_done(e->cookie, rc);
        else if (rc > 0)
            die("shm am_send failed: %d", rc);
        free(e->copy);
        free(e);
        made = 1;
    }
    return made;
}

static int chaos_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                         const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                         void *cookie)
{
    peer_t *p = &peers[peer];
    counts[CHAOS_AM_CALLS]++;
    if (rnd(100) < pct_again) {
        counts[CHAOS_AM_AGAIN]++;
        return MPIDI_AGAIN;
    }
    int fenced = (flags & MPIDI_AM_FENCE) && p->rdma_pending;
    if (!p->head && !fenced && rnd(100) >= pct_delay)
        return shm->am_send(peer, handler, hdr, hdr_len, seg, first, last, 0, cookie);
    /* Accepted, sent later.  A control message (no payload) is copied whole
     * and done; a payload is read from the caller's memory only when it is
     * sent, so the core must keep it until MPIDU_op_done. */
    am_entry_t *e = calloc(1, sizeof(*e));
    if (!e || hdr_len > sizeof(e->hdr))
        die("am_send: no memory or header of %zu bytes", hdr_len);
    e->handler = handler;
    e->hdr_len = hdr_len;
    memcpy(e->hdr, hdr, hdr_len);
    e->seg = seg;
    e->first = first;
    e->last = last;
    e->flags = flags;
    e->cookie = last > first ? cookie : NULL;
    if (last > first && !cookie) {
        e->copy = malloc(last - first);
        if (!e->copy)
            die("am_send: no memory to copy %zu bytes", last - first);
        MPIR_Segment_pack(seg, first, last, e->copy);
        if (MPIR_Segment_init(&e->copy_seg, e->copy, (MPI_Aint)(last - first), MPI_BYTE))
            die("am_send: no segment over the copy of %zu bytes", last - first);
        e->seg = &e->copy_seg;
        e->first = 0;
        e->last = last - first;
    }
    if (p->tail)
        p->tail->next = e;
    else
        p->head = e;
    p->tail = e;
    if (e->cookie) {
        counts[CHAOS_AM_INPROGRESS]++;
        return MPIDI_INPROGRESS;
    }
    return MPI_SUCCESS;
}

/* ---- rdma ---- */

static reg_entry_t read_remote_entry(int peer, uint64_t rkey)
{
    reg_entry_t e;
    unsigned idx = (unsigned)(rkey & 0xffff);
    if (idx == 0 || idx >= NREG)
        die("rdma with rank %d: key %#llx names no registry slot", peer, (unsigned long long)rkey);
    struct iovec l = {.iov_base = &e, .iov_len = sizeof(e)};
    struct iovec r = {.iov_base = (void *)(peers[peer].registry + idx * sizeof(e)),
                      .iov_len = sizeof(e)};
    if (process_vm_readv(peers[peer].pid, &l, 1, &r, 1, 0) != (ssize_t)sizeof(e))
        die("reading rank %d's registry failed", peer);
    return e;
}

static void check_local(const void *local, size_t len, void *handle, unsigned need)
{
    MPIDU_rcache_region_t *r = handle;
    if (!r)
        die("rdma without the local handle a method with needs_local_reg must get");
    reg_entry_t *e = r->handle;
    if (!e->key)
        die("rdma with a local handle already deregistered");
    if ((uintptr_t)local < e->base || (uintptr_t)local + len > e->base + e->len)
        die("rdma local [%p, +%zu) outside its handle's region [%#lx, +%zu)", local, len,
            (unsigned long)e->base, e->len);
    if ((e->access & need) != need)
        die("rdma local access %#x lacks %#x", e->access, need);
}

static uintptr_t check_remote(int peer, uint64_t remote, size_t len, uint64_t rkey, unsigned need)
{
    reg_entry_t e = read_remote_entry(peer, rkey);
    if (e.key != rkey)
        die("rdma with rank %d: key %#llx is stale or wrong (slot holds %#llx)", peer,
            (unsigned long long)rkey, (unsigned long long)e.key);
    uintptr_t va = offset_mode ? e.base + remote : remote;
    if (va < e.base || va + len > e.base + e.len)
        die("rdma with rank %d: [%#lx, +%zu) outside the key's region [%#lx, +%zu)", peer,
            (unsigned long)va, len, (unsigned long)e.base, e.len);
    if ((e.access & need) != need)
        die("rdma with rank %d: remote access %#x lacks %#x", peer, e.access, need);
    return va;
}

static int do_copy(const rdma_op_t *op)
{
    return op->is_get ? shm->rdma_get(op->peer, op->local, op->len, NULL, op->remote, 0, NULL)
                      : shm->rdma_put(op->peer, op->local, op->len, NULL, op->remote, 0, NULL);
}

static int rdma(int is_get, int peer, void *local, size_t len, void *lh, uint64_t remote,
                uint64_t rkey, void *cookie)
{
    counts[CHAOS_RDMA_CALLS]++;
    check_local(local, len, lh, is_get ? MPIDI_MEM_LOCAL_WRITE : 0);
    uintptr_t va = check_remote(peer, remote, len, rkey,
                                is_get ? MPIDI_MEM_REMOTE_READ : MPIDI_MEM_REMOTE_WRITE);
    if (rnd(100) < pct_again) {
        counts[CHAOS_RDMA_AGAIN]++;
        return MPIDI_AGAIN;
    }
    if (rnd(100) < pct_refuse) {
        counts[CHAOS_RDMA_REFUSED]++;
        return MPIDU_err_create(MPI_ERR_OTHER, "chaos refuses this rdma (CHAOS_REFUSE)");
    }
    rdma_op_t op = {
        .is_get = is_get, .peer = peer, .local = local, .len = len, .remote = va, .cookie = cookie};
    if (rnd(100) >= pct_delay)
        return do_copy(&op);
    if (npending == cap_pending) {
        cap_pending = cap_pending ? 2 * cap_pending : 64;
        pending = realloc(pending, cap_pending * sizeof(*pending));
    }
    pending[npending++] = op;
    peers[peer].rdma_pending++;
    counts[CHAOS_RDMA_INPROGRESS]++;
    return MPIDI_INPROGRESS;
}

static int chaos_rdma_get(int peer, void *local, size_t len, void *lh, uint64_t remote,
                          uint64_t rkey, void *cookie)
{
    return rdma(1, peer, local, len, lh, remote, rkey, cookie);
}

static int chaos_rdma_put(int peer, const void *local, size_t len, void *lh, uint64_t remote,
                          uint64_t rkey, void *cookie)
{
    return rdma(0, peer, (void *)local, len, lh, remote, rkey, cookie);
}

static int chaos_progress(int *made)
{
    int err = shm->progress(made);
    if (err)
        return err;
    /* Complete a random subset of the pending rdma operations, in random
     * order (a later one before an earlier one, pieces of one transfer
     * interleaved with another's). */
    size_t n = npending ? rnd((unsigned)npending + 1) : 0;
    for (size_t k = 0; k < n && npending; k++) {
        size_t i = rnd((unsigned)npending);
        rdma_op_t op = pending[i];
        pending[i] = pending[--npending];
        peers[op.peer].rdma_pending--;
        MPIDU_op_done(op.cookie, do_copy(&op));
        *made = 1;
    }
    for (int q = 0; q < world; q++)
        if (peers[q].head && rnd(100) < 70)
            *made |= flush_peer(q);
    return MPI_SUCCESS;
}

const MPIDI_method_ops_t chaos_ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "chaos",
    .init = chaos_init,
    .get_business_card = chaos_card,
    .post_init = chaos_post_init,
    .finalize = chaos_finalize,
    .reachable = chaos_reachable,
    .connect = chaos_connect,
    .am_send = chaos_am_send,
    .progress = chaos_progress,
    .rdma_get = chaos_rdma_get,
    .rdma_put = chaos_rdma_put,
    .mem_reg = chaos_mem_reg,
    .mem_dereg = chaos_mem_dereg,
};

unsigned long long chaos_count(int which)
{
    if (which == CHAOS_RCACHE_HITS && rcache) {
        MPIDU_rcache_stats_t st;
        MPIDU_rcache_get_stats(rcache, &st);
        return st.hits;
    }
    return counts[which];
}
