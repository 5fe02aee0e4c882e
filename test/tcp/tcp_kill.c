/* tcp_kill.c: a rank dies or vanishes while the others talk to it; the others must get an error
 * (or the job must end) within seconds, never hang.
 *
 * usage: tcp_kill kill|exit [VICTIM]      (VICTIM defaults to the last rank)
 *   kill  the survivors ping-pong with the victim (small and rendezvous-sized messages); after
 *         0.3 s the victim kills itself with SIGKILL in the middle of it
 *   exit  the victim leaves right after MPI_Init, before anyone has connected to it; 1 s
 *         later the survivors try to reach it (their connections are refused)
 * TCP_KILL_ERRORS=return makes MPI_COMM_WORLD return errors: each survivor then prints
 *   "survivor R: error from rank V after S s: class C (MPI_ERR_OTHER): MESSAGE"
 * and exits 0 without MPI_Finalize (run it under mpiexec -disable-auto-cleanup).  Otherwise
 * the default handler ends the job with the error message. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size;
    const char *mode = argc > 1 ? argv[1] : "kill";
    const char *errs = getenv("TCP_KILL_ERRORS");
    static char sbuf[200000], rbuf[200000];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int victim = argc > 2 ? atoi(argv[2]) : size - 1;
    if (size < 2 || victim < 0 || victim >= size) {
        fprintf(stderr, "tcp_kill needs 2 or more ranks and a victim among them\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (errs && strcmp(errs, "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    if (strcmp(mode, "exit") == 0) {
        if (rank == victim)
            _exit(0); /* gone before any connection to it exists */
        sleep(1);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
    }
    double t0 = MPI_Wtime();
    for (long iter = 0;; iter++) {
        int n = iter % 4 == 3 ? (int)sizeof(sbuf) : 1000;
        if (rank == victim) {
            if (MPI_Wtime() - t0 > 0.3)
                raise(SIGKILL);
            for (int s = 0; s < size; s++)
                if (s != victim)
                    MPI_Sendrecv(sbuf, n, MPI_BYTE, s, 1, rbuf, n, MPI_BYTE, s, 1, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE);
            continue;
        }
        int err = MPI_Sendrecv(sbuf, n, MPI_BYTE, victim, 1, rbuf, n, MPI_BYTE, victim, 1,
                               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len, cls;
            MPI_Error_string(err, msg, &len);
            MPI_Error_class(err, &cls);
            printf("survivor %d: error from rank %d after %.1f s: class %d (%s): %s\n", rank,
                   victim, MPI_Wtime() - t0, cls,
                   cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : "not MPI_ERR_OTHER", msg);
            fflush(stdout);
            _exit(0);
        }
        if (MPI_Wtime() - t0 > 30) {
            printf("survivor %d: no error after 30 s of talking to rank %d\n", rank, victim);
            return 1;
        }
    }
}
