/* coll_gather.c: Gather, Scatter, Allgather, Alltoall and their v forms, over point-to-point, on
 * intra- and intercommunicators.
 *
 * Simple and correct rather than fast: every transfer is one nonblocking
 * message on the collective context, all posted at once and waited for
 * together, so no ordering between ranks can deadlock.  On an intercommunicator the data goes
 * from one group to the other, still one message per pair (doc/api.md). */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* Copies count elements of one typed buffer into another (the local part
 * of a collective), through a packed copy when the layouts differ. */
int MPIR_Local_copy(const void *src, MPI_Aint scount, MPI_Datatype stype, void *dst,
                    MPI_Aint rcount, MPI_Datatype rtype)
{
    MPIR_Segment s, d;
    MPIR_Segment_init(&s, src, scount, stype);
    MPIR_Segment_init(&d, dst, rcount, rtype);
    if (s.size > d.size)
        return MPIR_Err_create(MPI_ERR_TRUNCATE, "%zu bytes do not fit a buffer of %zu bytes",
                               s.size, d.size);
    char *tmp = malloc(s.size ? s.size : 1);
    if (!tmp)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory copying %zu bytes", s.size);
    MPIR_Segment_pack(&s, 0, s.size, tmp);
    MPIR_Segment_unpack(&d, 0, s.size, tmp);
    free(tmp);
    return MPI_SUCCESS;
}

static char *at(const void *buf, MPI_Aint index, MPI_Datatype type)
{
    return (char *)buf + index * MPIR_Datatype_get(type)->extent;
}

/* Every rank's block goes to every rank; displs NULL means rank r's block starts at
 * r * recvcount.  sendbuf MPI_IN_PLACE: the caller's block is in recvbuf already. */
static void allgatherv_build(MPIR_Sched_t *s, const void *sendbuf, MPI_Aint sendcount,
                             MPI_Datatype sendtype, void *recvbuf, const MPI_Aint *counts,
                             const MPI_Aint *displs, MPI_Aint recvcount, MPI_Datatype recvtype,
                             const MPIR_Comm *comm)
{
    int me = comm->rank;
    MPI_Aint my_n = counts ? counts[me] : recvcount, my_d = displs ? displs[me] : me * recvcount;
    for (int r = 0; r < comm->size; r++) {
        MPI_Aint n = counts ? counts[r] : recvcount, d = displs ? displs[r] : r * recvcount;
        if (r != me)
            MPIR_Sched_recv(s, at(recvbuf, d, recvtype), n, recvtype, r);
    }
    const void *src = sendbuf;
    MPI_Aint scount = sendcount;
    MPI_Datatype stype = sendtype;
    if (sendbuf == MPI_IN_PLACE) {
        src = at(recvbuf, my_d, recvtype);
        scount = my_n;
        stype = recvtype;
    }
    for (int r = 0; r < comm->size; r++)
        if (r != me)
            MPIR_Sched_send(s, src, scount, stype, r);
    if (sendbuf != MPI_IN_PLACE)
        MPIR_Sched_copy(s, sendbuf, sendcount, sendtype, at(recvbuf, my_d, recvtype), my_n,
                        recvtype);
}

int MPIR_Allgather_impl(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, MPIR_Comm *comm)
{
    MPIR_Sched_t *s;
    int err = MPIR_Sched_create(comm, MPIR_COLL_BLOCKING, MPIR_TAG_ALLGATHER, &s);
    if (err)
        return err;
    allgatherv_build(s, sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype,
                     comm);
    return MPIR_Sched_finish(s, NULL);
}

static void gatherv_build(MPIR_Sched_t *s, const void *sendbuf, MPI_Aint sendcount,
                          MPI_Datatype sendtype, void *recvbuf, const MPI_Aint *counts,
                          const MPI_Aint *displs, MPI_Aint recvcount, MPI_Datatype recvtype,
                          int root, const MPIR_Comm *comm)
{
    if (comm->rank != root) {
        MPIR_Sched_send(s, sendbuf, sendcount, sendtype, root);
        return;
    }
    for (int r = 0; r < comm->size; r++) {
        MPI_Aint n = counts ? counts[r] : recvcount, d = displs ? displs[r] : r * recvcount;
        if (r != root)
            MPIR_Sched_recv(s, at(recvbuf, d, recvtype), n, recvtype, r);
        else if (sendbuf != MPI_IN_PLACE)
            MPIR_Sched_copy(s, sendbuf, sendcount, sendtype, at(recvbuf, d, recvtype), n, recvtype);
    }
}

