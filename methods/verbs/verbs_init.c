/* verbs_init.c: start-up (sizes, device, PD, CQ, SRQ, buffers, listener), business card, finalize.
 */
#include <fcntl.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi.h"
#include "verbs_impl.h"

MPIDI_VERBS_state_t MPIDI_VERBS_state;

double MPIDI_VERBS_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int imin(long a, long b)
{
    return (int)(a < b ? a : b);
}

/* Every size is a variable (adi/config.c, doc/tuning.md), bounded by what
 * the device can do. */
static void read_sizes(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    const struct ibv_device_attr *da = &st->dev_attr;
    st->buf_size = (size_t)MPIDU_config_int("FERRY_VERBS_BUF_SIZE");
    st->srq_size = (int)MPIDU_config_int("FERRY_VERBS_SRQ_SIZE");
    st->srq_max = imin(MPIDU_config_int("FERRY_VERBS_SRQ_MAX"), da->max_srq_wr);
    if (st->srq_max < st->srq_size)
        st->srq_max = st->srq_size;
    st->srq_low = (int)MPIDU_config_int("FERRY_VERBS_SRQ_LOW");
    st->credits_max = (int)MPIDU_config_int("FERRY_VERBS_CREDITS");
    st->credit_return = (int)MPIDU_config_int("FERRY_VERBS_CREDIT_RETURN");
    if (st->credit_return == 0 || st->credit_return > st->credits_max)
        st->credit_return = (st->credits_max + 1) / 2;
    st->cq_batch = (int)MPIDU_config_int("FERRY_VERBS_CQ_BATCH");
    st->cq_size = imin(MPIDU_config_int("FERRY_VERBS_CQ_SIZE"), da->max_cqe);
    st->signal_interval = (int)MPIDU_config_int("FERRY_VERBS_SIGNAL_INTERVAL");
    st->sq_depth = imin(MPIDU_config_int("FERRY_VERBS_SQ_DEPTH"), da->max_qp_wr);
    st->inline_max = (int)MPIDU_config_int("FERRY_VERBS_INLINE");
    st->nsbufs = (int)MPIDU_config_int("FERRY_VERBS_SEND_BUFS");
    st->rd_atomic = imin(MPIDU_config_int("FERRY_VERBS_RD_ATOMIC"),
                         da->max_qp_init_rd_atom < da->max_qp_rd_atom ? da->max_qp_init_rd_atom
                                                                      : da->max_qp_rd_atom);
    if (st->rd_atomic < 1)
        st->rd_atomic = 1;
    st->rnr_retry = (int)MPIDU_config_int("FERRY_VERBS_RNR_RETRY");
    st->retry_count = (int)MPIDU_config_int("FERRY_VERBS_RETRY_COUNT");
    st->timeout = (int)MPIDU_config_int("FERRY_VERBS_TIMEOUT");
    st->max_rdma = st->port_attr.max_msg_sz;
    size_t chunk = (size_t)MPIDU_config_int("FERRY_VERBS_RDMA_CHUNK");
    if (chunk && chunk < st->max_rdma)
        st->max_rdma = chunk;
}

static void fill_caps(MPIDI_method_caps_t *caps)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    size_t payload = st->buf_size - sizeof(MPIDI_VERBS_hdr_t) - MPIDI_VERBS_MAX_HDR;
    caps->max_hdr = MPIDI_VERBS_MAX_HDR;
    caps->eager_limit = payload;
    caps->max_send = payload;
    caps->rndv_modes = MPIDI_RNDV_READ | MPIDI_RNDV_WRITE | MPIDI_RNDV_PIPELINE;
    caps->needs_reg = 1;
    caps->needs_local_reg = 1; /* every sge names an lkey */
    caps->key_size = 4;        /* rkey */
    caps->addr_mode = MPIDI_ADDR_VIRTUAL;
    /* Registering each piece of a noncontiguous buffer costs more than
     * copying it through the bounce slots (doc/methods/verbs.md). */
    caps->rndv_iov_min_piece = 0;
    /* Below shm (100), above tcp (10): between nodes verbs wins where a
     * device is up. */
    caps->exclusivity = 50;
    caps->scope = MPIDI_SCOPE_ANY;
}

