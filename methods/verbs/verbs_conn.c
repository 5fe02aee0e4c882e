/* verbs_conn.c: connections with rdma_cm: listener, lazy connect, simultaneous connects, loss,
 * close. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "verbs_impl.h"

/* Each rank listens on the IP address of its GID (rdma_cm resolves peers by
 * IP) and publishes "ip;port;device;node" as its card, so start-up costs
 * one card per rank whatever the job size.  A connection is made at the
 * first message to a peer: rdma_resolve_addr, rdma_resolve_route, a queue
 * pair on the shared CQ and SRQ, rdma_connect with private data (our rank,
 * the job, the credits we grant).  Both sides may start at once; the
 * attempt of the lower rank wins: the higher rank accepts it and drops its
 * own, the lower rank rejects the higher one's with REJ_LOSE. */

#define MPIDI_VERBS_RESOLVE_MS 5000
#define MPIDI_VERBS_ATTEMPTS 5

static int parse_card(const char *card, char *ip, size_t iplen, int *port, int *node)
{
    char dev[64];
    const char *a = strchr(card, ';');
    if (!a || (size_t)(a - card) >= iplen)
        return -1;
    snprintf(ip, iplen, "%.*s", (int)(a - card), card);
    return sscanf(a + 1, "%d;%63[^;];%d", port, dev, node) == 3 ? 0 : -1;
}

static int make_sockaddr(const char *ip, int port, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof(*ss));
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, ip, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        return 0;
    }
    if (inet_pton(AF_INET6, ip, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        return 0;
    }
    return -1;
}

int MPIDI_VERBS_listen(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct sockaddr_storage ss;
    st->ch = rdma_create_event_channel();
    if (!st->ch)
        return MPIDU_err_create(MPI_ERR_OTHER, "verbs: rdma_create_event_channel: %s (errno %d)",
                                strerror(errno), errno);
    int fl = fcntl(st->ch->fd, F_GETFL);
    fcntl(st->ch->fd, F_SETFL, fl | O_NONBLOCK);
    if (rdma_create_id(st->ch, &st->listen_id, NULL, RDMA_PS_TCP) != 0 ||
        make_sockaddr(st->ip, 0, &ss) != 0 ||
        rdma_bind_addr(st->listen_id, (struct sockaddr *)&ss) != 0 ||
        rdma_listen(st->listen_id, 128) != 0)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: cannot listen on %s with rdma_cm: %s "
                                "(errno %d)",
                                st->ip, strerror(errno), errno);
    if (st->listen_id->verbs != st->ctx)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: address %s belongs to another device "
                                "than %s",
                                st->ip, st->devname);
    st->listen_port = ntohs(rdma_get_src_port(st->listen_id));
    return MPI_SUCCESS;
}

int MPIDI_VERBS_reachable(int peer, const char *card)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    char ip[64];
    int port, node;
    if (!st->available || peer == st->rank || parse_card(card, ip, sizeof(ip), &port, &node))
        return 0; /* we or the peer have no device ("none"), or it is us */
    /* On our own node shm is the method, unless verbs was asked for by name
     * (then also over the device's loopback). */
    return node != st->node_id || st->forced;
}

MPIDI_VERBS_conn_t *MPIDI_VERBS_conn_get(int peer)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (!st->conns[peer]) {
        MPIDI_VERBS_conn_t *c = calloc(1, sizeof(*c));
        if (!c)
            return NULL;
        c->peer = peer;
        c->sq_depth = st->sq_depth;
        c->rd_depth = st->rd_atomic;
        st->conns[peer] = c;
        st->list[st->nlist++] = c;
    }
    return st->conns[peer];
}

/* The credits we grant the peer: as many as configured, fewer when the
 * pool cannot grow enough (many connections), and none (-1) when not even
 * one fits; *reserved_p gets the buffers taken, the reserved slot included. */
static int grant_credits(int *reserved_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    for (int g = st->credits_max; g >= 1; g /= 2) {
        if (MPIDI_VERBS_srq_reserve(g + 1) == 0) {
            *reserved_p = g + 1;
            return g;
        }
    }
    return -1;
}

static void ungrant(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_srq_release(c->reserved);
    c->reserved = c->cr.granted = 0;
}

