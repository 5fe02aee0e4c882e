/* part.c: partitioned point-to-point communication (MPI-4.0 chapter 4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready and its range and list forms, MPI_Parrived, and a partitioned
 * request's rounds under MPI_Start (the completion calls are mpi/request.c's).
 *
 * The protocol is the device's point-to-point on three contexts of the communicator that
 * nothing else uses (MPIR_CONTEXT_PART_*, adi/comm.h), so it works on every method and under
 * every protocol, and no other receive ever matches its messages:
 *
 *   pairing, once: MPI_Psend_init sends {tag base, partitions, bytes per partition} with the
 *     user's tag on the init context; MPI_Precv_init posts the receive for it.  The device
 *     matches in order, so the k-th Psend_init toward (dest, tag, comm) pairs with the k-th
 *     Precv_init from (source, tag, comm), for good (MPI-4.0 sec. 4.1).
 *   ready, each round: MPI_Start of the receive posts one receive per *sender* partition on the
 *     data context (tag base + k), then sends an empty message on the ready context (tag base).
 *     A Start before the pairing message is in posts later, from the agent.
 *   data: sender partition k is one message (tag base + k) as soon as it is ready (MPI_Pready)
 *     and this round's ready message is in; a round of the send side is over when every
 *     partition has gone.
 *
 * The base is a range of tags [base, base + partitions) that no other live partitioned send of
 * this process holds, and a data message is named by (sender, tag): two pairs with the same
 * peer, tag and communicator never exchange data crosswise.  A range is taken again only after
 * its request was freed; the receive side of a new pair posts its data receives only after its
 * pairing message arrived, which came after every data message the old pair sent (the device
 * keeps a peer's order), and those had their receives posted before (the ready message), so
 * none is left to meet the new receives.  Data never lands before the receive side started.
 *
 * Costs: one message per sender partition and one ready message per round, and a receive per
 * sender partition posted at each start.  Parrived sees a partition as soon as the sender
 * partitions that cover its bytes are in, which with equal partition counts is as soon as the
 * partition itself is in.  A receive buffer whose type does not split at a sender partition's
 * bytes (a noncontiguous type whose elements straddle them) receives that partition into a
 * temporary buffer and unpacks it. */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* A sender partition in the current round. */
enum { MPIR_PART_IDLE, MPIR_PART_READY, MPIR_PART_SENT, MPIR_PART_LISTED };

/* ---- Data tag ranges of this process's live partitioned sends ---- */

typedef struct {
    int base, n;
} range_t;
static range_t *ranges; /* sorted by base, disjoint */
static int nranges, ranges_cap;

/* First fit in [0, MPIR_TAG_UB]: n tags (at least one, for the ready message). */
static int range_take(int n, int *base_p)
{
    if (n < 1)
        n = 1;
    long long next = 0;
    int i = 0;
    for (; i < nranges; i++) {
        if ((long long)ranges[i].base - next >= n)
            break;
        next = (long long)ranges[i].base + ranges[i].n;
    }
    if ((long long)MPIR_TAG_UB - next + 1 < n)
        return MPIR_Err_create(MPI_ERR_OTHER,
                               "no range of %d tags left for a partitioned send (%d are live)", n,
                               nranges);
    if (nranges == ranges_cap) {
        int cap = ranges_cap ? 2 * ranges_cap : 16;
        range_t *r = realloc(ranges, sizeof(*r) * cap);
        if (!r)
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for partitioned sends");
        ranges = r;
        ranges_cap = cap;
    }
    memmove(&ranges[i + 1], &ranges[i], sizeof(*ranges) * (nranges - i));
    ranges[i] = (range_t){(int)next, n};
    nranges++;
    *base_p = (int)next;
    return MPI_SUCCESS;
}

static void range_give(int base)
{
    for (int i = 0; i < nranges; i++) {
        if (ranges[i].base == base) {
            memmove(&ranges[i], &ranges[i + 1], sizeof(*ranges) * (nranges - i - 1));
            if (--nranges == 0) {
                free(ranges);
                ranges = NULL;
                ranges_cap = 0;
            }
            return;
        }
    }
}

/* ---- Rounds ---- */