void MPIR_Scatterv_build(MPIR_Sched_t *s, const void *sendbuf, const MPI_Aint *counts,
                         const MPI_Aint *displs, MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                         const MPIR_Comm *comm)
{
    if (comm->rank != root) {
        MPIR_Sched_recv(s, recvbuf, recvcount, recvtype, root);
        return;
    }
    for (int r = 0; r < comm->size; r++) {
        MPI_Aint n = counts ? counts[r] : sendcount, d = displs ? displs[r] : r * sendcount;
        if (r != root)
            MPIR_Sched_send(s, at(sendbuf, d, sendtype), n, sendtype, r);
        else if (recvbuf != MPI_IN_PLACE)
            MPIR_Sched_copy(s, at(sendbuf, d, sendtype), n, sendtype, recvbuf, recvcount, recvtype);
    }
}

/* Intercommunicator gather(v): the root (MPI_ROOT) receives block r from rank r of the other
 * group, each of whose ranks sends it its block; the root's group's other ranks (MPI_PROC_NULL)
 * do nothing. */
static void inter_gatherv_build(MPIR_Sched_t *s, const void *sendbuf, MPI_Aint sendcount,
                                MPI_Datatype sendtype, void *recvbuf, const MPI_Aint *counts,
                                const MPI_Aint *displs, MPI_Aint recvcount, MPI_Datatype recvtype,
                                int root, const MPIR_Comm *comm)
{
    if (root == MPI_ROOT) {
        for (int r = 0; r < comm->remote_size; r++)
            MPIR_Sched_recv(s, at(recvbuf, displs ? displs[r] : r * recvcount, recvtype),
                            counts ? counts[r] : recvcount, recvtype, r);
    } else if (root != MPI_PROC_NULL) {
        MPIR_Sched_send(s, sendbuf, sendcount, sendtype, root);
    }
}

/* Intercommunicator scatter(v): the root (MPI_ROOT) sends block r to rank r of the other group;
 * the root's group's other ranks (MPI_PROC_NULL) do nothing. */
static void inter_scatterv_build(MPIR_Sched_t *s, const void *sendbuf, const MPI_Aint *counts,
                                 const MPI_Aint *displs, MPI_Aint sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                                 const MPIR_Comm *comm)
{
    if (root == MPI_ROOT) {
        for (int r = 0; r < comm->remote_size; r++)
            MPIR_Sched_send(s, at(sendbuf, displs ? displs[r] : r * sendcount, sendtype),
                            counts ? counts[r] : sendcount, sendtype, r);
    } else if (root != MPI_PROC_NULL) {
        MPIR_Sched_recv(s, recvbuf, recvcount, recvtype, root);
    }
}

/* Intercommunicator allgather(v): each rank receives the other group's blocks (block r from its
 * rank r) and sends its own block to every rank of the other group: one message per pair across
 * the groups, as the intracommunicator form sends one per pair.  (A gather to each leader, a
 * swap and a broadcast would send fewer messages, but each block would take three hops or more.) */
static void inter_allgatherv_build(MPIR_Sched_t *s, const void *sendbuf, MPI_Aint sendcount,
                                   MPI_Datatype sendtype, void *recvbuf, const MPI_Aint *counts,
                                   const MPI_Aint *displs, MPI_Aint recvcount,
                                   MPI_Datatype recvtype, const MPIR_Comm *comm)
{
    for (int r = 0; r < comm->remote_size; r++)
        MPIR_Sched_recv(s, at(recvbuf, displs ? displs[r] : r * recvcount, recvtype),
                        counts ? counts[r] : recvcount, recvtype, r);
    for (int r = 0; r < comm->remote_size; r++)
        MPIR_Sched_send(s, sendbuf, sendcount, sendtype, r);
}

/* MPI_IN_PLACE for the all-to-alls: the send data is a copy of the first bytes bytes of
 * recvbuf, taken before any receive lands there. */
static void *in_place_copy(MPIR_Sched_t *s, void *recvbuf, MPI_Aint bytes)
{
    void *copy = MPIR_Sched_tmp(s, bytes, MPI_BYTE);
    MPIR_Sched_copy(s, recvbuf, bytes, MPI_BYTE, copy, bytes, MPI_BYTE);
    return copy;
}

/* sdispls/rdispls in elements of the types (Alltoallv); NULL: block r at r * count.  On an
 * intercommunicator (without MPI_IN_PLACE, refused there) the same exchange with each rank of the
 * remote group. */
