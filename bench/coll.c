/* coll.c: the time of one small blocking collective: MPI_Allreduce of SIZE bytes (MPI_SUM of
 * doubles) and MPI_Barrier, each repeated ITERS times after a few untimed calls.  It measures
 * what a collective costs beyond its messages: per-call setup, tags, progress (for Ferry: the
 * schedule every collective runs through).
 *
 * usage: mpiexec -n N coll [-s SIZE] [-i ITERS] [-r REPS] [-t allreduce,barrier]
 *   -s SIZE    Allreduce bytes, a multiple of 8 (default 8: one double)
 *   -i ITERS   calls per timed repetition (default 20000)
 *   -r REPS    timed repetitions; the best (lowest) one is printed (default 5)
 *   -t LIST    which collectives (default allreduce,barrier)
 * Prints "coll: allreduce ranks N size B: T us" and "coll: barrier ranks N: T us", where T is
 * the slowest rank's time per call in the best repetition.  Checks every Allreduce result and
 * exits 1 on a wrong one.  MPI-1 only: builds with any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Seconds per call of the best of reps repetitions, each timed on every rank and taken at its
 * slowest rank (a collective is as slow as its last member). */
static double best_time(int which, int reps, int iters, double *in, double *out, int n, int np,
                        int *errors)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (which == 0) {
                in[0] = (double)i;
                MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                /* Every rank adds i, so the sum is np * i (exact in a double). */
                *errors += out[0] != (double)np * i;
            } else {
                MPI_Barrier(MPI_COMM_WORLD);
            }
        }
        double t = (MPI_Wtime() - t0) / iters, slowest;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (slowest < best)
            best = slowest;
    }
    return best;
}

int main(int argc, char **argv)
{
    int size = 8, iters = 20000, reps = 5, rank, np, c, bad = 0;
    int run[2] = {1, 1}; /* allreduce, barrier */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    while ((c = getopt(argc, argv, "s:i:r:t:")) != -1) {
        switch (c) {
        case 's':
            size = atoi(optarg);
            break;
        case 'i':
            iters = atoi(optarg);
            break;
        case 'r':
            reps = atoi(optarg);
            break;
        case 't':
            run[0] = strstr(optarg, "allreduce") != NULL;
            run[1] = strstr(optarg, "barrier") != NULL;
            if (!run[0] && !run[1])
                bad = 1;
            break;
        default:
            bad = 1;
        }
    }
    if (bad || size < 8 || size % 8 || iters < 1 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n N coll [-s SIZE (multiple of 8)] [-i ITERS] "
                            "[-r REPS] [-t allreduce,barrier]\n");
        MPI_Finalize();
        return 2;
    }
    int n = size / 8, errors = 0;
    double *in = calloc((size_t)n, sizeof(double)), *out = calloc((size_t)n, sizeof(double));
    if (!in || !out) {
        fprintf(stderr, "coll: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int warmup = iters / 10 + 10;
    if (run[0]) {
        best_time(0, 1, warmup, in, out, n, np, &errors);
        double t = best_time(0, reps, iters, in, out, n, np, &errors);
        if (rank == 0)
            printf("coll: allreduce ranks %d size %d: %.3f us\n", np, size, t * 1e6);
    }
    if (run[1]) {
        best_time(1, 1, warmup, in, out, n, np, &errors);
        double t = best_time(1, reps, iters, in, out, n, np, &errors);
        if (rank == 0)
            printf("coll: barrier ranks %d: %.3f us\n", np, t * 1e6);
    }
    if (errors)
        printf("coll: rank %d: %d wrong Allreduce results\n", rank, errors);
    free(in);
    free(out);
    MPI_Finalize();
    return errors ? 1 : 0;
}
