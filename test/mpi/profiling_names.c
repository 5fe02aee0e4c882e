/* profiling_names.c: the profiling interface (MPI-4.1 sec. 15.2). This program interposes its
 * own MPI_Send, MPI_Irecv, MPI_Wait, MPI_Barrier, MPI_Iallreduce and MPI_Bcast_init that count
 * their calls and forward to the PMPI_ names, as a tool does. The counts must be exactly the
 * program's own calls: the library reaches its own functions without going through the MPI_
 * names (MPI_Recv, MPI_Sendrecv, MPI_Allreduce, the collectives' schedules and MPI_Finalize
 * call none of the wrappers). */
#include "mtest.h"

static int n_send, n_irecv, n_wait, n_barrier, n_iallreduce, n_bcast_init;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    n_send++;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    n_irecv++;
    return PMPI_Irecv(buf, count, type, src, tag, comm, req);
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    n_wait++;
    return PMPI_Wait(req, st);
}

int MPI_Barrier(MPI_Comm comm)
{
    n_barrier++;
    return PMPI_Barrier(comm);
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    n_iallreduce++;
    return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, req);
}

int MPI_Bcast_init(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info,
                   MPI_Request *req)
{
    n_bcast_init++;
    return PMPI_Bcast_init(buf, count, type, root, comm, info, req);
}

int main(int argc, char **argv)
{
    int errs = 0, rank, size, v = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int base_send = n_send, base_irecv = n_irecv, base_wait = n_wait, base_bar = n_barrier;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request r;
    MPI_Irecv(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD, &r);
    MPI_Send(&rank, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MTEST_CHECK_INT(errs, left, v, "value through the wrapped calls");
    /* None of these may reach the wrappers. */
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 2, &v, 1, MPI_INT, left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Request r2;
    MPI_Isend(&rank, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &r2);
    MPI_Recv(&v, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Waitall(1, &r2, MPI_STATUSES_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    /* The nonblocking and persistent collectives go through their wrappers too. */
    int sum = 0, root_val = rank == 0 ? 42 : 0;
    MPI_Iallreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Waitall(1, &r, MPI_STATUSES_IGNORE);
    MTEST_CHECK_INT(errs, size * (size - 1) / 2, sum, "sum through the wrapped Iallreduce");
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast_init(&root_val, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    MPI_Start(&r);
    MPI_Waitall(1, &r, MPI_STATUSES_IGNORE);
    MPI_Request_free(&r);
    MTEST_CHECK_INT(errs, 42, root_val, "value through the wrapped Bcast_init");
    MTEST_CHECK_INT(errs, 1, n_iallreduce, "MPI_Iallreduce wrapper calls");
    MTEST_CHECK_INT(errs, 1, n_bcast_init, "MPI_Bcast_init wrapper calls");
    MTEST_CHECK_INT(errs, 1, n_send - base_send, "MPI_Send wrapper calls");
    MTEST_CHECK_INT(errs, 1, n_irecv - base_irecv, "MPI_Irecv wrapper calls");
    MTEST_CHECK_INT(errs, 1, n_wait - base_wait, "MPI_Wait wrapper calls");
    MTEST_CHECK_INT(errs, 1, n_barrier - base_bar, "MPI_Barrier wrapper calls");
    return MTest_Finalize(errs);
}
