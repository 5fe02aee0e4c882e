/* ofi_init.c: start-up (provider, fabric, domain, address vector, CQ, endpoint, buffers), the
 * business card, finalize. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mpi.h"
#include "ofi_impl.h"

MPIDI_OFI_state_t MPIDI_OFI_state;

/* Providers that do what Ferry's own methods do (sockets, shared memory):
 * by default ofi ranks below Ferry's tcp over them, so naming ofi (or
 * FI_PROVIDER) is how a job uses them; any other provider is a fabric
 * Ferry has no native method for (or verbs, which Ferry's own verbs beats
 * where it runs). */
static int native_covers(const char *prov)
{
    static const char *const covered[] = {"tcp", "udp", "sockets", "shm", NULL};
    for (int i = 0; covered[i]; i++) {
        size_t n = strlen(covered[i]);
        if (strncmp(prov, covered[i], n) == 0 && (prov[n] == '\0' || prov[n] == ';'))
            return 1;
    }
    return 0;
}

static void fill_caps(MPIDI_method_caps_t *caps)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    size_t payload = st->buf_size - sizeof(MPIDI_OFI_hdr_t) - MPIDI_OFI_MAX_HDR;
    caps->max_hdr = MPIDI_OFI_MAX_HDR;
    caps->eager_limit = payload;
    caps->max_send = payload;
    caps->rndv_modes = MPIDI_RNDV_READ | MPIDI_RNDV_PIPELINE;
    if (st->can_write)
        caps->rndv_modes |= MPIDI_RNDV_WRITE;
    caps->needs_reg = 1; /* a peer reaches only registered memory */
    caps->needs_local_reg = st->mr_local;
    caps->key_size = st->info ? (unsigned)st->info->domain_attr->mr_key_size : 8;
    caps->addr_mode = st->mr_virt ? MPIDI_ADDR_VIRTUAL : MPIDI_ADDR_OFFSET;
    /* Without FI_MR_LOCAL a noncontiguous receive buffer is read piece by
     * piece when pieces are large (one fi_read each, as shm's CMA); with it
     * each piece would need its own registration: the bounce slots. */
    caps->rndv_iov_min_piece = st->mr_local ? 0 : 16384;
    /* Below Ferry's shm (100) and verbs (50); above Ferry's tcp (10) for a
     * fabric Ferry has no method of its own for, below it for sockets and
     * shared memory (doc/methods/ofi.md "Where ofi sits"). */
    caps->exclusivity = st->info && native_covers(st->prov) ? 5 : 30;
    caps->scope = MPIDI_SCOPE_ANY;
}

static int register_stats(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    MPIDI_OFI_stats_t *s = &st->stats;
    const MPIDU_stat_t table[] = {
        {"ofi_sends", &s->sends},
        {"ofi_injects", &s->injects},
        {"ofi_recvs", &s->recvs},
        {"ofi_multi_recv_reposts", &s->multi_recv_reposts},
        {"ofi_single_reposts", &s->single_reposts},
        {"ofi_reads", &s->reads},
        {"ofi_read_pieces", &s->read_pieces},
        {"ofi_writes", &s->writes},
        {"ofi_write_pieces", &s->write_pieces},
        {"ofi_rdma_waits", &s->rdma_waits},
        {"ofi_eagain", &s->eagain},
        {"ofi_sbuf_waits", &s->no_sbuf},
        {"ofi_cq_reads", &s->cq_reads},
        {"ofi_cq_batch_max", &s->cq_batch_max},
        {"ofi_cq_errors", &s->cq_errors},
        {"ofi_strangers", &s->strangers},
        {"ofi_peers_lost", &s->peers_lost},
        {"ofi_held", &s->held},
        {"ofi_held_max", &s->held_max},
        {"ofi_window_waits", &s->window_waits},
        {"ofi_shm_stale_removed", &s->shm_stale},
        {"ofi_wait_sleeps", &s->wait_sleeps},
        {"ofi_keepalives", &s->keepalives},
        {"ofi_keepalives_in", &s->keepalives_in},
    };
    int mpi_errno = MPIDU_stat_register_all(table, sizeof(table) / sizeof(table[0]));
    return mpi_errno ? mpi_errno : MPIDU_rcache_stat_register(st->rcache, "ofi");
}

