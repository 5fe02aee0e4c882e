/* stub.c: the smallest method that compiles: a skeleton to copy when adding a transport. */
#include <stdio.h>
#include "method.h"

/* To add a method: copy this directory, fill in each function, list the ops
 * in methods/methods.c and add a configure switch.  This stub reaches no
 * peer, so the core never sends through it; it still publishes a card so
 * the start-up path is exercised when it is built in. */

static int stub_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps)
{
    /* Create local resources here (devices, queues, listening sockets). */
    caps->max_hdr = 64;
    caps->eager_limit = 16 * 1024;
    caps->max_send = 64 * 1024;
    caps->rndv_modes = MPIDI_RNDV_PIPELINE; /* am_send alone is enough for it */
    caps->needs_reg = 0;
    caps->exclusivity = 0;
    return 0;
}

/* What a peer needs to reach us (addresses, queue numbers), as text. */
static int stub_card(char *buf, size_t len)
{
    snprintf(buf, len, "stub");
    return 0;
}

static int stub_finalize(void)
{
    return 0;
}

/* Decide from the peer's card; the stub reaches nobody. */
static int stub_reachable(int peer, const char *card)
{
    return 0;
}

static int stub_connect(int peer, const char *card)
{
    return MPIDU_err_create(MPI_ERR_OTHER, "stub method cannot connect to rank %d", peer);
}

/* Copy the header, pack [first, last) of seg into a send buffer, transmit;
 * return MPIDI_AGAIN when out of buffers. */
static int stub_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                        const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                        void *cookie)
{
    return MPIDU_err_create(MPI_ERR_OTHER, "stub method cannot send to rank %d", peer);
}

/* Poll for arrivals and call MPIDU_am_dispatch for each; set *made only
 * when something happened. */
static int stub_progress(int *made)
{
    return 0;
}

/* For ferry_info: a real method checks its devices, permissions or
 * addresses here and says what it found (see shm_probe.c, tcp_probe.c). */
static int stub_probe(char *buf, size_t len)
{
    snprintf(buf, len, "not usable: a compile-only skeleton that reaches no peer\n");
    return 0;
}

const MPIDI_method_ops_t MPIDI_stub_ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "stub",
    .init = stub_init,
    .get_business_card = stub_card,
    .finalize = stub_finalize,
    .reachable = stub_reachable,
    .connect = stub_connect,
    .am_send = stub_am_send,
    .progress = stub_progress,
    .probe = stub_probe,
};
