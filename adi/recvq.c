/* recvq.c: the one matching engine: posted and unexpected queues in MPI order. */
#include "adi_impl.h"

/* Two doubly linked lists in arrival/posting order.  Searching front to back
 * gives MPI's rule: a message matches the earliest posted receive that fits,
 * a receive matches the earliest arrived message that fits; together with
 * per-peer FIFO delivery that is the non-overtaking guarantee. */
typedef struct {
    MPIR_Request *head, *tail;
} queue_t;

static queue_t posted, unexp;
static size_t unexp_bytes;

static void q_append(queue_t *q, MPIR_Request *r)
{
    r->next = NULL;
    r->prev = q->tail;
    if (q->tail)
        q->tail->next = r;
    else
        q->head = r;
    q->tail = r;
}

static void q_remove(queue_t *q, MPIR_Request *r)
{
    if (r->prev)
        r->prev->next = r->next;
    else
        q->head = r->next;
    if (r->next)
        r->next->prev = r->prev;
    else
        q->tail = r->prev;
    r->next = r->prev = NULL;
}

static inline int matches(int want_ctx, int want_src, int want_tag, int ctx, int src, int tag)
{
    return want_ctx == ctx && (want_src == MPI_ANY_SOURCE || want_src == src) &&
           (want_tag == MPI_ANY_TAG || want_tag == tag);
}

MPIR_Request *MPIDI_recvq_find_posted(int context_id, int src, int tag)
{
    for (MPIR_Request *r = posted.head; r; r = r->next) {
        if (matches(r->context_id, r->rank, r->tag, context_id, src, tag)) {
            q_remove(&posted, r);
            r->in_posted = 0;
            return r;
        }
    }
    return NULL;
}

void MPIDI_recvq_append_posted(MPIR_Request *rreq)
{
    q_append(&posted, rreq);
    rreq->in_posted = 1;
}

int MPIDI_recvq_remove_posted(MPIR_Request *rreq)
{
    if (!rreq->in_posted)
        return 0;
    q_remove(&posted, rreq);
    rreq->in_posted = 0;
    return 1;
}

MPIR_Request *MPIDI_recvq_find_unexp(int context_id, int src, int tag, int remove)
{
    for (MPIR_Request *u = unexp.head; u; u = u->next) {
        if (matches(context_id, src, tag, u->context_id, u->rank, u->tag)) {
            if (remove) {
                q_remove(&unexp, u);
                if (u->unexp_data)
                    unexp_bytes -= u->msg_size;
            }
            return u;
        }
    }
    return NULL;
}

MPIR_Request *MPIDI_recvq_take_unexp_sent(int peer, uint64_t sreq, uint16_t seq)
{
    for (MPIR_Request *u = unexp.head; u; u = u->next) {
        if (u->peer == peer && u->rts.sreq == sreq && u->rts.seq == seq) {
            q_remove(&unexp, u);
            if (u->unexp_data)
                unexp_bytes -= u->msg_size;
            return u;
        }
    }
    return NULL;
}

void MPIDI_recvq_append_unexp(MPIR_Request *ureq)
{
    q_append(&unexp, ureq);
    if (ureq->unexp_data) {
        unexp_bytes += ureq->msg_size;
        if (unexp_bytes > MPIDI_stats.unexpected_bytes_max)
            MPIDI_stats.unexpected_bytes_max = unexp_bytes;
    }
}

size_t MPIDI_recvq_unexp_bytes(void)
{
    return unexp_bytes;
}

/* Receives naming the lost peer can never match now: fail them.  Wildcard
 * receives stay posted, since another peer may still satisfy them. */
void MPIDI_recvq_fail_peer(int peer, int mpi_errno)
{
    MPIR_Request *r = posted.head;
    while (r) {
        MPIR_Request *next = r->next;
        if (r->rank != MPI_ANY_SOURCE && r->peer == peer) {
            q_remove(&posted, r);
            r->in_posted = 0;
            MPIR_Request_set_error(r, mpi_errno);
            r->status.MPI_SOURCE = r->rank;
            r->status.MPI_TAG = r->tag;
            MPIDI_Request_complete_one(r);
        }
        r = next;
    }
}