/* A queue pair for id on the shared CQ and SRQ; *max_inline_p gets the
 * inline size the device granted (capped by ours). */
static int create_qp(MPIDI_VERBS_conn_t *c, struct rdma_cm_id *id, int *max_inline_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_qp_init_attr qa = {.send_cq = st->cq,
                                  .recv_cq = st->cq,
                                  .srq = st->srq,
                                  .qp_type = IBV_QPT_RC,
                                  .cap = {.max_send_wr = (uint32_t)c->sq_depth,
                                          .max_send_sge = 1,
                                          .max_inline_data = (uint32_t)st->inline_max}};
    if (rdma_create_qp(id, st->pd, &qa) != 0) {
        qa.cap.max_inline_data = 0; /* some devices take no inline data */
        if (rdma_create_qp(id, st->pd, &qa) != 0)
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "verbs: rdma_create_qp for rank %d (%d send "
                                    "slots): %s (errno %d)",
                                    c->peer, c->sq_depth, strerror(errno), errno);
    }
    int inl = (int)qa.cap.max_inline_data;
    if (inl > st->inline_max)
        inl = st->inline_max;
    if (inl > MPIDI_VERBS_INLINE_MAX)
        inl = MPIDI_VERBS_INLINE_MAX;
    *max_inline_p = inl;
    if (!c->ring)
        c->ring = calloc((size_t)c->sq_depth, sizeof(*c->ring));
    /* The ACK timeout: 4.096 us * 2^timeout before a retransmission; with
     * retry_count retries a lost peer shows within a few seconds. */
    uint8_t t = (uint8_t)st->timeout;
    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t));
    return c->ring ? MPIDI_VERBS_cq_fit()
                   : MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for a send ring");
}

static void conn_param(struct rdma_conn_param *p, const void *priv, size_t len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    memset(p, 0, sizeof(*p));
    p->private_data = priv;
    p->private_data_len = (uint8_t)len;
    p->responder_resources = (uint8_t)st->rd_atomic;
    p->initiator_depth = (uint8_t)st->rd_atomic;
    p->retry_count = (uint8_t)st->retry_count;
    /* Finite: credits mean a receiver never answers RNR, so one is a bug
     * and must show as an error, not as a silent infinite retry (7). */
    p->rnr_retry_count = (uint8_t)st->rnr_retry;
    p->flow_control = 1;
}

static void drop_id(struct rdma_cm_id *id)
{
    if (!id)
        return;
    if (id->qp)
        rdma_destroy_qp(id);
    rdma_destroy_id(id);
}

static void retry_or_fail(MPIDI_VERBS_conn_t *c, const char *what, int status);
static void out_failed(MPIDI_VERBS_conn_t *c, struct rdma_cm_id *id, const char *what, int status);

/* Starts (or restarts) our own attempt; one that cannot even start counts as
 * a failed attempt (retried later, then reported). */
static void start_out(MPIDI_VERBS_conn_t *c)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    char ip[64];
    int port, node;
    struct sockaddr_storage ss;
    if (parse_card(c->card, ip, sizeof(ip), &port, &node) || make_sockaddr(ip, port, &ss)) {
        MPIDI_VERBS_conn_fail(c, "its card \"%s\" is not ip;port;device;node", c->card);
        return;
    }
    c->attempts++;
    st->cm_busy = 1;
    if (rdma_create_id(st->ch, &c->out, c, RDMA_PS_TCP) != 0 ||
        rdma_resolve_addr(c->out, NULL, (struct sockaddr *)&ss, MPIDI_VERBS_RESOLVE_MS) != 0) {
        int e = errno;
        drop_id(c->out);
        c->out = NULL;
        retry_or_fail(c, "rdma_resolve_addr", e);
        return;
    }
    c->state = MPIDI_VERBS_CONN_RESOLVING;
    /* rdma_cm's own retries of an unanswered request take minutes; a peer
     * busy outside MPI keeps its request pending (rdma_cm answers it with an
     * MRA), which only a timeout the user chose may cut short. */
    c->out_deadline = st->connect_timeout > 0 ? MPIDI_VERBS_now() + st->connect_timeout : 0;
    if (st->verbose >= 2)
        fprintf(stderr, "ferry: rank %d: verbs connecting to rank %d at %s port %d (attempt %d)\n",
                st->rank, c->peer, ip, port, c->attempts);
}