static void read_sizes(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    st->buf_size = (size_t)MPIDU_config_int("FERRY_OFI_BUF_SIZE");
    st->mrecv_size = (size_t)MPIDU_config_int("FERRY_OFI_MULTI_RECV_SIZE");
    if (st->mrecv_size < 4 * st->buf_size)
        st->mrecv_size = 4 * st->buf_size; /* room for several messages before a repost */
    st->nrbufs = (int)MPIDU_config_int("FERRY_OFI_RECV_BUFS");
    st->nsbufs = (int)MPIDU_config_int("FERRY_OFI_SEND_BUFS");
    st->cq_batch = (int)MPIDU_config_int("FERRY_OFI_CQ_BATCH");
    st->window = (int)MPIDU_config_int("FERRY_OFI_WINDOW");
    st->fault = (int)MPIDU_config_int("FERRY_OFI_FAULT");
}

/* libfabric's shm provider names its region /dev/shm/<pid>:<uid>:<n>
 * and leaves it behind when the process is killed; fi_enable of a later
 * process given the same pid then fails with EBUSY on the old name.  A
 * region under our own pid, owned by us, made before our fi_enable, is
 * such a leftover (its maker had our pid and is gone): removed.  Regions
 * of other dead processes are left alone (doc/methods/ofi.md "Shared
 * memory regions left behind"). */
static void close_fid(struct fid *f, const char *what);

static void shm_remove_stale(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    char prefix[32];
    int plen = snprintf(prefix, sizeof(prefix), "%d:", (int)getpid());
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat sb;
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0 ||
            fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode) ||
            sb.st_uid != geteuid())
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) != 0)
            continue;
        st->stats.shm_stale++;
        if (st->verbose)
            fprintf(stderr,
                    "ferry: rank %d: ofi: removed /dev/shm/%s, a shm region a killed process "
                    "with this pid left\n",
                    st->rank, e->d_name);
    }
    closedir(d);
}

/* Opens fabric, domain, CQ, address vector and endpoint for the chosen
 * info; on failure says which call failed and why. */
