/* refused_calls.c: the calls doc/api.md lists as refused exist (a program naming them links)
 * and fail cleanly: under MPI_ERRORS_RETURN each returns an error of class
 * MPI_ERR_UNSUPPORTED_OPERATION whose text names the call, and leaves the program able to go
 * on communicating.  One call of each refused family, and every nonblocking and persistent
 * collective. */
#include "mtest.h"

#include <string.h>

static int check(int err, const char *name)
{
    int errs = 0, cls = MPI_SUCCESS, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(err, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_UNSUPPORTED_OPERATION, cls, "error class of %s", name);
    MPI_Error_string(err, text, &len);
    if (!strstr(text, name))
        MTEST_FAIL(errs, "the error text of %s does not name it: \"%s\"", name, text);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, in[4] = {1, 2, 3, 4}, out[4], counts[1] = {1}, displs[1] = {0};
    MPI_Datatype types[1] = {MPI_INT};
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Comm comm = MPI_COMM_SELF;
    MPI_Info info = MPI_INFO_NULL;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* One of each family. */
    MPI_Win win;
    errs += check(MPI_Win_create(out, sizeof(out), 1, info, comm, &win), "MPI_Win_create");
    MPI_Comm cart;
    int dims[1] = {1}, periods[1] = {0};
    errs += check(MPI_Cart_create(comm, 1, dims, periods, 0, &cart), "MPI_Cart_create");
    MPI_File fh;
    errs += check(MPI_File_open(comm, "refused_calls.tmp", MPI_MODE_RDONLY, info, &fh),
                  "MPI_File_open");
    char port[MPI_MAX_PORT_NAME];
    errs += check(MPI_Open_port(info, port), "MPI_Open_port");
    errs += check(MPI_Psend_init(in, 1, 1, MPI_INT, 0, 0, comm, info, &req), "MPI_Psend_init");
    MPI_Session session;
    errs += check(MPI_Session_init(info, MPI_ERRORS_RETURN, &session), "MPI_Session_init");

    /* Nonblocking collectives. */
    errs += check(MPI_Ibarrier(comm, &req), "MPI_Ibarrier");
    errs += check(MPI_Ibcast(in, 1, MPI_INT, 0, comm, &req), "MPI_Ibcast");
    errs += check(MPI_Ireduce(in, out, 1, MPI_INT, MPI_SUM, 0, comm, &req), "MPI_Ireduce");
    errs += check(MPI_Iallreduce(in, out, 1, MPI_INT, MPI_SUM, comm, &req), "MPI_Iallreduce");
    errs += check(MPI_Igather(in, 1, MPI_INT, out, 1, MPI_INT, 0, comm, &req), "MPI_Igather");
    errs += check(MPI_Igatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, 0, comm, &req),
                  "MPI_Igatherv");
    errs += check(MPI_Iscatter(in, 1, MPI_INT, out, 1, MPI_INT, 0, comm, &req), "MPI_Iscatter");
    errs += check(MPI_Iscatterv(in, counts, displs, MPI_INT, out, 1, MPI_INT, 0, comm, &req),
                  "MPI_Iscatterv");
    errs += check(MPI_Iallgather(in, 1, MPI_INT, out, 1, MPI_INT, comm, &req), "MPI_Iallgather");
    errs += check(MPI_Iallgatherv(in, 1, MPI_INT, out, counts, displs, MPI_INT, comm, &req),
                  "MPI_Iallgatherv");
    errs += check(MPI_Ialltoall(in, 1, MPI_INT, out, 1, MPI_INT, comm, &req), "MPI_Ialltoall");
    errs +=
        check(MPI_Ialltoallv(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT, comm, &req),
              "MPI_Ialltoallv");
    errs += check(MPI_Ialltoallw(in, counts, displs, types, out, counts, displs, types, comm, &req),
                  "MPI_Ialltoallw");
    errs += check(MPI_Iscan(in, out, 1, MPI_INT, MPI_SUM, comm, &req), "MPI_Iscan");
    errs += check(MPI_Iexscan(in, out, 1, MPI_INT, MPI_SUM, comm, &req), "MPI_Iexscan");
    errs += check(MPI_Ireduce_scatter(in, out, counts, MPI_INT, MPI_SUM, comm, &req),
                  "MPI_Ireduce_scatter");
    errs += check(MPI_Ireduce_scatter_block(in, out, 1, MPI_INT, MPI_SUM, comm, &req),
                  "MPI_Ireduce_scatter_block");

    /* Persistent collectives. */
    errs += check(MPI_Barrier_init(comm, info, &req), "MPI_Barrier_init");
    errs += check(MPI_Bcast_init(in, 1, MPI_INT, 0, comm, info, &req), "MPI_Bcast_init");
    errs += check(MPI_Reduce_init(in, out, 1, MPI_INT, MPI_SUM, 0, comm, info, &req),
                  "MPI_Reduce_init");
    errs += check(MPI_Allreduce_init(in, out, 1, MPI_INT, MPI_SUM, comm, info, &req),
                  "MPI_Allreduce_init");
    errs += check(MPI_Gather_init(in, 1, MPI_INT, out, 1, MPI_INT, 0, comm, info, &req),
                  "MPI_Gather_init");
    errs +=
        check(MPI_Gatherv_init(in, 1, MPI_INT, out, counts, displs, MPI_INT, 0, comm, info, &req),
              "MPI_Gatherv_init");
    errs += check(MPI_Scatter_init(in, 1, MPI_INT, out, 1, MPI_INT, 0, comm, info, &req),
                  "MPI_Scatter_init");
    errs +=
        check(MPI_Scatterv_init(in, counts, displs, MPI_INT, out, 1, MPI_INT, 0, comm, info, &req),
              "MPI_Scatterv_init");
    errs += check(MPI_Allgather_init(in, 1, MPI_INT, out, 1, MPI_INT, comm, info, &req),
                  "MPI_Allgather_init");
    errs +=
        check(MPI_Allgatherv_init(in, 1, MPI_INT, out, counts, displs, MPI_INT, comm, info, &req),
              "MPI_Allgatherv_init");
    errs += check(MPI_Alltoall_init(in, 1, MPI_INT, out, 1, MPI_INT, comm, info, &req),
                  "MPI_Alltoall_init");
    errs += check(MPI_Alltoallv_init(in, counts, displs, MPI_INT, out, counts, displs, MPI_INT,
                                     comm, info, &req),
                  "MPI_Alltoallv_init");
    errs += check(
        MPI_Alltoallw_init(in, counts, displs, types, out, counts, displs, types, comm, info, &req),
        "MPI_Alltoallw_init");
    errs += check(MPI_Scan_init(in, out, 1, MPI_INT, MPI_SUM, comm, info, &req), "MPI_Scan_init");
    errs +=
        check(MPI_Exscan_init(in, out, 1, MPI_INT, MPI_SUM, comm, info, &req), "MPI_Exscan_init");
    errs += check(MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, comm, info, &req),
                  "MPI_Reduce_scatter_init");
    errs += check(MPI_Reduce_scatter_block_init(in, out, 1, MPI_INT, MPI_SUM, comm, info, &req),
                  "MPI_Reduce_scatter_block_init");
    MTEST_CHECK_INT(errs, MPI_REQUEST_NULL, req, "no request made by a refused call");

    /* The library still works. */
    int sum = 0;
    MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, mtest_size * (mtest_size - 1) / 2, sum, "an allreduce afterwards");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