int MPIDI_VERBS_connect(int peer, const char *card)
{
    MPIDI_VERBS_conn_t *c = MPIDI_VERBS_conn_get(peer);
    if (!c)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for a connection");
    snprintf(c->card, sizeof(c->card), "%s", card);
    /* Lazy: the attempt starts here, messages wait (AGAIN) until it is up;
     * the peer may already have connected to us. */
    if (c->state == MPIDI_VERBS_CONN_NONE && !c->out && !c->id && !c->in_id)
        start_out(c);
    return MPI_SUCCESS;
}

int MPIDI_VERBS_conn_ready(MPIDI_VERBS_conn_t *c)
{
    if (c->state == MPIDI_VERBS_CONN_UP)
        return 1;
    if (c->state == MPIDI_VERBS_CONN_NONE && !c->out && !c->id && !c->in_id && c->card[0] &&
        c->retry_at <= MPIDI_VERBS_now())
        start_out(c);
    return 0;
}

void MPIDI_VERBS_conn_fail(MPIDI_VERBS_conn_t *c, const char *fmt, ...)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (c->state == MPIDI_VERBS_CONN_FAILED)
        return;
    int n = snprintf(c->fail_msg, sizeof(c->fail_msg),
                     "verbs: rank %d: connection to rank %d lost: ", st->rank, c->peer);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->fail_msg + n, sizeof(c->fail_msg) - (size_t)n, fmt, ap);
    va_end(ap);
    c->state = MPIDI_VERBS_CONN_FAILED;
    /* Every operation toward the peer is dropped before the core hears of
     * it: no MPIDU_op_done after this (posted ones retire silently as the
     * device flushes them, batched ones here). */
    MPIDI_VERBS_rdma_drop(c);
    MPIDI_VERBS_batch_drop(c);
    if (c->id)
        rdma_disconnect(c->id); /* the queue pair goes to error: posted work is flushed */
    /* The core hears of it from progress (MPIDI_VERBS_report_failures), never
     * from inside a send it is making. */
    c->fail_report = !st->finalizing;
    st->fail_pending |= c->fail_report;
}

void MPIDI_VERBS_report_failures(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (!st->fail_pending)
        return;
    st->fail_pending = 0;
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->fail_report) {
            c->fail_report = 0;
            MPIDU_peer_failed(c->peer, MPI_ERR_OTHER, c->fail_msg);
        }
    }
}

/* ---- events ---- */

/* What this rank's end of every connection uses (MPIDI_VERBS_proto_t). */
static MPIDI_VERBS_proto_t proto_ours(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_proto_t p = {.eager = (uint16_t)st->eager};
    if (st->eager == MPIDI_VERBS_EAGER_RING)
        p.ring_size = (uint32_t)st->ring_size;
    return p;
}

static const char *eager_name(unsigned eager)
{
    static const char *const names[] = {
        [MPIDI_VERBS_EAGER_SR] = "sr", [MPIDI_VERBS_EAGER_RING] = "ring"};
    return eager < sizeof(names) / sizeof(names[0]) ? names[eager] : "unknown";
}

/* The peer's end differs from ours (a user error: both are per job): the
 * connection fails naming the variable and both values, at whichever side
 * finds it; the acceptor tells the connector with a REJ_EAGER that carries
 * its own values, so both ranks say it.  Without this a mixed job failed at
 * the sr rank only, on the first RING message. */
static int proto_refused(MPIDI_VERBS_conn_t *c, const MPIDI_VERBS_proto_t *theirs)
{
    MPIDI_VERBS_proto_t ours = proto_ours();
    if (theirs->eager != ours.eager)
        MPIDI_VERBS_conn_fail(c,
                              "refused: FERRY_VERBS_EAGER is %s here and %s at rank %d; it "
                              "must be the same on every rank",
                              eager_name(ours.eager), eager_name(theirs->eager), c->peer);
    else if (theirs->ring_size != ours.ring_size)
        MPIDI_VERBS_conn_fail(c,
                              "refused: FERRY_RING_SIZE is %u here and %u at rank %d "
                              "(FERRY_VERBS_EAGER=ring); it must be the same on every rank",
                              (unsigned)ours.ring_size, (unsigned)theirs->ring_size, c->peer);
    else
        return 0;
    return 1;
}

