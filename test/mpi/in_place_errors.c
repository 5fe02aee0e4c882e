/* in_place_errors.c: MPI_IN_PLACE where only a send buffer may take it, and a send buffer that
 * is the receive buffer, are MPI_ERR_BUFFER errors, not crashes or hangs: as the receive buffer
 * of every reduction and data collective, as MPI_Bcast's buffer, as a point-to-point buffer;
 * sendbuf == recvbuf in the gathers, scatters, all-to-alls and reductions.  MPI_Type_ub with a
 * NULL result is MPI_ERR_ARG.  The legal MPI_IN_PLACE uses still work.  Checks every rank makes
 * alike run on MPI_COMM_WORLD; those only a root makes run on MPI_COMM_SELF, so that no rank
 * is left in a collective its root refused.  Any number of ranks. */
#include "mtest.h"

#include <stdlib.h>

#define N 4

static int errs;

static void expect_class(int rc, int cls, const char *what)
{
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got != cls)
        MTEST_FAIL(errs, "%s: error class %d, expected %d", what, got, cls);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    int n = mtest_size, me = mtest_rank;
    MPI_Comm w = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
    int *a = calloc((size_t)N * n, sizeof(int)), *b = calloc((size_t)N * n, sizeof(int));
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * n);
    int *bdispls = malloc(sizeof(int) * n);
    for (int r = 0; r < n; r++) {
        counts[r] = N;
        displs[r] = N * r;
        bdispls[r] = N * r * (int)sizeof(int);
        types[r] = MPI_INT;
    }
    void *ip = MPI_IN_PLACE;

    /* MPI_IN_PLACE as a receive buffer, and a send buffer that is the receive buffer: every
     * rank sees these. */
    void *bad[2] = {ip, a};
    const char *why[2] = {"MPI_IN_PLACE as recvbuf", "sendbuf == recvbuf"};
    MPI_Request req;
    for (int k = 0; k < 2; k++) {
        void *rb = bad[k];
        expect_class(MPI_Allreduce(a, rb, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, why[k]);
        expect_class(MPI_Allgather(a, N, MPI_INT, rb, N, MPI_INT, w), MPI_ERR_BUFFER, why[k]);
        expect_class(MPI_Allgatherv(a, N, MPI_INT, rb, counts, displs, MPI_INT, w), MPI_ERR_BUFFER,
                     why[k]);
        expect_class(MPI_Alltoall(a, N, MPI_INT, rb, N, MPI_INT, w), MPI_ERR_BUFFER, why[k]);
        expect_class(MPI_Alltoallv(a, counts, displs, MPI_INT, rb, counts, displs, MPI_INT, w),
                     MPI_ERR_BUFFER, why[k]);
        expect_class(MPI_Alltoallw(a, counts, bdispls, types, rb, counts, bdispls, types, w),
                     MPI_ERR_BUFFER, why[k]);
        expect_class(MPI_Ialltoall(a, N, MPI_INT, rb, N, MPI_INT, w, &req), MPI_ERR_BUFFER, why[k]);
    }
    expect_class(MPI_Scan(a, ip, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Scan");
    expect_class(MPI_Exscan(a, ip, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Exscan");
    expect_class(MPI_Reduce_scatter_block(a, ip, N, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
                 "Reduce_scatter_block");
    expect_class(MPI_Reduce_local(a, ip, N, MPI_INT, MPI_SUM), MPI_ERR_BUFFER, "Reduce_local");
    expect_class(MPI_Bcast(ip, N, MPI_INT, 0, w), MPI_ERR_BUFFER, "Bcast");
    expect_class(MPI_Iallreduce(a, ip, N, MPI_INT, MPI_SUM, w, &req), MPI_ERR_BUFFER, "Iallreduce");
    expect_class(MPI_Ibcast(ip, N, MPI_INT, 0, w, &req), MPI_ERR_BUFFER, "Ibcast");

    /* What only a root checks: on MPI_COMM_SELF, where every rank is the root. */
    expect_class(MPI_Reduce(a, ip, N, MPI_INT, MPI_SUM, 0, self), MPI_ERR_BUFFER, "Reduce");
    expect_class(MPI_Gather(a, N, MPI_INT, ip, N, MPI_INT, 0, self), MPI_ERR_BUFFER, "Gather");
    expect_class(MPI_Gatherv(a, N, MPI_INT, ip, counts, displs, MPI_INT, 0, self), MPI_ERR_BUFFER,
                 "Gatherv");
    expect_class(MPI_Gather(a, N, MPI_INT, a, N, MPI_INT, 0, self), MPI_ERR_BUFFER, "Gather alias");
    expect_class(MPI_Scatter(a, N, MPI_INT, a, N, MPI_INT, 0, self), MPI_ERR_BUFFER,
                 "Scatter alias");
    expect_class(MPI_Scatterv(a, counts, displs, MPI_INT, a, N, MPI_INT, 0, self), MPI_ERR_BUFFER,
                 "Scatterv alias");
    expect_class(MPI_Reduce(a, a, N, MPI_INT, MPI_SUM, 0, self), MPI_ERR_BUFFER, "Reduce alias");

    /* Point to point. */
    expect_class(MPI_Send(ip, 1, MPI_INT, me, 0, w), MPI_ERR_BUFFER, "Send from MPI_IN_PLACE");
    expect_class(MPI_Recv(ip, 1, MPI_INT, MPI_ANY_SOURCE, 0, w, MPI_STATUS_IGNORE), MPI_ERR_BUFFER,
                 "Recv into MPI_IN_PLACE");

    /* MPI_Type_ub's result pointer. */
    expect_class(MPI_Type_ub(MPI_INT, NULL), MPI_ERR_ARG, "Type_ub with NULL");
    MPI_Aint ub = 0;
    expect_class(MPI_Type_ub(MPI_DOUBLE, &ub), MPI_SUCCESS, "Type_ub");
    MTEST_CHECK_INT(errs, (MPI_Aint)sizeof(double), ub, "Type_ub of MPI_DOUBLE");

    /* The legal uses still work. */
    for (int i = 0; i < N; i++)
        a[i] = me + i;
    expect_class(MPI_Allreduce(ip, a, N, MPI_INT, MPI_SUM, w), MPI_SUCCESS, "Allreduce in place");
    for (int i = 0; i < N; i++)
        MTEST_CHECK_INT(errs, n * (n - 1) / 2 + n * i, a[i], "Allreduce in place [%d]", i);
    for (int i = 0; i < N * n; i++)
        b[i] = i;
    expect_class(MPI_Scatter(b, N, MPI_INT, me == 0 ? ip : a, N, MPI_INT, 0, w), MPI_SUCCESS,
                 "Scatter in place at the root");
    if (me != 0)
        for (int i = 0; i < N; i++)
            MTEST_CHECK_INT(errs, N * me + i, a[i], "Scatter [%d]", i);
    for (int i = 0; i < N; i++)
        b[N * me + i] = 100 * me + i;
    expect_class(MPI_Allgather(ip, N, MPI_INT, b, N, MPI_INT, w), MPI_SUCCESS,
                 "Allgather in place");
    for (int r = 0; r < n; r++)
        for (int i = 0; i < N; i++)
            MTEST_CHECK_INT(errs, 100 * r + i, b[N * r + i], "Allgather in place [%d][%d]", r, i);

    MPI_Comm_set_errhandler(w, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(self, MPI_ERRORS_ARE_FATAL);
    free(a);
    free(b);
    free(counts);
    free(displs);
    free(bdispls);
    free(types);
    return MTest_Finalize(errs);
}
