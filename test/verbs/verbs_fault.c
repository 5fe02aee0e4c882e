/* verbs_fault.c: rank 0 sends one rendezvous-sized message to rank 1 while the verbs method
 * spoils the keys of its RDMA reads (FERRY_VERBS_FAULT=rkey, test/verbs/vm.sh).  Errors are
 * returned, not fatal, so that each rank says what it saw and neither rank's abort can cut the
 * other's message short: the reader (rank 1) must see the completion error itself, the sender
 * (rank 0) only that its connection went (the responder's queue pair fails with it).
 *
 * Without FERRY_VERBS_FAULT it serves vm.sh's mixed-protocol checks the same way (ranks with
 * different FERRY_VERBS_EAGER: both must say why the connection was refused).
 *
 * Prints "rank R: error: MESSAGE" or "rank R: no error" and exits without MPI_Finalize (run it
 * under mpiexec -disable-auto-cleanup): the connection between the two is gone.
 *
 * With the argument "stop": rank 1 stops itself (SIGSTOP) right after MPI_Init, so the kernel's
 * rdma_cm keeps rank 0's connection request pending (it answers with an MRA) and only
 * FERRY_VERBS_CONNECT_TIMEOUT can end the wait; rank 0 prints what its send returned and calls
 * MPI_Abort, which ends the job (mpiexec's SIGKILL reaches a stopped process). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static char buf[1 << 20];
    int rank, err;
    int stop = argc > 1 && strcmp(argv[1], "stop") == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (stop && rank == 1)
        raise(SIGSTOP);
    if (rank == 0)
        err = MPI_Send(buf, sizeof(buf), MPI_BYTE, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
        err = MPI_Recv(buf, sizeof(buf), MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else
        err = MPI_SUCCESS;
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len;
        MPI_Error_string(err, msg, &len);
        printf("rank %d: error: %s\n", rank, msg);
    } else {
        printf("rank %d: no error\n", rank);
    }
    fflush(stdout);
    if (stop && rank == 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    _exit(0);
}
