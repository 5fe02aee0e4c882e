/* coll_gather.c: Gather, Scatter, Allgather, Alltoall and their v forms, over point-to-point.
 *
 * Simple and correct rather than fast: every transfer is one nonblocking
 * message on the collective context, all posted at once and waited for
 * together, so no ordering between ranks can deadlock.  Intracommunicators
 * only (doc/api.md). */
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* A batch of collective messages completed together. */
typedef struct {
    MPIR_Request **reqs;
    int n, err;
} batch_t;

static int batch_init(batch_t *b, int max)
{
    b->n = 0;
    b->err = MPI_SUCCESS;
    b->reqs = malloc(sizeof(*b->reqs) * (max > 0 ? max : 1));
    return b->reqs ? MPI_SUCCESS
                   : MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for %d requests", max);
}

static void batch_recv(batch_t *b, void *buf, MPI_Aint count, MPI_Datatype type, int src, int kind,
                       MPIR_Comm *comm)
{
    MPIR_Request *r = NULL;
    int err = MPID_Irecv(buf, count, type, src, comm->coll_tag_base + kind, comm,
                         MPIR_CONTEXT_COLL_OFFSET, &r);
    if (r)
        b->reqs[b->n++] = r;
    else if (!b->err)
        b->err = err;
}

static void batch_send(batch_t *b, const void *buf, MPI_Aint count, MPI_Datatype type, int dst,
                       int kind, MPIR_Comm *comm)
{
    MPIR_Request *r = NULL;
    int err = MPID_Isend(buf, count, type, dst, comm->coll_tag_base + kind, comm,
                         MPIR_CONTEXT_COLL_OFFSET, 0, &r);
    if (r)
        b->reqs[b->n++] = r;
    else if (!b->err)
        b->err = err;
}

static int batch_wait(batch_t *b)
{
    int err = b->err;
    for (int i = 0; i < b->n; i++) {
        MPIR_Request_wait(b->reqs[i]);
        if (!err)
            err = b->reqs[i]->status.MPI_ERROR;
        MPIR_Request_release(b->reqs[i]);
    }
    free(b->reqs);
    return err;
}

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

/* Every rank's block goes to every rank; displs NULL means rank r's block
 * starts at r * recvcount.  sendbuf MPI_IN_PLACE: the caller's block is in
 * recvbuf already. */
static int allgatherv(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Aint *counts, const MPI_Aint *displs, MPI_Aint recvcount,
                      MPI_Datatype recvtype, MPIR_Comm *comm)
{
    batch_t b;
    int err = batch_init(&b, 2 * comm->size);
    if (err)
        return err;
    for (int r = 0; r < comm->size; r++) {
        MPI_Aint n = counts ? counts[r] : recvcount, d = displs ? displs[r] : r * recvcount;
        if (r != comm->rank)
            batch_recv(&b, at(recvbuf, d, recvtype), n, recvtype, r, MPIR_TAG_ALLGATHER, comm);
    }
    const void *src = sendbuf;
    MPI_Aint scount = sendcount;
    MPI_Datatype stype = sendtype;
    if (sendbuf == MPI_IN_PLACE) {
        src = at(recvbuf, displs ? displs[comm->rank] : comm->rank * recvcount, recvtype);
        scount = counts ? counts[comm->rank] : recvcount;
        stype = recvtype;
    }
    for (int r = 0; r < comm->size; r++)
        if (r != comm->rank)
            batch_send(&b, src, scount, stype, r, MPIR_TAG_ALLGATHER, comm);
    if (sendbuf != MPI_IN_PLACE && !b.err)
        b.err = MPIR_Local_copy(
            sendbuf, sendcount, sendtype,
            at(recvbuf, displs ? displs[comm->rank] : comm->rank * recvcount, recvtype),
            counts ? counts[comm->rank] : recvcount, recvtype);
    return batch_wait(&b);
}

int MPIR_Allgather_impl(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                        void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype, MPIR_Comm *comm)
{
    return allgatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, comm);
}

