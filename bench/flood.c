/* flood.c: matching under a flood of unexpected messages.  Every rank but 0 sends MSGS messages
 * of SIZE bytes to rank 0 at once; rank 0 takes them one source at a time (all of rank 1's,
 * then all of rank 2's, ...), so while it works on one source the others' messages wait in its
 * unexpected queue.  A matching engine that searches one list per receive needs time growing
 * with the square of the queue; one binned by source needs constant time per message.
 *
 * usage: flood [-n MSGS] [-s SIZE] [-a]
 *   -n MSGS  messages per sender (default 20000)
 *   -s SIZE  bytes per message (default 1024)
 *   -a       rank 0 receives with MPI_ANY_SOURCE instead (the wildcard path; no flood order)
 * Prints one line "flood: ranks R msgs N size S: T s" plus "# MPI library: ..."; checks every
 * message's source, tag and first bytes, and exits 1 on a mismatch.  Builds with any MPI. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *library_name(void)
{
#if defined(FERRY_VERSION)
    return "Ferry " FERRY_VERSION;
#elif defined(OMPI_MAJOR_VERSION)
    static char name[64];
    snprintf(name, sizeof(name), "Open MPI %d.%d.%d", OMPI_MAJOR_VERSION, OMPI_MINOR_VERSION,
             OMPI_RELEASE_VERSION);
    return name;
#elif defined(MPICH_VERSION)
    return "MPICH " MPICH_VERSION;
#else
    return "unknown MPI library";
#endif
}

static int check(const char *buf, int size, int src, int k)
{
    int want = src * 1000003 + k;
    int got;
    if (size < (int)sizeof(int))
        return 0;
    memcpy(&got, buf, sizeof(got));
    return got != want;
}

int main(int argc, char **argv)
{
    int nmsg = 20000, size = 1024, anysrc = 0, opt;
    while ((opt = getopt(argc, argv, "n:s:a")) != -1) {
        if (opt == 'n')
            nmsg = atoi(optarg);
        else if (opt == 's')
            size = atoi(optarg);
        else if (opt == 'a')
            anysrc = 1;
        else {
            fprintf(stderr, "usage: flood [-n MSGS] [-s SIZE] [-a]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank, nranks, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (nmsg < 1 || size < 0 || nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "flood: needs -n >= 1, -s >= 0 and at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(1, (size_t)size + sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        MPI_Status st;
        int *next = calloc((size_t)nranks, sizeof(int));
        for (int s = 1; s < nranks; s++) {
            for (int k = 0; k < nmsg; k++) {
                MPI_Recv(buf, size, MPI_BYTE, anysrc ? MPI_ANY_SOURCE : s, MPI_ANY_TAG,
                         MPI_COMM_WORLD, &st);
                int src = st.MPI_SOURCE;
                /* Per source, messages come in the order sent (tag k). */
                if (src < 1 || src >= nranks || st.MPI_TAG != next[src] % 32768 ||
                    check(buf, size, src, next[src])) {
                    if (errs++ < 5)
                        fprintf(stderr, "flood: message %d from %d: tag %d, expected %d\n",
                                next[src < 1 || src >= nranks ? 0 : src], src, st.MPI_TAG,
                                next[src < 1 || src >= nranks ? 0 : src] % 32768);
                }
                if (src >= 1 && src < nranks)
                    next[src]++;
            }
        }
        free(next);
    } else {
        for (int k = 0; k < nmsg; k++) {
            int v = rank * 1000003 + k;
            if (size >= (int)sizeof(int))
                memcpy(buf, &v, sizeof(v));
            MPI_Send(buf, size, MPI_BYTE, 0, k % 32768, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    if (rank == 0) {
        printf("# MPI library: %s\n", library_name());
        printf("flood: ranks %d msgs %d size %d%s: %.3f s\n", nranks, nmsg, size,
               anysrc ? " any-source" : "", t);
    }
    free(buf);
    MPI_Finalize();
    return errs ? 1 : 0;
}
