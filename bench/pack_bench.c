/* pack_bench.c: MPI_Pack and MPI_Unpack throughput for common noncontiguous shapes, next to a
 * plain C loop doing the same copy.  Standard MPI only, so bench/pack_run.sh builds it against
 * Ferry, MPICH and Open MPI and compares them.
 *
 *   pack_bench [-q] [-t SECONDS]      one process; -q: shorter timing
 *
 * Prints one line per shape: name, packed bytes, then MB/s (10^6 bytes of packed data per
 * second) for pack, unpack, and the C loop's pack and unpack; the best of several timed runs. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double min_time = 0.05; /* seconds per measurement */
static int repeats = 5;        /* measurements; the best counts */

typedef struct {
    const char *name;
    MPI_Datatype type;
    int count;
    char *src;   /* the user buffer (unpack writes here too) */
    size_t span; /* its size */
    char *packed;
    size_t bytes;
    void (*loop_pack)(const char *src, char *dst);
    void (*loop_unpack)(const char *src, char *dst);
} shape_t;

/* ---- the shapes and their hand-written loops ---- */

#define NVEC (1 << 17) /* doubles: 1 MiB packed */
static void vec2_pack(const char *s, char *d)
{
    const double *in = (const double *)s;
    double *out = (double *)d;
    for (int i = 0; i < NVEC; i++)
        out[i] = in[2 * i];
}
static void vec2_unpack(const char *s, char *d)
{
    const double *in = (const double *)s;
    double *out = (double *)d;
    for (int i = 0; i < NVEC; i++)
        out[2 * i] = in[i];
}

/* blocks of B doubles with a gap of one block: the 64-byte-and-up rule */
#define BLOCK_LOOPS(B)                                                                             \
    static void blk##B##_pack(const char *s, char *d)                                              \
    {                                                                                              \
        for (int i = 0; i < NVEC / (B); i++)                                                       \
            memcpy(d + (size_t)i * (B)*8, s + (size_t)i * 2 * (B)*8, (B)*8);                       \
    }                                                                                              \
    static void blk##B##_unpack(const char *s, char *d)                                            \
    {                                                                                              \
        for (int i = 0; i < NVEC / (B); i++)                                                       \
            memcpy(d + (size_t)i * 2 * (B)*8, s + (size_t)i * (B)*8, (B)*8);                       \
    }
BLOCK_LOOPS(8)
BLOCK_LOOPS(64)
BLOCK_LOOPS(512)

#define NF 128 /* a NF^3 array of doubles (16 MiB); its faces */
static void facez_pack(const char *s, char *d)
{
    const double *in = (const double *)s;
    double *out = (double *)d;
    for (int x = 0; x < NF; x++)
        for (int y = 0; y < NF; y++)
            *out++ = in[((size_t)x * NF + y) * NF + 1];
}
static void facez_unpack(const char *s, char *d)
{
    const double *in = (const double *)s;
    double *out = (double *)d;
    for (int x = 0; x < NF; x++)
        for (int y = 0; y < NF; y++)
            out[((size_t)x * NF + y) * NF + 1] = *in++;
}
static void facey_pack(const char *s, char *d)
{
    for (int x = 0; x < NF; x++)
        memcpy(d + (size_t)x * NF * 8, s + ((size_t)x * NF + 1) * NF * 8, NF * 8);
}
static void facey_unpack(const char *s, char *d)
{
    for (int x = 0; x < NF; x++)
        memcpy(d + ((size_t)x * NF + 1) * NF * 8, s + (size_t)x * NF * 8, NF * 8);
}

struct rec {
    int id;
    double x;
    char tag[6];
    float v[3];
};
#define NREC (1 << 15) /* 30 bytes each: ~1 MiB packed */
static void rec_pack(const char *s, char *d)
{
    const struct rec *r = (const struct rec *)s;
    for (int i = 0; i < NREC; i++, r++) {
        memcpy(d, &r->id, 4);
        memcpy(d + 4, &r->x, 8);
        memcpy(d + 12, r->tag, 6);
        memcpy(d + 18, r->v, 12);
        d += 30;
    }
}
static void rec_unpack(const char *s, char *d)
{
    struct rec *r = (struct rec *)d;
    for (int i = 0; i < NREC; i++, r++) {
        memcpy(&r->id, s, 4);
        memcpy(&r->x, s + 4, 8);
        memcpy(r->tag, s + 12, 6);
        memcpy(r->v, s + 18, 12);
        s += 30;
    }
}

#define NIDX (1 << 17)
static int *idx; /* irregular increasing displacements, in doubles */
static void idx_pack(const char *s, char *d)
{
    const double *in = (const double *)s;
    double *out = (double *)d;
    for (int i = 0; i < NIDX; i++)
        out[i] = in[idx[i]];
}
static void idx_unpack(const char *s, char *d)
{
    const double *in = (const double *)s;
    double *out = (double *)d;
    for (int i = 0; i < NIDX; i++)
        out[idx[i]] = in[i];
}

static double now(void)
{
    return MPI_Wtime();
}

