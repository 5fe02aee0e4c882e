/* ofi_ops.c: the ofi method's function table. */
#include "ofi_impl.h"

const MPIDI_method_ops_t MPIDI_ofi_ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "ofi",
    .flags = MPIDI_METHOD_OFF_NODE,
    .init = MPIDI_OFI_init,
    .get_business_card = MPIDI_OFI_get_business_card,
    .finalize = MPIDI_OFI_finalize,
    .reachable = MPIDI_OFI_reachable,
    .connect = MPIDI_OFI_connect,
    .am_send = MPIDI_OFI_am_send,
    .progress = MPIDI_OFI_progress,
    .rdma_get = MPIDI_OFI_rdma_get,
    .rdma_put = MPIDI_OFI_rdma_put,
    .mem_reg = MPIDI_OFI_mem_reg,
    .mem_dereg = MPIDI_OFI_mem_dereg,
    .probe = MPIDI_OFI_probe,
    .wait_fd = MPIDI_OFI_wait_fd,
};
