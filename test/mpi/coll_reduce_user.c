/* coll_reduce_user.c: user-defined reduction operations and the reductions beyond Reduce and
 * Allreduce (MPI-4.1 sec. 6.9-6.11):
 * - MPI_Op_create with a non-commutative operation (2x2 matrix product, mod 2^32) on a derived
 *   datatype (one matrix = a contiguous type of 4 unsigned ints): Reduce at every root,
 *   Allreduce, Scan, Exscan, Reduce_scatter_block and Reduce_scatter give the product in rank
 *   order, also with MPI_IN_PLACE;
 * - a commutative user operation on a vector type with holes: the holes of the receive buffer
 *   are left alone, and the user function sees the datatype it was called with;
 * - predefined MPI_SUM through Scan, Exscan, Reduce_scatter(_block) and Reduce_local;
 * - MPI_Op_commutative, MPI_Op_free (the handle becomes MPI_OP_NULL; freeing MPI_OP_NULL or a
 *   predefined operation is MPI_ERR_OP, and with Ferry so is using a freed one).
 * Written from the standard's text. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned a, b, c, d; /* [[a b] [c d]] */
} mat_t;

static mat_t mat_mul(mat_t x, mat_t y)
{
    return (mat_t){x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
                   x.c * y.b + x.d * y.d};
}

/* Rank r's matrix; products of these in different orders differ. */
static mat_t mat_of(int r)
{
    return (mat_t){(unsigned)r + 1, 2, 1, (unsigned)(3 * r + 1)};
}

static MPI_Datatype mat_type; /* 4 unsigned ints, contiguous */
static int bad_type_seen;

/* inout = in * inout, as the standard defines a user operation's order. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != mat_type)
        bad_type_seen++;
    mat_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++)
        y[i] = mat_mul(x[i], y[i]);
}

/* The product of ranks lo..hi-1's matrices (element k of a vector: matrices of rank + k). */
static mat_t product(int lo, int hi, int k)
{
    mat_t p = {1, 0, 0, 1};
    for (int r = lo; r < hi; r++)
        p = mat_mul(p, mat_of(r + k));
    return p;
}

static int check_mat(mat_t seen, mat_t want, const char *what)
{
    int errs = 0;
    if (memcmp(&seen, &want, sizeof seen) != 0)
        MTEST_FAIL(errs, "%s: got [[%u %u] [%u %u]], expected [[%u %u] [%u %u]]", what, seen.a,
                   seen.b, seen.c, seen.d, want.a, want.b, want.c, want.d);
    return errs;
}

#define NV 3 /* matrices per rank in the vector calls */

static int noncommutative(MPI_Op op)
{
    int errs = 0, n = mtest_size, me = mtest_rank;
    mat_t in[NV], out[NV];
    char what[96];
    for (int k = 0; k < NV; k++)
        in[k] = mat_of(me + k);

    for (int root = 0; root < n; root++) {
        memset(out, 0, sizeof out);
        MPI_Reduce(in, out, NV, mat_type, op, root, MPI_COMM_WORLD);
        for (int k = 0; me == root && k < NV; k++) {
            snprintf(what, sizeof what, "Reduce at root %d, element %d", root, k);
            errs += check_mat(out[k], product(0, n, k), what);
        }
        /* in place at the root */
        mat_t io[NV];
        memcpy(io, in, sizeof io);
        MPI_Reduce(me == root ? MPI_IN_PLACE : in, me == root ? io : NULL, NV, mat_type, op, root,
                   MPI_COMM_WORLD);
        for (int k = 0; me == root && k < NV; k++) {
            snprintf(what, sizeof what, "Reduce in place at root %d, element %d", root, k);
            errs += check_mat(io[k], product(0, n, k), what);
        }
    }
    MPI_Allreduce(in, out, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; k < NV; k++)
        errs += check_mat(out[k], product(0, n, k), "Allreduce");

    MPI_Scan(in, out, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; k < NV; k++)
        errs += check_mat(out[k], product(0, me + 1, k), "Scan");
    mat_t io[NV];
    memcpy(io, in, sizeof io);
    MPI_Scan(MPI_IN_PLACE, io, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; k < NV; k++)
        errs += check_mat(io[k], product(0, me + 1, k), "Scan in place");
    MPI_Exscan(in, out, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; me > 0 && k < NV; k++)
        errs += check_mat(out[k], product(0, me, k), "Exscan");
    memcpy(io, in, sizeof io);
    MPI_Exscan(MPI_IN_PLACE, io, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; me > 0 && k < NV; k++)
        errs += check_mat(io[k], product(0, me, k), "Exscan in place");

    /* Reduce_scatter_block: the vector has NV matrices per rank; rank r gets block r. */
    mat_t *vin = malloc(sizeof(mat_t) * NV * n), *vio = malloc(sizeof(mat_t) * NV * n);
    for (int i = 0; i < NV * n; i++)
        vin[i] = mat_of(me + i);
    MPI_Reduce_scatter_block(vin, out, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; k < NV; k++)
        errs += check_mat(out[k], product(0, n, NV * me + k), "Reduce_scatter_block");
    memcpy(vio, vin, sizeof(mat_t) * NV * n);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, vio, NV, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; k < NV; k++)
        errs += check_mat(vio[k], product(0, n, NV * me + k), "Reduce_scatter_block in place");

    /* Reduce_scatter: rank r gets r % 3 matrices (some none). */
    int *counts = malloc(sizeof(int) * n), total = 0, first = 0;
    for (int r = 0; r < n; r++) {
        counts[r] = r % 3;
        if (r < me)
            first += counts[r];
        total += counts[r];
    }
    mat_t *rin = malloc(sizeof(mat_t) * (total + 1));
    for (int i = 0; i < total; i++)
        rin[i] = mat_of(me + i);
    memset(out, 0, sizeof out);
    MPI_Reduce_scatter(rin, out, counts, mat_type, op, MPI_COMM_WORLD);
    for (int k = 0; k < counts[me]; k++)
        errs += check_mat(out[k], product(0, n, first + k), "Reduce_scatter");
    free(vin);
    free(vio);
    free(counts);
    free(rin);
    return errs;
}

