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

/* The ring channel's sizes (FERRY_RING_*): what the ranges in adi/config.c
 * cannot say is checked here. */
static int read_ring_sizes(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    long page = sysconf(_SC_PAGESIZE);
    st->ring_size = (uint64_t)MPIDU_config_int("FERRY_RING_SIZE");
    st->ring_max_read = (uint64_t)MPIDU_config_int("FERRY_RING_MAX_READ");
    st->ring_head_interval = (uint64_t)MPIDU_config_int("FERRY_RING_HEAD_INTERVAL");
    st->ring_backoff_us = (double)MPIDU_config_int("FERRY_RING_POLL_BACKOFF");
    st->ring_prefetch = (int)MPIDU_config_int("FERRY_RING_PREFETCH");
    st->ring_max_msg = (size_t)st->ring_size / 2;
    if (page > 0 && st->ring_size % (uint64_t)page)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: FERRY_RING_SIZE=%llu is not a multiple of the page size "
                                "(%ld bytes): the ring is mapped twice back to back",
                                (unsigned long long)st->ring_size, page);
    if (st->ring_head_interval > st->ring_size)
        return MPIDU_err_create(
            MPI_ERR_OTHER, "verbs: FERRY_RING_HEAD_INTERVAL=%llu exceeds FERRY_RING_SIZE=%llu",
            (unsigned long long)st->ring_head_interval, (unsigned long long)st->ring_size);
    if (st->ring_head_interval == 0)
        st->ring_head_interval = st->ring_size / 4;
    if (st->ring_max_read > st->ring_size)
        st->ring_max_read = st->ring_size;
    if (st->ring_max_read > st->max_rdma)
        st->ring_max_read = st->max_rdma;
    return MPI_SUCCESS;
}

/* Every size is a variable (adi/config.c, doc/tuning.md), bounded by what
 * the device can do. */
static int read_sizes(void)
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
    st->connect_timeout = (double)MPIDU_config_int("FERRY_VERBS_CONNECT_TIMEOUT") / 1000.0;
    st->eager = (int)MPIDU_config_int("FERRY_VERBS_EAGER");
    st->fault = (int)MPIDU_config_int("FERRY_VERBS_FAULT");
    st->max_rdma = st->port_attr.max_msg_sz;
    size_t chunk = (size_t)MPIDU_config_int("FERRY_VERBS_RDMA_CHUNK");
    if (chunk && chunk < st->max_rdma)
        st->max_rdma = chunk;
    return st->eager == MPIDI_VERBS_EAGER_RING ? read_ring_sizes() : MPI_SUCCESS;
}

static void fill_caps(MPIDI_method_caps_t *caps)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    size_t payload = st->buf_size - sizeof(MPIDI_VERBS_hdr_t) - MPIDI_VERBS_MAX_HDR;
    /* Over the ring, a message takes at most half of it (two always fit). */
    size_t ring_payload = st->ring_max_msg - sizeof(MPIDI_VERBS_rmsg_t) - MPIDI_VERBS_MAX_HDR;
    if (st->eager == MPIDI_VERBS_EAGER_RING && ring_payload < payload)
        payload = ring_payload;
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

/* The counters tests and FERRY_VERBOSE=1 see, registered whether or not a
 * device is found (zeros then), so a condition on them is never "missing"
 * because the run had no device, only because of a misspelt name. */
