/* verbs_progress.c: the completion queue polled in batches, receives dispatched, errors and async
 * events. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mpi.h"
#include "verbs_impl.h"

#define MAX_BATCH 64

/* The connection a queue pair belongs to; *pending_p is 1 when it is one
 * the peer made and has not proven yet (its in_id). */
static MPIDI_VERBS_conn_t *conn_of_qp(uint32_t qp_num, int *pending_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    /* Connections a rank uses are few (they are made lazily), and the last
     * one found is usually the next. */
    static MPIDI_VERBS_conn_t *last;
    *pending_p = 0;
    if (last && last->qp && last->qp->qp_num == qp_num)
        return last;
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->qp && c->qp->qp_num == qp_num)
            return last = c;
        if (c->in_id && c->in_id->qp && c->in_id->qp->qp_num == qp_num) {
            *pending_p = 1;
            return c;
        }
    }
    return NULL;
}

static const char *op_name(const MPIDI_VERBS_tx_t *tx)
{
    switch (tx->kind) {
    case MPIDI_VERBS_TX_READ:
        return "RDMA read";
    case MPIDI_VERBS_TX_WRITE:
        return "RDMA write";
    case MPIDI_VERBS_TX_FLUSH:
        return "flush (empty RDMA write)";
    case MPIDI_VERBS_TX_RING_TAIL:
        return "RDMA read of the ring's tail";
    case MPIDI_VERBS_TX_RING_DATA:
        return "RDMA read of the ring";
    case MPIDI_VERBS_TX_RING_HEAD:
        return "RDMA write of the ring's head";
    default:
        return "send";
    }
}

/* What a completion error message adds when the port is the cause: a port
 * that went down fails the work in flight (locally or by the retries running
 * out) before its asynchronous event is read.  The device may fail the work
 * before it shows the port's new state (rxe: a send fails at once when its
 * link goes down, the port reads ACTIVE a moment longer), so the first error
 * that finds the port active asks again for up to 100 ms: an error path,
 * once per process. */
static const char *port_note(char *buf, size_t len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    static int waited;
    struct ibv_port_attr pa;
    buf[0] = '\0';
    int q = ibv_query_port(st->ctx, (uint8_t)st->port, &pa);
    for (int i = 0; q == 0 && pa.state == IBV_PORT_ACTIVE && !waited && i < 5; i++) {
        nanosleep(&(struct timespec){.tv_nsec = 20 * 1000 * 1000}, NULL);
        q = ibv_query_port(st->ctx, (uint8_t)st->port, &pa);
    }
    waited = 1;
    if (q == 0 && pa.state != IBV_PORT_ACTIVE)
        snprintf(buf, len, "; device %.32s port %d is %.20s", st->devname, st->port,
                 ibv_port_state_str(pa.state));
    return buf;
}

/* Returns 1 when the completion is the ring channel's own (it counts as
 * progress only if messages come of it, which the ring decides). */
static int send_completion(const struct ibv_wc *wc)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    int peer = (int)((wc->wr_id >> 32) & 0x7fffffff);
    unsigned slot = (unsigned)(wc->wr_id & 0xffffffff);
    MPIDI_VERBS_conn_t *c = peer < st->size ? st->conns[peer] : NULL;
    if (!c || !c->ring)
        return 0;
    int ring = c->ring[slot % (unsigned)c->sq_depth].kind >= MPIDI_VERBS_TX_RING_TAIL;
    int ok = wc->status == IBV_WC_SUCCESS;
    if (!ok && ring && c->peer_closed) {
        /* A ring read still in flight when the peer, having said BYE,
         * closed: nothing was lost (it says BYE once we freed all). */
        if (c->state != MPIDI_VERBS_CONN_FAILED) {
            MPIDI_VERBS_conn_fail(c, "closed after its BYE");
            c->fail_report = 0;
        }
    } else if (!ok && wc->status != IBV_WC_WR_FLUSH_ERR) {
        char note[96];
        MPIDI_VERBS_conn_fail(c, "%s failed: %s (status %d, vendor error %#x)%s",
                              op_name(&c->ring[slot % (unsigned)c->sq_depth]),
                              ibv_wc_status_str(wc->status), wc->status, wc->vendor_err,
                              port_note(note, sizeof(note)));
    } else if (!ok && c->state != MPIDI_VERBS_CONN_FAILED && !st->finalizing)
        MPIDI_VERBS_conn_fail(c, "work request flushed: %s", ibv_wc_status_str(wc->status));
    MPIDI_VERBS_retire(c, slot, ok);
    return ring;
}

/* One received message: credits and acknowledgements first, then the
 * core's handler with the header and payload in place in the buffer. */
