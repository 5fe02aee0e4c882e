/* verbs_srq.c: receive buffers: the shared receive queue, reposting in batches, growth on the limit
 * event. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "mpi.h"
#include "verbs_impl.h"

/* Buffers come in registered slabs; a slab is never freed before finalize
 * (the SRQ may hold any of its buffers).  Every buffer is either posted on
 * the SRQ, or on the stash: a handful kept unposted so that the receives of
 * a polled batch can be replaced on the SRQ *before* they are dispatched
 * (a dispatch may take long: matching, copying an unexpected message), so
 * the SRQ does not run dry while the core works (anchors: libfabric #4267). */

int MPIDI_VERBS_slab_new(int n, size_t desc_size, const char *what, char **mem_p, void **descs_p,
                         uint32_t *lkey_p)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    size_t bytes = (size_t)n * st->buf_size;
    char *mem = NULL;
    void *descs = calloc((size_t)n, desc_size);
    MPIDI_VERBS_slab_t *slabs = realloc(st->slabs, (size_t)(st->nslabs + 1) * sizeof(*slabs));
    if (slabs)
        st->slabs = slabs;
    if (!descs || !slabs || posix_memalign((void **)&mem, 4096, bytes) != 0) {
        free(descs);
        return MPIDU_err_create(MPI_ERR_NO_MEM, "verbs: out of memory for %d %s buffers", n, what);
    }
    struct ibv_mr *mr = ibv_reg_mr(st->pd, mem, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!mr) {
        int e = errno;
        free(mem);
        free(descs);
        return MPIDU_err_create(MPI_ERR_NO_MEM,
                                "verbs: cannot register %zu bytes of %s "
                                "buffers on %s: %s (errno %d)",
                                bytes, what, st->devname, strerror(e), e);
    }
    st->slabs[st->nslabs++] = (MPIDI_VERBS_slab_t){.mr = mr, .mem = mem, .descs = descs};
    *mem_p = mem;
    *descs_p = descs;
    *lkey_p = mr->lkey;
    return MPI_SUCCESS;
}

static int add_slab(int n)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    char *mem;
    void *d;
    uint32_t lkey;
    int err = MPIDI_VERBS_slab_new(n, sizeof(MPIDI_VERBS_rbuf_t), "receive", &mem, &d, &lkey);
    if (err)
        return err;
    MPIDI_VERBS_rbuf_t *descs = d;
    for (int i = 0; i < n; i++) {
        descs[i].addr = mem + (size_t)i * st->buf_size;
        descs[i].lkey = lkey;
        descs[i].next = st->stash;
        st->stash = &descs[i];
    }
    st->nstash += n;
    st->nbufs += n;
    if ((unsigned long)st->nbufs > st->stats.srq_buffers_max)
        st->stats.srq_buffers_max = (unsigned long)st->nbufs;
    return MPI_SUCCESS;
}

/* Posts n buffers from the stash in one chained call. */
int MPIDI_VERBS_srq_repost(int n)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_recv_wr wrs[64], *bad;
    struct ibv_sge sges[64];
    while (n > 0 && st->stash) {
        int k = 0;
        for (; k < n && k < 64 && st->stash; k++) {
            MPIDI_VERBS_rbuf_t *b = st->stash;
            st->stash = b->next;
            st->nstash--;
            sges[k] = (struct ibv_sge){
                .addr = (uintptr_t)b->addr, .length = (uint32_t)st->buf_size, .lkey = b->lkey};
            wrs[k] = (struct ibv_recv_wr){
                .wr_id = (uintptr_t)b, .sg_list = &sges[k], .num_sge = 1, .next = NULL};
            if (k)
                wrs[k - 1].next = &wrs[k];
        }
        int rc = ibv_post_srq_recv(st->srq, wrs, &bad);
        if (rc)
            return MPIDU_err_create(MPI_ERR_OTHER,
                                    "verbs: ibv_post_srq_recv of %d buffers "
                                    "failed: %s (errno %d)",
                                    k, strerror(rc), rc);
        st->posted += k;
        st->stats.reposts += (unsigned long)k;
        n -= k;
    }
    return MPI_SUCCESS;
}

void MPIDI_VERBS_srq_return(MPIDI_VERBS_rbuf_t *b)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    b->next = st->stash;
    st->stash = b;
    st->nstash++;
}

/* Re-arms the limit: the device raises IBV_EVENT_SRQ_LIMIT_REACHED once
 * when fewer than srq_low buffers remain posted. */
