/* rcache.h: the registration cache methods share: page-aligned regions, LRU, reference counts. */
#ifndef RCACHE_H_INCLUDED
#define RCACHE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* A method instantiates one cache with its own register/deregister
 * callbacks.  get returns a region covering the asked range with at least
 * the asked access rights, registering it on a miss; put gives it back.  A
 * region in use (refs > 0) is never deregistered; idle regions stay
 * registered for the next get, up to max_regions and max_bytes, after which
 * the least recently used idle ones are deregistered.
 *
 * Invalidation: a registration pins the physical pages that were mapped
 * when it was made.  If the program unmaps that memory and maps new memory
 * at the same address, a cached registration would make the device read or
 * write the old pages: silent corruption.  So every cache hears of every
 * unmapping that the memory hooks (memhooks.c) see and drops the regions it
 * overlaps; see doc/method-api.md "The registration cache".  A cache created
 * with enabled == 0 keeps nothing: each get registers, each last put
 * deregisters. */

typedef struct MPIDU_rcache MPIDU_rcache_t;

typedef struct MPIDU_rcache_ops {
    /* Registers [addr, addr + len) (page aligned) asking for access (the
     * method's MPIDI_MEM_* bits); sets *handle_p and *granted_p (the rights
     * it really got, at least access).  Returns 0 or an MPI error code. */
    int (*reg)(void *ctx, void *addr, size_t len, unsigned access, void **handle_p,
               unsigned *granted_p);
    void (*dereg)(void *ctx, void *handle);
} MPIDU_rcache_ops_t;

/* One registered region; read-only for users of the cache. */
typedef struct MPIDU_rcache_region {
    uintptr_t start, end; /* page aligned */
    unsigned access;      /* rights granted */
    void *handle;         /* the method's registration */
    int refs;
    int indexed; /* findable by get (not invalidated, not evicted) */
    struct MPIDU_rcache_region *lru_prev, *lru_next; /* idle regions, oldest first */
    struct MPIDU_rcache_region *dead_next;
} MPIDU_rcache_region_t;

typedef struct MPIDU_rcache_stats {
    unsigned long hits, misses, evictions, invalidations, merges;
    size_t regions, bytes; /* registered now */
} MPIDU_rcache_stats_t;

MPIDU_rcache_t *MPIDU_rcache_create(const char *name, const MPIDU_rcache_ops_t *ops, void *ctx,
                                    int enabled, size_t max_regions, size_t max_bytes);
/* Deregisters everything (regions still in use too: the method is closing). */
void MPIDU_rcache_destroy(MPIDU_rcache_t *rc);
int MPIDU_rcache_get(MPIDU_rcache_t *rc, void *addr, size_t len, unsigned access,
                     MPIDU_rcache_region_t **region_p);
void MPIDU_rcache_put(MPIDU_rcache_t *rc, MPIDU_rcache_region_t *region);
int MPIDU_rcache_enabled(const MPIDU_rcache_t *rc);
void MPIDU_rcache_get_stats(const MPIDU_rcache_t *rc, MPIDU_rcache_stats_t *stats_p);
/* The live counters, for MPIDU_stat_register (read without the lock: a
 * reader in another thread may see a count a moment old). */
const MPIDU_rcache_stats_t *MPIDU_rcache_counters(const MPIDU_rcache_t *rc);
/* Registers the cache's counters as <prefix>_rcache_hits, _misses,
 * _evictions and _invalidations (zeros when rc is NULL: the method has no
 * cache, being unavailable). */
int MPIDU_rcache_stat_register(const MPIDU_rcache_t *rc, const char *prefix);

/* Called by the memory hooks: [addr, addr + len) no longer maps what it
 * mapped.  Safe from any thread; never calls a method's callback. */
void MPIDU_rcache_invalidate_all(uintptr_t addr, size_t len);

/* memhooks.c.  Installs the hooks once (idempotent) and tells glibc's malloc
 * never to give memory back to the system (so free() followed by malloc()
 * reuses the same pages); returns 1 when the hooks are seen to work, 0 when
 * an unmapping did not reach them (the caller must then keep its cache
 * off).  Sets *why_p to a reason when it returns 0. */
int MPIDU_memhooks_install(const char **why_p);
/* Unmappings the hooks saw (for tests). */
unsigned long MPIDU_memhooks_events(void);

#endif /* RCACHE_H_INCLUDED */
