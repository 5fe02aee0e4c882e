/* rcache.c: the registration cache: sorted index of disjoint regions, LRU of idle ones,
 * invalidation. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "method.h"
#include "rcache.h"

/* Every cache of the process, so that the memory hooks reach them all.  One
 * lock guards every cache's index, LRU list and counters: the hooks may run
 * in any thread.  The methods' callbacks are never called with it held,
 * because registering or deregistering may itself map or unmap memory and
 * so re-enter the hooks. */
#define MAX_CACHES 8
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static MPIDU_rcache_t *caches[MAX_CACHES];
static int ncaches;
/* The last invalidated ranges, numbered: a region whose registration
 * overlapped one of them (the memory was unmapped while the device pinned
 * it) is not indexed.  Registering may itself map memory, so "any
 * invalidation meanwhile" would be too strict. */
#define RECENT 64
static unsigned long generation;
static struct {
    uintptr_t start, end;
} recent[RECENT];

static int invalidated_since(unsigned long gen, uintptr_t start, uintptr_t end)
{
    if (generation - gen > RECENT)
        return 1; /* too many to know: assume the worst */
    for (unsigned long g = gen; g != generation; g++) {
        const int i = (int)(g % RECENT);
        if (recent[i].start < end && recent[i].end > start)
            return 1;
    }
    return 0;
}

struct MPIDU_rcache {
    char name[32];
    MPIDU_rcache_ops_t ops;
    void *ctx;
    int enabled;
    size_t max_regions, max_bytes;
    MPIDU_rcache_region_t **index; /* indexed regions, disjoint, sorted by start */
    size_t nindex, cap;
    MPIDU_rcache_region_t *lru_head, *lru_tail; /* idle indexed regions, oldest first */
    MPIDU_rcache_region_t *dead; /* unindexed idle regions waiting to be deregistered */
    MPIDU_rcache_stats_t stats;
};

static uintptr_t page_mask(void)
{
    static uintptr_t mask;
    if (!mask)
        mask = (uintptr_t)sysconf(_SC_PAGESIZE) - 1;
    return mask;
}

/* ---- helpers, called with the lock held ---- */

/* An idle region leaves the cache: it is counted out now and deregistered
 * by whoever next runs outside the lock. */
static void bury(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *r)
{
    rc->stats.regions--;
    rc->stats.bytes -= r->end - r->start;
    r->dead_next = rc->dead;
    rc->dead = r;
}

static void lru_remove(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *r)
{
    if (r->lru_prev)
        r->lru_prev->lru_next = r->lru_next;
    else
        rc->lru_head = r->lru_next;
    if (r->lru_next)
        r->lru_next->lru_prev = r->lru_prev;
    else
        rc->lru_tail = r->lru_prev;
    r->lru_prev = r->lru_next = NULL;
}

static void lru_append(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *r)
{
    r->lru_next = NULL;
    r->lru_prev = rc->lru_tail;
    if (rc->lru_tail)
        rc->lru_tail->lru_next = r;
    else
        rc->lru_head = r;
    rc->lru_tail = r;
}

