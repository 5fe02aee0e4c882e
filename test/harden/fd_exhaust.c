/* fd_exhaust.c: out of file descriptors over tcp (run with 2 ranks, FERRY_METHODS=tcp, a low
 * `ulimit -n`).
 *   send:   rank 0 uses up its descriptors, then sends to rank 1 (no connection yet) with
 *           MPI_ERRORS_RETURN: the send must fail with an MPI error that says so (not abort the
 *           job); after the descriptors are freed, a second send must work.
 *   accept: rank 1 uses up its descriptors and makes progress for 1.5 s while rank 0 connects
 *           to it; then frees them: the message must arrive (run with FERRY_VERBOSE=1 to see
 *           the listener pause instead of spinning).
 * Rank 0 prints " No Errors" when everything held. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAXFD 65536
static int fds[MAXFD], nfds;

static void use_up_fds(void)
{
    int fd;
    while (nfds < MAXFD && (fd = open("/dev/null", O_RDONLY)) >= 0)
        fds[nfds++] = fd;
}

static void free_fds(void)
{
    while (nfds > 0)
        close(fds[--nfds]);
}

int main(int argc, char **argv)
{
    int rank, errs = 0, buf = 0;
    const char *mode = argc > 1 ? argv[1] : "send";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(mode, "send") == 0) {
        if (rank == 0) {
            use_up_fds();
            buf = 1;
            int rc = MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            char msg[MPI_MAX_ERROR_STRING] = "";
            int len = 0;
            if (rc != MPI_SUCCESS)
                MPI_Error_string(rc, msg, &len);
            free_fds();
            if (rc == MPI_SUCCESS || !strstr(msg, "Too many open files")) {
                printf("fd_exhaust: FAIL send without descriptors: rc %d '%s'\n", rc, msg);
                errs++;
            } else {
                printf("fd_exhaust: send without descriptors: %s\n", msg);
            }
            buf = 2;
            rc = MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
            if (rc != MPI_SUCCESS) {
                printf("fd_exhaust: FAIL send after freeing descriptors: rc %d\n", rc);
                errs++;
            }
        } else {
            int rc = MPI_Recv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS || buf != 2) {
                printf("fd_exhaust: FAIL rank 1 received rc %d value %d (want 2)\n", rc, buf);
                errs++;
            }
        }
    } else {
        if (rank == 1) {
            use_up_fds();
            MPI_Request q;
            int flag = 0;
            MPI_Irecv(&buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &q);
            double t0 = MPI_Wtime();
            while (MPI_Wtime() - t0 < 1.5 && !flag)
                MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
            free_fds();
            if (!flag)
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            if (buf != 7) {
                printf("fd_exhaust: FAIL rank 1 received %d, want 7\n", buf);
                errs++;
            }
        } else {
            buf = 7;
            if (MPI_Send(&buf, 1, MPI_INT, 1, 0, MPI_COMM_WORLD) != MPI_SUCCESS) {
                printf("fd_exhaust: FAIL rank 0's send\n");
                errs++;
            }
        }
    }
    int all = 0;
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all ? 1 : 0;
}