int MPIDI_VERBS_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    memset(st, 0, sizeof(*st));
    st->epfd = -1;
    st->rank = job->rank;
    st->size = job->size;
    st->node_of = job->node_of;
    st->node_id = job->node_id;
    st->forced = job->forced;
    st->job_id = hash_name(job->kvsname);
    st->verbose = (int)MPIDU_config_int("FERRY_VERBOSE");
    st->buf_size = (size_t)MPIDU_config_int("FERRY_VERBS_BUF_SIZE");
    fill_caps(caps_p);
    snprintf(st->card, sizeof(st->card), "none");

    int mpi_errno = MPIDI_VERBS_open_device();
    if (mpi_errno || !st->available)
        return mpi_errno; /* unavailable: init succeeds, nobody is reachable */
    read_sizes();
    fill_caps(caps_p);

    st->conns = calloc((size_t)st->size, sizeof(*st->conns));
    st->list = calloc((size_t)st->size, sizeof(*st->list));
    if (!st->conns || !st->list) {
        mpi_errno = MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for %d peers", st->size);
        goto fn_fail;
    }
    st->pd = ibv_alloc_pd(st->ctx);
    if (!st->pd) {
        mpi_errno =
            MPIDU_err_create(MPI_ERR_OTHER, "verbs: ibv_alloc_pd on %s failed", st->devname);
        goto fn_fail;
    }
    st->comp = ibv_create_comp_channel(st->ctx);
    if (!st->comp) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER,
                                     "verbs: ibv_create_comp_channel on %s "
                                     "failed",
                                     st->devname);
        goto fn_fail;
    }
    st->cq = ibv_create_cq(st->ctx, st->cq_size, NULL, st->comp, 0);
    if (!st->cq) {
        mpi_errno = MPIDU_err_create(MPI_ERR_OTHER,
                                     "verbs: ibv_create_cq of %d entries on %s "
                                     "failed",
                                     st->cq_size, st->devname);
        goto fn_fail;
    }
    st->cq_size = st->cq->cqe;
    /* The async event file is read from progress without blocking. */
    int fl = fcntl(st->ctx->async_fd, F_GETFL);
    fcntl(st->ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
    fl = fcntl(st->comp->fd, F_GETFL);
    fcntl(st->comp->fd, F_SETFL, fl | O_NONBLOCK);
    if ((mpi_errno = MPIDI_VERBS_srq_create()) || (mpi_errno = MPIDI_VERBS_sbufs_create()) ||
        (mpi_errno = MPIDI_VERBS_cq_fit()) || (mpi_errno = MPIDI_VERBS_rcache_create()) ||
        (mpi_errno = MPIDI_VERBS_listen()))
        goto fn_fail;
    snprintf(st->card, sizeof(st->card), "%.63s;%d;%.31s;%d", st->ip, st->listen_port, st->devname,
             st->node_id);
    /* One descriptor to sleep on: completions, connection events, async
     * events (MPIDI_VERBS_wait_fd). */
    st->epfd = epoll_create1(EPOLL_CLOEXEC);
    int fds[3] = {st->comp->fd, st->ch->fd, st->ctx->async_fd};
    for (int i = 0; st->epfd >= 0 && i < 3; i++) {
        struct epoll_event e = {.events = EPOLLIN, .data.fd = fds[i]};
        epoll_ctl(st->epfd, EPOLL_CTL_ADD, fds[i], &e);
    }
    /* Fork: a kernel from 5.13 on gives a child copies of pinned pages, and
     * rdma-core knows it (UNNEEDED); before that, only RDMAV_FORK_SAFE=1
     * (ibv_fork_init) keeps a child from breaking the parent's
     * registrations, and it must be set before the first verbs call, by the
     * user: Ferry does not turn it on behind a program's back, since it
     * makes registered pages vanish from children (doc/methods/verbs.md). */
    enum ibv_fork_status fork_status = ibv_is_fork_initialized();
    if (st->verbose)
        fprintf(stderr,
                "ferry: rank %d: verbs on %s port %d GID %d (%s), listening on %s port %d; "
                "buffers %zu B, srq %d..%d, credits %d, inline %d, rd_atomic %d, max_msg %zu; "
                "fork %s\n",
                st->rank, st->devname, st->port, st->gid_index,
                st->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "IB", st->ip,
                st->listen_port, st->buf_size, st->srq_size, st->srq_max, st->credits_max,
                st->inline_max, st->rd_atomic, st->max_rdma,
                fork_status == IBV_FORK_UNNEEDED  ? "safe (the kernel copies pinned pages)"
                : fork_status == IBV_FORK_ENABLED ? "safe (RDMAV_FORK_SAFE)"
                                                  : "unsafe: a child must not touch buffers used "
                                                    "for communication (set RDMAV_FORK_SAFE=1)");
    return MPI_SUCCESS;

fn_fail:
    MPIDI_VERBS_finalize();
    return mpi_errno;
}