/* A REJ carrying only our refusal: a stranger learns nothing more. */
static void refuse(struct rdma_cm_id *id)
{
    rdma_reject(id, NULL, 0);
    rdma_destroy_id(id);
}

/* The pending connection the peer made is dropped (no proof, a newer
 * attempt, timed out); nothing else of the connection changes. */
void MPIDI_VERBS_drop_in(MPIDI_VERBS_conn_t *c)
{
    if (!c->in_id)
        return;
    drop_id(c->in_id);
    c->in_id = NULL;
    MPIDI_VERBS_srq_release(c->in_reserved);
    c->in_reserved = 0;
}

/* A peer asks to connect.  Its REQ must carry a MAC under the job's secret;
 * then, unless our own attempt wins (we are the lower rank) or we are
 * connected already, it gets a queue pair and our REP, and stays pending
 * until its AUTH proves it (MPIDI_VERBS_auth_recv).  A REQ is not proof on
 * its own: it may be a replay. */
static void on_request(struct rdma_cm_event *ev)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct rdma_cm_id *id = ev->id;
    MPIDI_VERBS_req_t req = {0};
    int plen = ev->param.conn.private_data ? ev->param.conn.private_data_len : 0;
    if (plen >= (int)sizeof(req))
        memcpy(&req, ev->param.conn.private_data, sizeof(req));
    if (plen < (int)sizeof(req) || req.magic != MPIDI_VERBS_MAGIC || (int)req.to != st->rank ||
        (int)req.rank < 0 || (int)req.rank >= st->size || (int)req.rank == st->rank ||
        !MPIDI_VERBS_req_check(&req)) {
        st->stats.strangers++;
        if (st->verbose)
            fprintf(stderr,
                    "ferry: rank %d: verbs refused a connection request without the "
                    "job's proof\n",
                    st->rank);
        refuse(id);
        return;
    }
    MPIDI_VERBS_conn_t *c = MPIDI_VERBS_conn_get((int)req.rank);
    MPIDI_VERBS_rep_t rep = {
        .magic = MPIDI_VERBS_MAGIC, .rank = (uint32_t)st->rank, .proto = proto_ours()};
    if (c && c->state != MPIDI_VERBS_CONN_FAILED && proto_refused(c, &req.proto)) {
        /* Before the race is decided: the winner's request may never come. */
        rep.reason = MPIDI_VERBS_REJ_EAGER;
        MPIDI_VERBS_rep_seal(&rep, req.nonce);
        rdma_reject(id, &rep, sizeof(rep));
        rdma_destroy_id(id);
        return;
    }
    int ours_pending = c && c->out && c->state != MPIDI_VERBS_CONN_FAILED;
    if (!c || c->id || c->state == MPIDI_VERBS_CONN_FAILED ||
        (ours_pending && st->rank < c->peer)) {
        /* Our own attempt wins (lower rank), or we have a connection. */
        rep.reason = MPIDI_VERBS_REJ_LOSE;
        MPIDI_VERBS_rep_seal(&rep, req.nonce);
        rdma_reject(id, &rep, sizeof(rep));
        rdma_destroy_id(id);
        st->stats.conn_lost_race += ours_pending;
        return;
    }
    /* A newer request for the same rank replaces one still unproven (the
     * real peer retrying must not be locked out by a replay). */
    MPIDI_VERBS_drop_in(c);
    int reserved = 0, inl = 0;
    int g = grant_credits(&reserved);
    if (g < 0 || create_qp(c, id, &inl) != MPI_SUCCESS || MPIDI_VERBS_nonce(rep.nonce)) {
        if (g >= 0)
            MPIDI_VERBS_srq_release(reserved);
        rep.reason = MPIDI_VERBS_REJ_FULL;
        MPIDI_VERBS_rep_seal(&rep, req.nonce);
        rdma_reject(id, &rep, sizeof(rep));
        drop_id(id);
        fprintf(stderr,
                "ferry: rank %d: verbs refuses rank %d: no receive buffers or queue "
                "pair left (FERRY_VERBS_SRQ_MAX, FERRY_VERBS_CREDITS)\n",
                st->rank, c->peer);
        return;
    }
    rep.credits = (uint16_t)g;
    MPIDI_VERBS_rep_seal(&rep, req.nonce);
    struct rdma_conn_param p;
    conn_param(&p, &rep, sizeof(rep));
    if (ev->param.conn.initiator_depth < p.responder_resources)
        p.responder_resources = ev->param.conn.initiator_depth;
    if (ev->param.conn.responder_resources < p.initiator_depth)
        p.initiator_depth = ev->param.conn.responder_resources;
    id->context = c;
    c->in_id = id;
    c->in_reserved = reserved;
    c->in_granted = g;
    c->in_credits = req.credits;
    c->in_max_inline = inl;
    c->in_rd_depth = p.initiator_depth > 0 ? p.initiator_depth : 1;
    memcpy(c->in_nonce_c, req.nonce, sizeof(c->in_nonce_c));
    memcpy(c->in_nonce_a, rep.nonce, sizeof(c->in_nonce_a));
    /* The proof must come soon; a replayed request never sends it. */
    c->in_deadline = MPIDI_VERBS_now() + 10.0;
    if (rdma_accept(id, &p) != 0) {
        MPIDI_VERBS_drop_in(c);
        return;
    }
    st->cm_busy = 1;
}

