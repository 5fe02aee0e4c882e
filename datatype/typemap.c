/* typemap.c: walks of the type tree element by element: MPI_Get_elements with partial
 * elements, and the basic-element iteration that external32 conversion uses. */
#include "datatype.h"

/* Basic elements in the first `bytes` packed bytes of one element of t
 * (0 <= bytes < t->size); -1 when they end inside a basic element. */
static MPI_Count partial(const MPIR_Datatype *t, MPI_Count bytes);

/* Consumes a run of n elements of c from *bytes; returns the elements counted,
 * or -1.  *done is set when the bytes ran out inside the run. */
static MPI_Count run(const MPIR_Datatype *c, MPI_Aint n, MPI_Count *bytes, int *done)
{
    if (c->size == 0 || n <= 0)
        return 0;
    MPI_Count all = (MPI_Count)n * c->size;
    if (*bytes >= all) {
        *bytes -= all;
        return (MPI_Count)n * c->n_elements;
    }
    *done = 1;
    MPI_Count k = *bytes / c->size, rest = *bytes - k * c->size;
    MPI_Count cnt = k * c->n_elements;
    if (rest == 0)
        return cnt;
    MPI_Count p = partial(c, rest);
    return p < 0 ? -1 : cnt + p;
}

/* Bytes of a pair type's second field (the int of MPI_DOUBLE_INT, the index of MPI_2REAL). */
static MPI_Aint pair_second_size(const MPIR_Datatype *t)
{
    return MPIR_Datatype_builtin(t->pair_second)->size;
}

static MPI_Count partial(const MPIR_Datatype *t, MPI_Count bytes)
{
    if (bytes == 0)
        return 0;
    int done = 0;
    MPI_Count cnt = 0, r;
    switch (t->kind) {
    case MPIR_DT_BUILTIN:
        /* Only a pair type has a basic element boundary inside it. */
        if (t->pair_first && bytes == t->size - pair_second_size(t))
            return 1;
        return -1;
    case MPIR_DT_VECTOR:
    case MPIR_DT_BLKIDX:
        return run(t->child, t->count * t->blocklen, &bytes, &done);
    case MPIR_DT_INDEXED: {
        MPI_Aint n = 0;
        for (MPI_Aint i = 0; i < t->count; i++)
            n += t->blocklens[i];
        return run(t->child, n, &bytes, &done);
    }
    case MPIR_DT_STRUCT:
        for (MPI_Aint i = 0; i < t->count && !done; i++) {
            if ((r = run(t->children[i], t->blocklens[i], &bytes, &done)) < 0)
                return -1;
            cnt += r;
        }
        return cnt;
    case MPIR_DT_ALIAS:
        return partial(t->child, bytes);
    }
    return -1;
}

MPI_Count MPIR_Type_get_elements(MPIR_Datatype *dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return 0;
    MPI_Count full = bytes / dt->size, rest = bytes % dt->size;
    MPI_Count p = partial(dt, rest);
    return p < 0 ? -1 : full * dt->n_elements + p;
}

static int iter(const MPIR_Datatype *t, uintptr_t base, MPIR_Typemap_fn fn, void *arg);

/* A block of n elements of c at base, consecutive elements one extent apart. */
static int iter_block(const MPIR_Datatype *c, uintptr_t base, MPI_Aint n, MPIR_Typemap_fn fn,
                      void *arg)
{
    if (c->size == 0) /* no basic element inside: MPI_LB, MPI_UB, an empty type */
        return 0;
    if (c->kind == MPIR_DT_BUILTIN && !c->pair_first)
        return n > 0 ? fn(c->handle, c->size, base, n, c->extent, arg) : 0;
    for (MPI_Aint j = 0; j < n; j++) {
        int rc = iter(c, base + (uintptr_t)(j * c->extent), fn, arg);
        if (rc)
            return rc;
    }
    return 0;
}

static int iter(const MPIR_Datatype *t, uintptr_t base, MPIR_Typemap_fn fn, void *arg)
{
    int rc = 0;
    switch (t->kind) {
    case MPIR_DT_BUILTIN:
        if (t->size == 0) /* MPI_LB, MPI_UB: markers, no data */
            return 0;
        if (!t->pair_first)
            return fn(t->handle, t->size, base, 1, t->extent, arg);
        if ((rc = fn(t->pair_first, t->size - pair_second_size(t), base, 1, 0, arg)))
            return rc;
        return fn(t->pair_second, pair_second_size(t), base + (uintptr_t)t->pair_off2, 1, 0, arg);
    case MPIR_DT_VECTOR:
        for (MPI_Aint i = 0; i < t->count && !rc; i++)
            rc = iter_block(t->child, base + (uintptr_t)(i * t->stride), t->blocklen, fn, arg);
        return rc;
    case MPIR_DT_BLKIDX:
        for (MPI_Aint i = 0; i < t->count && !rc; i++)
            rc = iter_block(t->child, base + (uintptr_t)t->displs[i], t->blocklen, fn, arg);
        return rc;
    case MPIR_DT_INDEXED:
        for (MPI_Aint i = 0; i < t->count && !rc; i++)
            rc = iter_block(t->child, base + (uintptr_t)t->displs[i], t->blocklens[i], fn, arg);
        return rc;
    case MPIR_DT_STRUCT:
        for (MPI_Aint i = 0; i < t->count && !rc; i++)
            rc = iter_block(t->children[i], base + (uintptr_t)t->displs[i], t->blocklens[i], fn,
                            arg);
        return rc;
    case MPIR_DT_ALIAS:
        return iter(t->child, base, fn, arg);
    }
    return 0;
}

int MPIR_Typemap_iterate(MPIR_Datatype *dt, MPI_Aint count, uintptr_t buf, MPIR_Typemap_fn fn,
                         void *arg)
{
    for (MPI_Aint k = 0; k < count; k++) {
        int rc = iter(dt, buf + (uintptr_t)(k * dt->extent), fn, arg);
        if (rc)
            return rc;
    }
    return 0;
}