static void arm_limit(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_srq_attr a = {.srq_limit = (uint32_t)st->srq_low};
    if (st->srq_low > 0 && st->srq_low < st->posted)
        ibv_modify_srq(st->srq, &a, IBV_SRQ_LIMIT);
}

int MPIDI_VERBS_srq_create(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    struct ibv_srq_init_attr a = {
        .attr = {.max_wr = (uint32_t)st->srq_max + (uint32_t)st->cq_batch, .max_sge = 1}};
    st->srq = ibv_create_srq(st->pd, &a);
    if (!st->srq)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: ibv_create_srq of %d entries on %s "
                                "failed",
                                st->srq_max, st->devname);
    /* srq_size posted, plus one batch's worth on the stash. */
    int err = add_slab(st->srq_size + st->cq_batch);
    if (!err)
        err = MPIDI_VERBS_srq_repost(st->srq_size);
    if (!err)
        arm_limit();
    return err;
}

/* The CQ must hold every completion that can be outstanding: one per
 * posted receive and one per send-queue slot of every connection; it is
 * resized as those grow (FERRY_VERBS_CQ_SIZE is only where it starts). */
int MPIDI_VERBS_cq_fit(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    int need = st->nbufs;
    for (int i = 0; i < st->nlist; i++)
        if (st->list[i]->qp)
            need += st->list[i]->sq_depth;
    if (need <= st->cq_size)
        return MPI_SUCCESS;
    int want = need * 2 < st->dev_attr.max_cqe ? need * 2 : st->dev_attr.max_cqe;
    if (want < need || ibv_resize_cq(st->cq, want) != 0)
        return MPIDU_err_create(MPI_ERR_OTHER,
                                "verbs: the completion queue cannot grow to %d "
                                "entries (device limit %d): too many connections "
                                "or buffers (FERRY_VERBS_SRQ_MAX, "
                                "FERRY_VERBS_SQ_DEPTH)",
                                need, st->dev_attr.max_cqe);
    st->cq_size = st->cq->cqe;
    st->stats.cq_resizes++;
    return MPI_SUCCESS;
}

/* A connection takes `buffers` receive buffers for its peer (its credits
 * and its CREDIT slot).  The pool grows to cover them, up to srq_max; the
 * caller offers fewer credits when even that is not enough. */
int MPIDI_VERBS_srq_reserve(int buffers)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    int have = st->posted + st->nstash - st->cq_batch; /* the stash's batch is not for credits */
    if (st->reserved + buffers > have) {
        int grow = st->reserved + buffers - have;
        if (st->nbufs + grow > st->srq_max + st->cq_batch)
            return -1;
        int err = add_slab(grow);
        if (!err)
            err = MPIDI_VERBS_srq_repost(grow);
        if (!err)
            err = MPIDI_VERBS_cq_fit();
        if (err)
            return -1;
        st->stats.srq_grows++;
    }
    st->reserved += buffers;
    return 0;
}

void MPIDI_VERBS_srq_release(int buffers)
{
    MPIDI_VERBS_state.reserved -= buffers;
}

/* Fewer than srq_low buffers are posted: the peers are sending faster than
 * we take their messages out.  Grow the pool by srq_size (up to srq_max);
 * the new buffers are spare credits that senders reporting starvation get
 * (verbs_progress.c), so a busy pair speeds up instead of waiting on
 * credit returns. */
int MPIDI_VERBS_srq_limit_event(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    st->stats.srq_limit_events++;
    int room = st->srq_max + st->cq_batch - st->nbufs;
    int grow = st->srq_size < room ? st->srq_size : room;
    if (grow > 0) {
        int err = add_slab(grow);
        if (!err)
            err = MPIDI_VERBS_srq_repost(grow);
        if (!err)
            err = MPIDI_VERBS_cq_fit();
        if (err)
            return err;
        st->spare += grow;
        st->stats.srq_grows++;
    }
    arm_limit();
    return MPI_SUCCESS;
}

void MPIDI_VERBS_srq_destroy(void)
{
    MPIDI_VERBS_state_t *st = &MPIDI_VERBS_state;
    if (st->srq)
        ibv_destroy_srq(st->srq);
    st->srq = NULL;
    for (int i = 0; i < st->nslabs; i++) {
        ibv_dereg_mr(st->slabs[i].mr);
        free(st->slabs[i].mem);
        free(st->slabs[i].descs);
    }
    free(st->slabs);
    st->slabs = NULL;
    st->nslabs = 0;
    st->stash = NULL;
    st->sfree = NULL;
}