/* Best MB/s of fn over `repeats` measurements of at least min_time each. */
static double rate(shape_t *sh, int which)
{
    double best = 0;
    for (int r = 0; r < repeats; r++) {
        long iters = 0;
        double t0 = now(), t;
        do {
            int pos = 0;
            switch (which) {
            case 0:
                MPI_Pack(sh->src, sh->count, sh->type, sh->packed, (int)sh->bytes, &pos,
                         MPI_COMM_SELF);
                break;
            case 1:
                MPI_Unpack(sh->packed, (int)sh->bytes, &pos, sh->src, sh->count, sh->type,
                           MPI_COMM_SELF);
                break;
            case 2:
                sh->loop_pack(sh->src, sh->packed);
                break;
            case 3:
                sh->loop_unpack(sh->packed, sh->src);
                break;
            }
            iters++;
            t = now() - t0;
        } while (t < min_time);
        double mbs = (double)sh->bytes * iters / t / 1e6;
        if (mbs > best)
            best = mbs;
    }
    return best;
}

/* Checks that MPI_Pack and the loop agree (a wrong benchmark is worse than none). */
static int agree(shape_t *sh)
{
    char *a = malloc(sh->bytes), *b = malloc(sh->bytes);
    int pos = 0;
    MPI_Pack(sh->src, sh->count, sh->type, a, (int)sh->bytes, &pos, MPI_COMM_SELF);
    sh->loop_pack(sh->src, b);
    int ok = pos == (int)sh->bytes && memcmp(a, b, sh->bytes) == 0;
    free(a);
    free(b);
    return ok;
}

static void add(shape_t *sh, const char *name, MPI_Datatype t, int count, size_t span,
                void (*lp)(const char *, char *), void (*lu)(const char *, char *))
{
    sh->name = name;
    sh->type = t;
    sh->count = count;
    MPI_Type_commit(&sh->type);
    int size;
    MPI_Type_size(sh->type, &size);
    sh->bytes = (size_t)size * count;
    sh->span = span;
    sh->src = malloc(span);
    sh->packed = malloc(sh->bytes);
    for (size_t i = 0; i < span; i++)
        sh->src[i] = (char)(i * 7 + 3);
    sh->loop_pack = lp;
    sh->loop_unpack = lu;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-q"))
            min_time = 0.02, repeats = 3;
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            min_time = atof(argv[++i]);
    }
    shape_t sh[10];
    int n = 0;
    MPI_Datatype t;

    MPI_Type_vector(NVEC, 1, 2, MPI_DOUBLE, &t);
    add(&sh[n++], "vector stride 2 (8 B blocks)", t, 1, NVEC * 16, vec2_pack, vec2_unpack);
    MPI_Type_vector(NVEC / 8, 8, 16, MPI_DOUBLE, &t);
    add(&sh[n++], "vector 64 B blocks", t, 1, NVEC * 16, blk8_pack, blk8_unpack);
    MPI_Type_vector(NVEC / 64, 64, 128, MPI_DOUBLE, &t);
    add(&sh[n++], "vector 512 B blocks", t, 1, NVEC * 16, blk64_pack, blk64_unpack);
    MPI_Type_vector(NVEC / 512, 512, 1024, MPI_DOUBLE, &t);
    add(&sh[n++], "vector 4 KiB blocks", t, 1, NVEC * 16, blk512_pack, blk512_unpack);

    int sizes[3] = {NF, NF, NF}, subz[3] = {NF, NF, 1}, stz[3] = {0, 0, 1};
    MPI_Type_create_subarray(3, sizes, subz, stz, MPI_ORDER_C, MPI_DOUBLE, &t);
    add(&sh[n++], "3-D face, 8 B blocks", t, 1, (size_t)NF * NF * NF * 8, facez_pack, facez_unpack);
    int suby[3] = {NF, 1, NF}, sty[3] = {0, 1, 0};
    MPI_Type_create_subarray(3, sizes, suby, sty, MPI_ORDER_C, MPI_DOUBLE, &t);
    add(&sh[n++], "3-D face, 1 KiB blocks", t, 1, (size_t)NF * NF * NF * 8, facey_pack,
        facey_unpack);

    int bl[4] = {1, 1, 6, 3};
    MPI_Aint dis[4] = {offsetof(struct rec, id), offsetof(struct rec, x), offsetof(struct rec, tag),
                       offsetof(struct rec, v)};
    MPI_Datatype ty[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_FLOAT};
    MPI_Type_create_struct(4, bl, dis, ty, &t);
    add(&sh[n++], "struct {int,double,char[6],float[3]}", t, NREC, NREC * sizeof(struct rec),
        rec_pack, rec_unpack);

    idx = malloc(NIDX * sizeof(int));
    for (int i = 0, d = 0; i < NIDX; i++, d += 2 + (i * 7) % 3)
        idx[i] = d;
    MPI_Type_create_indexed_block(NIDX, 1, idx, MPI_DOUBLE, &t);
    add(&sh[n++], "indexed, 1-double blocks", t, 1, ((size_t)idx[NIDX - 1] + 1) * 8, idx_pack,
        idx_unpack);

    printf("# %-36s %9s %9s %9s %9s %9s\n", "shape", "bytes", "pack", "unpack", "loop-pk",
           "loop-unpk");
    for (int i = 0; i < n; i++) {
        if (!agree(&sh[i])) {
            printf("%-38s MPI_Pack differs from the C loop: not measured\n", sh[i].name);
            continue;
        }
        double p = rate(&sh[i], 0), u = rate(&sh[i], 1), lp = rate(&sh[i], 2), lu = rate(&sh[i], 3);
        printf("%-38s %9zu %9.0f %9.0f %9.0f %9.0f\n", sh[i].name, sh[i].bytes, p, u, lp, lu);
        fflush(stdout);
        MPI_Type_free(&sh[i].type);
        free(sh[i].src);
        free(sh[i].packed);
    }
    free(idx);
    MPI_Finalize();
    return 0;
}
