/* sched.c: collective schedules: a collective as a list of point-to-point and local steps in
 * stages, run by the agent, so one algorithm serves the blocking, nonblocking and persistent
 * forms of a collective.
 *
 * A schedule's steps run in order: a send or receive is posted and not waited for, a copy or a
 * reduction runs when it is reached, and a fence waits until everything posted before it is
 * complete.  So a stage (the steps between two fences) posts all its messages at once, and
 * a local step placed after a fence sees the data the stage before it received.  The agent's
 * hook (MPIR_Sched_progress) looks at the running schedules on every poll and starts the next
 * stage of those whose stage is over; nothing ever blocks inside it.
 *
 * Tags: a blocking collective keeps its kind's tag (MPIR_TAG_*), as before the schedules.  A
 * nonblocking or persistent one takes a tag of its own from the communicator's sequence at
 * the call (MPIR_TAG_NBC), which every member counts alike because MPI has them start
 * collectives in the same order; so several may be under way on one communicator without
 * their messages meeting, and none meets a blocking one's or the user's (the collective
 * context). */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

typedef enum {
    SCHED_SEND,
    SCHED_RECV,
    SCHED_COPY,   /* src (scount, stype) into dst (dcount, dtype) */
    SCHED_REDUCE, /* dst = src op dst, count elements of stype */
    SCHED_FENCE,
} step_kind_t;

typedef struct {
    step_kind_t kind;
    MPIR_Comm *comm; /* a send's or receive's: the schedule's, or its local group's */
    const void *src;
    MPI_Aint scount;
    MPI_Datatype stype;
    void *dst;
    MPI_Aint dcount;
    MPI_Datatype dtype;
    int peer;
    MPI_Op op;
} step_t;

struct MPIR_Sched {
    MPIR_Comm *comm;
    MPIR_Comm *step_comm; /* where the sends and receives being added go */
    MPIR_Coll_mode_t mode;
    int tag; /* with the communicator's coll_tag_base added */
    int err; /* the first error met while building: the schedule is not run */
    /* The first mismatch of sizes while running (a receive got more or fewer bytes than its
     * count and type call for: the ranks' counts or types differ, an erroneous program).
     * Unlike err it does not stop the schedule: a rank that stopped would leave its partners
     * waiting for good.  It runs on, skipping its reductions, and each of its later sends
     * carries one byte more than asked (poison_send), so the ranks downstream of it see a
     * mismatch too instead of a quiet wrong result.  Every rank that sees one returns it. */
    int data_err;
    step_t *steps;
    int nsteps, cap;
    void **tmp;      /* temporary buffers, freed with the schedule (the cached one keeps them) */
    size_t *tmpsize; /* the cached schedule's: each kept buffer's size */
    int ntmp, tmpcap, nkept;
    int cached; /* the one blocking schedule kept between calls (see MPIR_Sched_create) */
    /* While running: */
    int next; /* first step not started */
    MPIR_Request **pending;
    int npending, pendcap;
    MPIR_Request *req;
    struct MPIR_Sched *run_next, *run_prev;
};

static MPIR_Sched_t *running; /* schedules under way, advanced by MPIR_Sched_progress */

/* A blocking collective runs to its end inside its call, so one schedule object, kept with its
 * arrays and temporary buffers between calls, serves them all: a small Allreduce or Barrier
 * then allocates nothing (issue 12: each call used to cost a schedule, its steps, buffers and
 * a request, ~1,700 instructions).  A blocking collective started while the cached schedule
 * runs (from a user's reduction function, or by another thread under MPI_THREAD_MULTIPLE while
 * this one waits with the library's lock let go) gets a schedule of its own. */
static MPIR_Sched_t blocking_sched = {.cached = 1};
static int blocking_busy;

/* Temporary buffers the cached schedule keeps for the next call: up to this size each (a
 * large one is freed, so one big collective does not hold its memory for good). */
