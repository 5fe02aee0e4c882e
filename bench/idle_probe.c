/* idle_probe.c: the cost of an idle poll when every local peer has sent once.  Every rank sends
 * one message to every other (with shm, every rank then has each peer's ring to poll), then
 * rank 0 makes N empty MPI_Iprobe calls; then a ping-pong of M messages between ranks 0 and 1.
 *   idle_probe [N [M]]          (defaults 20000 2000; any number of ranks)
 * Counted, not timed (doc/methods/shm.md, "Hot and cold rings"): instructions per MPI_Iprobe
 * of rank 0 under callgrind, e.g. with 16 ranks
 *   mpiexec -n 16 sh -c 'if [ $PMI_RANK = 0 ]; then exec valgrind --tool=callgrind \
 *       --collect-atstart=no --toggle-collect=PMPI_Iprobe --callgrind-out-file=cg ./idle_probe
 * 20000 0; else exec ./idle_probe 20000 0; fi' and callgrind_annotate cg (the total over 20,000
 * calls). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int r, n, flag, N = argc > 1 ? atoi(argv[1]) : 20000, M = argc > 2 ? atoi(argv[2]) : 2000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *s = calloc(n, sizeof(int)), *d = calloc(n, sizeof(int));
    MPI_Alltoall(s, 1, MPI_INT, d, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        for (int i = 0; i < N; i++)
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    char b[8] = {0};
    for (int i = 0; i < M; i++) {
        if (r == 0) {
            MPI_Send(b, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(b, 8, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (r == 1) {
            MPI_Recv(b, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        printf("done %d\n", n);
    MPI_Finalize();
    return 0;
}