/* Requests whose round waits for the agent: a send side whose ready message came with
 * partitions marked ready (they go from the agent, not from inside the device's completion),
 * a receive side started before its pairing message was in. */
static MPIR_Part *queue_head;

static void enqueue(MPIR_Part *p)
{
    if (p->queued)
        return;
    p->queued = 1;
    p->next_queued = queue_head;
    queue_head = p;
    MPIR_upper_work++;
}

/* One event of the round is over; at the last the request is complete. */
static void round_event_done(MPIR_Request *req)
{
    MPIR_Part *p = req->u.part;
    if (--p->outstanding > 0)
        return;
    if (p->is_recv)
        req->status.count_bytes_ = (MPI_Count)p->bytes_in;
    MPIDI_Request_complete_one(req);
}

/* An inner operation's end: it no longer names its request, which is returned. */
static MPIR_Request *inner_done(MPIR_Request *child)
{
    MPIR_Request *req = child->parent;
    child->parent = NULL;
    child->on_complete = NULL;
    return req;
}

/* Hands child to req: fn runs at its completion (now, if it is complete already). */
static void watch(MPIR_Request *req, MPIR_Request *child, void (*fn)(MPIR_Request *child))
{
    child->parent = req;
    if (MPIR_Request_is_complete(child))
        fn(child);
    else
        child->on_complete = fn;
}

static void partition_sent(MPIR_Request *child)
{
    MPIR_Request *req = inner_done(child);
    MPIR_Request_set_error(req, child->status.MPI_ERROR);
    MPIR_Request_release(child);
    round_event_done(req);
}

static void send_partition(MPIR_Request *req, int k)
{
    MPIR_Part *p = req->u.part;
    MPIR_Datatype *dt = MPIR_Datatype_get(p->type);
    const char *buf = (const char *)req->seg.origin + (MPI_Aint)k * p->count * dt->extent;
    MPIR_Request *child = NULL;
    p->send_state[k] = MPIR_PART_SENT;
    int err = MPID_Isend(buf, p->count, p->type, req->rank, p->send_base + k, req->comm,
                         MPIR_CONTEXT_PART_DATA, 0, &child);
    if (!child) {
        MPIR_Request_set_error(req, err);
        round_event_done(req);
        return;
    }
    watch(req, child, partition_sent);
}

static void ready_arrived(MPIR_Request *child)
{
    MPIR_Request *req = inner_done(child);
    MPIR_Part *p = req->u.part;
    MPIR_Request_set_error(req, child->status.MPI_ERROR);
    MPIR_Request_release(child);
    p->ready_in = 1;
    if (p->ready_waiting)
        enqueue(p);
    round_event_done(req);
}

static void send_waiting(MPIR_Request *req)
{
    MPIR_Part *p = req->u.part;
    for (int k = 0; k < p->partitions && p->ready_waiting; k++) {
        if (p->send_state[k] == MPIR_PART_READY) {
            p->ready_waiting--;
            send_partition(req, k);
        }
    }
}

/* Sender partition k's bytes of the receive buffer: [*first, *last). */
static void sender_bytes(const MPIR_Request *req, int k, size_t *first, size_t *last)
{
    const MPIR_Part *p = req->u.part;
    size_t spb = (size_t)p->init.part_bytes;
    *first = (size_t)k * spb;
    *last = *first + spb;
    if (*first > req->seg.size)
        *first = req->seg.size;
    if (*last > req->seg.size)
        *last = req->seg.size;
}

static void data_arrived(MPIR_Request *child)
{
    MPIR_Request *req = inner_done(child);
    MPIR_Part *p = req->u.part;
    MPIR_Request_set_error(req, child->status.MPI_ERROR);
    int k = child->tag - (int)p->init.tag_base;
    size_t n = (size_t)child->status.count_bytes_;
    if (child->tmpbuf) {
        size_t first, last;
        sender_bytes(req, k, &first, &last);
        if (n > last - first)
            n = last - first;
        if (n)
            MPIR_Segment_unpack(&req->seg, first, first + n, child->tmpbuf);
    }
    p->arrived[k] = 1;
    p->bytes_in += n;
    MPIR_Request_release(child);
    round_event_done(req);
}

/* Posts the receive of sender partition k: in place when the buffer's bytes there are one
 * piece or whole elements, else into a temporary buffer that data_arrived unpacks. */
