/* verbs_mr.c: mem_reg/mem_dereg through the shared registration cache (ibv_reg_mr underneath). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "verbs_impl.h"

static int access_of(unsigned a)
{
    int f = 0;
    if (a & (MPIDI_MEM_LOCAL_WRITE | MPIDI_MEM_REMOTE_WRITE))
        f |= IBV_ACCESS_LOCAL_WRITE; /* the device requires it with remote write */
    if (a & MPIDI_MEM_REMOTE_READ)
        f |= IBV_ACCESS_REMOTE_READ;
    if (a & MPIDI_MEM_REMOTE_WRITE)
        f |= IBV_ACCESS_REMOTE_WRITE;
    return f;
}

/* Registers with every right, so one region serves a buffer whatever it is
 * used for next (a send buffer is often a receive buffer later); memory
 * that cannot be written (a constant string sent from .rodata) is
 * registered with just what was asked for. */
static int cb_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle_p,
                  unsigned *granted_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    unsigned all = MPIDI_MEM_LOCAL_WRITE | MPIDI_MEM_REMOTE_READ | MPIDI_MEM_REMOTE_WRITE;
    struct ibv_mr *mr = ibv_reg_mr(st->pd, addr, len, access_of(all));
    unsigned granted = all;
    if (!mr && (errno == EFAULT || errno == EACCES || errno == EPERM)) {
        mr = ibv_reg_mr(st->pd, addr, len, access_of(access));
        granted = access;
    }
    if (!mr)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: ibv_reg_mr of %zu bytes at %p on %s: %s "
                                "(errno %d)",
                                len, addr, st->devname, strerror(errno), errno);
    *handle_p = mr;
    *granted_p = granted;
    return MPI_SUCCESS;
}

static void cb_dereg(void *ctx, void *handle)
{
    ibv_dereg_mr(handle);
}

static const MPIDU_rcache_ops_t ops = {.reg = cb_reg, .dereg = cb_dereg};

int MPIDI_VERBS_rcache_create(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    int enabled = (int)MPIDU_config_int("FERRY_VERBS_RCACHE");
    const char *why = "FERRY_VERBS_RCACHE=0";
    /* A cache is only safe if every unmapping reaches it. */
    if (enabled && !MPIDU_memhooks_install(&why))
        enabled = 0;
    if (!enabled && st->verbose)
        fprintf(stderr,
                "ferry: rank %d: verbs registration cache off (%s): every rendezvous "
                "registers and deregisters its buffers\n",
                st->rank, why);
    st->rcache = MPIDU_rcache_create("verbs", &ops, NULL, enabled,
                                     (size_t)MPIDU_config_int("FERRY_VERBS_RCACHE_ENTRIES"),
                                     (size_t)MPIDU_config_int("FERRY_VERBS_RCACHE_BYTES"));
    if (!st->rcache)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: cannot create the registration cache");
    return MPI_SUCCESS;
}

int MPIDI_VERBS_mem_reg(void *addr, size_t len, unsigned access, MPIDI_mem_t *mem_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (!st->rcache)
        return MPIDU_err_create(MPI_ERR_OTHER, "verbs: no device to register memory with");
    MPIDU_rcache_region_t *r;
    int err = MPIDU_rcache_get(st->rcache, addr, len, access, &r);
    if (err)
        return err;
    struct ibv_mr *mr = r->handle;
    mem_p->handle = r;
    mem_p->key = mr->rkey;
    mem_p->remote_addr = (uintptr_t)addr; /* verbs addresses are virtual */
    return MPI_SUCCESS;
}

int MPIDI_VERBS_mem_dereg(void *handle)
{
    MPIDU_rcache_put(MPIDI_VERBS_state.rcache, handle);
    return MPI_SUCCESS;
}

uint32_t MPIDI_VERBS_lkey(void *handle)
{
    const MPIDU_rcache_region_t *r = handle;
    return ((const struct ibv_mr *)r->handle)->lkey;
}