int MPIDI_VERBS_auth_recv(MPIDI_VERBS_conn_t *c, const MPIDI_VERBS_hdr_t *h, const void *payload,
                          size_t len)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    unsigned char want[MPIDU_SHA256_LEN];
    if (h->handler != MPIDI_VERBS_AUTH || h->hdr_len != 0 || len != sizeof(want) ||
        MPIDI_VERBS_auth_mac(c->peer, st->rank, c->in_nonce_c, c->in_nonce_a, want) ||
        !MPIDU_mem_equal(want, payload, sizeof(want)) || c->id) {
        st->stats.strangers++;
        if (st->verbose)
            fprintf(stderr,
                    "ferry: rank %d: verbs dropped a connection claiming to be rank %d: "
                    "its first message was not the job's proof\n",
                    st->rank, c->peer);
        MPIDI_VERBS_drop_in(c);
        return 0;
    }
    /* Proven: it becomes the connection to the peer.  Our own attempt, if
     * any, gives way (the peer is the lower rank, or it had none). */
    if (c->out) {
        drop_id(c->out);
        c->out = NULL;
        st->stats.conn_lost_race++;
    }
    if (c->reserved)
        ungrant(c);
    c->id = c->in_id;
    c->qp = c->in_id->qp;
    c->in_id = NULL;
    c->reserved = c->in_reserved;
    c->in_reserved = 0;
    c->max_inline = c->in_max_inline;
    c->rd_depth = c->in_rd_depth;
    MPIDI_VERBS_credit_init(&c->cr, c->in_credits, c->in_granted);
    c->state = MPIDI_VERBS_CONN_UP;
    st->stats.conn_in++;
    int err = MPIDI_VERBS_ring_open(c);
    if (err) {
        MPIDI_VERBS_conn_fail(c, "%s", MPIDU_err_string(err));
        return 1; /* (attached, and failed: its credit is counted all the same) */
    }
    if (st->verbose >= 2)
        fprintf(stderr,
                "ferry: rank %d: verbs connection from rank %d up (credits %d each way: we "
                "grant %d, inline %d, reads in flight %d)\n",
                st->rank, c->peer, c->cr.credits, c->cr.granted, c->max_inline, c->rd_depth);
    return 1;
}

static void on_route(MPIDI_VERBS_conn_t *c, struct rdma_cm_id *id)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    int reserved = 0;
    int g = grant_credits(&reserved);
    if (g < 0) {
        MPIDI_VERBS_conn_fail(c,
                              "no receive buffers left to grant it credits "
                              "(FERRY_VERBS_SRQ_MAX %d, FERRY_VERBS_CREDITS %d)",
                              st->srq_max, st->credits_max);
        return;
    }
    /* Our credits come with the peer's answer; what it sends before we see
     * that answer is counted already. */
    c->reserved = reserved;
    MPIDI_VERBS_credit_init(&c->cr, 0, g);
    int inl = 0;
    int err = create_qp(c, id, &inl);
    MPIDI_VERBS_req_t req = {.magic = MPIDI_VERBS_MAGIC,
                             .rank = (uint32_t)st->rank,
                             .to = (uint32_t)c->peer,
                             .credits = (uint16_t)g,
                             .proto = proto_ours()};
    if (!err)
        err = MPIDI_VERBS_nonce(req.nonce);
    if (!err)
        err = MPIDI_VERBS_req_seal(&req);
    memcpy(c->out_nonce, req.nonce, sizeof(c->out_nonce));
    c->max_inline = inl;
    c->qp = err ? NULL : id->qp;
    struct rdma_conn_param p;
    conn_param(&p, &req, sizeof(req));
    if (err || rdma_connect(id, &p) != 0) {
        MPIDI_VERBS_conn_fail(c, "rdma_connect: %s", err ? MPIDU_err_string(err) : strerror(errno));
        return;
    }
    c->state = MPIDI_VERBS_CONN_CONNECTING;
}