int MPIDI_VERBS_get_business_card(char *buf, size_t len)
{
    snprintf(buf, len, "%s", MPIDI_VERBS_state.card);
    return MPI_SUCCESS;
}

static void report_stats(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    const MPIDI_VERBS_stats_t *s = &st->stats;
    MPIDU_rcache_stats_t rs = {0};
    if (st->rcache)
        MPIDU_rcache_get_stats(st->rcache, &rs);
    fprintf(stderr,
            "ferry: rank %d: verbs: sends %lu (inline %lu, signalled %lu, %lu doorbells for %lu "
            "batched), waits: credits %lu sq %lu buffers %lu; credit messages %lu, piggybacked "
            "%lu; receives %lu, reposts %lu, srq limit events %lu, grown %lu, bonus credits %lu; "
            "reads %lu (%lu pieces, %lu waited for a slot), writes %lu, flushes %lu; "
            "connections out %lu in %lu lost races %lu, cq resizes %lu; rcache hits %lu misses "
            "%lu evictions %lu invalidations %lu\n",
            st->rank, s->sends, s->inline_sends, s->signalled, s->doorbells, s->batched_wrs,
            s->no_credit, s->sq_full, s->no_sbuf, s->credit_msgs, s->credits_piggy, s->recvs,
            s->reposts, s->srq_limit_events, s->srq_grows, s->bonus_credits, s->reads,
            s->read_pieces, s->read_slot_waits, s->writes, s->flushes, s->conn_out, s->conn_in,
            s->conn_lost_race, s->cq_resizes, rs.hits, rs.misses, rs.evictions, rs.invalidations);
}

/* The finalize barrier is over, so nobody needs data from us any more, but
 * what we posted must reach the peers (the last barrier message among
 * them): each connection says BYE, everything posted is waited for, then
 * the connections close.  A peer that is gone already is not waited for
 * beyond a bound. */
int MPIDI_VERBS_finalize(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (st->available && st->conns) {
        st->finalizing = 1;
        MPIDI_VERBS_conn_close_all();
        if (st->verbose)
            report_stats();
    }
    if (st->conns) {
        for (int p = 0; p < st->size; p++) {
            MPIDI_VERBS_conn_t *c = st->conns[p];
            if (!c)
                continue;
            free(c->ring);
            free(c);
        }
        free(st->conns);
        st->conns = NULL;
    }
    free(st->list);
    st->list = NULL;
    st->nlist = 0;
    if (st->listen_id)
        rdma_destroy_id(st->listen_id);
    st->listen_id = NULL;
    if (st->ch)
        rdma_destroy_event_channel(st->ch);
    st->ch = NULL;
    if (st->rcache)
        MPIDU_rcache_destroy(st->rcache);
    st->rcache = NULL;
    MPIDI_VERBS_srq_destroy();
    if (st->cq)
        ibv_destroy_cq(st->cq); /* (every event taken was acknowledged at once) */
    st->cq = NULL;
    if (st->comp)
        ibv_destroy_comp_channel(st->comp);
    st->comp = NULL;
    if (st->epfd >= 0)
        close(st->epfd);
    st->epfd = -1;
    if (st->pd)
        ibv_dealloc_pd(st->pd);
    st->pd = NULL;
    if (st->devlist)
        rdma_free_devices(st->devlist);
    st->devlist = NULL;
    st->available = 0;
    return MPI_SUCCESS;
}
