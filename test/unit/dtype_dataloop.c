/* dtype_dataloop.c: the dataloops commit builds are normalised (a vector of contiguous ints is
 * one loop with merged blocks, contiguous types are one block and never walk, subarray faces
 * are one vector, evenly spaced indexed blocks a vector, abutting blocks merged, structs of
 * predefined fields an indexed loop of bytes), and the segment seeks to the end of a 10^8-block
 * vector at once and merges adjacent pieces in iovecs. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "mpi.h"
#include "datatype.h"
#include "dataloop.h"
#include "segment.h"

static int errors;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            errors++;                                                                              \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static const MPIR_Dataloop *loop_of(MPI_Datatype *t)
{
    MPI_Type_commit(t);
    return MPIR_Datatype_loop(MPIR_Datatype_get(*t));
}

static void show(const char *what, const MPIR_Dataloop *L)
{
    char buf[2048];
    MPIR_Dataloop_print(L, buf, sizeof buf);
    fprintf(stderr, "  %s:\n%s", what, buf);
}

/* A leaf vector: count blocks of `bytes` bytes, `stride` apart, from disp0. */
static void expect_vector(const char *what, MPI_Datatype t, MPI_Aint count, MPI_Aint bytes,
                          MPI_Aint stride, MPI_Aint disp0)
{
    const MPIR_Dataloop *L = loop_of(&t);
    int ok = L->kind == MPIR_DL_VECTOR && !L->child && L->count == count && L->blocklen == bytes &&
             (count == 1 || L->stride == stride) && L->disp0 == disp0;
    EXPECT(ok, "%s: expected one leaf vector of %ld x %ld bytes, stride %ld, from %ld", what,
           (long)count, (long)bytes, (long)stride, (long)disp0);
    if (!ok)
        show(what, L);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype c, t, u;
    const int I = sizeof(int), D = sizeof(double);

    MPI_Type_contiguous(2, MPI_INT, &c);
    MPI_Type_vector(10, 1, 3, c, &t);
    expect_vector("vector(10,1,3,contiguous(2,int))", t, 10, 2 * I, 6 * I, 0);
    MPI_Type_vector(10, 3, 3, c, &t); /* stride = blocklength: contiguous */
    expect_vector("vector(10,3,3,contiguous(2,int))", t, 1, 60 * I, 0, 0);
    MPI_Type_free(&c);

    /* Contiguous types are recognised, and their segments are plain memory. */
    MPI_Type_vector(4, 3, 3, MPI_DOUBLE, &u);
    MPI_Type_contiguous(5, u, &t);
    MPI_Type_free(&u);
    MPI_Type_commit(&t);
    MPIR_Segment seg;
    double arr[60];
    MPIR_Segment_init(&seg, arr, 2, t);
    EXPECT(seg.is_contig && MPIR_Segment_contig_ptr(&seg, 8) == (char *)arr + 8,
           "contiguous(5, vector(4,3,3,double)) x 2 is not one piece");
    MPI_Type_free(&t);
    MPI_Type_create_resized(MPI_INT, 0, 2 * I, &t); /* one int, extent two: one element is */
    MPI_Type_commit(&t);                            /* contiguous, two are not */
    int ints[8];
    MPIR_Segment_init(&seg, ints, 1, t);
    EXPECT(seg.is_contig, "one resized int is not contiguous");
    MPIR_Segment_init(&seg, ints, 2, t);
    EXPECT(!seg.is_contig && MPIR_Segment_pieces(&seg) == 2,
           "two resized ints (extent 2 ints) taken as contiguous");
    MPI_Type_free(&t);

    /* The faces of a 16 x 32 x 64 array of doubles. */
    int sizes[3] = {16, 32, 64};
    int face[3][3] = {{1, 32, 64}, {16, 1, 64}, {16, 32, 1}},
        st[3][3] = {{5, 0, 0}, {0, 5, 0}, {0, 0, 5}};
    MPI_Type_create_subarray(3, sizes, face[0], st[0], MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_vector("face x (a plane)", t, 1, 32 * 64 * D, 0, 5 * 32 * 64 * D);
    MPI_Type_create_subarray(3, sizes, face[1], st[1], MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_vector("face y", t, 16, 64 * D, 32 * 64 * D, 5 * 64 * D);
    MPI_Type_create_subarray(3, sizes, face[2], st[2], MPI_ORDER_C, MPI_DOUBLE, &t);
    expect_vector("face z (single doubles)", t, 16 * 32, D, 64 * D, 5 * D);

    /* Evenly spaced equal indexed blocks are a vector; abutting blocks merge. */
    int bl[4] = {2, 2, 2, 2}, dis[4] = {1, 5, 9, 13};
    MPI_Type_indexed(4, bl, dis, MPI_INT, &t);
    expect_vector("indexed, even spacing", t, 4, 2 * I, 4 * I, I);
    int bl2[3] = {1, 2, 3}, dis2[3] = {4, 5, 7};
    MPI_Type_indexed(3, bl2, dis2, MPI_INT, &t);
    expect_vector("indexed, abutting blocks", t, 1, 6 * I, 0, 4 * I);
    int dis3[3] = {3, 0, 9};
    MPI_Type_create_indexed_block(3, 1, dis3, MPI_DOUBLE, &t);
    {
        const MPIR_Dataloop *L = loop_of(&t);
        EXPECT(L->kind == MPIR_DL_BLKIDX && !L->child && L->blocklen == D && L->count == 3,
               "indexed_block of single doubles is not a leaf block-indexed loop");
        MPI_Type_free(&t);
    }

    /* A struct of predefined fields is an indexed loop of bytes (or one block). */
    struct s {
        int a;
        double b;
        char c[3];
    };
    int sbl[3] = {1, 1, 3};
    MPI_Aint sdis[3] = {offsetof(struct s, a), offsetof(struct s, b), offsetof(struct s, c)};
    MPI_Datatype sty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, sbl, sdis, sty, &t);
    {
        const MPIR_Dataloop *L = loop_of(&t);
        /* int | pad | double, chars: the double and the chars abut */
        EXPECT(L->kind == MPIR_DL_INDEXED && !L->child && L->count == 2 && L->blocklens[0] == I &&
                   L->blocklens[1] == D + 3,
               "struct {int, double, char[3]} is not two byte blocks");
        if (errors)
            show("struct", L);
        MPI_Type_free(&t);
    }
    MPI_Aint adj[2] = {0, I};
    MPI_Datatype aty[2] = {MPI_INT, MPI_FLOAT};
    int abl[2] = {1, 2};
    MPI_Type_create_struct(2, abl, adj, aty, &t);
    expect_vector("struct {int, float[2]}", t, 1, 3 * I, 0, 0);

    /* Seeking: the last double of a vector of 10^8 blocks, packed at once (a walk from the
     * start would take a second or more).  Only that double's memory is touched. */
    MPI_Type_vector(100000000, 1, 2, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    double last = 42.5, out = 0;
    uintptr_t origin = (uintptr_t)&last - (uintptr_t)(2 * (100000000 - 1) * D);
    MPIR_Segment_init(&seg, (void *)origin, 1, t);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n = MPIR_Segment_pack(&seg, seg.size - D, seg.size, &out);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double us = (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3;
    EXPECT(n == (size_t)D && out == 42.5, "packing the last double gave %zu bytes, %g", n, out);
    EXPECT(us < 10000, "seeking to the end of 10^8 blocks took %.0f us", us);
    MPI_Type_free(&t);

    /* iovec: adjacent pieces are merged (a resized type that abuts itself). */
    MPI_Type_vector(2, 1, 2, MPI_INT, &u);
    MPI_Type_create_resized(u, 0, 3 * I, &t); /* ints 0, 2 | 3, 5 | 6, 8 ... */
    MPI_Type_free(&u);
    MPI_Type_commit(&t);
    int big[64];
    MPIR_Segment_init(&seg, big, 4, t);
    struct iovec iov[16];
    size_t end = seg.size;
    int niov = MPIR_Segment_to_iov(&seg, 0, &end, iov, 16);
    /* 0 | 2,3 | 5,6 | 8,9 | 11: five pieces */
    EXPECT(niov == 5 && end == seg.size && iov[1].iov_len == 2 * (size_t)I &&
               iov[1].iov_base == (void *)&big[2],
           "iovec of 4 x resized vector: %d entries, second %zu bytes at int %ld", niov,
           iov[1].iov_len, (long)((int *)iov[1].iov_base - big));
    end = seg.size;
    niov = MPIR_Segment_to_iov(&seg, I, &end, iov, 2); /* from the 2nd int, two entries */
    EXPECT(niov == 2 && end == 5 * (size_t)I && iov[0].iov_base == (void *)&big[2],
           "iovec from byte 4 with room for 2: %d entries to byte %zu", niov, end);
    MPI_Type_free(&t);

    int live = MPIR_Datatype_live();
    EXPECT(live == 0, "%d derived type objects left", live);
    MPI_Finalize();
    printf("dtype_dataloop: %d errors\n", errors);
    return errors ? 1 : 0;
}
