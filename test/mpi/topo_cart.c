/* topo_cart.c: Cartesian topologies.  For grids of several shapes (periodic and not, of every
 * size up to the job's, so that some ranks are left outside): MPI_Cart_create gives the grid's
 * ranks a communicator (ranks kept) and the others MPI_COMM_NULL; MPI_Cart_get, Cartdim_get,
 * Cart_coords, Cart_rank (with periodic wrap-around) and Cart_shift (MPI_PROC_NULL off a
 * non-periodic edge, any displacement) answer what row-major order says; the communicator
 * carries messages along a shift; MPI_Cart_sub keeps each subset of the dimensions; the
 * zero-dimensional grid (ndims 0, and Cart_sub keeping no dimension); MPI_Cart_map; the
 * topology survives Comm_dup, Comm_dup_with_info and Comm_idup, and Comm_split drops it. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define MAXD 4

typedef struct {
    int ndims, dims[MAXD], periods[MAXD];
} shape_t;

static int product(const shape_t *s)
{
    int n = 1;
    for (int i = 0; i < s->ndims; i++)
        n *= s->dims[i];
    return n;
}

static void coords_of(const shape_t *s, int rank, int *c)
{
    for (int i = s->ndims - 1; i >= 0; i--) {
        c[i] = rank % s->dims[i];
        rank /= s->dims[i];
    }
}

/* The rank at c, or MPI_PROC_NULL outside a non-periodic dimension. */
static int rank_of(const shape_t *s, const int *c)
{
    int r = 0;
    for (int i = 0; i < s->ndims; i++) {
        int x = c[i];
        if (s->periods[i])
            x = ((x % s->dims[i]) + s->dims[i]) % s->dims[i];
        else if (x < 0 || x >= s->dims[i])
            return MPI_PROC_NULL;
        r = r * s->dims[i] + x;
    }
    return r;
}

static const char *describe(const shape_t *s)
{
    static char text[128];
    int n = snprintf(text, sizeof text, "grid ndims=%d [", s->ndims);
    for (int i = 0; i < s->ndims; i++)
        n += snprintf(text + n, sizeof text - n, "%s%d%s", i ? " " : "", s->dims[i],
                      s->periods[i] ? "p" : "");
    snprintf(text + n, sizeof text - n, "]");
    return text;
}

/* Every query of a Cartesian communicator of shape s on which the caller has rank me. */
static int check_queries(MPI_Comm cart, const shape_t *s, int me, const char *what)
{
    int errs = 0, status = -1, nd = -1, n = product(s);
    int dims[MAXD + 1], periods[MAXD + 1], coords[MAXD + 1], expect[MAXD + 1];
    MPI_Topo_test(cart, &status);
    MTEST_CHECK_INT(errs, MPI_CART, status, "%s: MPI_Topo_test", what);
    MPI_Cartdim_get(cart, &nd);
    MTEST_CHECK_INT(errs, s->ndims, nd, "%s: MPI_Cartdim_get", what);
    int size = -1, rank = -1;
    MPI_Comm_size(cart, &size);
    MPI_Comm_rank(cart, &rank);
    MTEST_CHECK_INT(errs, n, size, "%s: size", what);
    MTEST_CHECK_INT(errs, me, rank, "%s: rank", what);
    MPI_Cart_get(cart, MAXD + 1, dims, periods, coords);
    coords_of(s, me, expect);
    for (int i = 0; i < s->ndims; i++) {
        MTEST_CHECK_INT(errs, s->dims[i], dims[i], "%s: Cart_get dims[%d]", what, i);
        MTEST_CHECK_INT(errs, !!s->periods[i], !!periods[i], "%s: Cart_get periods[%d]", what, i);
        MTEST_CHECK_INT(errs, expect[i], coords[i], "%s: Cart_get coords[%d]", what, i);
    }
    for (int r = 0; r < n; r++) {
        int got[MAXD + 1], back = -1;
        MPI_Cart_coords(cart, r, MAXD, got);
        coords_of(s, r, expect);
        for (int i = 0; i < s->ndims; i++)
            MTEST_CHECK_INT(errs, expect[i], got[i], "%s: Cart_coords(%d)[%d]", what, r, i);
        MPI_Cart_rank(cart, expect, &back);
        MTEST_CHECK_INT(errs, r, back, "%s: Cart_rank of Cart_coords(%d)", what, r);
        /* Periodic dimensions wrap, any number of times each way. */
        for (int i = 0; i < s->ndims; i++) {
            if (!s->periods[i])
                continue;
            for (int k = -2; k <= 2; k++) {
                int c[MAXD + 1];
                memcpy(c, expect, sizeof c);
                c[i] += k * s->dims[i];
                back = -1;
                MPI_Cart_rank(cart, c, &back);
                MTEST_CHECK_INT(errs, r, back, "%s: Cart_rank(%d) wrapped %d times in dim %d", what,
                                r, k, i);
            }
        }
    }
    coords_of(s, me, coords);
    for (int d = 0; d < s->ndims; d++)
        for (int disp = -3; disp <= 3; disp++) {
            int src = -5, dst = -5, c[MAXD + 1];
            MPI_Cart_shift(cart, d, disp, &src, &dst);
            memcpy(c, coords, sizeof c);
            c[d] = coords[d] - disp;
            MTEST_CHECK_INT(errs, rank_of(s, c), src, "%s: Cart_shift(dim %d, disp %d) source",
                            what, d, disp);
            c[d] = coords[d] + disp;
            MTEST_CHECK_INT(errs, rank_of(s, c), dst, "%s: Cart_shift(dim %d, disp %d) dest", what,
                            d, disp);
        }
    return errs;
}

