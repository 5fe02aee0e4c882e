/* chaos_traffic.c: every protocol of the core over the chaos method: random sizes, layouts,
 * synchronous sends, wildcards and unexpected messages, checked byte by byte.
 *
 *   chaos_traffic [ROUNDS [EXPECT]]   EXPECT: am (only active messages must have been
 *                                     delayed) or rdma (rdma operations too)
 *
 * CHAOS_SEED chooses the run; a failure prints it, and the same seed repeats the same
 * choices of the test (the interleaving with the other ranks may still differ). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi.h"
#include "chaos.h"

unsigned long long chaos_seed;
static int rank, nprocs, errors;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* What src sends dst in a round: the same on both sides. */
typedef struct msg {
    int n;     /* ints */
    int sync;  /* MPI_Issend */
    int s_vec; /* sender's layout: vector of stride 2 */
    int r_vec; /* receiver's layout */
    int any;   /* receiver uses MPI_ANY_SOURCE (tag tells the sender) */
    int late;  /* receiver posts after sending (the message is likely unexpected) */
} msg_t;

static msg_t plan(int round, int src, int dst)
{
    uint64_t h = mix(chaos_seed * 1000003ULL + (uint64_t)round * 7919ULL + (uint64_t)src * 131ULL +
                     (uint64_t)dst);
    static const int sizes[] = {0, 1, 3, 17, 100, 1000, 4000, 16384, 40000, 150000, 300000};
    msg_t m;
    m.n = sizes[h % (sizeof(sizes) / sizeof(sizes[0]))];
    h = mix(h);
    m.sync = h & 1;
    m.s_vec = (h >> 1) & 1;
    m.r_vec = (h >> 2) & 1;
    m.any = ((h >> 3) & 3) == 0;
    m.late = (h >> 5) & 1;
    return m;
}

static int value(int round, int src, int i)
{
    return (int)(mix(((uint64_t)round << 40) ^ ((uint64_t)src << 32) ^ (uint64_t)i ^ chaos_seed) &
                 0x7fffffff);
}

/* A buffer of n ints, contiguous or every other int (a vector type). */
typedef struct buf {
    int *mem;
    MPI_Datatype type;
    int count;
} buf_t;

static buf_t make_buf(int n, int vec)
{
    buf_t b;
    b.mem = malloc(sizeof(int) * (size_t)(2 * n + 1));
    if (vec && n > 0) {
        MPI_Type_vector(n, 1, 2, MPI_INT, &b.type);
        MPI_Type_commit(&b.type);
        b.count = 1;
    } else {
        b.type = MPI_INT;
        b.count = n;
    }
    return b;
}

static int *elem(buf_t *b, int vec, int i)
{
    return &b->mem[vec ? 2 * i : i];
}

static void free_buf(buf_t *b)
{
    if (b->type != MPI_INT)
        MPI_Type_free(&b->type);
    free(b->mem);
}

static void one_round(int round)
{
    int tag_base = 1000 * (round % 100);
    buf_t *sb = calloc((size_t)nprocs, sizeof(buf_t)), *rb = calloc((size_t)nprocs, sizeof(buf_t));
    MPI_Request *sr = malloc(sizeof(MPI_Request) * (size_t)nprocs);
    MPI_Request *rr = malloc(sizeof(MPI_Request) * (size_t)nprocs);
    msg_t *in = calloc((size_t)nprocs, sizeof(msg_t));
    int maxn = 0;
    for (int p = 0; p < nprocs; p++) {
        in[p] = plan(round, p, rank);
        if (in[p].n > maxn)
            maxn = in[p].n;
    }
    /* Receives of wildcard messages get a buffer for the largest one. */
    for (int p = 0; p < nprocs; p++) {
        rr[p] = MPI_REQUEST_NULL;
        int n = in[p].any ? maxn : in[p].n;
        rb[p] = make_buf(n, in[p].r_vec);
        if (!in[p].late)
            MPI_Irecv(rb[p].mem, rb[p].count, rb[p].type, in[p].any ? MPI_ANY_SOURCE : p,
                      tag_base + p, MPI_COMM_WORLD, &rr[p]);
    }
    for (int k = 0; k < nprocs; k++) {
        int p = (rank + k) % nprocs;
        msg_t m = plan(round, rank, p);
        sb[p] = make_buf(m.n, m.s_vec);
        for (int i = 0; i < m.n; i++)
            *elem(&sb[p], m.s_vec, i) = value(round, rank, i);
        if (m.sync)
            MPI_Issend(sb[p].mem, sb[p].count, sb[p].type, p, tag_base + rank, MPI_COMM_WORLD,
                       &sr[p]);
        else
            MPI_Isend(sb[p].mem, sb[p].count, sb[p].type, p, tag_base + rank, MPI_COMM_WORLD,
                      &sr[p]);
    }
    /* Let messages arrive before the late receives are posted. */
    for (int i = 0; i < 20; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int p = 0; p < nprocs; p++)
        if (in[p].late)
            MPI_Irecv(rb[p].mem, rb[p].count, rb[p].type, in[p].any ? MPI_ANY_SOURCE : p,
                      tag_base + p, MPI_COMM_WORLD, &rr[p]);
    /* Sends complete in any order; a completed send's buffer is scribbled
     * on at once, so a method still reading it would deliver garbage. */
    for (int done = 0; done < nprocs; done++) {
        int idx;
        MPI_Waitany(nprocs, sr, &idx, MPI_STATUS_IGNORE);
        msg_t m = plan(round, rank, idx);
        for (int i = 0; i < m.n; i++)
            *elem(&sb[idx], m.s_vec, i) = -1;
    }
    for (int p = 0; p < nprocs; p++) {
        MPI_Status st;
        MPI_Wait(&rr[p], &st);
        int src = st.MPI_SOURCE, cnt;
        MPI_Get_count(&st, MPI_INT, &cnt);
        if (in[p].any && src != p) {
            /* A wildcard with tag tag_base + p can only match p's message. */
            fprintf(stderr, "rank %d round %d: wildcard receive for rank %d got rank %d\n", rank,
                    round, p, src);
            errors++;
            continue;
        }
        if (cnt != in[p].n) {
            fprintf(stderr, "rank %d round %d: from %d got %d ints, expected %d\n", rank, round, p,
                    cnt, in[p].n);
            errors++;
        }
        for (int i = 0; i < in[p].n; i++) {
            int want = value(round, p, i), got = *elem(&rb[p], in[p].r_vec, i);
            if (got != want) {
                fprintf(stderr,
                        "rank %d round %d: from %d (%d ints, %s%s -> %s%s) int %d is %d, "
                        "expected %d\n",
                        rank, round, p, in[p].n, in[p].s_vec ? "vector" : "contig",
                        in[p].sync ? " sync" : "", in[p].r_vec ? "vector" : "contig",
                        in[p].any ? " any" : "", i, got, want);
                errors++;
                break;
            }
        }
    }
    for (int p = 0; p < nprocs; p++) {
        free_buf(&sb[p]);
        free_buf(&rb[p]);
    }
    free(sb);
    free(rb);
    free(sr);
    free(rr);
    free(in);
}

