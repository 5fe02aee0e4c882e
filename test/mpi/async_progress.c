/* async_progress.c: a rendezvous moves while the program computes.  Rank 0 sends 4 MiB to rank
 * 1 with MPI_Isend, rank 1 has posted the receive with MPI_Irecv, and then neither calls MPI:
 * rank 1 watches the last bytes of its buffer (the data arrives in order, so they come last) for
 * up to 10 s.  An MPI whose progress happens only inside MPI calls moves nothing there (the
 * message is far above any eager limit, and rank 1 is out of MPI before rank 0 sends), so the
 * bytes appear only with a progress thread (Ferry: FERRY_ASYNC_PROGRESS).  Then both wait and rank 1 checks every byte.  With the argument
 * "expect-overlap" data that did not move while rank 1 computed is an error; without it the
 * program only says which it saw, so any MPI passes.  Reading a receive buffer before the
 * receive completes is strictly erroneous; it is only read here, the one way to see data move
 * without an MPI call (ThreadSanitizer reports it, over tcp, as the race it is).  2 ranks
 * (others idle). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mtest.h"

#define N (4 * 1024 * 1024)
#define TAIL 64 /* bytes watched at the end of the buffer */

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + 3);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int expect = argc > 1 && strcmp(argv[1], "expect-overlap") == 0;
    if (mtest_size < 2) {
        MTEST_FAIL(errs, "needs 2 ranks");
        return MTest_Finalize(errs);
    }
    unsigned char *buf = malloc(N);
    MPI_Request req = MPI_REQUEST_NULL;
    if (mtest_rank == 0) {
        for (size_t i = 0; i < N; i++)
            buf[i] = pattern(i);
    } else if (mtest_rank == 1) {
        memset(buf, 0, N);
        MPI_Irecv(buf, N, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &req);
    }
    /* Rank 1 says "go" once its receive is posted, and is out of MPI (a small send completes
     * at once) before rank 0 sends: nothing of the message can be taken by a call of rank 1's. */
    int go = 1;
    if (mtest_rank == 1)
        MPI_Send(&go, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
    else if (mtest_rank == 0) {
        MPI_Recv(&go, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Isend(buf, N, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &req);
    }

    /* The computation: no MPI call on either rank. */
    int moved = 0;
    double t0 = now(), t = t0;
    if (mtest_rank == 1) {
        volatile unsigned char *tail = buf + N - TAIL;
        while (!moved && (t = now()) - t0 < 10.0) {
            moved = 1;
            for (int i = 0; i < TAIL && moved; i++)
                moved = tail[i] == pattern(N - TAIL + i);
        }
    } else if (mtest_rank == 0) {
        while (now() - t0 < 0.2)
            ; /* rank 0 computes a little too, without MPI */
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (mtest_rank == 1) {
        for (size_t i = 0; i < N; i++)
            if (buf[i] != pattern(i)) {
                MTEST_FAIL(errs, "byte %zu is %d, not %d", i, buf[i], pattern(i));
                break;
            }
        if (expect && !moved)
            MTEST_FAIL(errs, "the data did not move in 10 s without an MPI call (no progress "
                             "thread?)");
        printf("rank 1: the data %s while it computed (%.3f s)\n",
               moved ? "arrived" : "did not move", t - t0);
    }
    free(buf);
    return MTest_Finalize(errs);
}