/* A message along each dimension's +1 shift arrives from the -1 neighbour. */
static int check_traffic(MPI_Comm cart, const shape_t *s, int me, const char *what)
{
    int errs = 0;
    for (int d = 0; d < s->ndims; d++) {
        int src, dst, got = -7;
        MPI_Cart_shift(cart, d, 1, &src, &dst);
        MPI_Sendrecv(&me, 1, MPI_INT, dst, d, &got, 1, MPI_INT, src, d, cart, MPI_STATUS_IGNORE);
        MTEST_CHECK_INT(errs, src == MPI_PROC_NULL ? -7 : src, got,
                        "%s: value shifted along dim %d", what, d);
    }
    return errs;
}

/* Each subset of the dimensions: a subgrid over the kept ones, ranked row-major over them. */
static int check_sub(MPI_Comm cart, const shape_t *s, int me, const char *what)
{
    int errs = 0, coords[MAXD];
    coords_of(s, me, coords);
    for (int mask = 0; mask < (1 << s->ndims); mask++) {
        int remain[MAXD + 1] = {0}, key = 0;
        shape_t sub = {0};
        for (int i = 0; i < s->ndims; i++) {
            remain[i] = (mask >> i) & 1;
            if (remain[i]) {
                sub.dims[sub.ndims] = s->dims[i];
                sub.periods[sub.ndims++] = s->periods[i];
                key = key * s->dims[i] + coords[i];
            }
        }
        MPI_Comm subcomm = MPI_COMM_NULL;
        MPI_Cart_sub(cart, remain, &subcomm);
        char w[200];
        snprintf(w, sizeof w, "%s: Cart_sub mask %d", what, mask);
        if (subcomm == MPI_COMM_NULL) {
#if defined(MPICH_NUMVERSION)
            /* MPICH gives the 0-dimensional subgrid to rank 0 only (its Cart_sub makes it with
             * MPI_Cart_create(comm, 0, ...)); every process is its own subgrid. */
            if (sub.ndims == 0) {
                printf("note: %s: MPICH returns MPI_COMM_NULL for a 0-dimensional Cart_sub\n", w);
                continue;
            }
#endif
            MTEST_FAIL(errs, "%s: MPI_COMM_NULL", w);
            continue;
        }
        errs += check_queries(subcomm, &sub, key, w);
        MPI_Comm_free(&subcomm);
    }
    return errs;
}

static int check_dups(MPI_Comm cart, const shape_t *s, int me, const char *what)
{
    int errs = 0, status = -1;
    MPI_Comm d1, d2, d3, split;
    MPI_Request req;
    char w[200];
    MPI_Comm_dup(cart, &d1);
    snprintf(w, sizeof w, "%s: Comm_dup", what);
    errs += check_queries(d1, s, me, w);
    errs += check_traffic(d1, s, me, w);
    MPI_Comm_dup_with_info(cart, MPI_INFO_NULL, &d2);
    snprintf(w, sizeof w, "%s: Comm_dup_with_info", what);
    errs += check_queries(d2, s, me, w);
    MPI_Comm_idup(cart, &d3, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    snprintf(w, sizeof w, "%s: Comm_idup", what);
    errs += check_queries(d3, s, me, w);
    /* The original is still whole after its duplicates are freed. */
    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&d3);
    errs += check_queries(cart, s, me, what);
    MPI_Comm_split(cart, 0, me, &split);
    MPI_Topo_test(split, &status);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, status, "%s: Topo_test of a Comm_split", what);
    MPI_Comm_free(&split);
    return errs;
}

/* MPI_Cart_map of a process outside the grid: MPI_UNDEFINED. */
static int check_map_outside(int newrank, const char *what)
{
    int errs = 0;
#if defined(OPEN_MPI)
    /* Open MPI 4.1 answers the process's own rank there. */
    if (newrank == mtest_rank) {
        printf("note: %s: Open MPI's Cart_map gives a process outside the grid its rank\n", what);
        return 0;
    }
#endif
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, newrank, "%s: Cart_map outside the grid", what);
    return errs;
}

