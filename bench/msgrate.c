/* msgrate.c: message rate of many senders to one receiver.  Every rank but 0 sends windows of
 * WINDOW messages of SIZE bytes to rank 0 (MPI_Isend, then MPI_Waitall); rank 0 posts WINDOW
 * MPI_Irecv per sender for each window, waits for all of them and answers every sender with a
 * zero-byte ack, which the sender waits for before its next window.  A few untimed windows
 * come first.  With 2 ranks it is the usual windowed message rate; with more, the receiver's
 * cost per sender shows (for the verbs ring channel: one ring per sender to read).
 *
 * usage: mpiexec -n N msgrate [-s SIZE] [-w WINDOW] [-n WINDOWS]
 *   -s SIZE     bytes per message (default 8)
 *   -w WINDOW   messages per window and sender (default 64)
 *   -n WINDOWS  timed windows (default 200)
 * Prints "msgrate: senders S size B window W windows N: R messages/s (T s)"; checks the first
 * byte of every message and exits 1 on a mismatch.  MPI-1 only: builds with any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int size = 8, window = 64, windows = 200, rank, np, c, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    while ((c = getopt(argc, argv, "s:w:n:")) != -1) {
        switch (c) {
        case 's':
            size = atoi(optarg);
            break;
        case 'w':
            window = atoi(optarg);
            break;
        case 'n':
            windows = atoi(optarg);
            break;
        default:
            bad = 1;
        }
    }
    if (bad || size < 1 || window < 1 || windows < 1 || np < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n N (N >= 2) msgrate [-s SIZE >= 1] [-w WINDOW] "
                            "[-n WINDOWS]\n");
        MPI_Finalize();
        return 2;
    }
    int senders = np - 1;
    int nreq = rank == 0 ? window * senders : window;
    char *buf = malloc((size_t)nreq * (size_t)size);
    MPI_Request *req = malloc((size_t)nreq * sizeof(*req));
    /* (statuses rather than MPI_STATUSES_IGNORE: some compilers warn about the latter) */
    MPI_Status *sts = malloc((size_t)nreq * sizeof(*sts));
    if (!buf || !req || !sts) {
        fprintf(stderr, "msgrate: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int warmup = windows / 10 + 2;
    double t0 = 0;
    int errors = 0;
    for (int w = 0; w < warmup + windows; w++) {
        if (w == warmup) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
        }
        if (rank == 0) {
            for (int s = 0; s < senders; s++)
                for (int k = 0; k < window; k++)
                    MPI_Irecv(buf + ((size_t)s * window + k) * size, size, MPI_CHAR, s + 1, k,
                              MPI_COMM_WORLD, &req[s * window + k]);
            MPI_Waitall(nreq, req, sts);
            for (int s = 0; s < senders; s++)
                for (int k = 0; k < window; k++)
                    errors += buf[((size_t)s * window + k) * size] != (char)(s + 1 + k + w);
            for (int s = 0; s < senders; s++)
                MPI_Send(NULL, 0, MPI_CHAR, s + 1, 0, MPI_COMM_WORLD);
        } else {
            for (int k = 0; k < window; k++) {
                buf[(size_t)k * size] = (char)(rank + k + w);
                MPI_Isend(buf + (size_t)k * size, size, MPI_CHAR, 0, k, MPI_COMM_WORLD, &req[k]);
            }
            MPI_Waitall(window, req, sts);
            MPI_Recv(NULL, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) {
        double msgs = (double)senders * window * windows;
        printf("msgrate: senders %d size %d window %d windows %d: %.0f messages/s (%.3f s)\n",
               senders, size, window, windows, msgs / t, t);
        if (errors)
            printf("msgrate: %d messages carried wrong data\n", errors);
    }
    free(buf);
    free(req);
    free(sts);
    MPI_Finalize();
    return errors ? 1 : 0;
}
