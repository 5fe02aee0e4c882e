/* memhooks.c: hears every unmapping the program makes, so registration caches drop stale regions.
 */
#include <dlfcn.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rcache.h"

/* libmpi defines munmap, mremap, madvise, shmdt and mmap itself.  Calls the
 * program or any library makes through the dynamic linker reach these
 * first (libmpi comes before libc in the lookup order), which tell every
 * registration cache about the range and then make the system call.  The
 * system call is made directly, not through libc's wrapper, so the hooks
 * need no dlsym at start-up (which could itself allocate).
 *
 * What they cannot see: calls inside libc itself.  glibc's free() unmaps
 * large chunks and trims its heaps with internal calls, so once a cache is
 * in use MPIDU_memhooks_install tells malloc never to do either (mmap
 * threshold off, trim threshold infinite, as Open MPI and MVAPICH have done
 * for their registration caches): freed memory stays mapped, and memory
 * malloc hands out again is the same pages, which a cached registration
 * still describes correctly.  The remaining holes are listed in
 * doc/method-api.md ("The registration cache"). */

static atomic_int active;   /* a cache may hold regions: tell the caches */
static atomic_ulong events; /* unmappings seen (tests, and the start-up check) */

static void unmapped(const void *addr, size_t len)
{
    atomic_fetch_add_explicit(&events, 1, memory_order_relaxed);
    if (atomic_load_explicit(&active, memory_order_acquire) && len)
        MPIDU_rcache_invalidate_all((uintptr_t)addr, len);
}

int munmap(void *addr, size_t len)
{
    /* Before the unmapping: a region must not be found between the moment
     * its pages go and the moment the cache hears of it. */
    unmapped(addr, len);
    return (int)syscall(SYS_munmap, addr, len);
}

void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    /* The old range's pages move or go; a fixed target loses its own. */
    unmapped(old, old_len);
    if (flags & MREMAP_FIXED)
        unmapped(new_addr, new_len);
    void *p = (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
    if (p != MAP_FAILED && !(flags & MREMAP_FIXED))
        unmapped(p, new_len); /* like a new mapping (see mmap) */
    return p;
}

int madvise(void *addr, size_t len, int advice)
{
    /* These replace the pages with fresh ones on the next touch. */
    if (advice == MADV_DONTNEED || advice == MADV_REMOVE
#ifdef MADV_FREE
        || advice == MADV_FREE
#endif
    )
        unmapped(addr, len);
    return (int)syscall(SYS_madvise, addr, len, advice);
}

/* The size of the attachment at addr, from /proc/self/maps (shmdt is rare,
 * and the call does not say it). */
static size_t mapping_len(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    size_t len = 0;
    if (!f)
        return 0;
    unsigned long lo, hi;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo == (uintptr_t)addr) {
            len = hi - lo;
            break;
        }
    }
    fclose(f);
    return len;
}

int shmdt(const void *addr)
{
    if (atomic_load_explicit(&active, memory_order_acquire))
        unmapped(addr, mapping_len(addr));
    return (int)syscall(SYS_shmdt, addr);
}

/* A new mapping replaces whatever was at its address, including memory that
 * libc unmapped without our hearing of it. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    void *p = (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED)
        unmapped(p, len);
    return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    return mmap(addr, len, prot, flags, fd, off);
}

unsigned long MPIDU_memhooks_events(void)
{
    return atomic_load(&events);
}

int MPIDU_memhooks_install(const char **why_p)
{
    static int state; /* 0 not tried, 1 working, -1 not working */
    static const char *why;
    if (state) {
        *why_p = why;
        return state > 0;
    }
    /* The hooks work only if the dynamic linker resolves these names to
     * libmpi (not to another interposer loaded earlier, nor bound inside a
     * static executable some other way). */
    static const struct {
        const char *name;
        void *ours;
    } hooks[] = {{"munmap", (void *)munmap},
                 {"mremap", (void *)mremap},
                 {"madvise", (void *)madvise},
                 {"shmdt", (void *)shmdt},
                 {"mmap", (void *)mmap}};
    for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]); i++) {
        void *global = dlsym(RTLD_DEFAULT, hooks[i].name);
        if (global && global != hooks[i].ours) {
            why = "another library defines the memory functions before libmpi";
            state = -1;
            *why_p = why;
            return 0;
        }
    }
    /* And an unmapping made through the normal route must reach us. */
    unsigned long before = MPIDU_memhooks_events();
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int (*unmap)(void *, size_t) = (int (*)(void *, size_t))dlsym(RTLD_DEFAULT, "munmap");
    if (p == MAP_FAILED || !unmap || unmap(p, 4096) != 0 || MPIDU_memhooks_events() < before + 2) {
        why = "an unmapping did not reach the memory hooks";
        state = -1;
        *why_p = why;
        return 0;
    }
    /* glibc's own unmappings bypass the hooks: stop malloc from making any
     * (see the comment at the top). */
    mallopt(M_MMAP_MAX, 0);
    mallopt(M_TRIM_THRESHOLD, -1);
    atomic_store_explicit(&active, 1, memory_order_release);
    state = 1;
    why = NULL;
    *why_p = NULL;
    return 1;
}