/* Maximum over the data ints of the type below: element i has its two ints at int offsets 4i
 * and 4i + 2; the ints between are holes the function must not need. */
static void max_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *x = in, *y = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        for (int j = 0; j < 2; j++) {
            int at = 4 * i + 2 * j;
            if (x[at] > y[at])
                y[at] = x[at];
        }
    }
}

static int commutative_with_holes(void)
{
    int errs = 0, flag = -1;
    MPI_Op op;
    MPI_Datatype v, vr;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 4 * sizeof(int), &vr); /* elements 4 ints apart */
    MPI_Type_commit(&vr);
    MPI_Op_create(max_op, 1, &op);
    MPI_Op_commutative(op, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Op_commutative of a commutative user op");
    int in[8], out[8];
    for (int i = 0; i < 8; i++) {
        in[i] = (i % 2) ? -1 : 10 * i + mtest_rank;
        out[i] = -7;
    }
    MPI_Allreduce(in, out, 2, vr, op, MPI_COMM_WORLD);
    for (int i = 0; i < 8; i++)
        MTEST_CHECK_INT(errs, (i % 2) ? -7 : 10 * i + mtest_size - 1, out[i],
                        "Allreduce(max) over a type with holes, int %d", i);
    MPI_Op_free(&op);
    MTEST_CHECK_INT(errs, MPI_OP_NULL, op, "MPI_Op_free sets MPI_OP_NULL");
    MPI_Type_free(&v);
    MPI_Type_free(&vr);
    return errs;
}

static int predefined(void)
{
    int errs = 0, n = mtest_size, me = mtest_rank, v[4], out[4], flag = -1;
    for (int k = 0; k < 4; k++)
        v[k] = me + k;
    MPI_Scan(v, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < 4; k++)
        MTEST_CHECK_INT(errs, me * (me + 1) / 2 + (me + 1) * k, out[k], "Scan(SUM) element %d", k);
    MPI_Exscan(v, out, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; me > 0 && k < 4; k++)
        MTEST_CHECK_INT(errs, (me - 1) * me / 2 + me * k, out[k], "Exscan(SUM) element %d", k);
    int *vec = malloc(sizeof(int) * 2 * n);
    for (int i = 0; i < 2 * n; i++)
        vec[i] = i + me;
    MPI_Reduce_scatter_block(vec, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < 2; k++)
        MTEST_CHECK_INT(errs, n * (2 * me + k) + n * (n - 1) / 2, out[k],
                        "Reduce_scatter_block(SUM) element %d", k);
    int a[3] = {1, 2, 3}, b[3] = {10, 20, 30};
    MPI_Reduce_local(a, b, 3, MPI_INT, MPI_SUM);
    for (int k = 0; k < 3; k++)
        MTEST_CHECK_INT(errs, 11 * (k + 1), b[k], "Reduce_local(SUM) element %d", k);
    MPI_Op_commutative(MPI_SUM, &flag);
    MTEST_CHECK_INT(errs, 1, flag, "MPI_Op_commutative(MPI_SUM)");
    free(vec);
    return errs;
}

static int bad_arguments(void)
{
    int errs = 0, a = 1, b = 2;
    MPI_Op op;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Op_create(max_op, 1, &op);
    MPI_Op freed = op;
    MPI_Op_free(&op);
#ifdef FERRY_VERSION
    /* Using a freed handle is erroneous; Ferry promises to say so (MPICH 4.0.2 does not). */
    errs += mtest_check_class(MPI_Reduce_local(&a, &b, 1, MPI_INT, freed), MPI_ERR_OP,
                              "MPI_Reduce_local with a freed operation");
#else
    (void)freed;
    (void)a;
    (void)b;
#endif
    errs += mtest_check_class(MPI_Op_free(&op), MPI_ERR_OP, "MPI_Op_free(MPI_OP_NULL)");
    MPI_Op sum = MPI_SUM;
    errs += mtest_check_class(MPI_Op_free(&sum), MPI_ERR_OP, "MPI_Op_free(MPI_SUM)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, flag = -1;
    MPI_Op op;
    MTest_Init(&argc, &argv);
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type);
    MPI_Type_commit(&mat_type);
    MPI_Op_create(mat_op, 0, &op);
    MPI_Op_commutative(op, &flag);
    MTEST_CHECK_INT(errs, 0, flag, "MPI_Op_commutative of a non-commutative user op");
    errs += noncommutative(op);
    MTEST_CHECK_INT(errs, 0, bad_type_seen, "calls of the user function with another datatype");
    MPI_Op_free(&op);
    MPI_Type_free(&mat_type);
    errs += commutative_with_holes();
    errs += predefined();
    errs += bad_arguments();
    return MTest_Finalize(errs);
}