void chaos_report(void)
{
    if (!getenv("CHAOS_VERBOSE"))
        return;
    static const char *names[CHAOS_NCOUNTS] = {"am",           "am_again",   "am_inprogress",
                                               "rdma",         "rdma_again", "rdma_inprogress",
                                               "rdma_refused", "regs",       "rcache_hits"};
    fprintf(stderr, "chaos rank %d seed %llu:", rank, chaos_seed);
    for (int i = 0; i < CHAOS_NCOUNTS; i++)
        fprintf(stderr, " %s=%llu", names[i], chaos_count(i));
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    if (MPIDU_method_add(&chaos_ops) != 0) {
        fprintf(stderr, "cannot add the chaos method\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    const char *expect = argc > 2 ? argv[2] : "am";
    for (int r = 0; r < rounds; r++)
        one_round(r);
    /* The chaos must really have happened, or this run proved nothing. */
    unsigned long long c[CHAOS_NCOUNTS], sum[CHAOS_NCOUNTS];
    for (int i = 0; i < CHAOS_NCOUNTS; i++)
        c[i] = chaos_count(i);
    MPI_Reduce(c, sum, CHAOS_NCOUNTS, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    int total;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (!sum[CHAOS_AM_AGAIN] || !sum[CHAOS_AM_INPROGRESS]) {
            fprintf(stderr, "no AGAIN (%llu) or INPROGRESS (%llu) from am_send\n",
                    sum[CHAOS_AM_AGAIN], sum[CHAOS_AM_INPROGRESS]);
            total++;
        }
        if (!strcmp(expect, "rdma") && (!sum[CHAOS_RDMA_AGAIN] || !sum[CHAOS_RDMA_INPROGRESS])) {
            fprintf(stderr, "no AGAIN (%llu) or INPROGRESS (%llu) from rdma_get/rdma_put\n",
                    sum[CHAOS_RDMA_AGAIN], sum[CHAOS_RDMA_INPROGRESS]);
            total++;
        }
        if (!strcmp(expect, "am") && sum[CHAOS_RDMA_CALLS]) {
            fprintf(stderr, "%llu rdma calls where only active messages should go\n",
                    sum[CHAOS_RDMA_CALLS]);
            total++;
        }
        if (total)
            fprintf(stderr, "chaos_traffic: %d errors with CHAOS_SEED=%llu\n", total, chaos_seed);
        else
            printf(" No Errors (seed %llu: %llu am, %llu again, %llu rdma, %llu again, %llu "
                   "in progress, %llu registrations, %llu cache hits)\n",
                   chaos_seed, sum[CHAOS_AM_CALLS], sum[CHAOS_AM_AGAIN], sum[CHAOS_RDMA_CALLS],
                   sum[CHAOS_RDMA_AGAIN], sum[CHAOS_RDMA_INPROGRESS], sum[CHAOS_REGS],
                   sum[CHAOS_RCACHE_HITS]);
    }
    MPI_Finalize();
    return 0;
}