static int register_stats(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    MPIDI_VERBS_stats_t *s = &st->stats;
    const MPIDU_stat_t table[] = {
        {"verbs_sends", &s->sends},
        {"verbs_inline_sends", &s->inline_sends},
        {"verbs_signalled", &s->signalled},
        {"verbs_doorbells", &s->doorbells},
        {"verbs_posted_wrs", &s->posted_wrs},
        {"verbs_batch_max", &s->batch_max},
        {"verbs_credit_waits", &s->no_credit},
        {"verbs_sq_waits", &s->sq_full},
        {"verbs_sbuf_waits", &s->no_sbuf},
        {"verbs_credit_msgs", &s->credit_msgs},
        {"verbs_credits_piggybacked", &s->credits_piggy},
        {"verbs_recvs", &s->recvs},
        {"verbs_reposts", &s->reposts},
        {"verbs_srq_limit_events", &s->srq_limit_events},
        {"verbs_srq_grows", &s->srq_grows},
        {"verbs_bonus_credits", &s->bonus_credits},
        {"verbs_srq_buffers_max", &s->srq_buffers_max},
        {"verbs_reads", &s->reads},
        {"verbs_read_pieces", &s->read_pieces},
        {"verbs_reads_inflight_max", &s->reads_inflight_max},
        {"verbs_rdma_waits", &s->rdma_waits},
        {"verbs_writes", &s->writes},
        {"verbs_write_pieces", &s->write_pieces},
        {"verbs_flushes", &s->flushes},
        {"verbs_conn_out", &s->conn_out},
        {"verbs_conn_in", &s->conn_in},
        {"verbs_conn_races", &s->conn_lost_race},
        {"verbs_cq_resizes", &s->cq_resizes},
        {"verbs_strangers", &s->strangers},
        {"verbs_ring_sends", &s->ring_sends},
        {"verbs_ring_full", &s->ring_full},
        {"verbs_ring_tail_reads", &s->ring_tail_reads},
        {"verbs_ring_tail_empty", &s->ring_tail_empty},
        {"verbs_ring_prefetches", &s->ring_prefetches},
        {"verbs_ring_backoffs", &s->ring_backoffs},
        {"verbs_ring_data_reads", &s->ring_data_reads},
        {"verbs_ring_data_bytes", &s->ring_data_bytes},
        {"verbs_ring_read_bytes_max", &s->ring_read_bytes_max},
        {"verbs_ring_bounded_reads", &s->ring_bounded_reads},
        {"verbs_ring_msgs", &s->ring_msgs},
        {"verbs_ring_straddles", &s->ring_straddles},
        {"verbs_ring_head_writes", &s->ring_head_writes},
        {"verbs_ring_stale_tails", &s->ring_stale_tails},
        {"verbs_ring_rereads", &s->ring_rereads},
        {"verbs_ring_torn_tails", &s->ring_torn_tails},
        {"verbs_ring_torn_heads", &s->ring_torn_heads},
    };
    int mpi_errno = MPIDU_stat_register_all(table, sizeof(table) / sizeof(table[0]));
    return mpi_errno ? mpi_errno : MPIDU_rcache_stat_register(st->rcache, "verbs");
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

    const char *why = NULL;
    int mpi_errno = MPIDI_VERBS_open_device(&why);
    if (!mpi_errno && !st->available && (st->verbose || st->forced))
        fprintf(stderr, "ferry: rank %d: verbs unavailable: %s\n", st->rank, why);
    if (!mpi_errno && !st->available)
        mpi_errno = register_stats(); /* unavailable: init succeeds, nobody is reachable */
    if (mpi_errno || !st->available)
        return mpi_errno;
    if ((mpi_errno = read_sizes()))
        goto fn_fail;
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
        (mpi_errno = MPIDI_VERBS_listen()) || (mpi_errno = register_stats()))
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
    if (st->verbose && st->eager == MPIDI_VERBS_EAGER_RING)
        fprintf(stderr,
                "ferry: rank %d: verbs eager by the ring channel: %llu B per peer, reads of at "
                "most %llu B, head back every %llu B, tail-poll back-off %.0f us per sender, "
                "prefetch %s\n",
                st->rank, (unsigned long long)st->ring_size, (unsigned long long)st->ring_max_read,
                (unsigned long long)st->ring_head_interval, st->ring_backoff_us,
                st->ring_prefetch ? "on" : "off");
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
    }
    if (st->conns) {
        for (int p = 0; p < st->size; p++) {
            MPIDI_VERBS_conn_t *c = st->conns[p];
            if (!c)
                continue;
            MPIDI_VERBS_ring_close(c);
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