#define SCHED_KEEP_TMP_BYTES 65536

int MPIR_Sched_create(MPIR_Comm *comm, MPIR_Coll_mode_t mode, int kind, MPIR_Sched_t **s_p)
{
    MPIR_Sched_t *s;
    if (mode == MPIR_COLL_BLOCKING && !blocking_busy) {
        blocking_busy = 1;
        s = &blocking_sched;
        s->err = s->data_err = MPI_SUCCESS;
        s->nsteps = s->ntmp = s->next = s->npending = 0;
    } else if (!(s = calloc(1, sizeof(*s)))) {
        *s_p = NULL;
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a collective schedule");
    }
    *s_p = s;
    s->comm = s->step_comm = comm;
    /* A blocking call's caller holds comm, and its datatypes and op, until the call returns:
     * only a schedule that outlives its call takes references (see hold_type). */
    if (mode != MPIR_COLL_BLOCKING)
        comm->ref++;
    s->mode = mode;
    s->tag =
        comm->coll_tag_base + (mode == MPIR_COLL_BLOCKING ? kind : MPIR_TAG_NBC(comm->nbc_seq++));
    return MPI_SUCCESS;
}

/* The cached schedule keeps its arrays and its smaller temporary buffers for the next call. */
static void release_cached(MPIR_Sched_t *s)
{
    for (int i = 0; i < s->nkept; i++)
        if (s->tmpsize[i] > SCHED_KEEP_TMP_BYTES) {
            free(s->tmp[i]);
            s->tmp[i] = NULL;
            s->tmpsize[i] = 0;
        }
    s->nsteps = s->ntmp = s->npending = 0;
    blocking_busy = 0;
}

/* The schedule's arrays and its first ntmp temporary buffers. */
static void free_arrays(MPIR_Sched_t *s, int ntmp)
{
    for (int i = 0; i < ntmp; i++)
        free(s->tmp[i]);
    free(s->tmp);
    free(s->tmpsize);
    free(s->steps);
    free(s->pending);
}

/* MPI_Finalize: the cached schedule's arrays and kept buffers go (valgrind counted them as
 * still reachable at exit). */
void MPIR_Sched_finalize(void)
{
    MPIR_Sched_t *s = &blocking_sched;
    free_arrays(s, s->nkept);
    *s = (MPIR_Sched_t){.cached = 1};
    blocking_busy = 0;
}

void MPIR_Sched_free(MPIR_Sched_t *s)
{
    if (!s)
        return;
    if (s->cached) {
        release_cached(s);
        return;
    }
    for (int i = 0; s->mode != MPIR_COLL_BLOCKING && i < s->nsteps; i++) {
        step_t *st = &s->steps[i];
        if (st->kind == SCHED_FENCE)
            continue;
        MPIR_Datatype_release(MPIR_Datatype_get(st->stype));
        if (st->kind == SCHED_COPY)
            MPIR_Datatype_release(MPIR_Datatype_get(st->dtype));
        if (st->kind == SCHED_REDUCE)
            MPIR_Op_release(st->op);
    }
    free_arrays(s, s->ntmp);
    if (s->mode != MPIR_COLL_BLOCKING)
        MPIR_Comm_release(s->comm);
    free(s);
}

int MPIR_Sched_error(const MPIR_Sched_t *s)
{
    return s->err;
}

void MPIR_Sched_fail(MPIR_Sched_t *s, int err)
{
    if (!s->err)
        s->err = err;
}

static step_t *add_step(MPIR_Sched_t *s, step_kind_t kind)
{
    if (s->err)
        return NULL;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        step_t *n = realloc(s->steps, sizeof(*n) * cap);
        if (!n) {
            s->err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d schedule steps", cap);
            return NULL;
        }
        s->steps = n;
        s->cap = cap;
    }
    step_t *st = &s->steps[s->nsteps++];
    *st = (step_t){
        .kind = kind, .comm = s->step_comm, .stype = MPI_DATATYPE_NULL, .dtype = MPI_DATATYPE_NULL};
    return st;
}

