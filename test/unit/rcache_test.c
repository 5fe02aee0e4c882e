/* rcache_test.c: the registration cache keeps, evicts and invalidates regions, and never serves
 * a stale registration: a fake device that pins pages like a real one reads through it. */
#include <fcntl.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "method.h"
#include "rcache.h"

/* The fake device.  A real registration pins the physical pages mapped at
 * registration time; the device keeps using those pages whatever the
 * program maps at that address later.  The fake does the same: for shared
 * memory it maps a second view of the very pages (mremap with old size 0),
 * and reads through that view; for private memory it records each page's
 * frame number from /proc/self/pagemap and checks it at every read (root
 * only; elsewhere that part is skipped). */
typedef struct fake_reg {
    uintptr_t start;
    size_t len;
    unsigned access;
    char *view;       /* shared memory: a second mapping of the same pages */
    uint64_t *frames; /* private memory: frame numbers at registration */
    int live;
} fake_reg_t;

#define MAX_LOG 256
static fake_reg_t *log_regs[MAX_LOG];
static int nregs, nderegs;
static int pagemap_fd = -1;
static long page;
static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL line %d: %s: ", __LINE__, #cond);                                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static uint64_t frame_of(uintptr_t addr)
{
    uint64_t e = 0;
    if (pagemap_fd < 0 ||
        pread(pagemap_fd, &e, sizeof(e), (off_t)(addr / (uintptr_t)page * sizeof(e))) != sizeof(e))
        return 0;
    return (e >> 63) ? (e & ((1ULL << 55) - 1)) : 0; /* present: PFN in bits 0-54 */
}

static int fake_shared;

static int fake_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle_p,
                    unsigned *granted_p)
{
    fake_reg_t *r = calloc(1, sizeof(*r));
    r->start = (uintptr_t)addr;
    r->len = len;
    r->access = access;
    r->live = 1;
    if (fake_shared) {
        r->view = mremap(addr, 0, len, MREMAP_MAYMOVE);
        if (r->view == MAP_FAILED) {
            fprintf(stderr, "fake registration: mremap view failed\n");
            free(r);
            return MPI_ERR_OTHER;
        }
    } else {
        size_t n = len / (size_t)page;
        r->frames = calloc(n, sizeof(uint64_t));
        for (size_t i = 0; i < n; i++)
            r->frames[i] = frame_of(r->start + i * (size_t)page);
    }
    if (nregs < MAX_LOG)
        log_regs[nregs] = r;
    nregs++;
    *handle_p = r;
    *granted_p = access;
    return 0;
}

static void fake_dereg(void *ctx, void *handle)
{
    fake_reg_t *r = handle;
    if (!r->live) {
        fprintf(stderr, "FAIL: region [%#lx, +%zu) deregistered twice\n", (unsigned long)r->start,
                r->len);
        failures++;
    }
    r->live = 0;
    if (r->view)
        syscall(SYS_munmap, r->view, r->len); /* the fake's own view: not the program's */
    r->view = NULL;
    nderegs++;
}

/* What the device would send from [addr, addr + len) through the region:
 * returns 0 and fills out if the registration describes the memory mapped
 * there now, -1 if it is stale (the device would read other pages). */
static int device_read(const MPIDU_rcache_region_t *reg, const void *addr, size_t len, char *out)
{
    fake_reg_t *r = reg->handle;
    size_t off = (uintptr_t)addr - r->start;
    if (!r->live || (uintptr_t)addr < r->start || off + len > r->len)
        return -1;
    if (r->view) {
        memcpy(out, r->view + off, len);
        return 0;
    }
    for (size_t p = off / (size_t)page; p * (size_t)page < off + len; p++)
        if (r->frames[p] != frame_of(r->start + p * (size_t)page))
            return -1;
    memcpy(out, addr, len);
    return 0;
}

static const MPIDU_rcache_ops_t ops = {.reg = fake_reg, .dereg = fake_dereg};

