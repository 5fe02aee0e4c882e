/* unreachable_nb.c: each rank posts a receive from its partner, then sends to it, with no method
 * that reaches the partner (test/errors/run.sh: FERRY_METHODS=self) and errors returned.  The
 * send fails; the receive must fail too instead of waiting forever for a message that cannot
 * come.  Prints "rank R: send class C, wait class C, receive class C" and exits 0.  (The send's
 * error may come from MPI_Isend or in its status: both are MPI.) */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, in = 0, out = 1;
    MPI_Request req[2];
    MPI_Status st[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* MPI_Finalize's barrier fails too: its error is raised on MPI_COMM_WORLD (Ferry) or
     * MPI_COMM_SELF (MPI-4), returned by both here. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int partner = rank ^ 1;
    if (partner >= size) {
        MPI_Finalize();
        return 0;
    }
    MPI_Irecv(&in, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, &req[0]);
    int send_err = MPI_Isend(&out, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, &req[1]);
    if (send_err != MPI_SUCCESS)
        req[1] = MPI_REQUEST_NULL;
    st[0].MPI_ERROR = st[1].MPI_ERROR = MPI_SUCCESS;
    int wait_err = MPI_Waitall(2, req, st);
    int c1, c2, c3;
    MPI_Error_class(send_err, &c1);
    MPI_Error_class(wait_err, &c2);
    MPI_Error_class(st[0].MPI_ERROR, &c3);
    printf("rank %d: send class %d, wait class %d, receive class %d\n", rank, c1, c2, c3);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