void MPIR_Sched_use_comm(MPIR_Sched_t *s, MPIR_Comm *comm)
{
    /* Only the schedule's communicator or its local group: the schedule's reference keeps
     * both alive. */
    s->step_comm = comm == s->comm->local_comm ? comm : s->comm;
}

/* The datatypes (and op) a step names stay alive while the schedule may run: MPI lets the
 * user free them as soon as a nonblocking or persistent call returns (a blocking call's
 * caller holds them until its end). */
static void hold_type(const MPIR_Sched_t *s, MPI_Datatype type)
{
    if (s->mode != MPIR_COLL_BLOCKING)
        MPIR_Datatype_add_ref(MPIR_Datatype_get(type));
}

void MPIR_Sched_send(MPIR_Sched_t *s, const void *buf, MPI_Aint count, MPI_Datatype type, int peer)
{
    step_t *st = add_step(s, SCHED_SEND);
    if (!st)
        return;
    st->src = buf;
    st->scount = count;
    st->stype = type;
    st->peer = peer;
    hold_type(s, type);
}

void MPIR_Sched_recv(MPIR_Sched_t *s, void *buf, MPI_Aint count, MPI_Datatype type, int peer)
{
    step_t *st = add_step(s, SCHED_RECV);
    if (!st)
        return;
    st->dst = buf;
    st->scount = count;
    st->stype = type;
    st->peer = peer;
    hold_type(s, type);
}

void MPIR_Sched_copy(MPIR_Sched_t *s, const void *src, MPI_Aint scount, MPI_Datatype stype,
                     void *dst, MPI_Aint dcount, MPI_Datatype dtype)
{
    step_t *st = add_step(s, SCHED_COPY);
    if (!st)
        return;
    *st = (step_t){.kind = SCHED_COPY,
                   .src = src,
                   .scount = scount,
                   .stype = stype,
                   .dst = dst,
                   .dcount = dcount,
                   .dtype = dtype};
    hold_type(s, stype);
    hold_type(s, dtype);
}

void MPIR_Sched_reduce(MPIR_Sched_t *s, const void *in, void *inout, MPI_Aint count,
                       MPI_Datatype type, MPI_Op op)
{
    step_t *st = add_step(s, SCHED_REDUCE);
    if (!st)
        return;
    *st = (step_t){
        .kind = SCHED_REDUCE, .src = in, .dst = inout, .scount = count, .stype = type, .op = op};
    hold_type(s, type);
    if (s->mode != MPIR_COLL_BLOCKING)
        MPIR_Op_add_ref(op);
}

void MPIR_Sched_fence(MPIR_Sched_t *s)
{
    /* Two fences in a row, or one at the start, wait for nothing. */
    if (!s->err && s->nsteps > 0 && s->steps[s->nsteps - 1].kind != SCHED_FENCE)
        add_step(s, SCHED_FENCE);
}