static void *map_shared(void *at, size_t len)
{
    void *p = mmap(at, len, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS | (at ? MAP_FIXED : 0), -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    return p;
}

/* Sends buf (filled with byte v) through the cache and checks what the
 * device reads.  Returns 0 if the data is right, 1 if stale or wrong. */
static int send_and_check(MPIDU_rcache_t *rc, char *buf, size_t len, int v, int *registered_p)
{
    MPIDU_rcache_region_t *reg;
    int before = nregs;
    memset(buf, v, len);
    if (MPIDU_rcache_get(rc, buf, len, MPIDI_MEM_REMOTE_READ, &reg) != 0) {
        fprintf(stderr, "FAIL: get of %zu bytes failed\n", len);
        failures++;
        return 1;
    }
    if (registered_p)
        *registered_p = nregs - before;
    char *out = malloc(len);
    int bad = device_read(reg, buf, len, out) != 0;
    for (size_t i = 0; !bad && i < len; i++)
        bad = out[i] != (char)v;
    free(out);
    MPIDU_rcache_put(rc, reg);
    return bad;
}

/* 1. free, map again at the same address, send again: the data is the new
 * data.  And the oracle sees staleness when the hooks are bypassed. */
static void test_remap_same_address(void)
{
    fake_shared = 1;
    MPIDU_rcache_t *rc = MPIDU_rcache_create("t1", &ops, NULL, 1, 64, 1 << 30);
    size_t len = 1 << 20;
    char *a = map_shared(NULL, len);
    int reg;
    CHECK(send_and_check(rc, a, len, 1, &reg) == 0, "first send read wrong data");
    CHECK(reg == 1, "first send registered %d times", reg);
    CHECK(send_and_check(rc, a, len, 2, &reg) == 0, "second send read wrong data");
    CHECK(reg == 0, "a cache hit registered again (%d)", reg);

    munmap(a, len); /* through the hooks */
    char *b = map_shared(a, len);
    CHECK(b == a, "could not map at the same address");
    CHECK(send_and_check(rc, b, len, 3, &reg) == 0,
          "after munmap and a new mapping at the same address the device read stale data");
    CHECK(reg == 1, "the new mapping was not registered anew (%d)", reg);

    /* Control: unmap behind the hooks' back (a raw system call, as libc's
     * internal calls are).  The cache cannot know, and the fake device must
     * then see the stale registration: the oracle can fail. */
    syscall(SYS_munmap, b, len);
    char *c = (char *)syscall(SYS_mmap, b, len, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(c == b, "raw remap failed");
    CHECK(send_and_check(rc, c, len, 4, &reg) == 1,
          "a registration stale by construction read the right data: the oracle is blind");
    munmap(c, len);
    MPIDU_rcache_destroy(rc);
}

/* 2. malloc, free, malloc again: with the hooks installed, malloc keeps the
 * pages, so a cached registration still describes them (frame numbers
 * checked where /proc/self/pagemap shows them). */
static void test_malloc_free_malloc(int have_frames)
{
    fake_shared = 0;
    MPIDU_rcache_t *rc = MPIDU_rcache_create("t2", &ops, NULL, 1, 64, 1 << 30);
    size_t len = 64 << 20; /* above the largest mmap threshold glibc adapts to (32 MiB) */
    unsigned long ev = MPIDU_memhooks_events();
    char *p = malloc(len);
    uintptr_t p_addr = (uintptr_t)p;
    CHECK(send_and_check(rc, p, len, 5, NULL) == 0, "first send from malloc'd memory");
    free(p);
    char *q = malloc(len);
    CHECK(MPIDU_memhooks_events() == ev,
          "malloc/free of %zu bytes mapped or unmapped memory (%lu events) although the "
          "hooks turned that off",
          len, MPIDU_memhooks_events() - ev);
    int reg;
    int bad = send_and_check(rc, q, len, 6, &reg);
    if (have_frames)
        CHECK(!bad, "freed and reallocated memory (at %p, was %#lx) read stale data", (void *)q,
              (unsigned long)p_addr);
    else
        CHECK(!bad || reg == 0, "wrong data");
    printf("  malloc/free/malloc: same address %s, registered again %d, frames %s\n",
           p_addr == (uintptr_t)q ? "yes" : "no", reg,
           have_frames ? "checked" : "not readable (not root)");
    free(q);

    /* madvise(DONTNEED) replaces pages: the region must go. */
    char *m = malloc(len);
    CHECK(send_and_check(rc, m, len, 7, NULL) == 0, "send before madvise");
    char *pg = (char *)(((uintptr_t)m + (uintptr_t)page - 1) & ~((uintptr_t)page - 1));
    madvise(pg, (size_t)page * 4, MADV_DONTNEED);
    CHECK(send_and_check(rc, m, len, 8, &reg) == 0, "send after madvise read stale data");
    CHECK(reg == 1, "madvise did not invalidate (%d registrations)", reg);
    free(m);
    MPIDU_rcache_destroy(rc);
}

/* 3. Bounds: LRU eviction, never of a region in use. */
static void test_eviction(void)
{
    fake_shared = 1;
    MPIDU_rcache_t *rc = MPIDU_rcache_create("t3", &ops, NULL, 1, 4, 1 << 30);
    enum { N = 6 };
    char *buf[N];
    MPIDU_rcache_region_t *reg[N];
    size_t len = 2 * (size_t)page;
    for (int i = 0; i < N; i++)
        buf[i] = map_shared(NULL, len);
    int d0 = nderegs;
    for (int i = 0; i < N; i++)
        CHECK(MPIDU_rcache_get(rc, buf[i], len, MPIDI_MEM_REMOTE_READ, &reg[i]) == 0, "get %d", i);
    CHECK(nderegs == d0, "a region in use was deregistered (%d)", nderegs - d0);
    MPIDU_rcache_stats_t st;
    MPIDU_rcache_get_stats(rc, &st);
    CHECK(st.regions == N, "%zu regions registered, expected %d (over the bound while in use)",
          st.regions, N);
    for (int i = 0; i < N; i++)
        MPIDU_rcache_put(rc, reg[i]);
    MPIDU_rcache_get_stats(rc, &st);
    CHECK(st.regions == 4, "after the puts %zu regions stay, bound is 4", st.regions);
    CHECK(nderegs - d0 == 2, "%d deregistrations, expected the 2 oldest", nderegs - d0);
    /* The two oldest went: getting buf[0] registers again, buf[5] does not. */
    int r0 = nregs;
    CHECK(MPIDU_rcache_get(rc, buf[5], len, MPIDI_MEM_REMOTE_READ, &reg[5]) == 0, "get 5");
    CHECK(nregs == r0, "the most recent region was evicted");
    MPIDU_rcache_put(rc, reg[5]);
    CHECK(MPIDU_rcache_get(rc, buf[0], len, MPIDI_MEM_REMOTE_READ, &reg[0]) == 0, "get 0");
    CHECK(nregs == r0 + 1, "the oldest region was kept");
    MPIDU_rcache_put(rc, reg[0]);
    for (int i = 0; i < N; i++)
        munmap(buf[i], len);
    MPIDU_rcache_destroy(rc);
}

/* 4. Merging, access rights, invalidation while in use, disabled cache. */
static void test_merge_access_inuse(void)
{
    fake_shared = 1;
    MPIDU_rcache_t *rc = MPIDU_rcache_create("t4", &ops, NULL, 1, 64, 1 << 30);
    size_t len = 8 * (size_t)page;
    char *a = map_shared(NULL, len);
    MPIDU_rcache_region_t *r1, *r2, *r3;
    int n0 = nregs, d0 = nderegs;
    MPIDU_rcache_get(rc, a + 10, 100, MPIDI_MEM_REMOTE_READ, &r1);
    CHECK(r1->start == (uintptr_t)a && r1->end == (uintptr_t)a + (uintptr_t)page,
          "region not page aligned: [%#lx, %#lx)", (unsigned long)r1->start,
          (unsigned long)r1->end);
    MPIDU_rcache_put(rc, r1);
    MPIDU_rcache_get(rc, a, 3 * (size_t)page, MPIDI_MEM_REMOTE_READ, &r2);
    CHECK(nregs == n0 + 2 && nderegs == d0 + 1, "growing buffer: %d regs %d deregs", nregs - n0,
          nderegs - d0);
    MPIDU_rcache_put(rc, r2);
    MPIDU_rcache_get(rc, a + page, 10, MPIDI_MEM_REMOTE_READ, &r3);
    CHECK(r3 == r2, "a range inside a cached region missed");
    MPIDU_rcache_put(rc, r3);
    /* More rights than the region has: a new registration with both. */
    int n1 = nregs;
    MPIDU_rcache_get(rc, a, 10, MPIDI_MEM_LOCAL_WRITE, &r3);
    CHECK(nregs == n1 + 1 && (r3->access & (MPIDI_MEM_LOCAL_WRITE | MPIDI_MEM_REMOTE_READ)) ==
                                 (MPIDI_MEM_LOCAL_WRITE | MPIDI_MEM_REMOTE_READ),
          "access union not registered (access %#x)", r3->access);
    /* Unmapped while in use: kept registered until its put, then dropped. */
    int d1 = nderegs;
    munmap(a, len);
    CHECK(nderegs == d1, "a region in use was deregistered by an unmapping");
    MPIDU_rcache_put(rc, r3);
    CHECK(nderegs == d1 + 1, "the invalidated region was not deregistered at its put");
    MPIDU_rcache_stats_t st;
    MPIDU_rcache_get_stats(rc, &st);
    CHECK(st.regions == 0 && st.invalidations >= 1, "%zu regions left, %lu invalidations",
          st.regions, st.invalidations);
    MPIDU_rcache_destroy(rc);

    MPIDU_rcache_t *off = MPIDU_rcache_create("t5", &ops, NULL, 0, 64, 1 << 30);
    char *b = map_shared(NULL, len);
    n0 = nregs;
    d0 = nderegs;
    for (int i = 0; i < 3; i++)
        CHECK(send_and_check(off, b, len, 9 + i, NULL) == 0, "disabled cache send %d", i);
    CHECK(nregs - n0 == 3 && nderegs - d0 == 3, "disabled cache: %d regs %d deregs", nregs - n0,
          nderegs - d0);
    munmap(b, len);
    MPIDU_rcache_destroy(off);
}

int main(void)
{
    page = sysconf(_SC_PAGESIZE);
    const char *why = NULL;
    if (!MPIDU_memhooks_install(&why)) {
        fprintf(stderr, "FAIL: memory hooks not working: %s\n", why);
        return 1;
    }
    pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
    char *probe = malloc(1);
    *probe = 1;
    int have_frames = frame_of((uintptr_t)probe) != 0;
    free(probe);
    test_remap_same_address();
    test_malloc_free_malloc(have_frames);
    test_eviction();
    test_merge_access_inuse();
    for (int i = 0; i < nregs && i < MAX_LOG; i++) {
        CHECK(!log_regs[i]->live, "registration %d [%#lx, +%zu) never deregistered", i,
              (unsigned long)log_regs[i]->start, log_regs[i]->len);
    }
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf(" No Errors (%d registrations)\n", nregs);
    return 0;
}