static int gatherv(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Aint *counts, const MPI_Aint *displs, MPI_Aint recvcount,
                   MPI_Datatype recvtype, int root, MPIR_Comm *comm)
{
    if (comm->rank != root)
        return MPIR_Coll_send(sendbuf, sendcount, sendtype, root, MPIR_TAG_GATHER, comm);
    batch_t b;
    int err = batch_init(&b, comm->size);
    if (err)
        return err;
    for (int r = 0; r < comm->size; r++) {
        MPI_Aint n = counts ? counts[r] : recvcount, d = displs ? displs[r] : r * recvcount;
        if (r != root)
            batch_recv(&b, at(recvbuf, d, recvtype), n, recvtype, r, MPIR_TAG_GATHER, comm);
        else if (sendbuf != MPI_IN_PLACE && !b.err)
            b.err = MPIR_Local_copy(sendbuf, sendcount, sendtype, at(recvbuf, d, recvtype), n,
                                    recvtype);
    }
    return batch_wait(&b);
}

int MPIR_Scatterv_impl(const void *sendbuf, const MPI_Aint *counts, const MPI_Aint *displs,
                       MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                       MPI_Datatype recvtype, int root, MPIR_Comm *comm)
{
    if (comm->rank != root)
        return MPIR_Coll_recv(recvbuf, recvcount, recvtype, root, MPIR_TAG_SCATTER, comm);
    batch_t b;
    int err = batch_init(&b, comm->size);
    if (err)
        return err;
    for (int r = 0; r < comm->size; r++) {
        MPI_Aint n = counts ? counts[r] : sendcount, d = displs ? displs[r] : r * sendcount;
        if (r != root)
            batch_send(&b, at(sendbuf, d, sendtype), n, sendtype, r, MPIR_TAG_SCATTER, comm);
        else if (recvbuf != MPI_IN_PLACE && !b.err)
            b.err = MPIR_Local_copy(at(sendbuf, d, sendtype), n, sendtype, recvbuf, recvcount,
                                    recvtype);
    }
    return batch_wait(&b);
}

/* sdispls/rdispls in elements of the types (Alltoallv); NULL: block r at
 * r * count.  MPI_IN_PLACE: the send data is a copy of recvbuf. */
static int alltoallv(const void *sendbuf, const MPI_Aint *scounts, const MPI_Aint *sdispls,
                     MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const MPI_Aint *rcounts, const MPI_Aint *rdispls, MPI_Aint recvcount,
                     MPI_Datatype recvtype, MPIR_Comm *comm)
{
    void *copy = NULL;
    if (sendbuf == MPI_IN_PLACE) {
        MPI_Aint extent = 0;
        for (int r = 0; r < comm->size; r++) {
            MPI_Aint end =
                (rdispls ? rdispls[r] : r * recvcount) + (rcounts ? rcounts[r] : recvcount);
            if (end > extent)
                extent = end;
        }
        MPI_Aint bytes = extent * MPIR_Datatype_get(recvtype)->extent;
        copy = malloc(bytes > 0 ? bytes : 1);
        if (!copy)
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for MPI_IN_PLACE");
        memcpy(copy, recvbuf, bytes);
        sendbuf = copy;
        scounts = rcounts;
        sdispls = rdispls;
        sendcount = recvcount;
        sendtype = recvtype;
    }
    batch_t b;
    int err = batch_init(&b, 2 * comm->size);
    if (!err) {
        for (int r = 0; r < comm->size; r++)
            batch_recv(&b, at(recvbuf, rdispls ? rdispls[r] : r * recvcount, recvtype),
                       rcounts ? rcounts[r] : recvcount, recvtype, r, MPIR_TAG_ALLTOALL, comm);
        for (int r = 0; r < comm->size; r++)
            batch_send(&b, at(sendbuf, sdispls ? sdispls[r] : r * sendcount, sendtype),
                       scounts ? scounts[r] : sendcount, sendtype, r, MPIR_TAG_ALLTOALL, comm);
        err = batch_wait(&b);
    }
    free(copy);
    return err;
}

/* ---- Argument checks and the calls ---- */

static int check_coll(MPI_Comm comm, MPIR_Comm **c, const char *fname)
{
    int err = MPIR_Check_comm(comm, c);
    if (!err && (*c)->is_inter)
        err = MPIR_Err_create(MPI_ERR_COMM,
                              "%s on an intercommunicator is not implemented "
                              "(doc/api.md)",
                              fname);
    return err;
}

static int check_root(const MPIR_Comm *c, int root)
{
    return root >= 0 && root < c->size
               ? MPI_SUCCESS
               : MPIR_Err_create(MPI_ERR_ROOT, "Invalid root %d (communicator size %d)", root,
                                 c->size);
}

static int check_buf(const void *buf, MPI_Aint count, MPI_Datatype type)
{
    int err;
    if (buf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Check_comm_type(type)))
        return err;
    return MPIR_Check_typed_buf(buf, count, type);
}