void *MPIR_Sched_tmp(MPIR_Sched_t *s, MPI_Aint count, MPI_Datatype type)
{
    if (s->err)
        return NULL;
    /* The buffer covers every byte count elements may touch (from the lowest true lb to the
     * highest true ub); the pointer returned is where element 0 starts, so it may point
     * before or after the allocation. */
    MPIR_Datatype *dt = MPIR_Datatype_get(type);
    MPI_Aint last = count > 0 ? (count - 1) * dt->extent : 0;
    MPI_Aint lo = (last < 0 ? last : 0) + dt->true_lb;
    MPI_Aint hi = (last > 0 ? last : 0) + dt->true_ub;
    MPI_Aint span = count > 0 ? hi - lo : 0;
    size_t bytes = span > 0 ? (size_t)span : 1;
    if (s->cached && s->ntmp < s->nkept && s->tmpsize[s->ntmp] >= bytes)
        return (char *)s->tmp[s->ntmp++] - lo; /* kept from an earlier call */
    if (s->ntmp == s->tmpcap) {
        int cap = s->tmpcap ? 2 * s->tmpcap : 4;
        void **n = realloc(s->tmp, sizeof(*n) * cap);
        size_t *nsize = s->cached ? realloc(s->tmpsize, sizeof(*nsize) * cap) : NULL;
        if (n)
            s->tmp = n;
        if (nsize)
            s->tmpsize = nsize;
        if (!n || (s->cached && !nsize)) {
            s->err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a schedule");
            return NULL;
        }
        s->tmpcap = cap;
    }
    char *mem = malloc(bytes);
    if (!mem) {
        s->err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for a %ld-byte collective buffer",
                                 (long)span);
        return NULL;
    }
    if (s->cached) {
        /* Replaces a kept buffer that was too small (or the freed slot of a large one). */
        if (s->ntmp < s->nkept)
            free(s->tmp[s->ntmp]);
        else
            s->nkept++;
        s->tmpsize[s->ntmp] = bytes;
    }
    s->tmp[s->ntmp++] = mem;
    return mem - lo;
}

/* ---- Running ---- */

static int pending_add(MPIR_Sched_t *s, MPIR_Request *r)
{
    if (s->npending == s->pendcap) {
        int cap = s->pendcap ? 2 * s->pendcap : 8;
        MPIR_Request **n = realloc(s->pending, sizeof(*n) * cap);
        if (!n)
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d requests", cap);
        s->pending = n;
        s->pendcap = cap;
    }
    s->pending[s->npending++] = r;
    return MPI_SUCCESS;
}

/* A copy between two buffers of one contiguous type without holes is one memcpy; any other
 * goes through a packed copy (holes in dst stay as they are). */
static int copy(const step_t *st)
{
    if (st->scount <= 0)
        return MPI_SUCCESS;
    MPIR_Datatype *dt = MPIR_Datatype_get(st->stype);
    if (st->stype == st->dtype && st->scount <= st->dcount && dt->is_contig &&
        dt->size == dt->extent) {
        memcpy((char *)st->dst + dt->true_lb, (const char *)st->src + dt->true_lb,
               (size_t)st->scount * dt->size);
        return MPI_SUCCESS;
    }
    return MPIR_Local_copy(st->src, st->scount, st->stype, st->dst, st->dcount, st->dtype);
}

/* After a mismatch (data_err): the send's data, packed, and one byte more, from a buffer the
 * schedule frees. */
static int poison_send(MPIR_Sched_t *s, const step_t *st, MPIR_Request **r)
{
    MPI_Aint bytes = st->scount * MPIR_Datatype_get(st->stype)->size;
    char *buf = MPIR_Sched_tmp(s, bytes + 1, MPI_BYTE);
    if (!buf)
        return s->err;
    int err = MPIR_Local_copy(st->src, st->scount, st->stype, buf, bytes, MPI_BYTE);
    buf[bytes] = 0;
    return err ? err
               : MPID_Isend(buf, bytes + 1, MPI_BYTE, st->peer, s->tag, st->comm,
                            MPIR_CONTEXT_COLL_OFFSET, 0, r);
}

