/* self.c: the method for messages a rank sends to itself: a local queue, memcpy for rdma. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "method.h"

/* A message to oneself is copied into a queue entry and delivered from
 * progress, never from inside am_send: the core is not re-entered while it
 * is still in the middle of a send. */
typedef struct self_msg {
    struct self_msg *next;
    int handler;
    size_t hdr_len, len;
    char data[]; /* header, then payload */
} self_msg_t;

static self_msg_t *head, *tail;
static int queued; /* messages in the queue: the agent's work hint */
static int my_rank;

static int self_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps)
{
    my_rank = job->rank;
    caps->max_hdr = 256;
    caps->eager_limit = 64 * 1024;
    caps->max_send = (size_t)1 << 40; /* a queue entry can be any size */
    caps->rndv_modes = MPIDI_RNDV_READ | MPIDI_RNDV_WRITE | MPIDI_RNDV_PIPELINE;
    caps->needs_reg = 0;
    caps->addr_mode = MPIDI_ADDR_VIRTUAL;
    /* A memcpy per piece costs no more than packing the piece would. */
    caps->rndv_iov_min_piece = 1;
    caps->exclusivity = 1000; /* nothing beats a memcpy */
    caps->scope = MPIDI_SCOPE_SELF;
    caps->cardless = 1;
    return 0;
}

static int self_card(char *buf, size_t len)
{
    buf[0] = '-';
    buf[1] = '\0';
    return 0;
}

static int self_finalize(void)
{
    while (head) {
        self_msg_t *m = head;
        head = m->next;
        free(m);
    }
    tail = NULL;
    queued = 0;
    return 0;
}

static int self_reachable(int peer, const char *card)
{
    return peer == my_rank;
}

static int self_probe(char *buf, size_t len)
{
    snprintf(buf, len, "usable: a rank's messages to itself, by memcpy\n");
    return 1;
}
static int self_connect(int peer, const char *card)
{
    return 0;
}

static int self_am_send(int peer, int handler, const void *hdr, size_t hdr_len,
                        const MPIR_Segment *seg, size_t first, size_t last, unsigned flags,
                        void *cookie)
{
    size_t len = last - first;
    self_msg_t *m = malloc(sizeof(*m) + hdr_len + len);
    if (!m)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "self: out of memory for a %zu-byte message", len);
    m->next = NULL;
    m->handler = handler;
    m->hdr_len = hdr_len;
    m->len = len;
    memcpy(m->data, hdr, hdr_len);
    if (len)
        MPIR_Segment_pack(seg, first, last, m->data + hdr_len);
    if (tail)
        tail->next = m;
    else
        head = m;
    tail = m;
    queued++;
    return 0;
}

static int self_progress(int *made)
{
    /* Deliver only what was queued before this call; handlers may queue more. */
    self_msg_t *last = tail;
    while (head) {
        self_msg_t *m = head;
        int stop = m == last;
        head = m->next;
        if (!head)
            tail = NULL;
        queued--;
        MPIDU_am_dispatch(my_rank, m->handler, m->data, m->hdr_len, m->data + m->hdr_len, m->len);
        free(m);
        *made = 1;
        if (stop)
            break;
    }
    return 0;
}

/* The published address is the virtual address (no registration), and the
 * copy is done before returning, so MPIDI_AM_FENCE holds trivially. */
static int self_rdma_get(int peer, void *local, size_t len, void *local_handle, uint64_t remote,
                         uint64_t rkey, void *cookie)
{
    memcpy(local, (const void *)(uintptr_t)remote, len);
    return 0;
}

static int self_rdma_put(int peer, const void *local, size_t len, void *local_handle,
                         uint64_t remote, uint64_t rkey, void *cookie)
{
    memcpy((void *)(uintptr_t)remote, local, len);
    return 0;
}

const MPIDI_method_ops_t MPIDI_self_ops = {
    .size = sizeof(MPIDI_method_ops_t),
    .name = "self",
    .flags = MPIDI_METHOD_ALWAYS,
    .init = self_init,
    .get_business_card = self_card,
    .finalize = self_finalize,
    .reachable = self_reachable,
    .connect = self_connect,
    .am_send = self_am_send,
    .progress = self_progress,
    .rdma_get = self_rdma_get,
    .rdma_put = self_rdma_put,
    .probe = self_probe,
    .work_hint = &queued,
};
