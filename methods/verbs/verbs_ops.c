/* verbs_ops.c: the verbs method's function table, which the module hands to the library
 * (verbs_load.c, methods/module.h). */
#include "module.h"
#include "verbs_impl.h"

static const MPIDI_method_ops_t ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "verbs",
    .init = MPIDI_VERBS_init,
    .get_business_card = MPIDI_VERBS_get_business_card,
    .finalize = MPIDI_VERBS_finalize,
    .reachable = MPIDI_VERBS_reachable,
    .connect = MPIDI_VERBS_connect,
    .am_send = MPIDI_VERBS_am_send,
    .progress = MPIDI_VERBS_progress,
    .rdma_get = MPIDI_VERBS_rdma_get,
    .rdma_put = MPIDI_VERBS_rdma_put,
    .mem_reg = MPIDI_VERBS_mem_reg,
    .mem_dereg = MPIDI_VERBS_mem_dereg,
    .wait_fd = MPIDI_VERBS_wait_fd,
    .progress_done = MPIDI_VERBS_progress_done,
    .probe = MPIDI_VERBS_probe,
};

const MPIDI_method_ops_t *ferry_method_ops(size_t ops_size);

const MPIDI_method_ops_t *ferry_method_ops(size_t ops_size)
{
    return ops_size == sizeof(ops) ? &ops : NULL;
}