static void alltoallv_build(MPIR_Sched_t *s, const void *sendbuf, const MPI_Aint *scounts,
                            const MPI_Aint *sdispls, MPI_Aint sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                            MPI_Aint recvcount, MPI_Datatype recvtype, const MPIR_Comm *comm)
{
    int n = MPIR_Comm_peer_size(comm);
    if (sendbuf == MPI_IN_PLACE) {
        MPI_Aint extent = 0;
        for (int r = 0; r < n; r++) {
            MPI_Aint end =
                (rdispls ? rdispls[r] : r * recvcount) + (rcounts ? rcounts[r] : recvcount);
            if (end > extent)
                extent = end;
        }
        sendbuf = in_place_copy(s, recvbuf, extent * MPIR_Datatype_get(recvtype)->extent);
        scounts = rcounts;
        sdispls = rdispls;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    for (int r = 0; r < n; r++)
        MPIR_Sched_recv(s, at(recvbuf, rdispls ? rdispls[r] : r * recvcount, recvtype),
                        rcounts ? rcounts[r] : recvcount, recvtype, r);
    for (int r = 0; r < n; r++)
        MPIR_Sched_send(s, at(sendbuf, sdispls ? sdispls[r] : r * sendcount, sendtype),
                        scounts ? scounts[r] : sendcount, sendtype, r);
}

/* Alltoallw: per-peer counts and datatypes, displacements in bytes (on an intercommunicator, as
 * alltoallv_build). */
static void alltoallw_build(MPIR_Sched_t *s, const void *sendbuf, const MPI_Aint *scounts,
                            const MPI_Aint *sdispls, const MPI_Datatype *stypes, void *recvbuf,
                            const MPI_Aint *rcounts, const MPI_Aint *rdispls,
                            const MPI_Datatype *rtypes, const MPIR_Comm *comm)
{
    int n = MPIR_Comm_peer_size(comm);
    if (sendbuf == MPI_IN_PLACE) {
        MPI_Aint end = 0;
        for (int r = 0; r < n; r++) {
            MPIR_Datatype *dt = MPIR_Datatype_get(rtypes[r]);
            MPI_Aint e =
                rcounts[r] > 0 ? rdispls[r] + (rcounts[r] - 1) * dt->extent + dt->true_ub : 0;
            end = e > end ? e : end;
        }
        sendbuf = in_place_copy(s, recvbuf, end);
        scounts = rcounts;
        sdispls = rdispls;
        stypes = rtypes;
    }
    for (int r = 0; r < n; r++)
        MPIR_Sched_recv(s, (char *)recvbuf + rdispls[r], rcounts[r], rtypes[r], r);
    for (int r = 0; r < n; r++)
        MPIR_Sched_send(s, (const char *)sendbuf + sdispls[r], scounts[r], stypes[r], r);
}

/* ---- Argument checks and the calls ---- */

static int check_buf(const void *buf, MPI_Aint count, MPI_Datatype type)
{
    int err;
    if (buf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Check_comm_type(type)))
        return err;
    return MPIR_Check_typed_buf(buf, count, type);
}

/* A receive buffer: MPI_IN_PLACE stands only for a send buffer (or Scatter's receive buffer at
 * the root, which its caller allows). */
static int check_rbuf(const void *buf, MPI_Aint count, MPI_Datatype type)
{
    if (buf == MPI_IN_PLACE)
        return MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE as the receive buffer (it stands "
                                               "for the send buffer only)");
    return check_buf(buf, count, type);
}

/* The send and receive buffers of one rank must not be the same memory (MPI's rule for OUT
 * arguments); the way to say "my data is in the receive buffer already" is MPI_IN_PLACE.  An
 * erroneous call MPICH refuses too: caught where the two are the same address and data is sent. */
