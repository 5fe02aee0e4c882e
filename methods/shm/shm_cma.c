/* shm_cma.c: single-copy rendezvous data movers (rdma_get/rdma_put) over Linux CMA. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#include "mpi.h"
#include "shm_impl.h"

/* process_vm_readv/writev copy straight between two address spaces, so a
 * large message crosses memory once instead of twice through cells.  The
 * kernel checks ptrace access.  Its Yama rules are known at init and handled
 * there (MPIDI_SHM_cma_setup); anything else that refuses (a seccomp filter,
 * another security module) shows only at the first copy, since reading
 * oneself is always allowed: the first EPERM/ENOSYS turns CMA off for good
 * and the error goes to the core, which then uses the copy pipeline. */

/* One system call moves at most this much, so a huge transfer returns to
 * the loop regularly and a single iovec length stays far from any limit. */
#define MPIDI_SHM_CMA_CHUNK ((size_t)1 << 30)

/* Under valgrind, memory another process wrote into ours is declared
 * defined (a no-op otherwise, and without valgrind's header). */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define MPIDI_SHM_MEM_DEFINED(p, n) ((void)VALGRIND_MAKE_MEM_DEFINED((p), (n)))
#define MPIDI_SHM_QUIET_BEGIN() VALGRIND_DISABLE_ERROR_REPORTING
#define MPIDI_SHM_QUIET_END() VALGRIND_ENABLE_ERROR_REPORTING
#endif
#endif
#ifndef MPIDI_SHM_MEM_DEFINED
#define MPIDI_SHM_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#define MPIDI_SHM_QUIET_BEGIN() ((void)0)
#define MPIDI_SHM_QUIET_END() ((void)0)
#endif

int MPIDI_SHM_yama_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = -1;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    return scope;
}

#if defined(__linux__)
/* Whether this process holds CAP_SYS_PTRACE (bit 19 of CapEff), which scope 2 asks for. */
static int can_ptrace(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long eff = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "CapEff: %llx", &eff) == 1)
            break;
    fclose(f);
    return (eff >> 19) & 1;
}
#endif

int MPIDI_SHM_cma_setup(char *why, size_t len)
{
#if defined(__linux__)
    int scope = MPIDI_SHM_yama_scope();
    why[0] = '\0';
    if (scope <= 0)
        return 1;
    if (scope == 1) {
        /* Ranks of a node are siblings, which scope 1 refuses unless the
         * process read names its reader.  Any process of ours may read, as
         * in Open MPI: the ranks' pids are not all known yet, and a process
         * of another user is refused by the usual rules all the same. */
        if (prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0) == 0)
            return 1;
        snprintf(why, len, "kernel.yama.ptrace_scope = 1 and prctl(PR_SET_PTRACER): %s",
                 strerror(errno));
        return 0;
    }
    if (scope == 2 && can_ptrace())
        return 1;
    snprintf(why, len, "kernel.yama.ptrace_scope = %d%s", scope,
             scope == 2 ? " and no CAP_SYS_PTRACE" : " (no process may read another)");
    return 0;
#else
    snprintf(why, len, "cross-memory attach is Linux only");
    return 0;
#endif
}

typedef ssize_t (*cma_fn_t)(pid_t, const struct iovec *, unsigned long, const struct iovec *,
                            unsigned long, unsigned long);

/* The local index of peer, or an error code for a peer CMA cannot reach. */
static int cma_peer(const char *what, int peer, int *li_p)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int li = (st->base && peer >= 0 && peer < st->world_size) ? st->world_to_local[peer] : -1;

    *li_p = li;
    if (li < 0 || li == st->me)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm %s with rank %d: not a peer on this node",
                                what, peer);
    if (!st->cma_enabled)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "shm %s with rank %d: CMA is off (FERRY_SHM_CMA=0 or refused "
                                "earlier); use the pipeline protocol",
                                what, peer);
    return MPI_SUCCESS;
}

