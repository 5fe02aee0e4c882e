/* verbs_ring_map.c: a ring's memory mapped twice back to back (memfd_create and two mmaps), so a
 * message that crosses the ring's end is one contiguous piece for the sender's copy, the
 * receiver's RDMA read and the core's handler. */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include "verbs_ring.h"

char *MPIDI_VERBS_ring_map(uint64_t size, const char **why_p)
{
    *why_p = "memfd_create";
    int fd = memfd_create("ferry-ring", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *base = MAP_FAILED;
    *why_p = "ftruncate";
    if (ftruncate(fd, (off_t)size) != 0)
        goto fn_fail;
    /* Reserve 2 * size of address space, then put the file over each half. */
    *why_p = "mmap";
    base = mmap(NULL, 2 * size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        goto fn_fail;
    for (int half = 0; half < 2; half++)
        if (mmap(base + half * size, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED)
            goto fn_fail;
    close(fd); /* the mappings keep the memory */
    return base;

fn_fail : {
    int e = errno;
    if (base != MAP_FAILED)
        munmap(base, 2 * size);
    close(fd);
    errno = e;
    return NULL;
}
}

void MPIDI_VERBS_ring_unmap(char *base, uint64_t size)
{
    if (base)
        munmap(base, 2 * size);
}