static int open_objects(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    struct fi_info *info = st->info;
    const char *call;
    int ret;
    if ((ret = fi_fabric(info->fabric_attr, &st->fabric, NULL))) {
        call = "fi_fabric";
        goto fn_fail;
    }
    if ((ret = fi_domain(st->fabric, info, &st->domain, NULL))) {
        call = "fi_domain";
        goto fn_fail;
    }
    /* A CQ with a file descriptor to sleep on where the provider gives one
     * (MPIDI_OFI_wait_fd); where it does not, the CQ is opened again
     * without, and an idle wait polls it (doc/methods/ofi.md "Waiting"). */
    struct fi_cq_attr cqa = {.format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE};
    cqa.size = (size_t)(st->nsbufs + st->nrbufs) + 1024;
    st->wait_fd = -1;
    if (MPIDU_config_int("FERRY_OFI_WAIT")) {
        cqa.wait_obj = FI_WAIT_FD;
        ret = fi_cq_open(st->domain, &cqa, &st->cq, NULL);
        if (ret == 0 && fi_control(&st->cq->fid, FI_GETWAIT, &st->wait_fd) != 0) {
            st->wait_fd = -1;
            close_fid(&st->cq->fid, "completion queue without a wait descriptor");
            st->cq = NULL;
        }
        cqa.wait_obj = FI_WAIT_NONE;
    }
    if (!st->cq && (ret = fi_cq_open(st->domain, &cqa, &st->cq, NULL))) {
        call = "fi_cq_open";
        goto fn_fail;
    }
    struct fi_av_attr ava = {.type = info->domain_attr->av_type != FI_AV_UNSPEC
                                         ? info->domain_attr->av_type
                                         : FI_AV_TABLE};
    if ((ret = fi_av_open(st->domain, &ava, &st->av, NULL))) {
        call = "fi_av_open";
        goto fn_fail;
    }
    if ((ret = fi_endpoint(st->domain, info, &st->ep, NULL))) {
        call = "fi_endpoint";
        goto fn_fail;
    }
    if ((ret = fi_ep_bind(st->ep, &st->av->fid, 0))) {
        call = "fi_ep_bind(av)";
        goto fn_fail;
    }
    if ((ret = fi_ep_bind(st->ep, &st->cq->fid, FI_TRANSMIT | FI_RECV))) {
        call = "fi_ep_bind(cq)";
        goto fn_fail;
    }
    /* A multi-receive buffer is given back when less than one largest
     * message fits in what is left of it.  The option belongs before
     * fi_enable, except on shm before libfabric 2.0, whose setopt crashes
     * there and works only after it (ofiwg/libfabric#10591). */
    size_t min = st->buf_size;
    int shm_quirk = strcmp(st->prov, "shm") == 0 && FI_MAJOR(fi_version()) < 2;
    if (st->multi_recv && !shm_quirk &&
        (ret =
             fi_setopt(&st->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof(min)))) {
        call = "fi_setopt(FI_OPT_MIN_MULTI_RECV)";
        goto fn_fail;
    }
    if (strcmp(st->prov, "shm") == 0)
        shm_remove_stale();
    if ((ret = fi_enable(st->ep))) {
        call = "fi_enable";
        goto fn_fail;
    }
    if (st->multi_recv && shm_quirk &&
        (ret =
             fi_setopt(&st->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof(min)))) {
        call = "fi_setopt(FI_OPT_MIN_MULTI_RECV)";
        goto fn_fail;
    }
    return MPI_SUCCESS;
fn_fail:
    return MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s on provider %s (%s): %s (%d)", call, st->prov,
                            st->fabric_name, MPIDI_OFI_strerror(ret), ret);
}

static int make_card(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    char name[256];
    size_t len = sizeof(name);
    int ret = fi_getname(&st->ep->fid, name, &len);
    if (ret)
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: fi_getname on %s: %s (%d)", st->prov,
                                MPIDI_OFI_strerror(ret), ret);
    for (size_t got = 0; got < sizeof(st->nonce);) {
        ssize_t n = getrandom(st->nonce + got, sizeof(st->nonce) - got, 0);
        if (n <= 0)
            return MPIDU_err_create(MPI_ERR_OTHER, "ofi: getrandom for the card's nonce failed");
        got += (size_t)n;
    }
    /* prov|fabric|node|pid|nonce|name, the last two in hex. */
    int n = snprintf(st->card, sizeof(st->card), "%s|%s|%d|%d|", st->prov, st->fabric_name,
                     st->node_id, (int)getpid());
    for (size_t i = 0; i < sizeof(st->nonce); i++)
        n += snprintf(st->card + n, sizeof(st->card) - (size_t)n, "%02x", st->nonce[i]);
    n += snprintf(st->card + n, sizeof(st->card) - (size_t)n, "|");
    if ((size_t)n + 2 * len + 1 > sizeof(st->card))
        return MPIDU_err_create(MPI_ERR_OTHER, "ofi: %s's endpoint name of %zu bytes is too long",
                                st->prov, len);
    for (size_t i = 0; i < len; i++)
        n += snprintf(st->card + n, sizeof(st->card) - (size_t)n, "%02x", (unsigned char)name[i]);
    return MPI_SUCCESS;
}