/* Copies len bytes between local and remote_addr of local peer li: 0 or an errno. */
static int cma_move(cma_fn_t fn, int li, void *local, size_t len, uint64_t remote_addr,
                    size_t *done_p)
{
    size_t done = 0;

    while (done < len) {
        size_t piece = len - done < MPIDI_SHM_CMA_CHUNK ? len - done : MPIDI_SHM_CMA_CHUNK;
        struct iovec liov = {.iov_base = (char *)local + done, .iov_len = piece};
        struct iovec riov = {.iov_base = (void *)(uintptr_t)(remote_addr + done), .iov_len = piece};
        /* Under valgrind, a write from our memory is not checked for defined
         * bytes: what a program sends is its own business (the padding of a
         * long double, say), as it is when the receiver reads it, which memcheck
         * cannot see.  Seen with shared reads, whose sender writes
         * (coll_bcast_barrier under valgrind). */
        if (fn == process_vm_writev)
            MPIDI_SHM_QUIET_BEGIN();
        ssize_t n = fn(MPIDI_SHM_pid(li), &liov, 1, &riov, 1, 0);
        int err = errno;
        if (fn == process_vm_writev)
            MPIDI_SHM_QUIET_END();
        errno = err;

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *done_p = done;
            return n < 0 ? errno : 0;
        }
        /* A partial transfer (page boundary, signal) just continues. */
        done += (size_t)n;
    }
    *done_p = done;
    return 0;
}

/* One side's copy, with the error the core sees (EPERM/ENOSYS turn CMA off). */
static int cma_copy(cma_fn_t fn, int li, void *local, size_t len, uint64_t remote_addr)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    const char *what = fn == process_vm_readv ? "process_vm_readv from" : "process_vm_writev to";
    size_t done;
    int err = cma_move(fn, li, local, len, remote_addr, &done);

    if (err == EPERM || err == ENOSYS)
        st->cma_enabled = 0;
    if (err)
        return MPIDU_err_create(MPI_ERR_OTHER, "%s rank %d: %s (errno %d)", what,
                                st->local_ranks[li], strerror(err), err);
    if (done < len)
        return MPIDU_err_create(MPI_ERR_OTHER, "%s rank %d: no progress at byte %zu of %zu", what,
                                st->local_ranks[li], done, len);
    return MPI_SUCCESS;
}

/* Shared reads.  A read copies with one CPU, and in a rendezvous the
 * sender, whose memory it is, mostly waits meanwhile.  So a read of at
 * least FERRY_SHM_CMA_SPLIT bytes is cut in chunks and the sender is asked,
 * in a cell, to help (shm_impl.h, MPIDI_SHM_help_t): we read chunks from
 * the front, it writes chunks from the back into our buffer, and the two
 * copies run at once on two CPUs.  Nothing waits on a peer that is not
 * copying already: a helper that comes late finds fewer chunks (or none),
 * and the reader waits at most for the chunk its helper is writing.  A read
 * the helper joined completes through progress (MPIDI_SHM_help_poll, then
 * MPIDU_op_done).  Why the helper's writes are done before our next message
 * reaches it: it writes while it handles the cell and handles our messages
 * in order (so a FIN sent behind the read, fenced or not, finds the data in
 * place). */

/* Chunks: at most MPIDI_SHM_HELP_CHUNKS of them, whole pages, and at least
 * 64 KiB or half the split size when that is smaller (a small
 * FERRY_SHM_CMA_SPLIT is for tests).  Two: a system call costs 2-5 us in
 * this VM (getppid 1.8 us, a 64-byte process_vm_readv 3.7 us), and 1 MiB
 * read in 8 calls took 164-171 us against 119-132 us in one. */
#define MPIDI_SHM_HELP_CHUNKS 2
#define MPIDI_SHM_HELP_CHUNK_MIN (64 * 1024)

static size_t page_up(size_t n)
{
    return (n + MPIDI_SHM_PAGE - 1) & ~(size_t)(MPIDI_SHM_PAGE - 1);
}