/* Our attempt is answered.  The REP must prove the peer holds the job's
 * secret (a MAC over our nonce); then our AUTH goes first on the queue
 * pair, and only then the connection is up for anything else. */
static void on_established(MPIDI_VERBS_conn_t *c, struct rdma_cm_event *ev)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct rdma_cm_id *id = ev->id;
    MPIDI_VERBS_rep_t rep;
    unsigned char auth[MPIDU_SHA256_LEN];
    if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(rep)) {
        out_failed(c, id, "the answer carries no proof of the job", 0);
        return;
    }
    memcpy(&rep, ev->param.conn.private_data, sizeof(rep));
    if (rep.magic != MPIDI_VERBS_MAGIC || (int)rep.rank != c->peer || rep.reason ||
        !MPIDI_VERBS_rep_check(&rep, c->out_nonce) ||
        MPIDI_VERBS_auth_mac(st->rank, c->peer, c->out_nonce, rep.nonce, auth)) {
        st->stats.strangers++;
        c->attempts = MPIDI_VERBS_ATTEMPTS; /* someone else answers at the peer's address */
        out_failed(c, id, "the answer does not prove it comes from the job", 0);
        return;
    }
    if (proto_refused(c, &rep.proto)) {
        out_failed(c, id, "refused", 0); /* (failed already, with the reason) */
        return;
    }
    c->cr.credits += rep.credits; /* (it may have sent already) */
    c->id = id;
    c->out = NULL;
    c->state = MPIDI_VERBS_CONN_UP;
    int err = MPIDI_VERBS_send_ctrl(c, MPIDI_VERBS_AUTH, auth, sizeof(auth));
    if (err) {
        MPIDI_VERBS_conn_fail(c, "cannot send its proof of the job: %s",
                              err == MPIDI_AGAIN ? "no send slot" : MPIDU_err_string(err));
        return;
    }
    st->stats.conn_out++;
    if ((err = MPIDI_VERBS_ring_open(c))) {
        MPIDI_VERBS_conn_fail(c, "%s", MPIDU_err_string(err));
        return;
    }
    if (st->verbose >= 2)
        fprintf(stderr,
                "ferry: rank %d: verbs connection to rank %d up (credits %d each way: we "
                "grant %d, inline %d, reads in flight %d)\n",
                st->rank, c->peer, c->cr.credits, c->cr.granted, c->max_inline, c->rd_depth);
}

/* An attempt of ours failed: try again later, or give up after the last. */
static void retry_or_fail(MPIDI_VERBS_conn_t *c, const char *what, int status)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (c->id || c->state == MPIDI_VERBS_CONN_FAILED)
        return; /* the peer's attempt carries the connection */
    if (c->attempts >= MPIDI_VERBS_ATTEMPTS) {
        MPIDI_VERBS_conn_fail(c, "%s (status %d) after %d attempts", what, status, c->attempts);
        return;
    }
    c->state = MPIDI_VERBS_CONN_NONE;
    c->retry_at = MPIDI_VERBS_now() + 0.1 * (1 << c->attempts);
    if (st->verbose >= 2)
        fprintf(stderr, "ferry: rank %d: verbs connection to rank %d: %s (status %d); retrying\n",
                st->rank, c->peer, what, status);
}

/* Our attempt ended without a connection: its id goes, then retry_or_fail. */
static void out_failed(MPIDI_VERBS_conn_t *c, struct rdma_cm_id *id, const char *what, int status)
{
    if (c->out == id) {
        c->out = NULL;
        if (c->qp == id->qp)
            c->qp = NULL;
        ungrant(c);
    }
    drop_id(id);
    retry_or_fail(c, what, status);
}