int MPIDI_OFI_init(const MPIDI_job_t *job, MPIDI_method_caps_t *caps_p)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    int mpi_errno = MPI_SUCCESS;
    memset(st, 0, sizeof(*st));
    st->rank = job->rank;
    st->size = job->size;
    st->node_id = job->node_id;
    st->node_of = job->node_of;
    st->forced = job->forced;
    st->verbose = (int)MPIDU_config_int("FERRY_VERBOSE");
    read_sizes();
    snprintf(st->card, sizeof(st->card), "none");
    fill_caps(caps_p);

    /* fi_getinfo takes 0.3 s here (every provider looks for its devices):
     * a job pays it only when it asks for libfabric, by naming ofi in
     * FERRY_METHODS or choosing a provider with FI_PROVIDER. */
    if (!st->forced && !getenv("FI_PROVIDER")) {
        if (st->verbose >= 2)
            fprintf(stderr,
                    "ferry: rank %d: ofi not started (neither FERRY_METHODS names it nor "
                    "FI_PROVIDER is set)\n",
                    st->rank);
        return register_stats();
    }
    char why[512];
    mpi_errno = MPIDI_OFI_getinfo(&st->info, why, sizeof(why));
    if (mpi_errno == MPI_ERR_NO_MEM)
        return MPIDU_err_create(MPI_ERR_NO_MEM, "ofi: %s", why);
    if (mpi_errno) {
        /* Unavailable is no error: nobody is reachable by ofi, quietly. */
        if (st->verbose)
            fprintf(stderr, "ferry: rank %d: ofi unavailable: %s\n", st->rank, why);
        return register_stats();
    }
    struct fi_info *info = st->info;
    snprintf(st->prov, sizeof(st->prov), "%s", info->fabric_attr->prov_name);
    snprintf(st->fabric_name, sizeof(st->fabric_name), "%s", info->fabric_attr->name);
    st->mr_mode = info->domain_attr->mr_mode;
    st->mr_local = !!(st->mr_mode & FI_MR_LOCAL);
    st->mr_virt = !!(st->mr_mode & FI_MR_VIRT_ADDR);
    st->mr_prov_key = !!(st->mr_mode & FI_MR_PROV_KEY);
    st->mr_endpoint = !!(st->mr_mode & FI_MR_ENDPOINT);
    st->multi_recv = (info->caps & FI_MULTI_RECV) && MPIDU_config_int("FERRY_OFI_MULTI_RECV") != 0;
    st->can_write = (info->caps & (FI_WRITE | FI_REMOTE_WRITE)) == (FI_WRITE | FI_REMOTE_WRITE);
    /* A provider that reaches only this node says so in its capabilities,
     * or not at all (libfabric 1.17's shm lists neither FI_LOCAL_COMM nor
     * FI_REMOTE_COMM): its name is then what tells. */
    uint64_t comm = (info->caps | info->domain_attr->caps) & (FI_LOCAL_COMM | FI_REMOTE_COMM);
    st->local_only = comm == FI_LOCAL_COMM || strcmp(st->prov, "shm") == 0;
    st->inject_size = info->tx_attr->inject_size;
    st->max_rdma = info->ep_attr->max_msg_size;
    size_t chunk = (size_t)MPIDU_config_int("FERRY_OFI_RDMA_CHUNK");
    if (chunk && chunk < st->max_rdma)
        st->max_rdma = chunk;
    if (st->max_rdma > ((size_t)1 << 30))
        st->max_rdma = (size_t)1 << 30; /* bounded pieces keep a peer's reads interleaved */
    if (info->ep_attr->max_msg_size < st->buf_size)
        st->buf_size = info->ep_attr->max_msg_size;
    size_t ks = info->domain_attr->mr_key_size;
    st->key_mask = ks >= 8 ? ~(uint64_t)0 : (((uint64_t)1 << (8 * ks)) - 1);
    if (getrandom(&st->next_key, sizeof(st->next_key), 0) != (ssize_t)sizeof(st->next_key))
        st->next_key = (uint64_t)getpid() << 20;
    st->peers = calloc((size_t)st->size, sizeof(*st->peers));
    st->waiting = calloc((size_t)st->size, sizeof(*st->waiting));
    if (!st->peers || !st->waiting) {
        mpi_errno = MPIDU_err_create(MPI_ERR_NO_MEM, "ofi: out of memory for %d peers", st->size);
        goto fn_fail;
    }
    for (int p = 0; p < st->size; p++) {
        st->peers[p].addr = FI_ADDR_NOTAVAIL;
        st->peers[p].pidfd = -1;
    }
    if ((mpi_errno = open_objects()) || (mpi_errno = MPIDI_OFI_bufs_create()) ||
        (mpi_errno = MPIDI_OFI_recv_post_all()) || (mpi_errno = MPIDI_OFI_rcache_create()) ||
        (mpi_errno = make_card()) || (mpi_errno = register_stats()))
        goto fn_fail;
    st->available = 1;
    fill_caps(caps_p);
    if (st->verbose)
        fprintf(stderr,
                "ferry: rank %d: ofi on %s (fabric %s, domain %s): mr_mode%s%s%s%s%s, key %zu B, "
                "%s receives, inject %zu B, max_msg %zu, rdma pieces %zu, write %s, wait fd %s%s\n",
                st->rank, st->prov, st->fabric_name, info->domain_attr->name,
                st->mr_local ? " LOCAL" : "", st->mr_virt ? " VIRT_ADDR" : " (offsets)",
                st->mr_prov_key ? " PROV_KEY" : "", st->mr_endpoint ? " ENDPOINT" : "",
                (st->mr_mode & FI_MR_ALLOCATED) ? " ALLOCATED" : "", ks,
                st->multi_recv ? "multi-receive" : "pre-posted", st->inject_size,
                (size_t)info->ep_attr->max_msg_size, st->max_rdma, st->can_write ? "yes" : "no",
                st->wait_fd >= 0 ? "yes" : "no (polled)",
                st->rxm_srx_set && strstr(st->prov, "rxm") ? ", FI_OFI_RXM_USE_SRX=1 set by Ferry"
                                                           : "");
    return MPI_SUCCESS;