/* int counts and displacements as MPI_Aint arrays */
static MPI_Aint *widen(const int *a, int n)
{
    MPI_Aint *w = malloc(sizeof(*w) * (n > 0 ? n : 1));
    if (w && a)
        for (int i = 0; i < n; i++)
            w[i] = a[i];
    return w;
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Gather");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Gather");
    if (!err)
        err = check_root(c, root);
    if (!err && (sendbuf != MPI_IN_PLACE || c->rank != root))
        err = check_buf(sendbuf == MPI_IN_PLACE ? NULL : sendbuf, sendcount, sendtype);
    if (!err && c->rank == root)
        err = check_buf(recvbuf, recvcount, recvtype);
    if (!err)
        err = gatherv(sendbuf, sendcount, sendtype, recvbuf, NULL, NULL, recvcount, recvtype, root,
                      c);
    return MPIR_Err_return(c, "MPI_Gather", err);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Gatherv");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Gatherv");
    if (!err)
        err = check_root(c, root);
    if (!err && (sendbuf != MPI_IN_PLACE || c->rank != root))
        err = check_buf(sendbuf == MPI_IN_PLACE ? NULL : sendbuf, sendcount, sendtype);
    if (!err && c->rank == root && (!recvcounts || !displs))
        err = MPIR_Err_create(MPI_ERR_ARG, "recvcounts or displs is NULL");
    MPI_Aint *n = NULL, *d = NULL;
    if (!err && c->rank == root) {
        n = widen(recvcounts, c->size);
        d = widen(displs, c->size);
        if (!n || !d)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory");
        for (int r = 0; !err && r < c->size; r++)
            err = check_buf(recvbuf, recvcounts[r], recvtype);
    }
    if (!err)
        err = gatherv(sendbuf, sendcount, sendtype, recvbuf, n, d, 0, recvtype, root, c);
    free(n);
    free(d);
    return MPIR_Err_return(c, "MPI_Gatherv", err);
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Scatter");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Scatter");
    if (!err)
        err = check_root(c, root);
    if (!err && c->rank == root)
        err = check_buf(sendbuf, sendcount, sendtype);
    if (!err && (recvbuf != MPI_IN_PLACE || c->rank != root))
        err = check_buf(recvbuf == MPI_IN_PLACE ? NULL : recvbuf, recvcount, recvtype);
    if (!err)
        err = MPIR_Scatterv_impl(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, recvcount,
                                 recvtype, root, c);
    return MPIR_Err_return(c, "MPI_Scatter", err);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Scatterv");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Scatterv");
    if (!err)
        err = check_root(c, root);
    if (!err && c->rank == root && (!sendcounts || !displs))
        err = MPIR_Err_create(MPI_ERR_ARG, "sendcounts or displs is NULL");
    MPI_Aint *n = NULL, *d = NULL;
    if (!err && c->rank == root) {
        n = widen(sendcounts, c->size);
        d = widen(displs, c->size);
        if (!n || !d)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory");
        for (int r = 0; !err && r < c->size; r++)
            err = check_buf(sendbuf, sendcounts[r], sendtype);
    }
    if (!err && (recvbuf != MPI_IN_PLACE || c->rank != root))
        err = check_buf(recvbuf == MPI_IN_PLACE ? NULL : recvbuf, recvcount, recvtype);
    if (!err)
        err = MPIR_Scatterv_impl(sendbuf, n, d, 0, sendtype, recvbuf, recvcount, recvtype, root, c);
    free(n);
    free(d);
    return MPIR_Err_return(c, "MPI_Scatterv", err);
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Allgather");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Allgather");
    if (!err)
        err = check_buf(sendbuf, sendcount, sendtype);
    if (!err)
        err = check_buf(recvbuf, recvcount, recvtype);
    if (!err)
        err = MPIR_Allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
    return MPIR_Err_return(c, "MPI_Allgather", err);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Allgatherv");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Allgatherv");
    if (!err)
        err = check_buf(sendbuf, sendcount, sendtype);
    if (!err && (!recvcounts || !displs))
        err = MPIR_Err_create(MPI_ERR_ARG, "recvcounts or displs is NULL");
    MPI_Aint *n = NULL, *d = NULL;
    if (!err) {
        n = widen(recvcounts, c->size);
        d = widen(displs, c->size);
        if (!n || !d)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory");
        for (int r = 0; !err && r < c->size; r++)
            err = check_buf(recvbuf, recvcounts[r], recvtype);
    }
    if (!err)
        err = allgatherv(sendbuf, sendcount, sendtype, recvbuf, n, d, 0, recvtype, c);
    free(n);
    free(d);
    return MPIR_Err_return(c, "MPI_Allgatherv", err);
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Alltoall");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Alltoall");
    if (!err)
        err = check_buf(sendbuf, sendcount, sendtype);
    if (!err)
        err = check_buf(recvbuf, recvcount, recvtype);
    if (!err)
        err = alltoallv(sendbuf, NULL, NULL, sendcount, sendtype, recvbuf, NULL, NULL, recvcount,
                        recvtype, c);
    return MPIR_Err_return(c, "MPI_Alltoall", err);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Alltoallv");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Alltoallv");
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!err && ((!in_place && (!sendcounts || !sdispls)) || !recvcounts || !rdispls))
        err = MPIR_Err_create(MPI_ERR_ARG, "a count or displacement array is NULL");
    MPI_Aint *sn = NULL, *sd = NULL, *rn = NULL, *rd = NULL;
    if (!err) {
        sn = widen(in_place ? recvcounts : sendcounts, c->size);
        sd = widen(in_place ? rdispls : sdispls, c->size);
        rn = widen(recvcounts, c->size);
        rd = widen(rdispls, c->size);
        if (!sn || !sd || !rn || !rd)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory");
        for (int r = 0; !err && r < c->size; r++)
            if (!(err = check_buf(sendbuf, sn[r], sendtype)))
                err = check_buf(recvbuf, rn[r], recvtype);
    }
    if (!err)
        err = alltoallv(sendbuf, sn, sd, 0, sendtype, recvbuf, rn, rd, 0, recvtype, c);
    free(sn);
    free(sd);
    free(rn);
    free(rd);
    return MPIR_Err_return(c, "MPI_Alltoallv", err);
}