/* Index of the first region whose end is above addr. */
static size_t first_above(const MPIDU_rcache_t *rc, uintptr_t addr)
{
    size_t lo = 0, hi = rc->nindex;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rc->index[mid]->end <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void unindex_at(MPIDU_rcache_t *rc, size_t i)
{
    MPIDU_rcache_region_t *r = rc->index[i];
    memmove(&rc->index[i], &rc->index[i + 1], (rc->nindex - i - 1) * sizeof(*rc->index));
    rc->nindex--;
    r->indexed = 0;
    if (r->refs == 0) {
        lru_remove(rc, r);
        bury(rc, r);
    }
}

static int index_insert(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *r)
{
    if (rc->nindex == rc->cap) {
        size_t cap = rc->cap ? 2 * rc->cap : 64;
        void *p = realloc(rc->index, cap * sizeof(*rc->index));
        if (!p)
            return -1;
        rc->index = p;
        rc->cap = cap;
    }
    size_t i = first_above(rc, r->start);
    memmove(&rc->index[i + 1], &rc->index[i], (rc->nindex - i) * sizeof(*rc->index));
    rc->index[i] = r;
    rc->nindex++;
    r->indexed = 1;
    return 0;
}

/* Unindexes what overlaps [start, end); returns how many regions it took. */
static int drop_range(MPIDU_rcache_t *rc, uintptr_t start, uintptr_t end)
{
    int n = 0;
    size_t i = first_above(rc, start);
    while (i < rc->nindex && rc->index[i]->start < end) {
        unindex_at(rc, i);
        n++;
    }
    return n;
}

static void evict(MPIDU_rcache_t *rc)
{
    while (rc->lru_head &&
           (rc->stats.regions > rc->max_regions || rc->stats.bytes > rc->max_bytes)) {
        MPIDU_rcache_region_t *r = rc->lru_head;
        size_t i = first_above(rc, r->start);
        unindex_at(rc, i); /* idle: buried */
        rc->stats.evictions++;
    }
}

static MPIDU_rcache_region_t *take_dead(MPIDU_rcache_t *rc)
{
    MPIDU_rcache_region_t *d = rc->dead;
    rc->dead = NULL;
    return d;
}

static MPIDU_rcache_region_t *splice(MPIDU_rcache_region_t *a, MPIDU_rcache_region_t *b)
{
    if (!a)
        return b;
    MPIDU_rcache_region_t *t = a;
    while (t->dead_next)
        t = t->dead_next;
    t->dead_next = b;
    return a;
}

/* ---- outside the lock ---- */

static void dereg_list(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *r)
{
    while (r) {
        MPIDU_rcache_region_t *next = r->dead_next;
        rc->ops.dereg(rc->ctx, r->handle);
        free(r);
        r = next;
    }
}

MPIDU_rcache_t *MPIDU_rcache_create(const char *name, const MPIDU_rcache_ops_t *ops, void *ctx,
                                    int enabled, size_t max_regions, size_t max_bytes)
{
    MPIDU_rcache_t *rc = calloc(1, sizeof(*rc));
    if (!rc)
        return NULL;
    snprintf(rc->name, sizeof(rc->name), "%s", name);
    rc->ops = *ops;
    rc->ctx = ctx;
    rc->enabled = enabled;
    rc->max_regions = max_regions ? max_regions : 1;
    rc->max_bytes = max_bytes ? max_bytes : 1;
    pthread_mutex_lock(&lock);
    if (ncaches == MAX_CACHES) {
        pthread_mutex_unlock(&lock);
        free(rc);
        return NULL;
    }
    caches[ncaches++] = rc;
    pthread_mutex_unlock(&lock);
    return rc;
}

void MPIDU_rcache_destroy(MPIDU_rcache_t *rc)
{
    if (!rc)
        return;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < ncaches; i++) {
        if (caches[i] == rc) {
            caches[i] = caches[--ncaches];
            break;
        }
    }
    /* Everything goes, in use or not: the method is closing. */
    MPIDU_rcache_region_t *dead = take_dead(rc);
    for (size_t i = 0; i < rc->nindex; i++) {
        if (rc->index[i]->refs == 0)
            continue; /* idle ones are on the LRU list, taken next */
        rc->index[i]->dead_next = dead;
        dead = rc->index[i];
    }
    for (MPIDU_rcache_region_t *r = rc->lru_head; r; r = r->lru_next) {
        r->dead_next = dead;
        dead = r;
    }
    rc->nindex = 0;
    pthread_mutex_unlock(&lock);
    dereg_list(rc, dead);
    free(rc->index);
    free(rc);
}

int MPIDU_rcache_enabled(const MPIDU_rcache_t *rc)
{
    return rc->enabled;
}

void MPIDU_rcache_get_stats(const MPIDU_rcache_t *rc, MPIDU_rcache_stats_t *stats_p)
{
    pthread_mutex_lock(&lock);
    *stats_p = rc->stats;
    pthread_mutex_unlock(&lock);
}

const MPIDU_rcache_stats_t *MPIDU_rcache_counters(const MPIDU_rcache_t *rc)
{
    return &rc->stats;
}