/* Starts one step; a failed step is the schedule's error, and it starts nothing more. */
static void start_step(MPIR_Sched_t *s, const step_t *st)
{
    MPIR_Request *r = NULL;
    int err = MPI_SUCCESS;
    switch (st->kind) {
    case SCHED_SEND:
        if (s->data_err)
            err = poison_send(s, st, &r);
        else
            err = MPID_Isend(st->src, st->scount, st->stype, st->peer, s->tag, st->comm,
                             MPIR_CONTEXT_COLL_OFFSET, 0, &r);
        break;
    case SCHED_RECV:
        err = MPID_Irecv(st->dst, st->scount, st->stype, st->peer, s->tag, st->comm,
                         MPIR_CONTEXT_COLL_OFFSET, &r);
        break;
    case SCHED_COPY:
        err = copy(st);
        break;
    case SCHED_REDUCE: /* after a mismatch its input may be partly unset: no result is due */
        if (st->scount > 0 && !s->data_err)
            MPIR_Reduce_apply(st->op, st->stype, st->src, st->dst, st->scount);
        break;
    case SCHED_FENCE:
        break;
    }
    if (r && (err = pending_add(s, r)) != MPI_SUCCESS) {
        MPIR_Request_wait(r); /* out of memory: rather wait here than lose track of it */
        MPIR_Request_release(r);
    }
    if (err && !s->err)
        s->err = err;
}

/* A finished send's or receive's error is the schedule's, but a receive's size mismatch only
 * its data_err (see there): a truncated one, or one shorter than its count and type. */
static void note_completion(MPIR_Sched_t *s, const MPIR_Request *r)
{
    int err = r->status.MPI_ERROR;
    if (r->kind == MPIR_REQ_RECV && !r->cancelled && !err && r->msg_size < r->seg.size)
        err = MPIR_Err_create(MPI_ERR_COUNT,
                              "%zu bytes came from rank %d where this rank's count and type call "
                              "for %zu: the ranks' counts or types do not match",
                              r->msg_size, r->status.MPI_SOURCE, r->seg.size);
    if (!err)
        return;
    int mismatch = r->kind == MPIR_REQ_RECV && (MPIR_Err_class(err) == MPI_ERR_TRUNCATE ||
                                                MPIR_Err_class(err) == MPI_ERR_COUNT);
    if (mismatch && !s->data_err)
        s->data_err = err;
    else if (!mismatch && !s->err)
        s->err = err;
}

static void unlink_running(MPIR_Sched_t *s)
{
    if (s->run_prev)
        s->run_prev->run_next = s->run_next;
    else
        running = s->run_next;
    if (s->run_next)
        s->run_next->run_prev = s->run_prev;
    s->run_next = s->run_prev = NULL;
    MPIR_upper_work--;
}

/* Runs s's steps as far as they go without waiting; sets *made if anything happened and
 * returns 1 once the schedule is over (all its steps done, or an error and nothing left
 * pending). */
static int run_steps(MPIR_Sched_t *s, int *made)
{
    for (;;) {
        int left = 0;
        for (int i = 0; i < s->npending; i++) {
            MPIR_Request *r = s->pending[i];
            /* After an error, a receive the failed step's peer will not match must not
             * keep the collective from ending. */
            if (s->err && r->kind == MPIR_REQ_RECV && !MPIR_Request_is_complete(r))
                MPID_Cancel_recv(r);
            if (!MPIR_Request_is_complete(r)) {
                s->pending[left++] = r;
                continue;
            }
            note_completion(s, r);
            MPIR_Request_release(r);
            *made = 1;
        }
        s->npending = left;
        if (left > 0)
            return 0;
        if (s->err || s->next == s->nsteps)
            return 1;
        *made = 1;
        while (s->next < s->nsteps && !s->err) {
            const step_t *st = &s->steps[s->next++];
            if (st->kind == SCHED_FENCE)
                break;
            start_step(s, st);
        }
    }
}

/* Advances a running s as far as it goes without waiting; returns 1 if anything happened.  At
 * its end the request completes (a nonblocking schedule is freed first, a persistent one stays
 * with its request for the next MPI_Start). */
static int advance(MPIR_Sched_t *s)
{
    int made = 0;
    if (!run_steps(s, &made))
        return made;
    unlink_running(s);
    MPIR_Request *req = s->req;
    s->req = NULL;
    MPIR_Request_set_error(req, s->err ? s->err : s->data_err);
    if (s->mode != MPIR_COLL_PERSISTENT)
        MPIR_Sched_free(s);
    MPIDI_Request_complete_one(req); /* may free a persistent s with its request */
    return 1;
}

