/* tcp_exchange.c: every rank exchanges messages of every protocol size with every other rank,
 * contiguous and strided, with wildcards and synchronous sends; checks every byte.
 *
 * usage: tcp_exchange [ROUNDS [MAXSIZE]]   (default 2 rounds, all sizes up to 2.5 MB)
 * TCP_EXCHANGE_SIMUL=1 first makes ranks 2k and 2k+1 send to each other at the same moment
 * (both connect before either reads the other's handshake), so every pair resolves a
 * simultaneous connect.
 * Prints " No Errors" on rank 0 when all data arrived intact; otherwise a line per fault
 * naming the ranks, size and first wrong byte, and exit status 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int errors;
static size_t max_size = (size_t)-1;

static unsigned char pattern(int src, int dst, size_t size, size_t i)
{
    return (unsigned char)(src * 31 + dst * 7 + size * 3 + i * 13 + (i >> 8));
}

static void check(const unsigned char *buf, int src, int dst, size_t size, const char *what)
{
    for (size_t i = 0; i < size; i++) {
        if (buf[i] != pattern(src, dst, size, i)) {
            fprintf(stderr, "[%d] %s: %zu bytes from rank %d: byte %zu is %u, expected %u\n", dst,
                    what, size, src, i, buf[i], pattern(src, dst, size, i));
            errors++;
            return;
        }
    }
}

/* Sizes around the tcp thresholds: inline copy (4 KiB), receive in place
 * (16 KiB), eager limit (64 KiB), the 1 MiB frame limit of the pipeline. */
static const size_t sizes[] = {0, 1, 8, 100, 4095, 4097, 16383, 16385, 65535, 65536, 65537,
                               300000, 1048576, 1048577, 2500001};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void all_pairs(int rank, int size)
{
    int npeers = size - 1;
    unsigned char **rbuf = calloc((size_t)size, sizeof(*rbuf));
    unsigned char **sbuf = calloc((size_t)size, sizeof(*sbuf));
    MPI_Request *req = calloc((size_t)size * 2, sizeof(MPI_Request));
    for (size_t k = 0; k < NSIZES && sizes[k] <= max_size; k++) {
        size_t n = sizes[k];
        int nreq = 0;
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            rbuf[p] = malloc(n + 1);
            sbuf[p] = malloc(n + 1);
            for (size_t i = 0; i < n; i++)
                sbuf[p][i] = pattern(rank, p, n, i);
            MPI_Irecv(rbuf[p], (int)n, MPI_BYTE, p, (int)k, MPI_COMM_WORLD, &req[nreq++]);
        }
        for (int p = 0; p < size; p++)
            if (p != rank)
                MPI_Isend(sbuf[p], (int)n, MPI_BYTE, p, (int)k, MPI_COMM_WORLD, &req[nreq++]);
        MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        for (int p = 0; p < size; p++) {
            if (p == rank)
                continue;
            check(rbuf[p], p, rank, n, "all pairs");
            free(rbuf[p]);
            free(sbuf[p]);
        }
    }
    (void)npeers;
    free(rbuf);
    free(sbuf);
    free(req);
}

/* Strided data: large blocks (sent from the user's memory piece by piece)
 * and single doubles (packed), received into a strided buffer too. */
static void strided(int rank, int size)
{
    static const int blocks[] = {1, 1024};
    for (int b = 0; b < 2; b++) {
        int blen = blocks[b], count = b ? 40 : 40000; /* 320 KB of payload either way */
        MPI_Datatype vec;
        MPI_Type_vector(count, blen, 2 * blen, MPI_DOUBLE, &vec);
        MPI_Type_commit(&vec);
        size_t elems = (size_t)count * 2 * blen;
        double *s = malloc(elems * sizeof(double)), *r = malloc(elems * sizeof(double));
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        for (size_t i = 0; i < elems; i++) {
            s[i] = rank * 1e6 + (double)i;
            r[i] = -1;
        }
        MPI_Sendrecv(s, 1, vec, to, 77, r, 1, vec, from, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (size_t i = 0; i < elems; i++) {
            int in_block = (i / (size_t)blen) % 2 == 0;
            double want = in_block ? from * 1e6 + (double)i : -1;
            if (r[i] != want) {
                fprintf(stderr, "[%d] strided (blocks of %d doubles) from rank %d: element %zu "
                                "is %g, expected %g\n",
                        rank, blen, from, i, r[i], want);
                errors++;
                break;
            }
        }
        free(s);
        free(r);
        MPI_Type_free(&vec);
    }
}

/* Everyone sends to rank 0, which receives from MPI_ANY_SOURCE; then
 * synchronous sends back. */
static void wildcard_and_sync(int rank, int size)
{
    unsigned char buf[70000];
    if (rank == 0) {
        for (int k = 1; k < size; k++) {
            MPI_Status st;
            MPI_Recv(buf, sizeof(buf), MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &st);
            int n;
            MPI_Get_count(&st, MPI_BYTE, &n);
            check(buf, st.MPI_SOURCE, 0, (size_t)n, "any source");
        }
        for (int k = 1; k < size; k++) {
            for (size_t i = 0; i < 1000; i++)
                buf[i] = pattern(0, k, 1000, i);
            MPI_Ssend(buf, 1000, MPI_BYTE, k, 6, MPI_COMM_WORLD);
        }
    } else {
        size_t n = 1000 * (size_t)rank % 69000;
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(rank, 0, n, i);
        MPI_Send(buf, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD);
        MPI_Recv(buf, 1000, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check(buf, 0, rank, 1000, "synchronous");
    }
}

/* Both ranks of a pair start their connection before either makes progress: the sleep
 * keeps each one's HELLO unread until the other's attempt is on its way too. */
static void simultaneous(int rank, int size)
{
    int peer = rank ^ 1;
    unsigned char s[100], r[100];
    MPI_Request req[2];
    if (peer >= size)
        return;
    for (size_t i = 0; i < sizeof(s); i++)
        s[i] = pattern(rank, peer, sizeof(s), i);
    MPI_Irecv(r, sizeof(r), MPI_BYTE, peer, 9, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(s, sizeof(s), MPI_BYTE, peer, 9, MPI_COMM_WORLD, &req[1]);
    usleep(200000);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    check(r, peer, rank, sizeof(r), "simultaneous connect");
}

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 2;
    if (argc > 2)
        max_size = (size_t)atol(argv[2]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("TCP_EXCHANGE_SIMUL"))
        simultaneous(rank, size);
    for (int r = 0; r < rounds && size > 1; r++) {
        all_pairs(rank, size);
        if (max_size >= 320000)
            strided(rank, size);
        wildcard_and_sync(rank, size);
    }
    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