int MPIDU_rcache_stat_register(const MPIDU_rcache_t *rc, const char *prefix)
{
    static const MPIDU_rcache_stats_t no_cache;
    const MPIDU_rcache_stats_t *s = rc ? &rc->stats : &no_cache;
    const struct {
        const char *name;
        const unsigned long *counter;
    } counters[] = {
        {"hits", &s->hits},
        {"misses", &s->misses},
        {"evictions", &s->evictions},
        {"invalidations", &s->invalidations},
    };
    for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++) {
        char name[64];
        snprintf(name, sizeof(name), "%s_rcache_%s", prefix, counters[i].name);
        int err = MPIDU_stat_register(name, counters[i].counter);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

int MPIDU_rcache_get(MPIDU_rcache_t *rc, void *addr, size_t len, unsigned access,
                     MPIDU_rcache_region_t **region_p)
{
    uintptr_t mask = page_mask();
    uintptr_t start = (uintptr_t)addr & ~mask;
    uintptr_t end = ((uintptr_t)addr + (len ? len : 1) + mask) & ~mask;
    uintptr_t rstart = start, rend = end;
    unsigned want = access;

    pthread_mutex_lock(&lock);
    MPIDU_rcache_region_t *dead = take_dead(rc);
    if (rc->enabled) {
        size_t i = first_above(rc, start);
        if (i < rc->nindex) {
            MPIDU_rcache_region_t *r = rc->index[i];
            if (r->start <= start && r->end >= end && (r->access & access) == access) {
                if (r->refs++ == 0)
                    lru_remove(rc, r);
                rc->stats.hits++;
                pthread_mutex_unlock(&lock);
                dereg_list(rc, dead);
                *region_p = r;
                return MPI_SUCCESS;
            }
        }
        /* A miss.  Regions overlapping the range are merged into the new
         * one (their range and rights), so the index stays disjoint and a
         * buffer that grows is registered once more, not once per size. */
        for (size_t j = first_above(rc, start); j < rc->nindex && rc->index[j]->start < end; j++) {
            MPIDU_rcache_region_t *r = rc->index[j];
            rstart = r->start < rstart ? r->start : rstart;
            rend = r->end > rend ? r->end : rend;
            want |= r->access;
        }
        if (drop_range(rc, start, end) > 0) {
            rc->stats.merges++;
            dead = splice(dead, take_dead(rc));
        }
    }
    rc->stats.misses++;
    unsigned long gen = generation;
    pthread_mutex_unlock(&lock);
    dereg_list(rc, dead);

    MPIDU_rcache_region_t *r = calloc(1, sizeof(*r));
    if (!r)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "%s: out of memory for a cache entry", rc->name);
    unsigned granted = 0;
    int err = rc->ops.reg(rc->ctx, (void *)rstart, rend - rstart, want, &r->handle, &granted);
    if (err && (rstart != start || rend != end || want != access)) {
        /* The merged range may cover memory the device cannot take (a hole
         * unmapped meanwhile, read-only pages): register just what was
         * asked for. */
        rstart = start;
        rend = end;
        err = rc->ops.reg(rc->ctx, (void *)rstart, rend - rstart, access, &r->handle, &granted);
    }
    if (err) {
        free(r);
        return err;
    }
    r->start = rstart;
    r->end = rend;
    r->access = granted | access;
    r->refs = 1;

    pthread_mutex_lock(&lock);
    rc->stats.regions++;
    rc->stats.bytes += rend - rstart;
    /* Indexed only if nothing was unmapped while we registered (it might
     * have been this memory) and it fits the bounds at all; otherwise it
     * lives for this use only and goes at its last put. */
    if (rc->enabled && !invalidated_since(gen, rstart, rend) && rend - rstart <= rc->max_bytes) {
        drop_range(rc, rstart, rend); /* (nothing, unless the hooks raced us) */
        if (index_insert(rc, r) != 0)
            r->indexed = 0;
    }
    evict(rc);
    dead = take_dead(rc);
    pthread_mutex_unlock(&lock);
    dereg_list(rc, dead);
    *region_p = r;
    return MPI_SUCCESS;
}

void MPIDU_rcache_put(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *r)
{
    pthread_mutex_lock(&lock);
    if (--r->refs == 0) {
        if (r->indexed)
            lru_append(rc, r);
        else
            bury(rc, r);
    }
    evict(rc);
    MPIDU_rcache_region_t *dead = take_dead(rc);
    pthread_mutex_unlock(&lock);
    dereg_list(rc, dead);
}

void MPIDU_rcache_invalidate_all(uintptr_t addr, size_t len)
{
    uintptr_t mask = page_mask();
    uintptr_t start = addr & ~mask, end = (addr + len + mask) & ~mask;
    pthread_mutex_lock(&lock);
    recent[generation % RECENT].start = start;
    recent[generation % RECENT].end = end;
    generation++;
    for (int c = 0; c < ncaches; c++) {
        MPIDU_rcache_t *rc = caches[c];
        rc->stats.invalidations += (unsigned long)drop_range(rc, start, end);
    }
    pthread_mutex_unlock(&lock);
}