static size_t help_chunk(size_t len)
{
    size_t chunk = page_up(len / MPIDI_SHM_HELP_CHUNKS);
    size_t least = page_up(MPIDI_SHM_state.cma_split / 2);

    if (least > MPIDI_SHM_HELP_CHUNK_MIN)
        least = MPIDI_SHM_HELP_CHUNK_MIN;
    return chunk > least ? chunk : least;
}

static MPIDI_SHM_help_t *help_of(MPIDI_SHM_cell_t *cell)
{
    return (MPIDI_SHM_help_t *)cell->hdr;
}

/* Takes the next chunk from the front (back = 0) or the back; -1: none left. */
static long help_take(MPIDI_SHM_help_t *h, int back)
{
    uint64_t t = atomic_load_explicit(&h->taken, memory_order_relaxed);
    uint64_t step = back ? (uint64_t)1 << 32 : 1;

    for (;;) {
        uint32_t front = (uint32_t)t, from_back = (uint32_t)(t >> 32);
        if (front + from_back >= h->nchunks)
            return -1;
        /* Relaxed: the chunks are disjoint; the state carries the ordering. */
        if (atomic_compare_exchange_weak_explicit(&h->taken, &t, t + step, memory_order_relaxed,
                                                  memory_order_relaxed))
            return back ? (long)h->nchunks - 1 - from_back : (long)front;
    }
}

/* Copies chunks [first, last) of h on the reader's side (fn = readv) or the
 * helper's (writev): 0 or an errno. */
static int help_copy(cma_fn_t fn, int li, const MPIDI_SHM_help_t *h, uint64_t first, uint64_t last)
{
    uint64_t lo = first * h->chunk, hi = last * h->chunk < h->len ? last * h->chunk : h->len;
    size_t done;
    int err;

    if (lo >= hi)
        return 0;
    if (fn == process_vm_readv)
        err = cma_move(fn, li, (void *)(uintptr_t)(h->dst + lo), hi - lo, h->src + lo, &done);
    else
        err = cma_move(fn, li, (void *)(uintptr_t)(h->src + lo), hi - lo, h->dst + lo, &done);
    return err ? err : done < hi - lo ? EIO : 0;
}

/* The reader's end of a read the helper joined, once it stored DONE or
 * REFUSED (we read its chunks again).  Puts the cell back; the read's
 * error. */
static int help_finish(MPIDI_SHM_cell_t *cell, int li)
{
    MPIDI_SHM_help_t *h = help_of(cell);
    uint32_t from_back = (uint32_t)(atomic_load_explicit(&h->taken, memory_order_relaxed) >> 32);
    uint64_t lo = (uint64_t)(h->nchunks - from_back) * h->chunk;
    int mpi_errno = MPI_SUCCESS;

    /* Nothing when the helper came after every chunk was taken. */
    if (lo < h->len &&
        atomic_load_explicit(&h->state, memory_order_relaxed) == MPIDI_SHM_HELP_REFUSED)
        mpi_errno = cma_copy(process_vm_readv, li, (void *)(uintptr_t)(h->dst + lo), h->len - lo,
                             h->src + lo);
    else if (lo < h->len)
        /* Another process wrote these bytes: memcheck, which watches only
         * this one, would take them for uninitialised. */
        MPIDI_SHM_MEM_DEFINED((void *)(uintptr_t)(h->dst + lo), h->len - lo);
    MPIDI_SHM_cell_untake(cell);
    return mpi_errno;
}

/* Our own chunk failed while the helper writes: the core will fall back to
 * the pipeline, whose data must not meet a late write of the helper's, so
 * we wait for the end of its chunk (it needs nothing from us), or its
 * death. */
static void help_wait_claimed(MPIDI_SHM_help_t *h, int li)
{
    for (unsigned spins = 1;
         atomic_load_explicit(&h->state, memory_order_acquire) == MPIDI_SHM_HELP_CLAIMED; spins++) {
        sched_yield();
        if (spins % 1024 == 0 && kill(MPIDI_SHM_pid(li), 0) != 0 && errno == ESRCH)
            return;
    }
}

