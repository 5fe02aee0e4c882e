/* world.c: the job as a launcher started it: the world size must be argv[1] and the ranks must
 * sit on argv[2] distinct hosts (a program started without a working PMI runs as N singletons
 * that would each succeed).  Every pair exchanges a message, so every peer gets bound to a
 * method (FERRY_VERBOSE=1 shows which); each rank prints "rank R host H", rank 0 prints
 * "world S nodes K" and " No Errors" when both match. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, errs = 0, len;
    char host[MPI_MAX_PROCESSOR_NAME] = "";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    int want_size = argc > 1 ? atoi(argv[1]) : size;
    int want_nodes = argc > 2 ? atoi(argv[2]) : 0;
    printf("rank %d host %s\n", rank, host);

    /* Every pair, both ways: a wrong binding or an unreachable peer shows here. */
    for (int peer = 0; peer < size; peer++) {
        int out = rank * 1000 + peer, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, peer, 7, &in, 1, MPI_INT, peer, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (in != peer * 1000 + rank) {
            printf("rank %d: from rank %d got %d, expected %d\n", rank, peer, in,
                   peer * 1000 + rank);
            errs++;
        }
    }
    char *all = calloc((size_t)size, MPI_MAX_PROCESSOR_NAME);
    if (rank != 0) {
        MPI_Send(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 8, MPI_COMM_WORLD);
    } else {
        memcpy(all, host, MPI_MAX_PROCESSOR_NAME);
        for (int r = 1; r < size; r++)
            MPI_Recv(all + (size_t)r * MPI_MAX_PROCESSOR_NAME, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, r,
                     8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int total = 0;
    MPI_Reduce(&errs, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int nodes = 0;
        for (int r = 0; r < size; r++) {
            int seen = 0;
            for (int q = 0; q < r && !seen; q++)
                seen = strcmp(all + (size_t)q * MPI_MAX_PROCESSOR_NAME,
                              all + (size_t)r * MPI_MAX_PROCESSOR_NAME) == 0;
            nodes += !seen;
        }
        printf("world %d nodes %d\n", size, nodes);
        if (size != want_size || (want_nodes && nodes != want_nodes) || total)
            printf("wrong job: world %d (want %d), nodes %d (want %d), %d errors\n", size,
                   want_size, nodes, want_nodes, total);
        else
            printf(" No Errors\n");
    }
    free(all);
    MPI_Finalize();
    return 0;
}