static void recv_completion(const struct ibv_wc *wc)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_rbuf_t *b = (MPIDI_VERBS_rbuf_t *)(uintptr_t)wc->wr_id;
    int pending;
    MPIDI_VERBS_conn_t *c = conn_of_qp(wc->qp_num, &pending);
    if (c && pending) {
        /* A connection the peer made: its first message must prove it. */
        MPIDI_VERBS_hdr_t ph = {0};
        int ok = wc->status == IBV_WC_SUCCESS && wc->byte_len >= sizeof(ph);
        if (ok)
            memcpy(&ph, b->addr, sizeof(ph));
        if (!MPIDI_VERBS_auth_recv(c, &ph, b->addr + sizeof(ph),
                                   ok ? wc->byte_len - sizeof(ph) : 0)) {
            MPIDI_VERBS_srq_return(b);
            return;
        }
        /* Attached: the AUTH message's credit is accounted below. */
    }
    if (wc->status != IBV_WC_SUCCESS) {
        char note[96];
        if (c && wc->status != IBV_WC_WR_FLUSH_ERR)
            MPIDI_VERBS_conn_fail(c, "receive failed: %s (status %d, vendor error %#x)%s",
                                  ibv_wc_status_str(wc->status), wc->status, wc->vendor_err,
                                  port_note(note, sizeof(note)));
        MPIDI_VERBS_srq_return(b);
        return;
    }
    MPIDI_VERBS_hdr_t h;
    if (!c || wc->byte_len < sizeof(h)) {
        MPIDI_VERBS_srq_return(b);
        return;
    }
    memcpy(&h, b->addr, sizeof(h));
    if (sizeof(h) + h.hdr_len > wc->byte_len) {
        MPIDI_VERBS_conn_fail(c, "a message of %u bytes with a %u-byte header: corrupt",
                              wc->byte_len, h.hdr_len);
        MPIDI_VERBS_srq_return(b);
        return;
    }
    st->stats.recvs++;
    /* The buffer was replaced on the SRQ before this dispatch: the peer's
     * credit (or its reserved slot) can go back to it. */
    MPIDI_VERBS_credit_arrived(&c->cr, &h);
    if ((h.flags & MPIDI_VERBS_F_STARVED) && st->spare > 0) {
        /* Buffers the limit event added go to senders that ran dry. */
        int bonus = st->spare < st->credits_max ? st->spare : st->credits_max;
        st->spare -= bonus;
        st->reserved += bonus;
        c->reserved += bonus;
        MPIDI_VERBS_credit_grant_more(&c->cr, bonus);
        st->stats.bonus_credits += (unsigned long)bonus;
    }
    if (h.handler == MPIDI_VERBS_BYE)
        c->peer_closed = 1;
    else if (h.handler == MPIDI_VERBS_RING)
        MPIDI_VERBS_ring_info_recv(c, b->addr + sizeof(h) + h.hdr_len,
                                   wc->byte_len - sizeof(h) - h.hdr_len);
    else if (h.handler != MPIDI_VERBS_CREDIT && h.handler != MPIDI_VERBS_AUTH &&
             c->state != MPIDI_VERBS_CONN_FAILED)
        MPIDU_am_dispatch(c->peer, h.handler, b->addr + sizeof(h), h.hdr_len,
                          b->addr + sizeof(h) + h.hdr_len, wc->byte_len - sizeof(h) - h.hdr_len);
    MPIDI_VERBS_srq_return(b);
}

/* One batch of completions.  The receives in it are replaced on the SRQ
 * first, from the stash, in one chained post; then everything is
 * dispatched. */
static int poll_cq(int *made)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_wc wc[MAX_BATCH];
    int batch = st->cq_batch < MAX_BATCH ? st->cq_batch : MAX_BATCH;
    int n = ibv_poll_cq(st->cq, batch, wc);
    if (n < 0)
        return MPIDU_err_create(MPI_ERR_OTHER, "verbs: ibv_poll_cq failed (%d)", n);
    if (n == 0)
        return MPI_SUCCESS;
    int recvs = 0;
    for (int i = 0; i < n; i++)
        recvs += !(wc[i].wr_id >> 63);
    st->posted -= recvs;
    int err = MPIDI_VERBS_srq_repost(recvs);
    if (err)
        return err;
    for (int i = 0; i < n; i++) {
        if (!(wc[i].wr_id >> 63)) {
            recv_completion(&wc[i]);
            *made = 1;
        } else if (!send_completion(&wc[i])) {
            *made = 1;
        }
    }
    return n;
}

int MPIDI_VERBS_cq_poll_all(int *made)
{
    int n;
    while ((n = poll_cq(made)) > 0)
        ;
    return n < 0 ? n : MPI_SUCCESS;
}

/* One async event: the SRQ limit grows the pool; a queue pair's error fails
 * its connection; a device's or port's error is reported (and all but a
 * port error fail every connection). */