static void post_partition(MPIR_Request *req, int k)
{
    MPIR_Part *p = req->u.part;
    size_t first, last;
    sender_bytes(req, k, &first, &last);
    size_t len = last - first;
    MPIR_Datatype *dt = MPIR_Datatype_get(p->type);
    void *buf = (void *)req->seg.origin, *tmp = NULL;
    MPI_Aint count = (MPI_Aint)len;
    MPI_Datatype type = MPI_BYTE;
    int tag = (int)p->init.tag_base + k, err;
    if (len && req->seg.is_contig) {
        buf = req->seg.buf + first;
    } else if (len && first % (size_t)dt->size == 0 && len % (size_t)dt->size == 0) {
        buf = (char *)buf + (MPI_Aint)(first / (size_t)dt->size) * dt->extent;
        count = (MPI_Aint)(len / (size_t)dt->size);
        type = p->type;
    } else if (len && !(buf = tmp = malloc(len))) {
        MPIR_Request_set_error(
            req,
            MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %zu bytes of partition %d", len, k));
        /* The message must still be taken, lest a later round's receive take it. */
        count = 0;
    }
    MPIR_Request *child = NULL;
    err = MPID_Irecv(buf, count, type, req->rank, tag, req->comm, MPIR_CONTEXT_PART_DATA, &child);
    if (!child) {
        free(tmp);
        MPIR_Request_set_error(req, err);
        round_event_done(req);
        return;
    }
    child->tmpbuf = tmp;
    watch(req, child, data_arrived);
}

/* The receive side's round, once the pairing message is in: a receive for every sender
 * partition, then the ready message, so that no data arrives before its receive. */
static void post_round(MPIR_Request *req)
{
    MPIR_Part *p = req->u.part;
    p->post_waiting = 0;
    if (p->init_err) {
        MPIR_Request_set_error(req, p->init_err);
        p->outstanding = 1;
        round_event_done(req);
        return;
    }
    int n = (int)p->init.partitions;
    if (n)
        memset(p->arrived, 0, (size_t)n);
    p->outstanding = n + 1; /* the 1 keeps the round open while posting */
    for (int k = 0; k < n; k++)
        post_partition(req, k);
    MPIR_Request *ready = NULL;
    int err = MPID_Isend(NULL, 0, MPI_BYTE, req->rank, (int)p->init.tag_base, req->comm,
                         MPIR_CONTEXT_PART_READY, 0, &ready);
    if (ready)
        MPIR_Request_release(ready); /* nothing waits for it: the device finishes it */
    else
        MPIR_Request_set_error(req, err);
    round_event_done(req);
}

int MPIR_Part_progress(void)
{
    int made = 0;
    while (queue_head) {
        MPIR_Part *p = queue_head;
        queue_head = p->next_queued;
        p->queued = 0;
        MPIR_upper_work--;
        made = 1;
        if (p->is_recv)
            post_round(p->req);
        else
            send_waiting(p->req);
    }
    return made;
}

void MPIR_Part_start(MPIR_Request *req)
{
    MPIR_Part *p = req->u.part;
    req->status.MPI_ERROR = MPI_SUCCESS;
    req->status.MPI_SOURCE = p->is_recv ? req->rank : MPI_ANY_SOURCE;
    req->status.MPI_TAG = p->is_recv ? req->tag : MPI_ANY_TAG;
    req->status.count_bytes_ = 0;
    req->cancelled = 0;
    p->active = 1;
    if (!p->is_recv && p->partitions)
        memset(p->send_state, MPIR_PART_IDLE, (size_t)p->partitions);
    if (req->rank == MPI_PROC_NULL) {
        /* Complete at once, with a receive's status from MPI_PROC_NULL. */
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->status.MPI_TAG = MPI_ANY_TAG;
        return;
    }
    req->cc = 1;
    req->ref++; /* held by the round until it completes */
    if (p->is_recv) {
        p->bytes_in = 0;
        if (p->init_in)
            post_round(req);
        else
            p->post_waiting = 1; /* init_arrived queues it */
        return;
    }
    p->ready_in = 0;
    p->ready_waiting = 0;
    p->outstanding = p->partitions + 1; /* every partition, and the ready message */
    MPIR_Request *child = NULL;
    int err = MPID_Irecv(NULL, 0, MPI_BYTE, req->rank, p->send_base, req->comm,
                         MPIR_CONTEXT_PART_READY, &child);
    if (!child) {
        /* The ready message cannot come: the round fails, the partitions need not go. */
        MPIR_Request_set_error(req, err);
        p->outstanding = 1;
        round_event_done(req);
        return;
    }
    watch(req, child, ready_arrived);
}

/* ---- Pairing ---- */

static void init_sent(MPIR_Request *child)
{
    MPIR_Request *req = inner_done(child);
    MPIR_Request_release(child);
    MPIR_Request_release(req); /* the reference the pairing held */
}

static void init_arrived(MPIR_Request *child)
{
    MPIR_Request *req = inner_done(child);
    MPIR_Part *p = req->u.part;
    int err = child->status.MPI_ERROR;
    if (!err && child->status.count_bytes_ != (MPI_Count)sizeof(p->init))
        err = MPIR_Err_create(MPI_ERR_INTERN, "a partitioned pairing message of %lld bytes",
                              (long long)child->status.count_bytes_);
    MPIR_Request_release(child);
    if (!err && p->init.partitions > 0 && !(p->arrived = malloc((size_t)p->init.partitions)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %lld partitions",
                              (long long)p->init.partitions);
    p->init_err = err;
    p->init_in = 1;
    if (p->post_waiting)
        enqueue(p);
    MPIR_Request_release(req); /* the reference the pairing held */
}

static void part_release(MPIR_Request *req)
{
    MPIR_Part *p = req->u.part;
    if (!p)
        return;
    if (p->send_base >= 0)
        range_give(p->send_base);
    free(p->send_state);
    free(p->arrived);
    free(p);
    req->u.part = NULL;
}

static int part_init(const char *fname, const void *buf, int partitions, MPI_Count count,
                     MPI_Datatype type, int rank, int tag, MPI_Comm comm, MPI_Info info,
                     int is_recv, MPI_Request *request)
{
    MPIR_Comm *c;
    MPIR_Request *req = NULL;
    MPIR_Part *p = NULL;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && partitions < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "Negative number of partitions %d", partitions);
    if (!err && count < 0)
        err = MPIR_Err_create(MPI_ERR_COUNT, "Negative count %lld", (long long)count);
    if (!err && is_recv && rank == MPI_ANY_SOURCE)
        err = MPIR_Err_create(MPI_ERR_RANK,
                              "MPI_ANY_SOURCE in %s (MPI-4.0 sec. 4.2.1 forbids "
                              "it)",
                              fname);
    if (!err && is_recv && tag == MPI_ANY_TAG)
        err = MPIR_Err_create(MPI_ERR_TAG, "MPI_ANY_TAG in %s (MPI-4.0 sec. 4.2.1 forbids it)",
                              fname);
    if (!err)
        err = MPIR_Check_comm_type(type);
    /* partitions * count elements as one buffer: the product, and its bytes, must fit. */
    MPI_Aint size = err ? 1 : MPIR_Datatype_get(type)->size;
    if (!err && count > 0 && partitions > (MPI_Count)PTRDIFF_MAX / count / (size ? size : 1))
        err = MPIR_Err_create(MPI_ERR_COUNT, "%d partitions of %lld elements do not fit in memory",
                              partitions, (long long)count);
    MPI_Aint total = err ? 0 : (MPI_Aint)partitions * (MPI_Aint)count;
    if (!err)
        err = MPIR_Check_pt2pt(buf, total, type, rank, tag, c, is_recv);
    if (!err)
        err = MPIR_Check_info_or_null(info);
    if (!err && !request)
        err = MPIR_Err_create(MPI_ERR_ARG, "request is NULL");
    if (!err && !(p = calloc(1, sizeof(*p))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory in %s", fname);
    if (!err && !(req = MPIR_Request_create(MPIR_REQ_PART)))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of requests in %s", fname);
    if (err) {
        free(p);
        return MPIR_Err_return(c, fname, err);
    }
    /* Inactive: nothing to wait for, and only the user's handle refers to it. */
    req->cc = 0;
    req->ref = 1;
    req->comm = c;
    c->ref++;
    MPIR_Segment_init(&req->seg, buf, total, type);
    MPIR_Datatype_add_ref(req->seg.dt);
    req->rank = rank;
    req->tag = tag;
    req->u.part = p;
    req->on_release = part_release;
    p->req = req;
    p->is_recv = is_recv;
    p->partitions = partitions;
    p->count = (MPI_Aint)count;
    p->type = type;
    p->part_bytes = (size_t)count * (size_t)size;
    p->send_base = -1; /* no range of tags to give back yet */
    if (!is_recv && partitions > 0 && !(p->send_state = calloc((size_t)partitions, 1))) {
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d partitions", partitions);
        goto fail;
    }
    if (rank == MPI_PROC_NULL)
        goto done;
    MPIR_Request *child = NULL;
    if (is_recv) {
        err = MPID_Irecv(&p->init, sizeof(p->init), MPI_BYTE, rank, tag, c, MPIR_CONTEXT_PART_INIT,
                         &child);
    } else {
        err = range_take(partitions, &p->send_base);
        if (err)
            goto fail;
        p->init.tag_base = p->send_base;
        p->init.partitions = partitions;
        p->init.part_bytes = (int64_t)p->part_bytes;
        err = MPID_Isend(&p->init, sizeof(p->init), MPI_BYTE, rank, tag, c, MPIR_CONTEXT_PART_INIT,
                         0, &child);
    }
    if (!child)
        goto fail;
    /* The pairing holds a reference: its message (or buffer) lives in p, which must outlive a
     * free of the request until the device is done with it. */
    req->ref++;
    watch(req, child, is_recv ? init_arrived : init_sent);
done:
    *request = req->handle;
    return MPI_SUCCESS;
fail:
    MPIR_Request_release(req);
    return MPIR_Err_return(c, fname, err);
}

#pragma weak MPI_Psend_init = PMPI_Psend_init
int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Psend_init");
    return part_init("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, info, 0,
                     request);
}

#pragma weak MPI_Precv_init = PMPI_Precv_init
int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    MPIR_CHECK_INIT("MPI_Precv_init");
    return part_init("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, info, 1,
                     request);
}

/* ---- Pready, Parrived ---- */

/* The partitioned request of handle, of the side wanted (is_recv), active. */
static int check_part(MPI_Request handle, int is_recv, MPIR_Request **req_p)
{
    MPIR_Request *req = MPIR_Request_get(handle);
    *req_p = NULL;
    if (!req || req->kind != MPIR_REQ_PART || req->u.part->is_recv != is_recv)
        return MPIR_Err_create(MPI_ERR_REQUEST, "Request %#x is not a partitioned %s request",
                               (unsigned)handle, is_recv ? "receive" : "send");
    *req_p = req;
    return MPI_SUCCESS;
}

static int check_partition(const MPIR_Part *p, int partition)
{
    if (partition < 0 || partition >= p->partitions)
        return MPIR_Err_create(MPI_ERR_ARG, "Partition %d out of range: the request has %d",
                               partition, p->partitions);
    return MPI_SUCCESS;
}

/* Marks partitions ready: list[0..n) if list, else low..low+n-1.  All are checked before any is
 * marked, so an error marks none. */
static int pready(const char *fname, int low, int n, const int *list, MPI_Request handle)
{
    MPIR_Request *req;
    int err = check_part(handle, 0, &req);
    MPIR_Part *p = req ? req->u.part : NULL;
    if (!err && !p->active)
        err = MPIR_Err_create(MPI_ERR_REQUEST,
                              "Partitioned send request %#x is not active "
                              "(MPI_Start it first)",
                              (unsigned)handle);
    int i = 0;
    for (; i < n && !err; i++) {
        int k = list ? list[i] : low + i;
        err = check_partition(p, k);
        if (!err && p->send_state[k] != MPIR_PART_IDLE)
            err = MPIR_Err_create(MPI_ERR_ARG, "Partition %d is ready already in this round%s", k,
                                  p->send_state[k] == MPIR_PART_LISTED ? " (listed twice)" : "");
        if (!err)
            p->send_state[k] = MPIR_PART_LISTED;
    }
    for (int j = 0; j < i; j++) {
        int k = list ? list[j] : low + j;
        /* (The refused one may be out of range.) */
        if (k < 0 || k >= p->partitions || p->send_state[k] != MPIR_PART_LISTED)
            continue;
        p->send_state[k] = err ? MPIR_PART_IDLE : MPIR_PART_READY;
        if (err || req->rank == MPI_PROC_NULL)
            continue;
        if (p->ready_in) {
            send_partition(req, k);
        } else {
            p->ready_waiting++;
        }
    }
    if (err)
        return MPIR_Err_return(req ? req->comm : NULL, fname, err);
    return MPI_SUCCESS;
}

#pragma weak MPI_Pready = PMPI_Pready
int PMPI_Pready(int partition, MPI_Request request)
{
    MPIR_CHECK_INIT("MPI_Pready");
    return pready("MPI_Pready", partition, 1, NULL, request);
}

#pragma weak MPI_Pready_range = PMPI_Pready_range
int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    MPIR_CHECK_INIT("MPI_Pready_range");
    if (partition_low > partition_high) {
        MPIR_Request *req = MPIR_Request_get(request);
        return MPIR_Err_return(req ? req->comm : NULL, "MPI_Pready_range",
                               MPIR_Err_create(MPI_ERR_ARG, "partition_low %d > partition_high %d",
                                               partition_low, partition_high));
    }
    /* The count as a long long: low -5, high INT_MAX does not overflow into a small range. */
    long long n = (long long)partition_high - partition_low + 1;
    if (n > INT_MAX)
        n = INT_MAX;
    return pready("MPI_Pready_range", partition_low, (int)n, NULL, request);
}