static int check_shape(const shape_t *s, int full)
{
    int errs = 0, n = product(s), newrank = -1;
    if (n > mtest_size)
        return 0;
    const char *what = describe(s);
    MPI_Comm cart = MPI_COMM_NULL;
    MPI_Cart_create(MPI_COMM_WORLD, s->ndims, s->dims, s->periods, 0, &cart);
    MPI_Cart_map(MPI_COMM_WORLD, s->ndims, s->dims, s->periods, &newrank);
    if (mtest_rank >= n) {
        if (cart != MPI_COMM_NULL)
            MTEST_FAIL(errs, "%s: rank %d is outside the grid of %d but got a communicator", what,
                       mtest_rank, n);
        errs += check_map_outside(newrank, what);
        return errs;
    }
    MTEST_CHECK_INT(errs, mtest_rank, newrank, "%s: Cart_map", what);
    if (cart == MPI_COMM_NULL) {
        MTEST_FAIL(errs, "%s: MPI_COMM_NULL inside the grid", what);
        return errs;
    }
    errs += check_queries(cart, s, mtest_rank, what);
    errs += check_traffic(cart, s, mtest_rank, what);
    if (full) {
        errs += check_sub(cart, s, mtest_rank, what);
        errs += check_dups(cart, s, mtest_rank, what);
    }
    MPI_Comm_free(&cart);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, n = 0;
    MTest_Init(&argc, &argv);
    shape_t shapes[64];

    /* The whole world in 1, 2, 3 dimensions (MPI_Dims_create), periodic or not. */
    for (int nd = 1; nd <= 3; nd++)
        for (int p = 0; p < 2; p++) {
            shape_t *s = &shapes[n++];
            *s = (shape_t){.ndims = nd};
            MPI_Dims_create(mtest_size, nd, s->dims);
            for (int i = 0; i < nd; i++)
                s->periods[i] = p ? i % 2 == 0 : 0;
        }
    /* Smaller grids, some ranks left out; dimensions of size 1 and 2, periodic or not. */
    shape_t fixed[] = {
        {1, {1}, {0}},
        {1, {1}, {1}},
        {2, {2, 1}, {1, 1}},
        {2, {1, 2}, {1, 0}},
        {3, {1, 2, 1}, {0, 1, 1}},
        {2, {2, 2}, {1, 1}},
        {2, {3, 1}, {0, 1}},
        {3, {2, 3, 1}, {1, 0, 1}},
        {4, {1, 2, 2, 2}, {1, 0, 1, 0}},
        {1, {5}, {1}},
        {2, {5, 2}, {0, 0}},
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        shapes[n++] = fixed[i];
    if (mtest_size > 1) /* every rank but the last */
        shapes[n++] = (shape_t){1, {mtest_size - 1}, {1}};

    /* With many ranks oversubscribed, the subgrids and duplicates of the first shapes only. */
    for (int i = 0; i < n; i++)
        errs += check_shape(&shapes[i], mtest_size <= 6 || i < 6);

    /* ndims 0: a grid of one process (MPI-4.1 sec. 8.5.1): rank 0 has it, the others
     * MPI_COMM_NULL. */
    MPI_Comm zero = MPI_COMM_NULL;
    int dummy[1] = {0}, newrank = -1;
    MPI_Cart_create(MPI_COMM_WORLD, 0, dummy, dummy, 0, &zero);
    if (mtest_rank == 0) {
        if (zero == MPI_COMM_NULL)
            MTEST_FAIL(errs, "ndims 0: rank 0 got MPI_COMM_NULL");
        else {
            int size = -1, nd = -1, status = -1, r = -1;
            MPI_Comm_size(zero, &size);
            MTEST_CHECK_INT(errs, 1, size, "ndims 0: size");
            MPI_Topo_test(zero, &status);
            MTEST_CHECK_INT(errs, MPI_CART, status, "ndims 0: Topo_test");
            MPI_Cartdim_get(zero, &nd);
            MTEST_CHECK_INT(errs, 0, nd, "ndims 0: Cartdim_get");
            MPI_Cart_rank(zero, dummy, &r);
            MTEST_CHECK_INT(errs, 0, r, "ndims 0: Cart_rank");
            MPI_Comm_free(&zero);
        }
    } else if (zero != MPI_COMM_NULL)
        MTEST_FAIL(errs, "ndims 0: rank %d got a communicator", mtest_rank);
    MPI_Cart_map(MPI_COMM_WORLD, 0, dummy, dummy, &newrank);
    if (mtest_rank == 0)
        MTEST_CHECK_INT(errs, 0, newrank, "ndims 0: Cart_map");
    else
        errs += check_map_outside(newrank, "ndims 0");

    /* A communicator without a topology. */
    int status = -1;
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, status, "Topo_test of MPI_COMM_WORLD");
    return MTest_Finalize(errs);
}
