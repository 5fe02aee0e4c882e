/* ofi_info.c: choosing the provider: fi_getinfo with the capabilities, modes and mr_mode bits
 * the method handles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ofi_impl.h"

const char *MPIDI_OFI_strerror(int ret)
{
    return fi_strerror(ret < 0 ? -ret : ret);
}

/* What the method needs (FI_MSG for active messages, reading the sender's
 * memory for rendezvous) and what it uses when offered (writes, one receive
 * buffer for many messages). */
#define NEED_CAPS (FI_MSG | FI_RMA | FI_READ | FI_REMOTE_READ)
#define WANT_CAPS (FI_WRITE | FI_REMOTE_WRITE | FI_MULTI_RECV)

static struct fi_info *hints_new(uint64_t caps)
{
    struct fi_info *h = fi_dupinfo(NULL); /* fi_allocinfo, unlinked (ofi_impl.h) */
    if (!h)
        return NULL;
    h->caps = caps;
    h->ep_attr->type = FI_EP_RDM;
    /* Every operation context begins with a struct fi_context2, so both
     * context modes are met; no other mode is (FI_MSG_PREFIX, FI_RX_CQ_DATA
     * ...), so a provider that requires one is not returned. */
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    /* The registration modes handled (doc/methods/ofi.md): local
     * descriptors, offsets where addresses are not virtual, provider keys,
     * registrations bound to the endpoint, registered memory that must be
     * allocated.  Not FI_MR_RAW (keys beyond 64 bits) nor FI_MR_HMEM. */
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    /* MPI order: messages from one sender arrive in the order sent. */
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    /* One thread at a time calls into the method (the core's lock). */
    h->domain_attr->threading = FI_THREAD_DOMAIN;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->domain_attr->resource_mgmt = FI_RM_ENABLED;
    return h;
}

/* Why: libfabric 1.17's rxm, with its default of one receive queue per
 * connection, reposts a receive buffer to a connection's endpoint that the
 * peer's disconnection has already closed, and the rank dies of SIGSEGV
 * inside fi_cq_read, at the end of a job over verbs;ofi_rxm (doc/methods/
 * ofi.md "A crash inside rxm at finalize"; reproduced without Ferry).  With
 * rxm's shared receive context its buffers belong to no connection, and the
 * crash did not come.  So unless the user chose (FI_OFI_RXM_USE_SRX set,
 * even to 0), the shared context is asked for wherever rxm may run over
 * verbs: FI_PROVIDER unset or naming verbs.  rxm reads the variable once,
 * when libfabric initializes at its first fi_getinfo: hence here. */
static void rxm_shared_rx_default(void)
{
    const char *prov = getenv("FI_PROVIDER");
    if (getenv("FI_OFI_RXM_USE_SRX") || (prov && !strstr(prov, "verbs")))
        return;
    if (setenv("FI_OFI_RXM_USE_SRX", "1", 0) == 0)
        MPIDI_OFI_state.rxm_srx_set = 1;
}

int MPIDI_OFI_getinfo(struct fi_info **info_p, char *why, size_t why_len)
{
    *info_p = NULL;
    rxm_shared_rx_default();
    if (MPIDI_OFI_lib_open(why, why_len))
        return MPI_ERR_OTHER;
    /* With the wanted capabilities first, then without them. */
    const uint64_t tries[] = {NEED_CAPS | WANT_CAPS, NEED_CAPS | FI_WRITE | FI_REMOTE_WRITE,
                              NEED_CAPS};
    int ret = -FI_ENODATA;
    for (size_t i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
        struct fi_info *h = hints_new(tries[i]);
        if (!h) {
            snprintf(why, why_len, "fi_dupinfo: out of memory");
            return MPI_ERR_NO_MEM;
        }
        ret = fi_getinfo(MPIDI_OFI_API, NULL, NULL, 0, h, info_p);
        fi_freeinfo(h);
        if (ret == 0)
            break;
    }
    if (ret) {
        const char *prov = getenv("FI_PROVIDER");
        snprintf(why, why_len,
                 "fi_getinfo found no provider with FI_EP_RDM, FI_MSG, FI_RMA, FI_READ and "
                 "FI_REMOTE_READ%s%s%s: %s (%d)",
                 prov ? " (FI_PROVIDER=" : "", prov ? prov : "", prov ? ")" : "",
                 MPIDI_OFI_strerror(ret), ret);
        return MPI_ERR_OTHER;
    }
    if ((*info_p)->domain_attr->mr_key_size > 8) {
        snprintf(why, why_len, "provider %s has %zu-byte memory keys (at most 8 handled)",
                 (*info_p)->fabric_attr->prov_name, (*info_p)->domain_attr->mr_key_size);
        fi_freeinfo(*info_p);
        *info_p = NULL;
        return MPI_ERR_OTHER;
    }
    return MPI_SUCCESS;
}