static void on_event(struct rdma_cm_event *ev)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct rdma_cm_id *id = ev->id;
    MPIDI_VERBS_conn_t *c = id->context;
    switch (ev->event) {
    case RDMA_CM_EVENT_CONNECT_REQUEST:
        on_request(ev);
        return;
    case RDMA_CM_EVENT_ADDR_RESOLVED:
        if (rdma_resolve_route(id, MPIDI_VERBS_RESOLVE_MS) != 0)
            out_failed(c, id, "rdma_resolve_route", errno);
        return;
    case RDMA_CM_EVENT_ROUTE_RESOLVED:
        on_route(c, id);
        return;
    case RDMA_CM_EVENT_ADDR_ERROR:
    case RDMA_CM_EVENT_ROUTE_ERROR:
    case RDMA_CM_EVENT_UNREACHABLE:
    case RDMA_CM_EVENT_CONNECT_ERROR:
        if (c && c->out == id)
            out_failed(c, id, rdma_event_str(ev->event), ev->status);
        else if (c && c->in_id == id)
            MPIDI_VERBS_drop_in(c);
        else if (c && c->id == id)
            MPIDI_VERBS_conn_fail(c, "%s (status %d)", rdma_event_str(ev->event), ev->status);
        return;
    case RDMA_CM_EVENT_REJECTED: {
        if (!c || c->out != id)
            return; /* an attempt we dropped already */
        MPIDI_VERBS_rep_t rej;
        int proven = ev->param.conn.private_data &&
                     ev->param.conn.private_data_len >= sizeof(rej) &&
                     (memcpy(&rej, ev->param.conn.private_data, sizeof(rej)), 1) &&
                     rej.magic == MPIDI_VERBS_MAGIC && (int)rej.rank == c->peer &&
                     MPIDI_VERBS_rep_check(&rej, c->out_nonce);
        if (proven && rej.reason == MPIDI_VERBS_REJ_LOSE) {
            /* The peer's own attempt wins; it comes (or came) to our listener. */
            c->out = NULL;
            c->qp = NULL;
            ungrant(c);
            drop_id(id);
            if (!c->id && c->state != MPIDI_VERBS_CONN_FAILED) {
                /* Its attempt should come; if it does not (it failed), ours
                 * starts again after a while. */
                c->state = MPIDI_VERBS_CONN_NONE;
                c->retry_at = MPIDI_VERBS_now() + 2.0;
            }
            st->stats.conn_lost_race++;
        } else if (proven && rej.reason == MPIDI_VERBS_REJ_FULL) {
            c->attempts = MPIDI_VERBS_ATTEMPTS; /* a refusal, not a glitch */
            out_failed(c, id, "refused: the peer has no receive buffers left", ev->status);
        } else if (proven && rej.reason == MPIDI_VERBS_REJ_EAGER && proto_refused(c, &rej.proto)) {
            out_failed(c, id, "refused", ev->status); /* (failed already, with the reason) */
        } else {
            out_failed(c, id, "rejected", ev->status);
        }
        return;
    }
    case RDMA_CM_EVENT_ESTABLISHED:
        if (c && c->out == id)
            on_established(c, ev);
        return; /* (an accepted connection counts from its AUTH) */
    case RDMA_CM_EVENT_DISCONNECTED:
        if (c && c->in_id == id) {
            MPIDI_VERBS_drop_in(c);
        } else if (c && c->id == id) {
            if (c->peer_closed || st->finalizing) {
                c->state = c->state == MPIDI_VERBS_CONN_UP ? MPIDI_VERBS_CONN_FAILED : c->state;
                return;
            }
            /* Messages the peer sent before going are in our CQ already:
             * deliver them before the loss is declared. */
            int made = 0;
            MPIDI_VERBS_cq_poll_all(&made);
            MPIDI_VERBS_conn_fail(c, "the peer disconnected without saying goodbye (its process "
                                     "ended, or it saw an error on this connection)");
        }
        return;
    case RDMA_CM_EVENT_DEVICE_REMOVAL:
        for (int p = 0; p < st->size; p++)
            if (st->conns[p] && st->conns[p]->state != MPIDI_VERBS_CONN_FAILED)
                MPIDI_VERBS_conn_fail(st->conns[p], "device %s removed", st->devname);
        return;
    default:
        return; /* TIMEWAIT_EXIT, ADDR_CHANGE, ...: nothing to do */
    }
}

