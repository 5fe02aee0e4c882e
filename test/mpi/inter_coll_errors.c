/* inter_coll_errors.c: the argument errors of collectives on intercommunicators are errors, not
 * crashes or hangs (MPI-4.1 ch. 6): a root that is neither MPI_ROOT, MPI_PROC_NULL nor a rank of
 * the remote group (the remote size, -1000) is MPI_ERR_ROOT; MPI_IN_PLACE, which the
 * standard defines for intracommunicators only, is MPI_ERR_BUFFER as a send buffer the call uses
 * (the all-to-alls, the allgathers, the reductions; the sending group of the rooted ones) and as
 * the root's receive buffer; Scan and Exscan, which have no intercommunicator form, are
 * MPI_ERR_COMM.  Each erroneous call is made by every rank of the intercommunicator (or the
 * ranks left out pass MPI_PROC_NULL and have nothing to do), so nobody is left waiting; each form
 * (blocking, nonblocking, persistent) is checked.  A correct collective afterwards shows the
 * intercommunicator unharmed.  Any number of ranks (one rank: nothing to check).
 *
 * These are erroneous programs, which the standard does not require an implementation to catch;
 * Ferry promises to (doc/api.md).  MPICH 4.0.2 and Open MPI 4.1.4 catch the bad roots but not all
 * the rest: MPICH crashes on MPI_IN_PLACE in Allgather and asserts in Scan_init, waits for a root
 * MPI_ANY_SOURCE (not used here); Open MPI crashes on MPI_IN_PLACE in Reduce_scatter_block and
 * says MPI_ERR_ARG for it elsewhere.  So this program passes on Ferry only. */
#include "mtest.h"

#include <stdlib.h>

static int errs;

static void expect_class(int rc, int cls, const char *what, int form)
{
    static const char *const forms[] = {"", "nonblocking ", "persistent "};
    int got = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    if (got != cls)
        MTEST_FAIL(errs, "%s%s: error class %s, expected %s", forms[form], what,
                   mtest_classname(got), mtest_classname(cls));
}

#if MPI_VERSION >= 4
#define NFORMS 3
#define INIT_FORM(call) (call)
#else /* an MPI-3 library (Open MPI 4.1) has no persistent collectives */
#define NFORMS 2
#define INIT_FORM(call) MPI_SUCCESS
#endif