#pragma weak MPI_Pready_list = PMPI_Pready_list
int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    MPIR_CHECK_INIT("MPI_Pready_list");
    int err = MPI_SUCCESS;
    if (length < 0)
        err = MPIR_Err_create(MPI_ERR_ARG, "Negative length %d", length);
    else if (length > 0 && !array_of_partitions)
        err = MPIR_Err_create(MPI_ERR_ARG, "array_of_partitions is NULL");
    if (err) {
        MPIR_Request *req = MPIR_Request_get(request);
        return MPIR_Err_return(req ? req->comm : NULL, "MPI_Pready_list", err);
    }
    return pready("MPI_Pready_list", 0, length, array_of_partitions, request);
}

/* Whether every sender partition covering receive partition k's bytes is in. */
static int partition_in(const MPIR_Request *req, int k)
{
    const MPIR_Part *p = req->u.part;
    if (MPIR_Request_is_complete(req))
        return 1;
    if (!p->init_in || p->post_waiting || p->init.part_bytes <= 0 || p->part_bytes == 0)
        return 0;
    size_t spb = (size_t)p->init.part_bytes, first = (size_t)k * p->part_bytes;
    size_t last = first + p->part_bytes; /* exclusive */
    size_t sbytes = spb * (size_t)p->init.partitions;
    if (first >= sbytes)
        return 0; /* beyond what the sender sends: in when the round is over */
    if (last > sbytes)
        last = sbytes;
    for (size_t j = first / spb; j <= (last - 1) / spb; j++)
        if (!p->arrived[j])
            return 0;
    return 1;
}

#pragma weak MPI_Parrived = PMPI_Parrived
int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    MPIR_CHECK_INIT("MPI_Parrived");
    MPIR_Request *req = NULL;
    int err = flag ? MPI_SUCCESS : MPIR_Err_create(MPI_ERR_ARG, "flag is NULL");
    if (!err && request == MPI_REQUEST_NULL) {
        /* MPI-4.0 sec. 4.2.2: a null or inactive request has arrived. */
        *flag = 1;
        return MPI_SUCCESS;
    }
    if (!err)
        err = check_part(request, 1, &req);
    if (!err)
        err = check_partition(req->u.part, partition);
    if (err)
        return MPIR_Err_return(req ? req->comm : NULL, "MPI_Parrived", err);
    if (!req->u.part->active) {
        *flag = 1;
        return MPI_SUCCESS;
    }
    /* Each call moves the agent when the partition is not in yet: a loop of Parrived alone
     * must see it arrive. */
    if (!partition_in(req, partition))
        MPID_Progress_poll();
    *flag = partition_in(req, partition);
    return MPI_SUCCESS;
}
