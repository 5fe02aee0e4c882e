/* type_array.c: MPI_Type_create_subarray and MPI_Type_create_darray, built from the internal
 * vector/indexed/resized constructors. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "datatype.h"

static int fail(char *errmsg, size_t errlen, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errmsg, errlen, fmt, ap);
    va_end(ap);
    return cls;
}

/* Dimension k in storage order from the fastest varying one: C order varies
 * the last index fastest, Fortran order the first. */
static int dim(int ndims, int order, int k)
{
    return order == MPI_ORDER_C ? ndims - 1 - k : k;
}

/* Wraps t (whose reference is consumed) as [lb 0, extent), the bounds both
 * array constructors define. */
static MPIR_Datatype *resized(MPIR_Datatype *t, MPI_Aint extent)
{
    if (!t)
        return NULL;
    MPIR_Datatype *r = MPIR_Type_alias(t, 1, 0, extent);
    MPIR_Datatype_release(t);
    return r;
}

int MPIR_Type_subarray(int ndims, const MPI_Aint *sizes, const MPI_Aint *subsizes,
                       const MPI_Aint *starts, int order, MPIR_Datatype *old, MPIR_Datatype **newp,
                       char *errmsg, size_t errlen)
{
    if (ndims <= 0)
        return fail(errmsg, errlen, MPI_ERR_DIMS, "ndims is %d, must be positive", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fail(errmsg, errlen, MPI_ERR_ARG, "order %d is not MPI_ORDER_C or _FORTRAN", order);
    for (int i = 0; i < ndims; i++) {
        if (sizes[i] <= 0)
            return fail(errmsg, errlen, MPI_ERR_ARG, "sizes[%d] = %ld, must be positive", i,
                        (long)sizes[i]);
        if (subsizes[i] <= 0 || subsizes[i] > sizes[i])
            return fail(errmsg, errlen, MPI_ERR_ARG, "subsizes[%d] = %ld, must be 1..%ld", i,
                        (long)subsizes[i], (long)sizes[i]);
        if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
            return fail(errmsg, errlen, MPI_ERR_ARG,
                        "starts[%d] = %ld, must be 0..%ld (sizes %ld, subsizes %ld)", i,
                        (long)starts[i], (long)(sizes[i] - subsizes[i]), (long)sizes[i],
                        (long)subsizes[i]);
    }
    /* Innermost: subsizes of the fastest dimension in a row; each slower
     * dimension repeats the whole at its stride in bytes. */
    int d = dim(ndims, order, 0);
    MPIR_Datatype *t = MPIR_Type_vector(1, subsizes[d], 0, old);
    MPI_Aint stride = sizes[d] * old->extent, disp = starts[d] * old->extent;
    for (int k = 1; k < ndims && t; k++) {
        d = dim(ndims, order, k);
        MPIR_Datatype *v = MPIR_Type_vector(subsizes[d], 1, stride, t);
        MPIR_Datatype_release(t);
        t = v;
        disp += starts[d] * stride;
        stride *= sizes[d];
    }
    if (t) {
        MPIR_Datatype *s = MPIR_Type_blkidx(1, 1, &disp, t);
        MPIR_Datatype_release(t);
        t = resized(s, stride);
    }
    if (!t)
        return fail(errmsg, errlen, MPI_ERR_NO_MEM, "out of memory building a subarray type");
    *newp = t;
    return MPI_SUCCESS;
}

/* The indexes a process owns in one dimension, as blocks [start, start + len),
 * in increasing order.  Returns the number of blocks. */
static MPI_Aint owned_blocks(int distrib, int darg, MPI_Aint g, int p, int c, MPI_Aint *starts,
                             MPI_Aint *lens)
{
    if (distrib == MPI_DISTRIBUTE_NONE) {
        starts[0] = 0;
        lens[0] = g;
        return 1;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        MPI_Aint b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        MPI_Aint s = c * b, e = s + b < g ? s + b : g;
        if (s >= g)
            return 0;
        starts[0] = s;
        lens[0] = e - s;
        return 1;
    }
    /* cyclic(k): blocks of k, dealt round robin; the last may be short. */
    MPI_Aint k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg, n = 0;
    for (MPI_Aint s = (MPI_Aint)c * k; s < g; s += (MPI_Aint)p * k, n++) {
        starts[n] = s;
        lens[n] = s + k <= g ? k : g - s;
    }
    return n;
}

int MPIR_Type_darray(int size, int rank, int ndims, const MPI_Aint *gsizes, const int *distribs,
                     const int *dargs, const int *psizes, int order, MPIR_Datatype *old,
                     MPIR_Datatype **newp, char *errmsg, size_t errlen)
{
    if (size <= 0 || rank < 0 || rank >= size)
        return fail(errmsg, errlen, MPI_ERR_ARG, "rank %d is not in 0..size-1 (size %d)", rank,
                    size);
    if (ndims <= 0)
        return fail(errmsg, errlen, MPI_ERR_DIMS, "ndims is %d, must be positive", ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return fail(errmsg, errlen, MPI_ERR_ARG, "order %d is not MPI_ORDER_C or _FORTRAN", order);
    long nprocs = 1;
    for (int i = 0; i < ndims; i++) {
        if (gsizes[i] <= 0)
            return fail(errmsg, errlen, MPI_ERR_ARG, "gsizes[%d] = %ld, must be positive", i,
                        (long)gsizes[i]);
        if (psizes[i] <= 0)
            return fail(errmsg, errlen, MPI_ERR_ARG, "psizes[%d] = %d, must be positive", i,
                        psizes[i]);
        if (distribs[i] != MPI_DISTRIBUTE_BLOCK && distribs[i] != MPI_DISTRIBUTE_CYCLIC &&
            distribs[i] != MPI_DISTRIBUTE_NONE)
            return fail(errmsg, errlen, MPI_ERR_ARG, "distribs[%d] = %d is not a distribution", i,
                        distribs[i]);
        if (dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0)
            return fail(errmsg, errlen, MPI_ERR_ARG,
                        "dargs[%d] = %d, must be positive or MPI_DISTRIBUTE_DFLT_DARG", i,
                        dargs[i]);
        if (distribs[i] == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
            return fail(errmsg, errlen, MPI_ERR_ARG,
                        "psizes[%d] = %d with MPI_DISTRIBUTE_NONE, must be 1", i, psizes[i]);
        if (distribs[i] == MPI_DISTRIBUTE_BLOCK && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
            (long)dargs[i] * psizes[i] < gsizes[i])
            return fail(errmsg, errlen, MPI_ERR_ARG,
                        "block distribution of dimension %d: dargs %d x psizes %d < gsizes %ld", i,
                        dargs[i], psizes[i], (long)gsizes[i]);
        nprocs *= psizes[i];
    }
    if (nprocs != size)
        return fail(errmsg, errlen, MPI_ERR_ARG, "the process grid has %ld processes, not %d",
                    nprocs, size);

    /* Process coordinates: the grid is row-major whatever the array order. */
    int coords[ndims];
    for (int i = ndims - 1, r = rank; i >= 0; i--) {
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    MPIR_Datatype *t = old;
    MPIR_Datatype_add_ref(t);
    MPI_Aint stride = old->extent;
    for (int k = 0; k < ndims && t; k++) {
        int d = dim(ndims, order, k);
        MPI_Aint g = gsizes[d];
        /* At most one block for block and none, ceil(g / (p k)) for cyclic(k). */
        MPI_Aint k = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
        MPI_Aint nmax = distribs[d] == MPI_DISTRIBUTE_CYCLIC ? g / (psizes[d] * k) + 1 : 1;
        MPI_Aint *starts = malloc(nmax * sizeof(MPI_Aint)), *lens = malloc(nmax * sizeof(MPI_Aint));
        MPIR_Datatype *next = NULL;
        if (starts && lens) {
            MPI_Aint n =
                owned_blocks(distribs[d], dargs[d], gsizes[d], psizes[d], coords[d], starts, lens);
            for (MPI_Aint i = 0; i < n; i++)
                starts[i] *= stride;
            /* t's extent is the stride of this dimension, so the elements of a
             * block sit one extent apart. */
            next = resized(MPIR_Type_indexed(n, lens, starts, t), g * stride);
        }
        free(starts);
        free(lens);
        MPIR_Datatype_release(t);
        t = next;
        stride *= g;
    }
    if (!t)
        return fail(errmsg, errlen, MPI_ERR_NO_MEM, "out of memory building a darray type");
    *newp = t;
    return MPI_SUCCESS;
}