static int async_event(enum ibv_event_type type, struct ibv_qp *qp)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    switch (type) {
    case IBV_EVENT_SRQ_LIMIT_REACHED: {
        int err = MPIDI_VERBS_srq_limit_event();
        if (err)
            return err;
        if (st->verbose >= 2)
            fprintf(stderr, "ferry: rank %d: verbs SRQ limit reached: %d buffers now\n", st->rank,
                    st->nbufs);
        break;
    }
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_QP_ACCESS_ERR: {
        int pending = 0;
        MPIDI_VERBS_conn_t *c = qp ? conn_of_qp(qp->qp_num, &pending) : NULL;
        if (c && pending)
            MPIDI_VERBS_drop_in(c);
        else if (c)
            MPIDI_VERBS_conn_fail(c, "queue pair error: %s", ibv_event_type_str(type));
        break;
    }
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_DEVICE_FATAL:
    case IBV_EVENT_SRQ_ERR:
    case IBV_EVENT_CQ_ERR:
        fprintf(stderr, "ferry: rank %d: verbs device %s: %s\n", st->rank, st->devname,
                ibv_event_type_str(type));
        if (type != IBV_EVENT_PORT_ERR)
            for (int i = 0; i < st->nlist; i++)
                MPIDI_VERBS_conn_fail(st->list[i], "device %s: %s", st->devname,
                                      ibv_event_type_str(type));
        break;
    default:
        if (st->verbose >= 2)
            fprintf(stderr, "ferry: rank %d: verbs async event: %s\n", st->rank,
                    ibv_event_type_str(type));
        break;
    }
    return MPI_SUCCESS;
}

/* FERRY_VERBS_FAULT=qp_fatal (tests): rxe raises no fatal queue pair event a
 * test can provoke (a bad key moves the responder's queue pair to the error
 * state without one), so rank 1's first connection that is up gets one made
 * here: its queue pair is moved to the error state, as a device does, and the
 * event goes through async_event like one the device raised.  Called where
 * async events are read, which is also right after a connection came up. */
static int inject_qp_fatal(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (st->rank != 1)
        return MPI_SUCCESS;
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->state == MPIDI_VERBS_CONN_UP && c->qp) {
            struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR};
            st->fault_done = 1;
            (void)ibv_modify_qp(c->qp, &attr, IBV_QP_STATE);
            return async_event(IBV_EVENT_QP_FATAL, c->qp);
        }
    }
    return MPI_SUCCESS;
}

int MPIDI_VERBS_async_progress(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_async_event ev;
    if (st->fault == MPIDI_VERBS_FAULT_QP_FATAL && !st->fault_done) {
        int err = inject_qp_fatal();
        if (err)
            return err;
    }
    while (ibv_get_async_event(st->ctx, &ev) == 0) {
        enum ibv_event_type type = ev.event_type;
        struct ibv_qp *qp = ev.element.qp;
        ibv_ack_async_event(&ev);
        int err = async_event(type, qp);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}

/* Takes the completion events the channel holds (they are only a wake-up:
 * the CQ is polled anyway) so its descriptor stops being readable. */
static void drain_comp_events(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_cq *cq;
    void *ctx;
    unsigned n = 0;
    while (ibv_get_cq_event(st->comp, &cq, &ctx) == 0)
        n++;
    if (n) {
        ibv_ack_cq_events(st->cq, n);
        st->armed = 0;
    }
}

int MPIDI_VERBS_wait_fd(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (!st->available || st->epfd < 0)
        return -1;
    drain_comp_events();
    if (ibv_req_notify_cq(st->cq, 0) != 0)
        return -1;
    st->armed = 1;
    st->woke = 1; /* the next progress looks at rdma_cm and async events too */
    return st->epfd;
}

int MPIDI_VERBS_progress(int *made_progress_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (!st->available || st->in_progress)
        return MPI_SUCCESS;
    if (st->armed)
        drain_comp_events();
    st->in_progress = 1;
    /* Work requests wait in per-connection batches until progress_done, so
     * the replies this pass dispatches and the core's deferred sends that
     * the returned credits release go out with one doorbell each. */
    st->batching = 1;
    int err = poll_cq(made_progress_p);
    if (err > 0)
        err = MPI_SUCCESS;
    for (int i = 0; !err && i < st->nlist; i++)
        if (st->list[i]->rdma_head)
            MPIDI_VERBS_rdma_pump(st->list[i]);
    if (!err)
        err = MPIDI_VERBS_ring_progress(made_progress_p);
    /* rdma_cm and async events are rare: looked at every 64th call, or at
     * every call while a connection is on its way. */
    if (!err && (st->cm_busy || st->woke || (++st->polls & 63) == 0)) {
        st->woke = 0;
        int made = 0;
        err = MPIDI_VERBS_cm_progress(&made);
        if (!err)
            err = MPIDI_VERBS_async_progress();
        *made_progress_p |= made;
    }
    st->in_progress = 0;
    MPIDI_VERBS_report_failures();
    return err;
}

void MPIDI_VERBS_progress_done(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (!st->available)
        return;
    /* After the deferred sends, which carried credits where they could:
     * only what is still due goes in CREDIT messages. */
    int made = 0;
    MPIDI_VERBS_return_credits(&made);
    MPIDI_VERBS_flush_batches();
    st->batching = 0;
}