int MPIDI_VERBS_cm_progress(int *made)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct rdma_cm_event *ev, copy;
    while (rdma_get_cm_event(st->ch, &ev) == 0) {
        /* Acknowledged first (a copy is worked on, with the private data
         * saved): destroying an id waits for its events' acknowledgements. */
        char data[200]; /* (REP and REJ carry up to 196 bytes) */
        copy = *ev;
        if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
            size_t n = ev->param.conn.private_data_len < sizeof(data)
                           ? ev->param.conn.private_data_len
                           : sizeof(data);
            memcpy(data, ev->param.conn.private_data, n);
            copy.param.conn.private_data = data;
            copy.param.conn.private_data_len = (uint8_t)n;
        }
        rdma_ack_cm_event(ev);
        on_event(&copy);
        *made = 1;
    }
    /* Attempts waiting for their retry time; and whether any connection is
     * still on its way (then rdma_cm is polled at every progress call). */
    int busy = 0;
    for (int i = 0; i < st->nlist; i++) {
        MPIDI_VERBS_conn_t *c = st->list[i];
        if (c->in_id && c->in_deadline <= MPIDI_VERBS_now())
            MPIDI_VERBS_drop_in(c); /* no proof came */
        if (c->out && c->out_deadline > 0 && c->state != MPIDI_VERBS_CONN_UP &&
            c->state != MPIDI_VERBS_CONN_FAILED && c->out_deadline <= MPIDI_VERBS_now())
            out_failed(c, c->out, "no answer within FERRY_VERBS_CONNECT_TIMEOUT", ETIMEDOUT);
        if (c->state == MPIDI_VERBS_CONN_NONE && c->card[0] && !c->out && !c->id && !c->in_id &&
            c->attempts > 0 && c->retry_at <= MPIDI_VERBS_now())
            start_out(c);
        busy |=
            c->in_id || (c->state != MPIDI_VERBS_CONN_UP && c->state != MPIDI_VERBS_CONN_FAILED &&
                         (c->out || c->id || c->attempts > 0));
    }
    st->cm_busy = busy;
    return MPI_SUCCESS;
}

/* Finalize: BYE to every connected peer, wait until everything posted has
 * completed (bounded: a peer that is gone does not hold us), disconnect. */
void MPIDI_VERBS_conn_close_all(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    double deadline = MPIDI_VERBS_now() + 10.0;
    int *bye = calloc((size_t)st->size, sizeof(int));
    for (int done = 0; !done && MPIDI_VERBS_now() < deadline;) {
        done = 1;
        for (int p = 0; p < st->size; p++) {
            MPIDI_VERBS_conn_t *c = st->conns[p];
            if (!c || c->state != MPIDI_VERBS_CONN_UP)
                continue;
            /* Over the ring the peer pulls what we sent: BYE waits until
             * it has freed all of it, and we read its ring until its BYE
             * (which it sends after our BYE too, for the same reason). */
            if (bye && !bye[p] && (!c->peer_closed || c->rc)) {
                if (!MPIDI_VERBS_ring_drained(c))
                    done = 0;
                else if (MPIDI_VERBS_send_ctrl(c, MPIDI_VERBS_BYE, NULL, 0) == MPI_SUCCESS)
                    bye[p] = 1;
                else
                    done = 0;
            }
            if (c->rc && !c->peer_closed)
                done = 0;
            if (c->sq_used > 0) {
                if (c->unsignalled && !c->signal_pending)
                    MPIDI_VERBS_post_flush(c);
                done = 0;
            }
        }
        int made = 0;
        MPIDI_VERBS_progress(&made);
        MPIDI_VERBS_progress_done();
    }
    free(bye);
    for (int p = 0; p < st->size; p++) {
        MPIDI_VERBS_conn_t *c = st->conns[p];
        if (!c)
            continue;
        if (c->id) {
            rdma_disconnect(c->id);
            drop_id(c->id);
        }
        drop_id(c->out);
        MPIDI_VERBS_drop_in(c);
        c->id = c->out = NULL;
        c->qp = NULL;
    }
}