/* One call in form f (0 blocking, 1 nonblocking, 2 persistent), expecting class cls. */
#define EXPECT(f, cls, what, BLOCK, NB, INIT)                                                      \
    expect_class((f) == 0 ? (BLOCK) : (f) == 1 ? (NB) : INIT_FORM(INIT), cls, what, f)

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    if (mtest_size < 2)
        return MTest_Finalize(0);
    MPI_Comm half, c;
    MPI_Comm_split(MPI_COMM_WORLD, mtest_rank % 2, mtest_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, mtest_rank % 2 ? 0 : 1, 5, &c);
    MPI_Comm_free(&half);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);

    int me, n, rn, even = mtest_rank % 2 == 0;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &n);
    MPI_Comm_remote_size(c, &rn);
    int big = 4 * (n > rn ? n : rn);
    int *a = calloc(big, sizeof(int)), *b = calloc(big, sizeof(int));
    int *counts = malloc(sizeof(int) * big), *displs = malloc(sizeof(int) * big),
        *bdispls = malloc(sizeof(int) * big);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * big);
    for (int r = 0; r < big; r++) {
        counts[r] = 1;
        displs[r] = r;
        bdispls[r] = r * (int)sizeof(int);
        types[r] = MPI_INT;
    }
    void *ip = MPI_IN_PLACE;
    MPI_Info ni = MPI_INFO_NULL;
    MPI_Request req = MPI_REQUEST_NULL, *q = &req;

    for (int f = 0; f < NFORMS; f++) {
        /* Roots no rank of the remote group has: every rank passes them. */
        int bad_roots[2] = {rn, -1000};
        for (int k = 0; k < 2; k++) {
            int root = bad_roots[k];
            const char *w = k == 0 ? "root = remote size" : "root = -1000";
            EXPECT(f, MPI_ERR_ROOT, w, MPI_Bcast(a, 1, MPI_INT, root, c),
                   MPI_Ibcast(a, 1, MPI_INT, root, c, q),
                   MPI_Bcast_init(a, 1, MPI_INT, root, c, ni, q));
            EXPECT(f, MPI_ERR_ROOT, w, MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, root, c),
                   MPI_Ireduce(a, b, 1, MPI_INT, MPI_SUM, root, c, q),
                   MPI_Reduce_init(a, b, 1, MPI_INT, MPI_SUM, root, c, ni, q));
            EXPECT(f, MPI_ERR_ROOT, w, MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, root, c),
                   MPI_Igather(a, 1, MPI_INT, b, 1, MPI_INT, root, c, q),
                   MPI_Gather_init(a, 1, MPI_INT, b, 1, MPI_INT, root, c, ni, q));
            EXPECT(f, MPI_ERR_ROOT, w,
                   MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, root, c),
                   MPI_Igatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, root, c, q),
                   MPI_Gatherv_init(a, 1, MPI_INT, b, counts, displs, MPI_INT, root, c, ni, q));
            EXPECT(f, MPI_ERR_ROOT, w, MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, root, c),
                   MPI_Iscatter(a, 1, MPI_INT, b, 1, MPI_INT, root, c, q),
                   MPI_Scatter_init(a, 1, MPI_INT, b, 1, MPI_INT, root, c, ni, q));
            EXPECT(f, MPI_ERR_ROOT, w,
                   MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, root, c),
                   MPI_Iscatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, root, c, q),
                   MPI_Scatterv_init(a, counts, displs, MPI_INT, b, 1, MPI_INT, root, c, ni, q));
        }

        /* MPI_IN_PLACE as the send buffer of the collectives without a root: every rank. */
        const char *w = "MPI_IN_PLACE as sendbuf";
        EXPECT(f, MPI_ERR_BUFFER, w, MPI_Allgather(ip, 1, MPI_INT, b, 1, MPI_INT, c),
               MPI_Iallgather(ip, 1, MPI_INT, b, 1, MPI_INT, c, q),
               MPI_Allgather_init(ip, 1, MPI_INT, b, 1, MPI_INT, c, ni, q));
        EXPECT(f, MPI_ERR_BUFFER, w, MPI_Allgatherv(ip, 1, MPI_INT, b, counts, displs, MPI_INT, c),
               MPI_Iallgatherv(ip, 1, MPI_INT, b, counts, displs, MPI_INT, c, q),
               MPI_Allgatherv_init(ip, 1, MPI_INT, b, counts, displs, MPI_INT, c, ni, q));
        EXPECT(f, MPI_ERR_BUFFER, w, MPI_Alltoall(ip, 1, MPI_INT, b, 1, MPI_INT, c),
               MPI_Ialltoall(ip, 1, MPI_INT, b, 1, MPI_INT, c, q),
               MPI_Alltoall_init(ip, 1, MPI_INT, b, 1, MPI_INT, c, ni, q));
        EXPECT(
            f, MPI_ERR_BUFFER, w,
            MPI_Alltoallv(ip, counts, displs, MPI_INT, b, counts, displs, MPI_INT, c),
            MPI_Ialltoallv(ip, counts, displs, MPI_INT, b, counts, displs, MPI_INT, c, q),
            MPI_Alltoallv_init(ip, counts, displs, MPI_INT, b, counts, displs, MPI_INT, c, ni, q));
        EXPECT(f, MPI_ERR_BUFFER, w,
               MPI_Alltoallw(ip, counts, bdispls, types, b, counts, bdispls, types, c),
               MPI_Ialltoallw(ip, counts, bdispls, types, b, counts, bdispls, types, c, q),
               MPI_Alltoallw_init(ip, counts, bdispls, types, b, counts, bdispls, types, c, ni, q));
        EXPECT(f, MPI_ERR_BUFFER, w, MPI_Allreduce(ip, b, 1, MPI_INT, MPI_SUM, c),
               MPI_Iallreduce(ip, b, 1, MPI_INT, MPI_SUM, c, q),
               MPI_Allreduce_init(ip, b, 1, MPI_INT, MPI_SUM, c, ni, q));
        EXPECT(f, MPI_ERR_BUFFER, w, MPI_Reduce_scatter_block(ip, b, rn, MPI_INT, MPI_SUM, c),
               MPI_Ireduce_scatter_block(ip, b, rn, MPI_INT, MPI_SUM, c, q),
               MPI_Reduce_scatter_block_init(ip, b, rn, MPI_INT, MPI_SUM, c, ni, q));
        EXPECT(f, MPI_ERR_BUFFER, w, MPI_Reduce_scatter(ip, b, counts, MPI_INT, MPI_SUM, c),
               MPI_Ireduce_scatter(ip, b, counts, MPI_INT, MPI_SUM, c, q),
               MPI_Reduce_scatter_init(ip, b, counts, MPI_INT, MPI_SUM, c, ni, q));

        /* The rooted ones, the even group's rank 0 the root: the odd group's send buffers are
         * MPI_IN_PLACE (Gather, Reduce), and so is the root's receive buffer; in Scatter the
         * root's send buffer and the receive buffers.  The even group's other ranks pass
         * MPI_PROC_NULL, which has nothing to check or to do. */
        int root = even ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        int expected = root == MPI_PROC_NULL ? MPI_SUCCESS : MPI_ERR_BUFFER;
        EXPECT(f, expected, "Reduce with MPI_IN_PLACE",
               MPI_Reduce(ip, ip, 1, MPI_INT, MPI_SUM, root, c),
               MPI_Ireduce(ip, ip, 1, MPI_INT, MPI_SUM, root, c, q),
               MPI_Reduce_init(ip, ip, 1, MPI_INT, MPI_SUM, root, c, ni, q));
        if (expected == MPI_SUCCESS && f > 0) {
            if (f == 2)
                MPI_Start(q);
            MTEST_CHECK_RC(errs, MPI_Wait(q, MPI_STATUS_IGNORE), "MPI_PROC_NULL's Reduce");
            if (f == 2)
                MPI_Request_free(q);
        }
        EXPECT(f, expected, "Gather with MPI_IN_PLACE",
               MPI_Gather(ip, 1, MPI_INT, ip, 1, MPI_INT, root, c),
               MPI_Igather(ip, 1, MPI_INT, ip, 1, MPI_INT, root, c, q),
               MPI_Gather_init(ip, 1, MPI_INT, ip, 1, MPI_INT, root, c, ni, q));
        if (expected == MPI_SUCCESS && f > 0) {
            if (f == 2)
                MPI_Start(q);
            MTEST_CHECK_RC(errs, MPI_Wait(q, MPI_STATUS_IGNORE), "MPI_PROC_NULL's Gather");
            if (f == 2)
                MPI_Request_free(q);
        }
        EXPECT(f, expected, "Scatter with MPI_IN_PLACE",
               MPI_Scatter(ip, 1, MPI_INT, ip, 1, MPI_INT, root, c),
               MPI_Iscatter(ip, 1, MPI_INT, ip, 1, MPI_INT, root, c, q),
               MPI_Scatter_init(ip, 1, MPI_INT, ip, 1, MPI_INT, root, c, ni, q));
        if (expected == MPI_SUCCESS && f > 0) {
            if (f == 2)
                MPI_Start(q);
            MTEST_CHECK_RC(errs, MPI_Wait(q, MPI_STATUS_IGNORE), "MPI_PROC_NULL's Scatter");
            if (f == 2)
                MPI_Request_free(q);
        }

        /* No scans on an intercommunicator. */
        EXPECT(f, MPI_ERR_COMM, "Scan on an intercommunicator",
               MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, c), MPI_Iscan(a, b, 1, MPI_INT, MPI_SUM, c, q),
               MPI_Scan_init(a, b, 1, MPI_INT, MPI_SUM, c, ni, q));
        EXPECT(f, MPI_ERR_COMM, "Exscan on an intercommunicator",
               MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, c),
               MPI_Iexscan(a, b, 1, MPI_INT, MPI_SUM, c, q),
               MPI_Exscan_init(a, b, 1, MPI_INT, MPI_SUM, c, ni, q));
    }

    /* The intercommunicator still works: an Allgather of the world ranks. */
    int mine = mtest_rank;
    MTEST_CHECK_RC(errs, MPI_Allgather(&mine, 1, MPI_INT, b, 1, MPI_INT, c), "Allgather after");
    for (int r = 0; r < rn; r++)
        MTEST_CHECK_INT(errs, 2 * r + (even ? 1 : 0), b[r], "Allgather after: remote rank %d", r);
    MPI_Comm_free(&c);
    free(a);
    free(b);
    free(counts);
    free(displs);
    free(bdispls);
    free(types);
    return MTest_Finalize(errs);
}
