/* ofi_probe.c: ferry_info's check of libfabric on this machine: the provider fi_getinfo gives
 * (FI_PROVIDER honoured) and what of it the method would use. */
#include <stdio.h>
#include <string.h>

#include "mpi.h"
#include "ofi_impl.h"

int MPIDI_OFI_probe(char *buf, size_t len)
{
    char why[512];
    struct fi_info *info = NULL;
    buf[0] = '\0';
    if (MPIDI_OFI_getinfo(&info, why, sizeof(why)) != MPI_SUCCESS) {
        MPIDU_probe_line(buf, len, "not usable here: %s (jobs run on the other methods)", why);
        return 0;
    }
    uint64_t m = info->domain_attr->mr_mode;
    MPIDU_probe_line(buf, len,
                     "usable: provider %s, fabric %s, domain %s (used when FERRY_METHODS names ofi "
                     "or FI_PROVIDER is set)",
                     info->fabric_attr->prov_name, info->fabric_attr->name,
                     info->domain_attr->name);
    MPIDU_probe_line(buf, len, "mr_mode%s%s%s%s%s, key %zu B, max_msg_size %zu, inject %zu B, %s",
                     (m & FI_MR_LOCAL) ? " LOCAL" : "", (m & FI_MR_VIRT_ADDR) ? " VIRT_ADDR" : "",
                     (m & FI_MR_PROV_KEY) ? " PROV_KEY" : "",
                     (m & FI_MR_ENDPOINT) ? " ENDPOINT" : "",
                     (m & FI_MR_ALLOCATED) ? " ALLOCATED" : "", info->domain_attr->mr_key_size,
                     (size_t)info->ep_attr->max_msg_size, info->tx_attr->inject_size,
                     (info->caps & FI_MULTI_RECV) ? "multi-receive" : "no multi-receive");
    /* The other providers that would do, for FI_PROVIDER. */
    for (struct fi_info *i = info->next; i; i = i->next)
        MPIDU_probe_line(buf, len, "also: provider %s, fabric %s", i->fabric_attr->prov_name,
                         i->fabric_attr->name);
    fi_freeinfo(info);
    return 1;
}
