/* shm_ops.c: the shm method's function table. */
#include "shm_impl.h"

const MPIDI_method_ops_t MPIDI_shm_ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "shm",
    .init = MPIDI_SHM_init,
    .get_business_card = MPIDI_SHM_get_business_card,
    .post_init = MPIDI_SHM_post_init,
    .finalize = MPIDI_SHM_finalize,
    .reachable = MPIDI_SHM_reachable,
    .connect = MPIDI_SHM_connect,
    .am_send = MPIDI_SHM_am_send,
    .progress = MPIDI_SHM_progress,
    .rdma_get = MPIDI_SHM_rdma_get,
    .rdma_put = MPIDI_SHM_rdma_put,
    /* CMA reaches any address of the peer: nothing to register. */
    .mem_reg = NULL,
    .mem_dereg = NULL,
    .probe = MPIDI_SHM_probe,
    .wait_word = MPIDI_SHM_wait_word,
};