static int in_progress; /* a step's send may poll the agent, which calls the hook again */

/* The agent's hook runs on every poll: its common case (nothing running) stays a test and a
 * return, without the register saves the loop below needs (issue 12: 6 instructions per idle
 * poll when the loop was inlined into it). */
static __attribute__((noinline)) int progress_running(void)
{
    in_progress = 1;
    int made = 0;
    for (MPIR_Sched_t *s = running, *next; s; s = next) {
        next = s->run_next;
        made |= advance(s);
    }
    in_progress = 0;
    return made;
}

int MPIR_Sched_progress(void)
{
    return in_progress || !running ? 0 : progress_running();
}

void MPIR_Sched_start(MPIR_Sched_t *s, MPIR_Request *req)
{
    s->req = req;
    s->next = 0;
    s->npending = 0;
    s->err = s->data_err = MPI_SUCCESS;
    s->run_prev = NULL;
    s->run_next = running;
    if (running)
        running->run_prev = s;
    running = s;
    MPIR_upper_work++;
    /* The first stage goes out now, so the collective moves while the caller computes. */
    int was = in_progress;
    in_progress = 1;
    advance(s);
    in_progress = was;
}

static void release_persistent(MPIR_Request *req)
{
    MPIR_Sched_free(req->u.preq.sched);
    req->u.preq.sched = NULL;
}

/* A blocking schedule's wait condition: it runs its own steps (it is not on the running list,
 * so the agent's hook never sees it). */
static int blocking_done(void *arg)
{
    int made = 0;
    return run_steps(arg, &made);
}

int MPIR_Sched_finish(MPIR_Sched_t *s, MPI_Request *request)
{
    int err = s->err;
    MPIR_Comm *c = s->comm;
    MPIR_Request *req = NULL;
    if (!err && s->mode == MPIR_COLL_BLOCKING) {
        /* Run to the end here, without a request: nothing outlives the call. */
        MPID_Progress_wait(blocking_done, s);
        err = s->err ? s->err : s->data_err;
        MPIR_Sched_free(s);
        return err;
    }
    if (!err && !(req = MPIR_Request_create(s->mode == MPIR_COLL_PERSISTENT ? MPIR_REQ_PERSISTENT
                                                                            : MPIR_REQ_COMPOSITE)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests");
    if (err) {
        MPIR_Sched_free(s);
        return err;
    }
    req->comm = c;
    c->ref++;
    req->status.MPI_SOURCE = MPI_ANY_SOURCE;
    req->status.MPI_TAG = MPI_ANY_TAG;
    switch (s->mode) {
    case MPIR_COLL_BLOCKING: /* not reached: run above, without a request */
        break;
    case MPIR_COLL_NONBLOCKING:
        *request = req->handle;
        MPIR_Sched_start(s, req);
        return MPI_SUCCESS;
    case MPIR_COLL_PERSISTENT:
        /* Inactive until MPI_Start: nothing to wait for, only the user's handle. */
        req->cc = 0;
        req->ref = 1;
        req->u.preq = (MPIR_Preq){.op = MPIR_PREQ_COLL, .sched = s};
        req->on_release = release_persistent;
        *request = req->handle;
        return MPI_SUCCESS;
    }
    return MPI_SUCCESS;
}

int MPIR_Coll_begin(const char *fname, MPI_Comm comm, MPIR_Coll_mode_t mode, MPI_Info info,
                    MPI_Request *request, MPIR_Comm **c_p)
{
    int err = MPIR_Check_comm(comm, c_p);
    if (err || mode == MPIR_COLL_BLOCKING)
        return err;
    if (!request)
        return MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (mode == MPIR_COLL_PERSISTENT)
        return MPIR_Check_info_or_null(info);
    return MPI_SUCCESS;
}
