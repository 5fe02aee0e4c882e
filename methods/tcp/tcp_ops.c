/* tcp_ops.c: the tcp method's function table. */
#include "tcp_impl.h"

const MPIDI_method_ops_t MPIDI_tcp_ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "tcp",
    .flags = MPIDI_METHOD_OFF_NODE,
    .init = MPIDI_TCP_init,
    .get_business_card = MPIDI_TCP_get_business_card,
    .post_init = NULL,
    .finalize = MPIDI_TCP_finalize,
    .reachable = MPIDI_TCP_reachable,
    .connect = MPIDI_TCP_connect,
    .am_send = MPIDI_TCP_am_send,
    .progress = MPIDI_TCP_progress,
    /* No remote memory access: rendezvous uses the core's pipeline. */
    .rdma_get = NULL,
    .rdma_put = NULL,
    .mem_reg = NULL,
    .mem_dereg = NULL,
    .probe = MPIDI_TCP_probe,
};
