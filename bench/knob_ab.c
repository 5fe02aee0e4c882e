/* knob_ab.c: an A/B of a change inside one run, for a developer: blocks of an MPI test alternate
 * between the values of a knob that an experimental build exports, so that both sides of the
 * comparison share the host's state.
 *
 * This machine's cache-to-cache transfers change speed by 2-4x from one minute to the next (the
 * flag ping-pong floor of bench/floor.c moves between 0.08 and 0.6 us), so two builds run one
 * after the other, even interleaved in rounds (bench/run.sh), often differ by more than the
 * change being measured.  Here the value changes every block of about 5 ms, the blocks of all
 * values interleave over the whole run, and the median (and first quartile) per value compare
 * the same moments of the host.  Issue 12's sender prefetch was found this way (8-byte windows
 * 142.6 against 127.5 ns per message), where interleaved runs of two builds disagreed from one
 * round to the next.
 *
 * The knob: a global `long` in the library under test, added for the experiment (for example
 * `long MPIDI_SHM_pfw_dist;` read by the code being tried) and found with dlsym.  Both ranks set
 * it at the start of each block.  Without such a symbol (any other library) every value runs the
 * same code, which shows the spread of the method itself.
 *
 * usage: mpiexec -n 2 knob_ab TEST SIZE SYMBOL VALUE...
 *   TEST lat (ping-pong: one-way us), bw (windows of 64 MPI_Isend: ns per message), bibw (64
 *   each way at once: ns per message of both directions); SIZE in bytes; up to 16 values.
 * Output (rank 0): TEST SIZE SYMBOL: then per value its median and first quartile over blocks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define BLOCKS 60 /* per value */
#define MAX_VALUES 16

enum { T_LAT, T_BW, T_BIBW };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One block: n ping-pongs or n windows.  Returns its seconds. */
static double run_block(int test, int rank, int size, int n, char *sbuf, char *rbuf,
                        size_t stride)
{
    MPI_Request req[2 * WINDOW];
    static MPI_Status st[2 * WINDOW];
    int ack = 0, peer = 1 - rank;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int l = 0; l < n; l++) {
        if (test == T_LAT) {
            if (rank == 0) {
                MPI_Send(sbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(rbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
        } else if (test == T_BW) {
            if (rank == 0) {
                for (int w = 0; w < WINDOW; w++)
                    MPI_Isend(sbuf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &req[w]);
                MPI_Waitall(WINDOW, req, st);
                MPI_Recv(&ack, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                for (int w = 0; w < WINDOW; w++)
                    MPI_Irecv(rbuf + (size_t)w * stride, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                              &req[w]);
                MPI_Waitall(WINDOW, req, st);
                MPI_Send(&ack, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
            }
        } else {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf + (size_t)w * stride, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                          &req[w]);
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, size, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &req[WINDOW + w]);
            MPI_Waitall(2 * WINDOW, req, st);
        }
    }
    return MPI_Wtime() - t0;
}

int main(int argc, char **argv)
{
    int rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    int test = argc > 1 ? (!strcmp(argv[1], "lat") ? T_LAT
                           : !strcmp(argv[1], "bw") ? T_BW
                           : !strcmp(argv[1], "bibw") ? T_BIBW
                                                      : -1)
                        : -1;
    int size = argc > 2 ? atoi(argv[2]) : -1;
    int nv = argc - 4;
    if (nranks != 2 || test < 0 || size < 0 || size > (1 << 20) || nv < 1 || nv > MAX_VALUES) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 knob_ab lat|bw|bibw SIZE SYMBOL VALUE... "
                            "(size <= 1 MiB, 1 to %d values)\n", MAX_VALUES);
        MPI_Finalize();
        return 2;
    }
    long *knob = dlsym(RTLD_DEFAULT, argv[3]);
    long vals[MAX_VALUES];
    for (int i = 0; i < nv; i++)
        vals[i] = atol(argv[4 + i]);
    if (!knob && rank == 0)
        fprintf(stderr, "knob_ab: no symbol %s: every value runs the same code\n", argv[3]);
    size_t stride = (size_t)size + 64;
    char *sbuf = calloc(1, stride), *rbuf = calloc(WINDOW, stride);
    static double res[MAX_VALUES][BLOCKS];
    int nres[MAX_VALUES] = {0};
    int per_block = test == T_LAT ? 2000 : 100;
    if (!sbuf || !rbuf) {
        fprintf(stderr, "knob_ab: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* One warm-up block per value, then BLOCKS of each, the values in turn. */
    for (int b = -nv; b < BLOCKS * nv; b++) {
        int v = (b + nv) % nv;
        if (knob)
            *knob = vals[v];
        double dt = run_block(test, rank, size, per_block, sbuf, rbuf, stride);
        if (b >= 0)
            res[v][nres[v]++] = test == T_LAT ? dt * 1e6 / (2.0 * per_block)
                                              : dt * 1e9 / ((double)per_block * WINDOW *
                                                            (test == T_BIBW ? 2 : 1));
    }
    if (rank == 0) {
        printf("%s %d B %s:", argv[1], size, argv[3]);
        for (int v = 0; v < nv; v++) {
            qsort(res[v], (size_t)nres[v], sizeof(double), cmp_double);
            printf("  %ld: %.3f (q1 %.3f)", vals[v], res[v][nres[v] / 2], res[v][nres[v] / 4]);
        }
        printf("  %s\n", test == T_LAT ? "us one-way" : "ns per message");
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
