/* shm_cma.c: single-copy rendezvous data movers (rdma_get/rdma_put) over Linux CMA. */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "mpi.h"
#include "shm_impl.h"

/* process_vm_readv/writev copy straight between two address spaces, so a
 * large message crosses memory once instead of twice through cells.  The
 * kernel checks ptrace access, which hardened hosts and containers often
 * refuse; we cannot probe that cheaply at init (reading oneself is always
 * allowed), so the first EPERM/ENOSYS turns CMA off for good and the error
 * goes to the core, which then uses the copy pipeline. */

/* One system call moves at most this much, so a huge transfer returns to
 * the loop regularly and a single iovec length stays far from any limit. */
#define MPIDI_SHM_CMA_CHUNK ((size_t)1 << 30)

typedef ssize_t (*cma_fn_t)(pid_t, const struct iovec *, unsigned long, const struct iovec *,
                            unsigned long, unsigned long);

static int cma_copy(const char *what, cma_fn_t fn, int peer, void *local, size_t len,
                    uint64_t remote_addr)
{
    MPIDI_SHM_state_t *st = &MPIDI_SHM_state;
    int li = (st->base && peer >= 0 && peer < st->world_size) ? st->world_to_local[peer] : -1;
    size_t done = 0;

    if (li < 0 || li == st->me)
        return MPIDU_err_create(MPI_ERR_INTERN, "shm %s with rank %d: not a peer on this node",
                                what, peer);
    if (!st->cma_enabled)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "shm %s with rank %d: CMA is off (FERRY_SHM_CMA=0 or refused "
                                "earlier); use the pipeline protocol",
                                what, peer);

    while (done < len) {
        size_t piece = len - done < MPIDI_SHM_CMA_CHUNK ? len - done : MPIDI_SHM_CMA_CHUNK;
        struct iovec liov = {.iov_base = (char *)local + done, .iov_len = piece};
        struct iovec riov = {.iov_base = (void *)(uintptr_t)(remote_addr + done), .iov_len = piece};
        ssize_t n = fn(MPIDI_SHM_pid(li), &liov, 1, &riov, 1, 0);

        if (n < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            if (err == EPERM || err == ENOSYS)
                st->cma_enabled = 0;
            return MPIDU_err_create(MPI_ERR_OTHER, "%s %s rank %d: %s (errno %d)", what,
                                    fn == process_vm_readv ? "from" : "to", peer, strerror(err),
                                    err);
        }
        if (n == 0)
            return MPIDU_err_create(MPI_ERR_OTHER, "%s %s rank %d: no progress at byte %zu of %zu",
                                    what, fn == process_vm_readv ? "from" : "to", peer, done, len);
        /* A partial transfer (page boundary, signal) just continues. */
        done += (size_t)n;
    }
    return MPI_SUCCESS;
}

int MPIDI_SHM_rdma_get(int peer, void *local, size_t len, void *local_handle, uint64_t remote_addr,
                       uint64_t rkey, void *cookie)
{
    (void)local_handle; /* nor registration of the local side */
    (void)rkey;         /* CMA needs no registration key: addresses are virtual */
    (void)cookie;       /* completes before returning: no MPIDU_op_done */
    return cma_copy("process_vm_readv", process_vm_readv, peer, local, len, remote_addr);
}

int MPIDI_SHM_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                       uint64_t remote_addr, uint64_t rkey, void *cookie)
{
    (void)local_handle;
    (void)rkey;
    (void)cookie;
    /* process_vm_writev only reads the local memory; the cast drops the const
     * that struct iovec cannot carry. */
    return cma_copy("process_vm_writev", process_vm_writev, peer, (void *)local, len, remote_addr);
}
