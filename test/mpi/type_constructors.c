/* type_constructors.c: each datatype constructor on a small case worked out by hand: size,
 * lb/extent, true lb/extent, the packed order of the elements (MPI_Pack of an array holding
 * each element's own index), envelope and contents, and a send to the next rank received as
 * a contiguous array (and the reverse) so the layout crosses the wire both ways.  Also the
 * standard names of the predefined types and MPI_Type_set_name/get_name. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define N 512 /* ints in the test arrays; every case stays inside */

static int errs;

/* Checks type t against the expected list of int indexes (in typemap order), size and bounds,
 * then frees it. */
static void check(const char *what, MPI_Datatype t, const int *idx, int n, MPI_Aint lb,
                  MPI_Aint extent, MPI_Aint tlb, MPI_Aint textent, int combiner, int ni, int na,
                  int nd)
{
    int size, sz;
    MPI_Aint l, e;
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MTEST_CHECK_INT(errs, n * (int)sizeof(int), size, "%s: MPI_Type_size", what);
    MPI_Type_get_extent(t, &l, &e);
    MTEST_CHECK_INT(errs, lb, l, "%s: lb", what);
    MTEST_CHECK_INT(errs, extent, e, "%s: extent", what);
    MPI_Type_get_true_extent(t, &l, &e);
    MTEST_CHECK_INT(errs, tlb, l, "%s: true lb", what);
    MTEST_CHECK_INT(errs, textent, e, "%s: true extent", what);
    int a, b, c, comb;
    MPI_Type_get_envelope(t, &a, &b, &c, &comb);
    MTEST_CHECK_INT(errs, combiner, comb, "%s: combiner", what);
    MTEST_CHECK_INT(errs, ni, a, "%s: number of integers", what);
    MTEST_CHECK_INT(errs, na, b, "%s: number of addresses", what);
    MTEST_CHECK_INT(errs, nd, c, "%s: number of datatypes", what);

    /* Elements are ints holding their own index, the array centred so that negative
     * displacements stay inside it. */
    int *arr = malloc(N * sizeof(int)), *base = arr + N / 2, packed[N];
    for (int i = 0; i < N; i++)
        arr[i] = i - N / 2;
    int pos = 0;
    MPI_Pack_size(1, t, MPI_COMM_WORLD, &sz);
    MTEST_CHECK_INT(errs, size, sz, "%s: MPI_Pack_size", what);
    MPI_Pack(base, 1, t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, size, pos, "%s: MPI_Pack position", what);
    for (int i = 0; i < n; i++)
        if (packed[i] != idx[i]) {
            MTEST_FAIL(errs, "%s: packed element %d is index %d, expected %d", what, i, packed[i],
                       idx[i]);
            break;
        }

    /* Over the wire: typed to contiguous, and contiguous to typed, around a ring. */
    int next = (mtest_rank + 1) % mtest_size, prev = (mtest_rank + mtest_size - 1) % mtest_size;
    int got[N];
    MPI_Status st;
    MPI_Sendrecv(base, 1, t, next, 1, got, N, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    MTEST_CHECK_INT(errs, n, count, "%s: ints received", what);
    for (int i = 0; i < n && i < count; i++)
        if (got[i] != idx[i]) {
            MTEST_FAIL(errs, "%s: received element %d is index %d, expected %d", what, i, got[i],
                       idx[i]);
            break;
        }
    for (int i = 0; i < N; i++)
        arr[i] = -1000000;
    MPI_Sendrecv(idx, n, MPI_INT, next, 2, base, 1, t, prev, 2, MPI_COMM_WORLD, &st);
    for (int i = 0; i < N; i++) {
        int want = -1000000;
        for (int k = 0; k < n; k++)
            if (idx[k] == i - N / 2)
                want = idx[k];
        if (arr[i] != want) {
            MTEST_FAIL(errs, "%s: after receiving, int %d holds %d, expected %d", what, i - N / 2,
                       arr[i], want);
            break;
        }
    }
    free(arr);
    MPI_Type_free(&t);
    MTEST_CHECK_INT(errs, MPI_DATATYPE_NULL, t, "%s: handle after MPI_Type_free", what);
}

#define CHECK(what, t, lb, ext, tlb, text, comb, ni, na, nd, ...)                                  \
    do {                                                                                           \
        static const int idx_[] = {__VA_ARGS__};                                                   \
        check(what, t, idx_, (int)(sizeof idx_ / sizeof idx_[0]), lb, ext, tlb, text, comb, ni,    \
              na, nd);                                                                             \
    } while (0)

static void names(void)
{
    static const struct {
        MPI_Datatype t;
        const char *name;
    } n[] = {{MPI_INT, "MPI_INT"},       {MPI_DOUBLE, "MPI_DOUBLE"},
             {MPI_CHAR, "MPI_CHAR"},     {MPI_UINT64_T, "MPI_UINT64_T"},
             {MPI_C_BOOL, "MPI_C_BOOL"}, {MPI_DOUBLE_INT, "MPI_DOUBLE_INT"},
             {MPI_BYTE, "MPI_BYTE"},     {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"},
             {MPI_PACKED, "MPI_PACKED"}, {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"}};
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        MPI_Type_get_name(n[i].t, name, &len);
        if (strcmp(name, n[i].name) || len != (int)strlen(n[i].name))
            MTEST_FAIL(errs, "MPI_Type_get_name: \"%s\" (%d), expected \"%s\"", name, len,
                       n[i].name);
    }
    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_get_name(t, name, &len);
    MTEST_CHECK_INT(errs, 0, len, "name length of a new derived type");
    MPI_Type_set_name(t, "three ints");
    MPI_Type_get_name(t, name, &len);
    if (strcmp(name, "three ints") || len != 10)
        MTEST_FAIL(errs, "MPI_Type_set_name/get_name gave \"%s\" (%d)", name, len);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    const int I = sizeof(int);
    MPI_Datatype t, u;

    MPI_Type_contiguous(3, MPI_INT, &t);
    CHECK("contiguous(3)", t, 0, 3 * I, 0, 3 * I, MPI_COMBINER_CONTIGUOUS, 1, 0, 1, 0, 1, 2);

    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    CHECK("vector(3,2,4)", t, 0, 10 * I, 0, 10 * I, MPI_COMBINER_VECTOR, 3, 0, 1, 0, 1, 4, 5, 8, 9);
    /* Negative stride: the blocks run backwards, the lower bound is the last block. */
    MPI_Type_vector(3, 1, -2, MPI_INT, &t);
    CHECK("vector(3,1,-2)", t, -4 * I, 5 * I, -4 * I, 5 * I, MPI_COMBINER_VECTOR, 3, 0, 1, 0, -2,
          -4);
    MPI_Type_create_hvector(2, 2, 5 * I, MPI_INT, &t);
    CHECK("hvector(2,2,5 ints)", t, 0, 7 * I, 0, 7 * I, MPI_COMBINER_HVECTOR, 2, 1, 1, 0, 1, 5, 6);

    int bl[3] = {2, 0, 1}, dis[3] = {5, 100, -1};
    MPI_Type_indexed(3, bl, dis, MPI_INT, &t);
    /* a zero-length block adds nothing, not even to the bounds */
    CHECK("indexed", t, -1 * I, 8 * I, -1 * I, 8 * I, MPI_COMBINER_INDEXED, 7, 0, 1, 5, 6, -1);
    MPI_Aint hdis[3] = {5 * I, 100 * I, -1 * I};
    MPI_Type_create_hindexed(3, bl, hdis, MPI_INT, &t);
    CHECK("hindexed", t, -1 * I, 8 * I, -1 * I, 8 * I, MPI_COMBINER_HINDEXED, 4, 3, 1, 5, 6, -1);
    int bdis[3] = {7, 0, 3};
    MPI_Type_create_indexed_block(3, 2, bdis, MPI_INT, &t);
    CHECK("indexed_block", t, 0, 9 * I, 0, 9 * I, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1, 7, 8, 0, 1,
          3, 4);
    MPI_Aint bhdis[2] = {6 * I, -3 * I};
    MPI_Type_create_hindexed_block(2, 1, bhdis, MPI_INT, &t);
    CHECK("hindexed_block", t, -3 * I, 10 * I, -3 * I, 10 * I, MPI_COMBINER_HINDEXED_BLOCK, 2, 2, 1,
          6, -3);

    /* struct of a vector and an int, the vector at a negative displacement */
    MPI_Type_vector(2, 1, 3, MPI_INT, &u);
    int sbl[2] = {1, 2};
    MPI_Aint sdis[2] = {-8 * I, 2 * I};
    MPI_Datatype sty[2] = {u, MPI_INT};
    MPI_Type_create_struct(2, sbl, sdis, sty, &t);
    MPI_Type_free(&u); /* the struct keeps it */
    CHECK("struct", t, -8 * I, 12 * I, -8 * I, 12 * I, MPI_COMBINER_STRUCT, 3, 2, 2, -8, -5, 2, 3);

    /* resized: a vector element spaced by one int, so two interleave */
    MPI_Type_vector(2, 1, 2, MPI_INT, &u);
    MPI_Type_create_resized(u, 0, I, &t);
    MPI_Type_free(&u);
    MPI_Type_contiguous(2, t, &u);
    MPI_Type_free(&t);
    CHECK("contiguous(2, resized(vector(2,1,2),0,1 int))", u, 0, 2 * I, 0, 4 * I,
          MPI_COMBINER_CONTIGUOUS, 1, 0, 1, 0, 2, 1, 3);
    /* A resized lower bound below the data: sticky, the data's lower bound does not matter. */
    MPI_Type_create_resized(MPI_INT, -2 * I, 5 * I, &t);
    CHECK("resized(int,-2,5)", t, -2 * I, 5 * I, 0, I, MPI_COMBINER_RESIZED, 0, 2, 1, 0);

    /* subarray: 2x3 of a 4x5 array starting at (1,2); C order rows of 5, Fortran columns of 4 */
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
    CHECK("subarray C", t, 0, 20 * I, 7 * I, 8 * I, MPI_COMBINER_SUBARRAY, 8, 0, 1, 7, 8, 9, 12, 13,
          14);
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    CHECK("subarray Fortran", t, 0, 20 * I, 9 * I, 10 * I, MPI_COMBINER_SUBARRAY, 8, 0, 1, 9, 10,
          13, 14, 17, 18);

    /* darray: 6x4 on a 2x2 grid, rank 3 = coordinates (1,1).  Block x cyclic in C order:
     * rows 3..5, columns 1 and 3. */
    int gs[2] = {6, 4}, di[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int da[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
    MPI_Type_create_darray(4, 3, 2, gs, di, da, ps, MPI_ORDER_C, MPI_INT, &t);
    CHECK("darray C block x cyclic", t, 0, 24 * I, 13 * I, 11 * I, MPI_COMBINER_DARRAY, 12, 0, 1,
          13, 15, 17, 19, 21, 23);
    /* Fortran order, cyclic(2) x none on a 3x1 grid, rank 1: rows 2,3 (dimension 0 fastest). */
    int gs2[2] = {7, 2}, di2[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE},
        da2[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps2[2] = {3, 1};
    MPI_Type_create_darray(3, 1, 2, gs2, di2, da2, ps2, MPI_ORDER_FORTRAN, MPI_INT, &t);
    CHECK("darray Fortran cyclic(2) x none", t, 0, 14 * I, 2 * I, 9 * I, MPI_COMBINER_DARRAY, 12, 0,
          1, 2, 3, 9, 10);

    MPI_Type_vector(2, 1, 3, MPI_INT, &u);
    MPI_Type_dup(u, &t);
    MPI_Type_free(&u);
    CHECK("dup(vector(2,1,3))", t, 0, 4 * I, 0, 4 * I, MPI_COMBINER_DUP, 0, 0, 1, 0, 3);

    /* Zero-count types: nothing to move, extent 0. */
    MPI_Type_contiguous(0, MPI_INT, &t);
    check("contiguous(0)", t, NULL, 0, 0, 0, 0, 0, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);

    names();
    return MTest_Finalize(errs);
}