static int check_alias(const void *sendbuf, const void *recvbuf, int sends)
{
    if (sends && sendbuf && sendbuf != MPI_IN_PLACE && sendbuf == recvbuf)
        return MPIR_Err_create(MPI_ERR_BUFFER, "sendbuf and recvbuf are the same buffer "
                                               "(use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

/* Whether any of n counts is positive (the data a v-form sends or receives). */
static int any_positive(const MPI_Aint *counts, int n)
{
    for (int r = 0; counts && r < n; r++)
        if (counts[r] > 0)
            return 1;
    return 0;
}

typedef enum {
    DATA_GATHER,
    DATA_GATHERV,
    DATA_SCATTER,
    DATA_SCATTERV,
    DATA_ALLGATHER,
    DATA_ALLGATHERV,
    DATA_ALLTOALL,
    DATA_ALLTOALLV,
    DATA_ALLTOALLW,
} data_kind_t;

/* The arguments of one data-moving call, from its int or its _c form; the v forms' arrays are
 * read while building. */
typedef struct {
    const void *sendbuf;
    MPI_Aint sendcount;
    MPIR_Array_t sendcounts, sdispls;
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    MPI_Aint recvcount;
    MPIR_Array_t recvcounts, rdispls;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
    int root;
} data_args_t;

/* The v and w forms: counts[r] elements at displs[r] for each rank r, as the MPI_Aint arrays the
 * builders take. */
typedef struct {
    MPI_Aint *n, *d;
} blocks_t;

static void blocks_free(blocks_t *b)
{
    free(b->n);
    free(b->d);
}

/* The caller's int or MPI_Count counts and int or MPI_Aint displacements, n of each, widened
 * into b: the one place where the int and _c forms' arrays become the same. */
static int widen_blocks(MPIR_Array_t counts, MPIR_Array_t displs, int n, blocks_t *b)
{
    b->n = malloc(sizeof(MPI_Aint) * (n > 0 ? n : 1));
    b->d = malloc(sizeof(MPI_Aint) * (n > 0 ? n : 1));
    if (!b->n || !b->d)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d counts and displacements", n);
    for (int i = 0; i < n; i++) {
        b->n[i] = MPIR_Array_at(counts, i);
        b->d[i] = MPIR_Array_at(displs, i);
    }
    return MPI_SUCCESS;
}

typedef enum { SIDE_SEND, SIDE_RECV } side_t;

/* The blocks of a v-form's send or receive side, one per rank point-to-point names (the remote
 * group's on an intercommunicator), each checked as that side's buffers are (a receive side
 * refuses MPI_IN_PLACE). */
static int blocks(side_t side, MPIR_Array_t counts, MPIR_Array_t displs, const void *buf,
                  MPI_Datatype type, const MPIR_Comm *c, blocks_t *b)
{
    int (*check)(const void *, MPI_Aint, MPI_Datatype) = side == SIDE_RECV ? check_rbuf : check_buf;
    if (!counts.base || !displs.base)
        return MPIR_Err_create(MPI_ERR_ARG, "%s counts or displs is NULL",
                               side == SIDE_RECV ? "recv" : "send");
    int n = MPIR_Comm_peer_size(c);
    int err = widen_blocks(counts, displs, n, b);
    for (int r = 0; !err && r < n; r++)
        err = check(buf, b->n[r], type);
    return err;
}

/* Allgather's and Allgatherv's buffers, on both kinds of communicator; rb gets Allgatherv's
 * receive blocks. */
static int allgather_checks(data_kind_t kind, const data_args_t *a, const MPIR_Comm *c,
                            blocks_t *rb)
{
    int err = check_buf(a->sendbuf, a->sendcount, a->sendtype);
    if (!err && kind == DATA_ALLGATHER)
        err = check_rbuf(a->recvbuf, a->recvcount, a->recvtype);
    if (!err && kind == DATA_ALLGATHERV)
        err = blocks(SIDE_RECV, a->recvcounts, a->rdispls, a->recvbuf, a->recvtype, c, rb);
    return err ? err : check_alias(a->sendbuf, a->recvbuf, a->sendcount > 0);
}

static int data_build(data_kind_t kind, const data_args_t *a, const MPIR_Comm *c, MPIR_Sched_t *s)
{
    int err = MPI_SUCCESS, root = a->root, is_root = c->rank == a->root;
    blocks_t sb = {0}, rb = {0};
    switch (kind) {
    case DATA_GATHER:
    case DATA_GATHERV:
        if (!(err = MPIR_Check_root(c, root)) && (a->sendbuf != MPI_IN_PLACE || !is_root))
            err = check_buf(a->sendbuf == MPI_IN_PLACE ? NULL : a->sendbuf, a->sendcount,
                            a->sendtype);
        if (!err && is_root && kind == DATA_GATHER)
            err = check_rbuf(a->recvbuf, a->recvcount, a->recvtype);
        if (!err && is_root && kind == DATA_GATHERV)
            err = blocks(SIDE_RECV, a->recvcounts, a->rdispls, a->recvbuf, a->recvtype, c, &rb);
        if (!err && is_root)
            err = check_alias(a->sendbuf, a->recvbuf, a->sendcount > 0);
        if (!err)
            gatherv_build(s, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, rb.n, rb.d,
                          a->recvcount, a->recvtype, root, c);
        break;
    case DATA_SCATTER:
    case DATA_SCATTERV:
        err = MPIR_Check_root(c, root);
        if (!err && is_root && kind == DATA_SCATTER)
            err = check_buf(a->sendbuf, a->sendcount, a->sendtype);
        if (!err && is_root && kind == DATA_SCATTERV)
            err = blocks(SIDE_SEND, a->sendcounts, a->sdispls, a->sendbuf, a->sendtype, c, &sb);
        if (!err && (a->recvbuf != MPI_IN_PLACE || !is_root))
            err = check_rbuf(a->recvbuf, a->recvcount, a->recvtype);
        /* recvbuf first: it is the root's side that may be MPI_IN_PLACE. */
        if (!err && is_root)
            err = check_alias(a->recvbuf, a->sendbuf, a->recvcount > 0);
        if (!err)
            MPIR_Scatterv_build(s, a->sendbuf, sb.n, sb.d, a->sendcount, a->sendtype, a->recvbuf,
                                a->recvcount, a->recvtype, root, c);
        break;
    case DATA_ALLGATHER:
    case DATA_ALLGATHERV:
        if (!(err = allgather_checks(kind, a, c, &rb)))
            allgatherv_build(s, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, rb.n, rb.d,
                             a->recvcount, a->recvtype, c);
        break;
    case DATA_ALLTOALL:
        if (!(err = check_buf(a->sendbuf, a->sendcount, a->sendtype)))
            err = check_rbuf(a->recvbuf, a->recvcount, a->recvtype);
        if (!err)
            err = check_alias(a->sendbuf, a->recvbuf, a->sendcount > 0);
        if (!err)
            alltoallv_build(s, a->sendbuf, NULL, NULL, a->sendcount, a->sendtype, a->recvbuf, NULL,
                            NULL, a->recvcount, a->recvtype, c);
        break;
    case DATA_ALLTOALLV:
        if (a->sendbuf != MPI_IN_PLACE)
            err = blocks(SIDE_SEND, a->sendcounts, a->sdispls, a->sendbuf, a->sendtype, c, &sb);
        if (!err)
            err = blocks(SIDE_RECV, a->recvcounts, a->rdispls, a->recvbuf, a->recvtype, c, &rb);
        if (!err)
            err = check_alias(a->sendbuf, a->recvbuf, any_positive(sb.n, MPIR_Comm_peer_size(c)));
        if (!err)
            alltoallv_build(s, a->sendbuf, sb.n, sb.d, 0, a->sendtype, a->recvbuf, rb.n, rb.d, 0,
                            a->recvtype, c);
        break;
    case DATA_ALLTOALLW: {
        int in_place = a->sendbuf == MPI_IN_PLACE, n = MPIR_Comm_peer_size(c);
        if ((!in_place && (!a->sendcounts.base || !a->sdispls.base || !a->sendtypes)) ||
            !a->recvcounts.base || !a->rdispls.base || !a->recvtypes)
            err = MPIR_Err_create(MPI_ERR_ARG, "a count, displacement or datatype array is NULL");
        if (!err && a->recvbuf == MPI_IN_PLACE)
            err = check_rbuf(a->recvbuf, 0, MPI_DATATYPE_NULL);
        if (!err && !in_place)
            err = widen_blocks(a->sendcounts, a->sdispls, n, &sb);
        if (!err)
            err = widen_blocks(a->recvcounts, a->rdispls, n, &rb);
        if (!err && !in_place)
            err = check_alias(a->sendbuf, a->recvbuf, any_positive(sb.n, n));
        for (int r = 0; !err && r < n; r++) {
            if (!in_place)
                err = check_buf((const char *)a->sendbuf + sb.d[r], sb.n[r], a->sendtypes[r]);
            if (!err)
                err = check_buf((char *)a->recvbuf + rb.d[r], rb.n[r], a->recvtypes[r]);
        }
        if (!err)
            alltoallw_build(s, a->sendbuf, sb.n, sb.d, a->sendtypes, a->recvbuf, rb.n, rb.d,
                            a->recvtypes, c);
        break;
    }
    }
    blocks_free(&sb);
    blocks_free(&rb);
    return err;
}

/* MPI_IN_PLACE is defined for intracommunicators only (MPI-4.1 sec. 6.5 to 6.8 give it in each
 * call's intracommunicator text): on an intercommunicator a buffer the call uses may not be it. */
static int check_not_in_place(const void *buf, const char *which)
{
    if (buf == MPI_IN_PLACE)
        return MPIR_Err_create(MPI_ERR_BUFFER,
                               "MPI_IN_PLACE as the %s buffer on an intercommunicator (it is "
                               "defined on intracommunicators only)",
                               which);
    return MPI_SUCCESS;
}

/* The intercommunicator forms (MPI-4.1 sec. 6.5 to 6.8): data goes from one group to the other,
 * and each array of counts, displacements or types has an entry per rank of the remote group.
 * The buffers a rank's role leaves unused are not looked at: the root's send buffer in Gather
 * and receive buffer in Scatter, every buffer of an MPI_PROC_NULL rank. */
static int inter_data_build(data_kind_t kind, const data_args_t *a, const MPIR_Comm *c,
                            MPIR_Sched_t *s)
{
    int err = MPI_SUCCESS, root = a->root;
    blocks_t sb = {0}, rb = {0};
    switch (kind) {
    case DATA_GATHER:
    case DATA_GATHERV:
        if ((err = MPIR_Check_root(c, root)) || root == MPI_PROC_NULL)
            break;
        if (root != MPI_ROOT && !(err = check_not_in_place(a->sendbuf, "send")))
            err = check_buf(a->sendbuf, a->sendcount, a->sendtype);
        if (root == MPI_ROOT && kind == DATA_GATHER)
            err = check_rbuf(a->recvbuf, a->recvcount, a->recvtype);
        if (root == MPI_ROOT && kind == DATA_GATHERV)
            err = blocks(SIDE_RECV, a->recvcounts, a->rdispls, a->recvbuf, a->recvtype, c, &rb);
        if (!err)
            inter_gatherv_build(s, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, rb.n, rb.d,
                                a->recvcount, a->recvtype, root, c);
        break;
    case DATA_SCATTER:
    case DATA_SCATTERV:
        if ((err = MPIR_Check_root(c, root)) || root == MPI_PROC_NULL)
            break;
        if (root == MPI_ROOT)
            err = check_not_in_place(a->sendbuf, "send");
        if (!err && root == MPI_ROOT && kind == DATA_SCATTER)
            err = check_buf(a->sendbuf, a->sendcount, a->sendtype);
        if (!err && root == MPI_ROOT && kind == DATA_SCATTERV)
            err = blocks(SIDE_SEND, a->sendcounts, a->sdispls, a->sendbuf, a->sendtype, c, &sb);
        if (root != MPI_ROOT)
            err = check_rbuf(a->recvbuf, a->recvcount, a->recvtype);
        if (!err)
            inter_scatterv_build(s, a->sendbuf, sb.n, sb.d, a->sendcount, a->sendtype, a->recvbuf,
                                 a->recvcount, a->recvtype, root, c);
        break;
    case DATA_ALLGATHER:
    case DATA_ALLGATHERV:
        if (!(err = check_not_in_place(a->sendbuf, "send")) &&
            !(err = allgather_checks(kind, a, c, &rb)))
            inter_allgatherv_build(s, a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, rb.n, rb.d,
                                   a->recvcount, a->recvtype, c);
        break;
    case DATA_ALLTOALL:
    case DATA_ALLTOALLV:
    case DATA_ALLTOALLW:
        /* Without MPI_IN_PLACE the all-to-alls are the same exchange on both kinds, with each
         * rank point-to-point names. */
        if (!(err = check_not_in_place(a->sendbuf, "send")))
            err = data_build(kind, a, c, s);
        break;
    }
    blocks_free(&sb);
    blocks_free(&rb);
    return err;
}

static const int data_tag[] = {
    [DATA_GATHER] = MPIR_TAG_GATHER,       [DATA_GATHERV] = MPIR_TAG_GATHER,
    [DATA_SCATTER] = MPIR_TAG_SCATTER,     [DATA_SCATTERV] = MPIR_TAG_SCATTER,
    [DATA_ALLGATHER] = MPIR_TAG_ALLGATHER, [DATA_ALLGATHERV] = MPIR_TAG_ALLGATHER,
    [DATA_ALLTOALL] = MPIR_TAG_ALLTOALL,   [DATA_ALLTOALLV] = MPIR_TAG_ALLTOALL,
    [DATA_ALLTOALLW] = MPIR_TAG_ALLTOALL,
};

static int data_call(const char *fname, data_kind_t kind, const data_args_t *a, MPI_Comm comm,
                     MPIR_Coll_mode_t mode, MPI_Info info, MPI_Request *request)
{
    MPIR_Comm *c;
    MPIR_Sched_t *s;
    int err = MPIR_Coll_begin(fname, comm, mode, info, request, &c);
    if (!err && !(err = MPIR_Sched_create(c, mode, data_tag[kind], &s))) {
        if ((err = c->is_inter ? inter_data_build(kind, a, c, s) : data_build(kind, a, c, s)))
            MPIR_Sched_fail(s, err);
        err = MPIR_Sched_finish(s, request);
    }
    return MPIR_Err_return(c, fname, err);
}

/* Each call in its int form and its _c form (MPI_Count counts, MPI_Aint displacements), one
 * ARGS for both. */
/* Gather and Scatter take the same fields. */
#define ROOTED_ARGS                                                                                \
    (.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,         \
     .recvcount = recvcount, .recvtype = recvtype, .root = root)
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Igather = PMPI_Igather
#pragma weak MPI_Gather_init = PMPI_Gather_init
MPIR_COLL_FORMS(Gather, Igather, data_call, DATA_GATHER, data_args_t, ROOTED_ARGS,
                const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
#pragma weak MPI_Gather_c = PMPI_Gather_c
#pragma weak MPI_Igather_c = PMPI_Igather_c
#pragma weak MPI_Gather_init_c = PMPI_Gather_init_c
MPIR_COLL_FORMS_C(Gather, Igather, data_call, DATA_GATHER, data_args_t, ROOTED_ARGS,
                  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)

#define GATHERV_ARGS                                                                               \
    (.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,         \
     .recvcounts = MPIR_ARRAY(recvcounts), .rdispls = MPIR_ARRAY(displs), .recvtype = recvtype,    \
     .root = root)
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Igatherv = PMPI_Igatherv
#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
MPIR_COLL_FORMS(Gatherv, Igatherv, data_call, DATA_GATHERV, data_args_t, GATHERV_ARGS,
                const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
#pragma weak MPI_Gatherv_c = PMPI_Gatherv_c
#pragma weak MPI_Igatherv_c = PMPI_Igatherv_c
#pragma weak MPI_Gatherv_init_c = PMPI_Gatherv_init_c
MPIR_COLL_FORMS_C(Gatherv, Igatherv, data_call, DATA_GATHERV, data_args_t, GATHERV_ARGS,
                  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm)

#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Iscatter = PMPI_Iscatter
#pragma weak MPI_Scatter_init = PMPI_Scatter_init
MPIR_COLL_FORMS(Scatter, Iscatter, data_call, DATA_SCATTER, data_args_t, ROOTED_ARGS,
                const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
#pragma weak MPI_Scatter_c = PMPI_Scatter_c
#pragma weak MPI_Iscatter_c = PMPI_Iscatter_c
#pragma weak MPI_Scatter_init_c = PMPI_Scatter_init_c
MPIR_COLL_FORMS_C(Scatter, Iscatter, data_call, DATA_SCATTER, data_args_t, ROOTED_ARGS,
                  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)

#define SCATTERV_ARGS                                                                              \
    (.sendbuf = sendbuf, .sendcounts = MPIR_ARRAY(sendcounts), .sdispls = MPIR_ARRAY(displs),      \
     .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = recvtype,       \
     .root = root)
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Iscatterv = PMPI_Iscatterv
#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
MPIR_COLL_FORMS(Scatterv, Iscatterv, data_call, DATA_SCATTERV, data_args_t, SCATTERV_ARGS,
                const void *sendbuf, const int sendcounts[], const int displs[],
                MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm)
#pragma weak MPI_Scatterv_c = PMPI_Scatterv_c
#pragma weak MPI_Iscatterv_c = PMPI_Iscatterv_c
#pragma weak MPI_Scatterv_init_c = PMPI_Scatterv_init_c
MPIR_COLL_FORMS_C(Scatterv, Iscatterv, data_call, DATA_SCATTERV, data_args_t, SCATTERV_ARGS,
                  const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                  MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)

/* Allgather and Alltoall take the same fields. */
#define BLOCK_ARGS                                                                                 \
    (.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,         \
     .recvcount = recvcount, .recvtype = recvtype)
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Iallgather = PMPI_Iallgather
#pragma weak MPI_Allgather_init = PMPI_Allgather_init
MPIR_COLL_FORMS(Allgather, Iallgather, data_call, DATA_ALLGATHER, data_args_t, BLOCK_ARGS,
                const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Allgather_c = PMPI_Allgather_c
#pragma weak MPI_Iallgather_c = PMPI_Iallgather_c
#pragma weak MPI_Allgather_init_c = PMPI_Allgather_init_c
MPIR_COLL_FORMS_C(Allgather, Iallgather, data_call, DATA_ALLGATHER, data_args_t, BLOCK_ARGS,
                  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)

#define ALLGATHERV_ARGS                                                                            \
    (.sendbuf = sendbuf, .sendcount = sendcount, .sendtype = sendtype, .recvbuf = recvbuf,         \
     .recvcounts = MPIR_ARRAY(recvcounts), .rdispls = MPIR_ARRAY(displs), .recvtype = recvtype)
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
MPIR_COLL_FORMS(Allgatherv, Iallgatherv, data_call, DATA_ALLGATHERV, data_args_t, ALLGATHERV_ARGS,
                const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Allgatherv_c = PMPI_Allgatherv_c
#pragma weak MPI_Iallgatherv_c = PMPI_Iallgatherv_c
#pragma weak MPI_Allgatherv_init_c = PMPI_Allgatherv_init_c
MPIR_COLL_FORMS_C(Allgatherv, Iallgatherv, data_call, DATA_ALLGATHERV, data_args_t, ALLGATHERV_ARGS,
                  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  MPI_Comm comm)

#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Ialltoall = PMPI_Ialltoall
#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
MPIR_COLL_FORMS(Alltoall, Ialltoall, data_call, DATA_ALLTOALL, data_args_t, BLOCK_ARGS,
                const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Alltoall_c = PMPI_Alltoall_c
#pragma weak MPI_Ialltoall_c = PMPI_Ialltoall_c
#pragma weak MPI_Alltoall_init_c = PMPI_Alltoall_init_c
MPIR_COLL_FORMS_C(Alltoall, Ialltoall, data_call, DATA_ALLTOALL, data_args_t, BLOCK_ARGS,
                  const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)

#define ALLTOALLV_ARGS                                                                             \
    (.sendbuf = sendbuf, .sendcounts = MPIR_ARRAY(sendcounts), .sdispls = MPIR_ARRAY(sdispls),     \
     .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = MPIR_ARRAY(recvcounts),               \
     .rdispls = MPIR_ARRAY(rdispls), .recvtype = recvtype)
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
MPIR_COLL_FORMS(Alltoallv, Ialltoallv, data_call, DATA_ALLTOALLV, data_args_t, ALLTOALLV_ARGS,
                const void *sendbuf, const int sendcounts[], const int sdispls[],
                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                MPI_Datatype recvtype, MPI_Comm comm)
#pragma weak MPI_Alltoallv_c = PMPI_Alltoallv_c
#pragma weak MPI_Ialltoallv_c = PMPI_Ialltoallv_c
#pragma weak MPI_Alltoallv_init_c = PMPI_Alltoallv_init_c
MPIR_COLL_FORMS_C(Alltoallv, Ialltoallv, data_call, DATA_ALLTOALLV, data_args_t, ALLTOALLV_ARGS,
                  const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                  const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)

#define ALLTOALLW_ARGS                                                                             \
    (.sendbuf = sendbuf, .sendcounts = MPIR_ARRAY(sendcounts), .sdispls = MPIR_ARRAY(sdispls),     \
     .sendtypes = sendtypes, .recvbuf = recvbuf, .recvcounts = MPIR_ARRAY(recvcounts),             \
     .rdispls = MPIR_ARRAY(rdispls), .recvtypes = recvtypes)
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
MPIR_COLL_FORMS(Alltoallw, Ialltoallw, data_call, DATA_ALLTOALLW, data_args_t, ALLTOALLW_ARGS,
                const void *sendbuf, const int sendcounts[], const int sdispls[],
                const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
#pragma weak MPI_Alltoallw_c = PMPI_Alltoallw_c
#pragma weak MPI_Ialltoallw_c = PMPI_Ialltoallw_c
#pragma weak MPI_Alltoallw_init_c = PMPI_Alltoallw_init_c
MPIR_COLL_FORMS_C(Alltoallw, Ialltoallw, data_call, DATA_ALLTOALLW, data_args_t, ALLTOALLW_ARGS,
                  const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
