/* tcp_vanish.c: a peer's host vanishes (test/tcp/run.sh cuts the link between two network
 * namespaces; nothing closes the connection).  Rank 1 creates $VANISH_READY once the ranks are
 * connected and then sleeps without MPI; rank 0 waits in MPI_Recv from rank 1 with
 * MPI_ERRORS_RETURN and must get an error within about FERRY_TCP_KEEPALIVE seconds of the cut,
 * from the keepalive probes going unanswered.  Rank 0 prints the error, the time, and
 * " No Errors". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    /* Connect both ways first. */
    MPI_Sendrecv(&rank, 1, MPI_INT, 1 - rank, 0, &buf, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (rank == 1) {
        FILE *f = fopen(getenv("VANISH_READY"), "w");
        if (f)
            fclose(f);
        sleep(atoi(argc > 1 ? argv[1] : "15"));
        _exit(0);
    }
    double t0 = MPI_Wtime();
    int rc = MPI_Recv(&buf, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (rc != MPI_SUCCESS)
        MPI_Error_string(rc, msg, &len);
    printf("tcp_vanish: after %.1f s: rc %d: %s\n", MPI_Wtime() - t0, rc, msg);
    if (rc != MPI_SUCCESS)
        printf(" No Errors\n");
    fflush(stdout);
    _exit(rc != MPI_SUCCESS ? 0 : 1);
}
