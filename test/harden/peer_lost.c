/* peer_lost.c: what survivors see when a rank dies (run under mpiexec -disable-auto-cleanup).
 * Rank 1 sends four messages to rank 0 (the last synchronous) and kills itself while rank 0
 * sleeps without making progress.  Rank 0 must still receive the four (they arrived before the
 * death; the synchronous one's acknowledgement goes nowhere, which is no error), then every
 * receive that only rank 1 could satisfy must fail with MPI_ERR_OTHER naming world rank 1 instead
 * of hanging: a wildcard receive posted before the death, new MPI_ANY_SOURCE and specific
 * receives, MPI_Probe and MPI_Iprobe.  Prints "peer_lost: ..." lines and " No Errors".
 * With the argument "silent", rank 1 dies right after the barrier without sending anything and
 * rank 0 is already blocked in MPI_Recv from it: nothing rank 0 does toward rank 1 can fail, so
 * only the method's own watch (a pidfd, a socket's end, a keepalive probe) can end the wait.
 * With "send", rank 1 dies the same way while rank 0 keeps making progress (MPI_Iprobe) for 2 s,
 * then rank 0 sends to it: MPI_Send must fail naming rank 1 rather than wait for ever (over
 * tcp;ofi_rxm the connection is gone by then and the provider only refuses the send). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int errs;

static void expect_lost(int rc, const char *what, double t0)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    if (rc == MPI_SUCCESS) {
        printf("peer_lost: FAIL %s succeeded after rank 1 died\n", what);
        errs++;
        return;
    }
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    if (cls != MPI_ERR_OTHER || !strstr(msg, "rank 1")) {
        printf("peer_lost: FAIL %s: class %d, '%s' (want MPI_ERR_OTHER naming rank 1)\n", what, cls,
               msg);
        errs++;
        return;
    }
    printf("peer_lost: %s failed after %.2f s: %s\n", what, MPI_Wtime() - t0, msg);
}

int main(int argc, char **argv)
{
    int rank, size, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (size != 2) {
        if (rank == 0)
            printf("peer_lost: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    int silent = argc > 1 && strcmp(argv[1], "silent") == 0;
    int send = argc > 1 && strcmp(argv[1], "send") == 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (send) {
        if (rank == 1) {
            sleep(1);
            raise(SIGKILL);
        }
        double t0 = MPI_Wtime();
        int flag = 0;
        while (MPI_Wtime() - t0 < 2.0) /* progress while rank 1 dies */
            MPI_Iprobe(1, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        expect_lost(MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD), "MPI_Send(1) after the death",
                    t0);
        if (!errs)
            printf(" No Errors\n");
        fflush(stdout);
        _exit(errs ? 1 : 0);
    }
    if (silent) {
        if (rank == 1) {
            sleep(1); /* rank 0 is in MPI_Recv by now */
            raise(SIGKILL);
        }
        double t0 = MPI_Wtime();
        expect_lost(MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "MPI_Recv(1) blocked before the death", t0);
        expect_lost(
            MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv(MPI_ANY_SOURCE)", t0);
        if (!errs)
            printf(" No Errors\n");
        fflush(stdout);
        _exit(errs ? 1 : 0);
    }
    if (rank == 1) {
        for (int k = 0; k < 3; k++)
            MPI_Send(&k, 1, MPI_INT, 0, k, MPI_COMM_WORLD);
        /* A synchronous one too: rank 0's acknowledgement will find nobody. */
        int last = 3;
        MPI_Request q;
        MPI_Issend(&last, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &q);
        raise(SIGKILL);
    }
    /* A wildcard receive of another tag, posted before the death. */
    MPI_Request pre;
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &pre);
    sleep(1); /* rank 1 sends and dies meanwhile; nothing here makes progress */
    double t0 = MPI_Wtime();
    for (int k = 0; k < 4; k++) {
        MPI_Status st;
        int rc = MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (rc != MPI_SUCCESS || buf != k || st.MPI_TAG != k || st.MPI_SOURCE != 1) {
            printf("peer_lost: FAIL message %d sent before the death: rc %d, value %d, tag %d\n", k,
                   rc, buf, st.MPI_TAG);
            errs++;
        }
    }
    expect_lost(MPI_Wait(&pre, MPI_STATUS_IGNORE), "a wildcard receive posted before", t0);
    expect_lost(MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Recv(MPI_ANY_SOURCE)", t0);
    expect_lost(MPI_Recv(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv(1)",
                t0);
    expect_lost(MPI_Probe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "MPI_Probe(MPI_ANY_SOURCE)", t0);
    int flag = 0;
    expect_lost(MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                "MPI_Iprobe(MPI_ANY_SOURCE)", t0);
    if (!errs)
        printf(" No Errors\n");
    fflush(stdout);
    /* MPI_Finalize would wait in a barrier for the dead rank. */
    _exit(errs ? 1 : 0);
}
