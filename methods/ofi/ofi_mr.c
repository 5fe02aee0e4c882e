/* ofi_mr.c: memory registration (fi_mr_reg honouring the mr_mode bits) and mem_reg/mem_dereg
 * through the shared registration cache. */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "ofi_impl.h"

/* Registers [addr, addr + len) with access (FI_* bits).  The key: the
 * provider's (FI_MR_PROV_KEY), else one we ask for: a random start and a
 * counter, so keys are unique in the domain and a stranger cannot guess
 * one (doc/security.md "ofi").  FI_MR_ENDPOINT: bound to the endpoint and
 * enabled before use. */
int MPIDI_OFI_mr_reg(void *addr, size_t len, uint64_t access, struct fid_mr **mr_p)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    const char *call = "fi_mr_reg";
    int ret = -FI_ENOKEY;
    *mr_p = NULL;
    /* A requested key that is taken (another library in the process uses
     * the domain's keys too) is retried with the next one, a few times. */
    for (int tries = 0; tries < 4 && ret == -FI_ENOKEY; tries++) {
        uint64_t key = st->mr_prov_key ? 0 : (st->next_key++ & st->key_mask);
        ret = fi_mr_reg(st->domain, addr, len, access, 0, key, 0, mr_p, NULL);
    }
    if (ret == 0 && st->mr_endpoint) {
        ret = fi_mr_bind(*mr_p, &st->ep->fid, 0);
        call = "fi_mr_bind";
        if (ret == 0) {
            ret = fi_mr_enable(*mr_p);
            call = "fi_mr_enable";
        }
        if (ret) {
            fi_close(&(*mr_p)->fid);
            *mr_p = NULL;
        }
    }
    if (ret)
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s of %zu bytes at %p on %s: %s (%d)", call,
                                len, addr, st->prov, MPIDI_OFI_strerror(ret), ret);
    return MPI_SUCCESS;
}

static uint64_t access_of(unsigned a)
{
    uint64_t f = 0;
    if (a & MPIDI_MEM_LOCAL_WRITE)
        f |= FI_READ;              /* the destination of our fi_read */
    if (a & MPIDI_MEM_REMOTE_READ) /* a peer reads it, or it is the source of our fi_write */
        f |= FI_REMOTE_READ | (MPIDI_OFI_state.can_write ? FI_WRITE : 0);
    if (a & MPIDI_MEM_REMOTE_WRITE)
        f |= FI_REMOTE_WRITE;
    return f;
}

/* Registers with every right the endpoint has, so one region serves a
 * buffer whatever it is used for next; memory that cannot be written (a
 * constant sent from .rodata) is registered with just what was asked. */
static int cb_reg(void *ctx, void *addr, size_t len, unsigned access, void **handle_p,
                  unsigned *granted_p)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    unsigned all = MPIDI_MEM_LOCAL_WRITE | MPIDI_MEM_REMOTE_READ |
                   (st->can_write ? MPIDI_MEM_REMOTE_WRITE : 0);
    struct fid_mr *mr;
    int err = MPIDI_OFI_mr_reg(addr, len, access_of(all), &mr);
    unsigned granted = all;
    if (err && access != all) {
        err = MPIDI_OFI_mr_reg(addr, len, access_of(access), &mr);
        granted = access;
    }
    if (err)
        return err;
    (void)ctx;
    *handle_p = mr;
    *granted_p = granted;
    return MPI_SUCCESS;
}

static void cb_dereg(void *ctx, void *handle)
{
    (void)ctx;
    fi_close(&((struct fid_mr *)handle)->fid);
}

static const MPIDU_rcache_ops_t ops = {.reg = cb_reg, .dereg = cb_dereg};

int MPIDI_OFI_rcache_create(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    int enabled = (int)MPIDU_config_int("FERRY_OFI_RCACHE");
    const char *why = "FERRY_OFI_RCACHE=0";
    /* A cache is only safe if every unmapping reaches it. */
    if (enabled && !MPIDU_memhooks_install(&why))
        enabled = 0;
    if (!enabled && st->verbose)
        fprintf(stderr,
                "ferry: rank %d: ofi registration cache off (%s): every rendezvous registers "
                "and deregisters its buffers\n",
                st->rank, why);
    st->rcache = MPIDU_rcache_create("ofi", &ops, NULL, enabled,
                                     (size_t)MPIDU_config_int("FERRY_OFI_RCACHE_ENTRIES"),
                                     (size_t)MPIDU_config_int("FERRY_OFI_RCACHE_BYTES"));
    if (!st->rcache)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "ofi: cannot create the registration cache");
    return MPI_SUCCESS;
}

int MPIDI_OFI_mem_reg(void *addr, size_t len, unsigned access, MPIDI_mem_t *mem_p)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    if (!st->rcache)
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: no provider to register memory with");
    MPIDU_rcache_region_t *r;
    int err = MPIDU_rcache_get(st->rcache, addr, len, access, &r);
    if (err)
        return err;
    mem_p->handle = r;
    mem_p->key = fi_mr_key((struct fid_mr *)r->handle);
    /* Without FI_MR_VIRT_ADDR a peer names our memory by its offset from
     * the registration's base: the region's first page. */
    mem_p->remote_addr = st->mr_virt ? (uintptr_t)addr : (uintptr_t)addr - r->start;
    return MPI_SUCCESS;
}

int MPIDI_OFI_mem_dereg(void *handle)
{
    MPIDU_rcache_put(MPIDI_OFI_state.rcache, handle);
    return MPI_SUCCESS;
}

void *MPIDI_OFI_desc(void *handle)
{
    const MPIDU_rcache_region_t *r = handle;
    return fi_mr_desc((struct fid_mr *)r->handle);
}