/* Alltoallw: per-peer counts and datatypes, displacements in bytes.  MPI_IN_PLACE: the send
 * data is a copy of the bytes the receive blocks cover. */
static int alltoallw(const void *sendbuf, const int *scounts, const int *sdispls,
                     const MPI_Datatype *stypes, void *recvbuf, const int *rcounts,
                     const int *rdispls, const MPI_Datatype *rtypes, MPIR_Comm *comm)
{
    void *copy = NULL;
    if (sendbuf == MPI_IN_PLACE) {
        MPI_Aint end = 0;
        for (int r = 0; r < comm->size; r++) {
            MPIR_Datatype *dt = MPIR_Datatype_get(rtypes[r]);
            MPI_Aint e =
                rcounts[r] > 0 ? rdispls[r] + (rcounts[r] - 1) * dt->extent + dt->true_ub : 0;
            end = e > end ? e : end;
        }
        if (!(copy = malloc(end > 0 ? end : 1)))
            return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory for MPI_IN_PLACE");
        memcpy(copy, recvbuf, end);
        sendbuf = copy;
        scounts = rcounts;
        sdispls = rdispls;
        stypes = rtypes;
    }
    batch_t b;
    int err = batch_init(&b, 2 * comm->size);
    if (!err) {
        for (int r = 0; r < comm->size; r++)
            batch_recv(&b, (char *)recvbuf + rdispls[r], rcounts[r], rtypes[r], r,
                       MPIR_TAG_ALLTOALL, comm);
        for (int r = 0; r < comm->size; r++)
            batch_send(&b, (const char *)sendbuf + sdispls[r], scounts[r], stypes[r], r,
                       MPIR_TAG_ALLTOALL, comm);
        err = batch_wait(&b);
    }
    free(copy);
    return err;
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    MPIR_CHECK_INIT("MPI_Alltoallw");
    MPIR_Comm *c;
    int err = check_coll(comm, &c, "MPI_Alltoallw");
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!err && ((!in_place && (!sendcounts || !sdispls || !sendtypes)) || !recvcounts ||
                 !rdispls || !recvtypes))
        err = MPIR_Err_create(MPI_ERR_ARG, "a count, displacement or datatype array is NULL");
    for (int r = 0; !err && r < c->size; r++) {
        if (!in_place)
            err = check_buf((const char *)sendbuf + sdispls[r], sendcounts[r], sendtypes[r]);
        if (!err)
            err = check_buf((char *)recvbuf + rdispls[r], recvcounts[r], recvtypes[r]);
    }
    if (!err)
        err = alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                        recvtypes, c);
    return MPIR_Err_return(c, "MPI_Alltoallw", err);
}