fn_fail:
    MPIDI_OFI_finalize();
    return mpi_errno;
}

int MPIDI_OFI_get_business_card(char *buf, size_t len)
{
    snprintf(buf, len, "%s", MPIDI_OFI_state.card);
    return MPI_SUCCESS;
}

/* A close that fails means something is still bound to the object (a wrong
 * order here) or the provider lost track of it: said, never silent. */
static void close_fid(struct fid *f, const char *what)
{
    int ret = f ? fi_close(f) : 0;
    if (ret)
        fprintf(stderr, "ferry: rank %d: ofi: closing the %s at finalize failed: %s\n",
                MPIDI_OFI_state.rank, what, fi_strerror(-ret));
}

/* The finalize barrier is over: what we posted must still reach the peers
 * (the last barrier message among them), so sends are waited for, a bounded
 * time, before the endpoint closes. */
int MPIDI_OFI_finalize(void)
{
    MPIDI_OFI_state_t *st = &MPIDI_OFI_state;
    st->finalizing = 1; /* peers exiting now are no loss */
    if (st->available) {
        /* At most 10 s: a peer that is gone does not hold us. */
        time_t until = time(NULL) + 10;
        while (st->nsfree < st->nsbufs && time(NULL) < until) {
            int made = 0;
            if (MPIDI_OFI_progress(&made) != MPI_SUCCESS)
                break;
        }
    }
    if (st->ep)
        close_fid(&st->ep->fid, "endpoint");
    st->ep = NULL;
    if (st->rcache)
        MPIDU_rcache_destroy(st->rcache);
    st->rcache = NULL;
    MPIDI_OFI_bufs_destroy();
    if (st->av)
        close_fid(&st->av->fid, "address vector");
    if (st->cq)
        close_fid(&st->cq->fid, "completion queue");
    if (st->domain)
        close_fid(&st->domain->fid, "domain");
    if (st->fabric)
        close_fid(&st->fabric->fid, "fabric");
    st->av = NULL;
    st->cq = NULL;
    st->domain = NULL;
    st->fabric = NULL;
    if (st->peers) {
        for (int p = 0; p < st->size; p++) {
            MPIDI_OFI_rdma_drop(p);
            MPIDI_OFI_held_drop(p);
            if (st->peers[p].pidfd >= 0)
                close(st->peers[p].pidfd);
        }
    }
    free(st->peers);
    free(st->waiting);
    st->peers = NULL;
    st->waiting = NULL;
    if (st->info)
        fi_freeinfo(st->info);
    st->info = NULL;
    st->available = 0;
    return MPI_SUCCESS;
}
