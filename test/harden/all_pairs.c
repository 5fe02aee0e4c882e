/* all_pairs.c: every rank sends ROUNDS messages of 8 bytes and of 60,000 bytes to every other
 * rank at once (nonblocking), and checks what it receives.  With FERRY_SHM_CMA=0 the large ones
 * go eagerly through cells, so the run touches cells and rings of the whole shm segment: the
 * check that a node's segment in a small /dev/shm is sized to fit it (run.sh). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 4
#define BIG 60000

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *sbuf = malloc(BIG), *rbuf = malloc((size_t)BIG * size * ROUNDS);
    long *small_in = malloc(sizeof(long) * size * ROUNDS), small_out = rank;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * 4 * size * ROUNDS);
    int n = 0;
    for (int i = 0; i < BIG; i++)
        sbuf[i] = (unsigned char)(rank + i);
    for (int r = 0; r < ROUNDS; r++)
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            MPI_Irecv(rbuf + ((size_t)r * size + p) * BIG, BIG, MPI_BYTE, p, r, MPI_COMM_WORLD,
                      &reqs[n++]);
            MPI_Irecv(&small_in[r * size + p], 1, MPI_LONG, p, 100 + r, MPI_COMM_WORLD, &reqs[n++]);
            MPI_Isend(sbuf, BIG, MPI_BYTE, p, r, MPI_COMM_WORLD, &reqs[n++]);
            MPI_Isend(&small_out, 1, MPI_LONG, p, 100 + r, MPI_COMM_WORLD, &reqs[n++]);
        }
    MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
    for (int r = 0; r < ROUNDS; r++)
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            const unsigned char *b = rbuf + ((size_t)r * size + p) * BIG;
            for (int i = 0; i < BIG; i++)
                if (b[i] != (unsigned char)(p + i)) {
                    errs++;
                    break;
                }
            if (small_in[r * size + p] != p)
                errs++;
        }
    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total ? " Found %d errors\n" : " No Errors\n", total);
    free(sbuf);
    free(rbuf);
    free(small_in);
    free(reqs);
    MPI_Finalize();
    return total != 0;
}
