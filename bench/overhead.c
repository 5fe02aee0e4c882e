/* overhead.c: the CPU time a send and a receive cost the calling rank, for the model parameters
 * o_snd and o_rcv (bench/verbs.sh: with latbw's latency they give L, with its bandwidth G).
 *
 *   o_snd   rank 0 times MPI_Send of SIZE bytes to a receive rank 1 posted long before; the send
 *           of an eager message returns once the library has handed it over (copied or posted).
 *   o_rcv   rank 0 sends; rank 1 waits until MPI_Iprobe sees the message (so it has arrived and
 *           been matched as unexpected), then times the MPI_Recv that takes it.
 * Each is the median of ITERS timings, in microseconds.  MPI-1 only: it builds with any MPI.
 *
 *   mpiexec -n 2 overhead [SIZE [ITERS]]      (defaults 8 and 2000)
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int len = argc > 1 ? atoi(argv[1]) : 8;
    int iters = argc > 2 ? atoi(argv[2]) : 2000;
    if (size != 2 || len < 0 || iters < 10) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 overhead [SIZE [ITERS>=10]]\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = calloc(1, (size_t)len + 1);
    double *t = calloc((size_t)iters, sizeof(double));
    int peer = 1 - rank;

    /* o_snd: the receive is posted, and a zero-byte reply after it tells the sender so. */
    for (int i = -10; i < iters; i++) {
        if (rank == 1) {
            MPI_Request r;
            MPI_Irecv(buf, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &r);
            MPI_Send(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            MPI_Send(buf, len, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
            if (i >= 0)
                t[i] = MPI_Wtime() - t0;
        }
    }
    double o_snd = rank == 0 ? median(t, iters) : 0;

    /* o_rcv: the message is there before the receive is called. */
    for (int i = -10; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(buf, len, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            int flag = 0;
            while (!flag)
                MPI_Iprobe(peer, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            MPI_Recv(buf, len, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= 0)
                t[i] = MPI_Wtime() - t0;
            MPI_Send(NULL, 0, MPI_BYTE, peer, 4, MPI_COMM_WORLD);
        }
    }
    double o_rcv = rank == 1 ? median(t, iters) : 0;
    if (rank == 1)
        MPI_Send(&o_rcv, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
    else
        MPI_Recv(&o_rcv, 1, MPI_DOUBLE, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank == 0)
        printf("size %d o_snd_us %.2f o_rcv_us %.2f\n", len, o_snd * 1e6, o_rcv * 1e6);
    free(t);
    free(buf);
    MPI_Finalize();
    return 0;
}
