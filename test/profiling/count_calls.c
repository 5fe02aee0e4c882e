/* count_calls.c: a small profiling tool, as mpiP or a user's interposer is: it defines MPI_Send,
 * MPI_Recv, MPI_Isend, MPI_Wait, MPI_Bcast and MPI_Finalize, counts the calls, forwards each to
 * its PMPI_ name, and prints the counts of every rank at MPI_Finalize. Loaded with LD_PRELOAD
 * or linked before libmpi (test/profiling/run.sh). */
#include <mpi.h>
#include <stdio.h>

static int n_send, n_recv, n_isend, n_wait, n_bcast;

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    n_send++;
    return PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    n_recv++;
    return PMPI_Recv(buf, count, type, src, tag, comm, st);
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    n_isend++;
    return PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

int MPI_Wait(MPI_Request *req, MPI_Status *st)
{
    n_wait++;
    return PMPI_Wait(req, st);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    n_bcast++;
    return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("count_calls rank %d: Send=%d Recv=%d Isend=%d Wait=%d Bcast=%d\n", rank, n_send, n_recv,
           n_isend, n_wait, n_bcast);
    fflush(stdout);
    return PMPI_Finalize();
}