/* The reader's POSTED -> TAKEN_BACK: 1 when the helper never claimed the
 * read (its chunks are ours); else 0 and *state_p the helper's state.
 * Acq_rel: our reads of the cell happen before the helper hands it back;
 * on failure, acquire: after DONE the helper's writes into our buffer
 * happened before. */
static int help_take_back(MPIDI_SHM_help_t *h, uint32_t *state_p)
{
    *state_p = MPIDI_SHM_HELP_POSTED;
    return atomic_compare_exchange_strong_explicit(&h->state, state_p, MPIDI_SHM_HELP_TAKEN_BACK,
                                                   memory_order_acq_rel, memory_order_acquire);
}

static int shared_get(int li, char *local, size_t len, uint64_t remote_addr, void *cookie,
                      MPIDI_SHM_cell_t *cell)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_help_t *h = help_of(cell);
    size_t chunk = help_chunk(len);
    long k;
    int err = 0;

    atomic_store_explicit(&h->state, MPIDI_SHM_HELP_POSTED, memory_order_relaxed);
    atomic_store_explicit(&h->taken, 0, memory_order_relaxed);
    h->err = 0;
    h->dst = (uint64_t)(uintptr_t)local;
    h->src = remote_addr;
    h->len = len;
    h->chunk = chunk;
    h->nchunks = (uint32_t)((len + chunk - 1) / chunk);
    cell->handler = MPIDI_SHM_HANDLER_HELP;
    cell->hdr_len = sizeof(*h);
    cell->payload_len = 0;
    MPIDI_SHM_cell_post(li, cell);
    st->stat_cma_split++;

    /* A helper that polls claims the cell while we read our first chunk.
     * One that has not by then is busy elsewhere (computing, copying for
     * itself, or off its CPU on a loaded node): we take the read back and
     * do the rest in one call, unless it is still writing a chunk of an
     * earlier read of ours (help_wait), after which it comes to this one. */
    uint32_t state = MPIDI_SHM_HELP_POSTED;
    int alone = 0;
    while (!err && (k = help_take(h, 0)) >= 0) {
        err = help_copy(process_vm_readv, li, h, (uint64_t)k, (uint64_t)k + 1);
        if (!err && !st->nhelp_wait &&
            atomic_load_explicit(&h->state, memory_order_relaxed) == MPIDI_SHM_HELP_POSTED &&
            (alone = help_take_back(h, &state))) {
            err = help_copy(process_vm_readv, li, h, (uint64_t)k + 1, h->nchunks);
            break;
        }
    }
    if (!alone)
        alone = help_take_back(h, &state);
    if (alone)
        st->stat_cma_taken_back++;
    else if (err)
        help_wait_claimed(h, li);
    if (err) {
        if (!alone &&
            atomic_load_explicit(&h->state, memory_order_relaxed) != MPIDI_SHM_HELP_CLAIMED)
            MPIDI_SHM_cell_untake(cell);
        if (err == EPERM || err == ENOSYS)
            st->cma_enabled = 0;
        return MPIDU_err_create(MPI_ERR_OTHER, "process_vm_readv from rank %d: %s (errno %d)",
                                st->local_ranks[li], strerror(err), err);
    }
    if (alone)
        return MPI_SUCCESS;
    if (state != MPIDI_SHM_HELP_CLAIMED)
        return help_finish(cell, li);
    MPIDI_SHM_help_wait_t *w = &st->help_wait[st->nhelp_wait++];
    w->cell = cell;
    w->li = li;
    w->cookie = cookie;
    return MPIDI_INPROGRESS;
}

int MPIDI_SHM_help_poll(void)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int completed = 0;

    for (int k = 0; k < st->nhelp_wait;) {
        MPIDI_SHM_help_wait_t w = st->help_wait[k];
        /* Acquire: pairs with the helper's release store, so its write into
         * our buffer happened before. */
        uint32_t state = atomic_load_explicit(&help_of(w.cell)->state, memory_order_acquire);
        if (state == MPIDI_SHM_HELP_CLAIMED) {
            k++;
            continue;
        }
        /* Out of the list before the core hears of it: op_done may start
         * other reads. */
        st->help_wait[k] = st->help_wait[--st->nhelp_wait];
        MPIDU_op_done(w.cookie, help_finish(w.cell, w.li));
        completed++;
    }
    return completed;
}

void MPIDI_SHM_help_drop(int li)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    /* The cells stay lost: a helper that died may have been writing. */
    for (int k = 0; k < st->nhelp_wait;)
        if (st->help_wait[k].li == li)
            st->help_wait[k] = st->help_wait[--st->nhelp_wait];
        else
            k++;
}

int MPIDI_SHM_help_run(int s, MPIDI_SHM_cell_t *cell)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_help_t *h = help_of(cell);
    uint32_t state = MPIDI_SHM_HELP_POSTED;
    long k;
    int err = 0;

    /* Acquire: the reader's fields of the cell (and its cell's contents
     * are published by the enqueue already). */
    if (cell->hdr_len != sizeof(*h) ||
        !atomic_compare_exchange_strong_explicit(&h->state, &state, MPIDI_SHM_HELP_CLAIMED,
                                                 memory_order_acquire, memory_order_relaxed))
        return 0; /* taken back: the reader read it all; hand the cell back */
    while (!err && (k = help_take(h, 1)) >= 0) {
        err = help_copy(process_vm_writev, s, h, (uint64_t)k, (uint64_t)k + 1);
        st->stat_cma_helped += !err;
    }
    h->err = err;
    /* Release: our writes into the reader's buffer (and err) before it sees
     * the state; after this store the cell is the reader's again. */
    atomic_store_explicit(&h->state, err ? MPIDI_SHM_HELP_REFUSED : MPIDI_SHM_HELP_DONE,
                          memory_order_release);
    MPIDI_SHM_wake(s);
    return 1;
}

/* A peer that is reading itself (from us or anyone: windows both ways) has
 * its own copying to do: asking it only adds a cell, a system call and a
 * later completion to our read.  Relaxed: a hint, read once per read. */
static int peer_reading(int li)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;

    if (!atomic_load_explicit(&MPIDI_SHM_ctrl(li)->reading, memory_order_relaxed))
        return 0;
    st->stat_cma_peer_busy++;
    return 1;
}

int MPIDI_SHM_rdma_get(int peer, void *local, size_t len, void *local_handle, uint64_t remote_addr,
                       uint64_t rkey, void *cookie)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    MPIDI_SHM_cell_t *cell;
    _Atomic uint32_t *reading = &MPIDI_SHM_ctrl(st->me)->reading;
    int li;
    int mpi_errno = cma_peer("process_vm_readv", peer, &li);

    (void)local_handle; /* nor registration of the local side */
    (void)rkey;         /* CMA needs no registration key: addresses are virtual */
    if (mpi_errno)
        return mpi_errno;
    atomic_store_explicit(reading, 1, memory_order_relaxed);
    /* Shared only with a cookie to complete later, while cells are free (a
     * read alone is no worse than before) and with a peer that is not
     * reading itself. */
    if (st->cma_split && len >= st->cma_split && len > help_chunk(len) && cookie &&
        st->nhelp_wait < MPIDI_SHM_HELP_MAX && !st->nfailed && !peer_reading(li) &&
        (cell = MPIDI_SHM_cell_take()))
        mpi_errno = shared_get(li, local, len, remote_addr, cookie, cell);
    else
        mpi_errno = cma_copy(process_vm_readv, li, local, len, remote_addr);
    atomic_store_explicit(reading, 0, memory_order_relaxed);
    return mpi_errno;
}

int MPIDI_SHM_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                       uint64_t remote_addr, uint64_t rkey, void *cookie)
{
    int li;
    int mpi_errno = cma_peer("process_vm_writev", peer, &li);

    (void)local_handle;
    (void)rkey;
    (void)cookie; /* completes before returning: no MPIDU_op_done */
    if (mpi_errno)
        return mpi_errno;
    /* process_vm_writev only reads the local memory; the cast drops the const
     * that struct iovec cannot carry. */
    return cma_copy(process_vm_writev, li, (void *)local, len, remote_addr);
}
