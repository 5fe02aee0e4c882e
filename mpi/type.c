/* type.c: the MPI datatype API: constructors, commit/free/dup, sizes and extents, envelope and
 * contents, names. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "mpiimpl.h"

/* The type argument of a constructor or query: any valid handle. */
static int check_type(MPI_Datatype type, MPIR_Datatype **dt_p)
{
    int err = MPIR_Check_type(type);
    *dt_p = err ? NULL : MPIR_Datatype_get(type);
    return err;
}

static int check_arg(const void *p, const char *what)
{
    return p ? MPI_SUCCESS : MPIR_Err_create(MPI_ERR_ARG, "%s is NULL", what);
}

static int check_count(int count, const char *what)
{
    return count >= 0 ? MPI_SUCCESS
                      : MPIR_Err_create(MPI_ERR_COUNT, "%s is %d, must be >= 0", what, count);
}

static int check_blocklens(int count, const int *bl)
{
    for (int i = 0; i < count; i++)
        if (bl[i] < 0)
            return MPIR_Err_create(MPI_ERR_ARG, "blocklength[%d] is %d, must be >= 0", i, bl[i]);
    return MPI_SUCCESS;
}

/* Records the contents, gives t a handle and stores it in *newtype; on
 * failure drops t.  Returns an error code. */
static int publish(MPIR_Datatype *t, int combiner, int ni, const int *ints, int na,
                   const MPI_Aint *aints, int nt, const MPI_Datatype *types, MPI_Datatype *newtype)
{
    if (!t)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    if (MPIR_Type_set_contents(t, combiner, ni, ints, na, aints, nt, types) ||
        MPIR_Datatype_register(t)) {
        MPIR_Datatype_release(t);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    }
    *newtype = t->handle;
    return MPI_SUCCESS;
}

static MPI_Aint *aints_from(const int *a, int n, MPI_Aint scale)
{
    MPI_Aint *r = malloc((n > 0 ? n : 1) * sizeof(*r));
    if (r)
        for (int i = 0; i < n; i++)
            r[i] = (MPI_Aint)a[i] * scale;
    return r;
}

/* ints = {count, a[0..count), b[0..count)} as the contents want them. */
static int *ints_cat(int count, const int *a, const int *b, int nb)
{
    int *r = malloc((1 + count + nb) * sizeof(int));
    if (r) {
        r[0] = count;
        if (count > 0)
            memcpy(r + 1, a, count * sizeof(int));
        if (nb > 0)
            memcpy(r + 1 + count, b, nb * sizeof(int));
    }
    return r;
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_contiguous");
    MPIR_Datatype *old;
    int err = check_count(count, "count");
    if (!err && !(err = check_type(oldtype, &old)) && !(err = check_arg(newtype, "newtype")))
        err = publish(MPIR_Type_vector(1, count, 0, old), MPI_COMBINER_CONTIGUOUS, 1, &count, 0,
                      NULL, 1, &oldtype, newtype);
    return MPIR_Err_return(NULL, "MPI_Type_contiguous", err);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_vector");
    MPIR_Datatype *old;
    int err = check_count(count, "count");
    if (!err && !(err = check_blocklens(1, &blocklength)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype"))) {
        int ints[3] = {count, blocklength, stride};
        err = publish(MPIR_Type_vector(count, blocklength, (MPI_Aint)stride * old->extent, old),
                      MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &oldtype, newtype);
    }
    return MPIR_Err_return(NULL, "MPI_Type_vector", err);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hvector");
    MPIR_Datatype *old;
    int err = check_count(count, "count");
    if (!err && !(err = check_blocklens(1, &blocklength)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype"))) {
        int ints[2] = {count, blocklength};
        err = publish(MPIR_Type_vector(count, blocklength, stride, old), MPI_COMBINER_HVECTOR, 2,
                      ints, 1, &stride, 1, &oldtype, newtype);
    }
    return MPIR_Err_return(NULL, "MPI_Type_create_hvector", err);
}

/* indexed and hindexed: displacements in extents (idispls) or bytes (adispls). */
static int indexed(const char *fname, int count, const int *bl, const int *idispls,
                   const MPI_Aint *adispls, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_Datatype *old;
    int err = check_count(count, "count");
    if (!err && count > 0 && (!bl || (!idispls && !adispls)))
        err = MPIR_Err_create(MPI_ERR_ARG, "array_of_blocklengths or displacements is NULL");
    if (!err && !(err = check_blocklens(count, bl)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype"))) {
        MPI_Aint *d = idispls ? aints_from(idispls, count, old->extent) : NULL;
        MPI_Aint *b = aints_from(bl, count, 1);
        int *ints = ints_cat(count, bl, idispls, idispls ? count : 0);
        MPIR_Datatype *t = NULL;
        if (b && ints && (d || adispls))
            t = MPIR_Type_indexed(count, b, d ? d : adispls, old);
        if (idispls)
            err = publish(t, MPI_COMBINER_INDEXED, 2 * count + 1, ints, 0, NULL, 1, &oldtype,
                          newtype);
        else
            err = publish(t, MPI_COMBINER_HINDEXED, count + 1, ints, count, adispls, 1, &oldtype,
                          newtype);
        free(d);
        free(b);
        free(ints);
    }
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                     const int array_of_displacements[], MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_indexed");
    return indexed("MPI_Type_indexed", count, array_of_blocklengths, array_of_displacements, NULL,
                   oldtype, newtype);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                             const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hindexed");
    return indexed("MPI_Type_create_hindexed", count, array_of_blocklengths, NULL,
                   array_of_displacements, oldtype, newtype);
}

static int indexed_block(const char *fname, int count, int blocklength, const int *idispls,
                         const MPI_Aint *adispls, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_Datatype *old;
    int err = check_count(count, "count");
    if (!err && count > 0 && !idispls && !adispls)
        err = MPIR_Err_create(MPI_ERR_ARG, "array_of_displacements is NULL");
    if (!err && !(err = check_blocklens(1, &blocklength)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype"))) {
        MPI_Aint *d = idispls ? aints_from(idispls, count, old->extent) : NULL;
        int *ints = malloc((2 + (idispls ? count : 0)) * sizeof(int));
        MPIR_Datatype *t = NULL;
        if (ints) {
            ints[0] = count;
            ints[1] = blocklength;
            if (idispls && count > 0)
                memcpy(ints + 2, idispls, count * sizeof(int));
            if (d || adispls)
                t = MPIR_Type_blkidx(count, blocklength, d ? d : adispls, old);
        }
        if (idispls)
            err = publish(t, MPI_COMBINER_INDEXED_BLOCK, count + 2, ints, 0, NULL, 1, &oldtype,
                          newtype);
        else
            err = publish(t, MPI_COMBINER_HINDEXED_BLOCK, 2, ints, count, adispls, 1, &oldtype,
                          newtype);
        free(d);
        free(ints);
    }
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_indexed_block");
    return indexed_block("MPI_Type_create_indexed_block", count, blocklength,
                         array_of_displacements, NULL, oldtype, newtype);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                   const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hindexed_block");
    return indexed_block("MPI_Type_create_hindexed_block", count, blocklength, NULL,
                         array_of_displacements, oldtype, newtype);
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                           const MPI_Aint array_of_displacements[],
                           const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_struct");
    int err = check_count(count, "count");
    if (!err && count > 0 && (!array_of_blocklengths || !array_of_displacements || !array_of_types))
        err = MPIR_Err_create(MPI_ERR_ARG, "an array argument is NULL");
    if (!err && !(err = check_blocklens(count, array_of_blocklengths)))
        err = check_arg(newtype, "newtype");
    MPIR_Datatype **ch = NULL;
    MPI_Aint *b = NULL;
    int *ints = NULL;
    if (!err) {
        ch = malloc((count > 0 ? count : 1) * sizeof(*ch));
        b = aints_from(array_of_blocklengths, count, 1);
        ints = ints_cat(count, array_of_blocklengths, NULL, 0);
        if (!ch || !b || !ints)
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a struct type");
    }
    for (int i = 0; !err && i < count; i++) {
        if ((err = MPIR_Check_type(array_of_types[i])))
            err = MPIR_Err_create(MPI_ERR_TYPE, "array_of_types[%d] = %#x is not a datatype", i,
                                  (unsigned)array_of_types[i]);
        else
            ch[i] = MPIR_Datatype_get(array_of_types[i]);
    }
    if (!err)
        err =
            publish(MPIR_Type_struct(count, b, array_of_displacements, ch), MPI_COMBINER_STRUCT,
                    count + 1, ints, count, array_of_displacements, count, array_of_types, newtype);
    free(ch);
    free(b);
    free(ints);
    return MPIR_Err_return(NULL, "MPI_Type_create_struct", err);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_resized");
    MPIR_Datatype *old;
    int err = check_type(oldtype, &old);
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        MPI_Aint a[2] = {lb, extent};
        err = publish(MPIR_Type_alias(old, 1, lb, extent), MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1,
                      &oldtype, newtype);
    }
    return MPIR_Err_return(NULL, "MPI_Type_create_resized", err);
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_subarray");
    MPIR_Datatype *old, *t = NULL;
    int err = check_type(oldtype, &old);
    if (!err && ndims > 0 && (!array_of_sizes || !array_of_subsizes || !array_of_starts))
        err = MPIR_Err_create(MPI_ERR_ARG, "an array argument is NULL");
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        char msg[256];
        int cls = MPIR_Type_subarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts,
                                     order, old, &t, msg, sizeof(msg));
        if (cls)
            err = MPIR_Err_create(cls, "%s", msg);
    }
    if (!err) {
        int *ints = malloc((3 * ndims + 2) * sizeof(int));
        if (ints) {
            ints[0] = ndims;
            memcpy(ints + 1, array_of_sizes, ndims * sizeof(int));
            memcpy(ints + 1 + ndims, array_of_subsizes, ndims * sizeof(int));
            memcpy(ints + 1 + 2 * ndims, array_of_starts, ndims * sizeof(int));
            ints[1 + 3 * ndims] = order;
        } else {
            MPIR_Datatype_release(t);
            t = NULL;
        }
        err = publish(t, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, 0, NULL, 1, &oldtype, newtype);
        free(ints);
    }
    return MPIR_Err_return(NULL, "MPI_Type_create_subarray", err);
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                           const int array_of_distribs[], const int array_of_dargs[],
                           const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_darray");
    MPIR_Datatype *old, *t = NULL;
    int err = check_type(oldtype, &old);
    if (!err && ndims > 0 &&
        (!array_of_gsizes || !array_of_distribs || !array_of_dargs || !array_of_psizes))
        err = MPIR_Err_create(MPI_ERR_ARG, "an array argument is NULL");
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        char msg[256];
        int cls =
            MPIR_Type_darray(size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                             array_of_psizes, order, old, &t, msg, sizeof(msg));
        if (cls)
            err = MPIR_Err_create(cls, "%s", msg);
    }
    if (!err) {
        int n = 4 * ndims + 4;
        int *ints = malloc(n * sizeof(int));
        if (ints) {
            ints[0] = size;
            ints[1] = rank;
            ints[2] = ndims;
            memcpy(ints + 3, array_of_gsizes, ndims * sizeof(int));
            memcpy(ints + 3 + ndims, array_of_distribs, ndims * sizeof(int));
            memcpy(ints + 3 + 2 * ndims, array_of_dargs, ndims * sizeof(int));
            memcpy(ints + 3 + 3 * ndims, array_of_psizes, ndims * sizeof(int));
            ints[3 + 4 * ndims] = order;
        } else {
            MPIR_Datatype_release(t);
            t = NULL;
        }
        err = publish(t, MPI_COMBINER_DARRAY, n, ints, 0, NULL, 1, &oldtype, newtype);
        free(ints);
    }
    return MPIR_Err_return(NULL, "MPI_Type_create_darray", err);
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_dup");
    MPIR_Datatype *old;
    int err = check_type(oldtype, &old);
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        MPIR_Datatype *t = MPIR_Type_alias(old, 0, 0, 0);
        err = publish(t, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &oldtype, newtype);
        /* The copy is committed when the original is. */
        if (!err && old->committed && MPIR_Type_commit(t)) {
            PMPI_Type_free(newtype);
            err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory committing a datatype");
        }
        /* Attributes go with the copy as their copy callbacks say. */
        if (!err && (err = MPIR_Attr_copy_all(MPIR_ATTR_TYPE, oldtype, *newtype))) {
            MPIR_Attr_delete_all(MPIR_ATTR_TYPE, *newtype);
            PMPI_Type_free(newtype);
        }
    }
    return MPIR_Err_return(NULL, "MPI_Type_dup", err);
}

#pragma weak MPI_Type_commit = PMPI_Type_commit
int PMPI_Type_commit(MPI_Datatype *datatype)
{
    MPIR_CHECK_INIT("MPI_Type_commit");
    MPIR_Datatype *dt;
    int err = check_arg(datatype, "datatype");
    if (!err && !(err = check_type(*datatype, &dt)) && MPIR_Type_commit(dt))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory committing datatype %#x",
                              (unsigned)*datatype);
    return MPIR_Err_return(NULL, "MPI_Type_commit", err);
}

#pragma weak MPI_Type_free = PMPI_Type_free
int PMPI_Type_free(MPI_Datatype *datatype)
{
    MPIR_CHECK_INIT("MPI_Type_free");
    MPIR_Datatype *dt;
    int err = check_arg(datatype, "datatype");
    if (!err && !(err = check_type(*datatype, &dt))) {
        if (dt->kind == MPIR_DT_BUILTIN) {
            err = MPIR_Err_create(MPI_ERR_TYPE, "Cannot free the predefined datatype %s", dt->name);
        } else if (!(err = MPIR_Attr_delete_all(MPIR_ATTR_TYPE, *datatype))) {
            /* Parents, pending requests and get_contents copies hold their own
             * references, so they keep the object alive. */
            MPIR_Datatype_release(dt);
            *datatype = MPI_DATATYPE_NULL;
        }
    }
    return MPIR_Err_return(NULL, "MPI_Type_free", err);
}

static int query(const char *fname, MPI_Datatype type, const void *out, MPIR_Datatype **dt_p)
{
    int err = check_type(type, dt_p);
    if (!err)
        err = check_arg(out, "an output argument");
    return err ? MPIR_Err_return(NULL, fname, err) : MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPIR_CHECK_INIT("MPI_Type_size");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_size", datatype, size, &dt);
    if (!err)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return err;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Type_size_x");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_size_x", datatype, size, &dt);
    if (!err)
        *size = dt->size;
    return err;
}

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Type_size_c");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_size_c", datatype, size, &dt);
    if (!err)
        *size = dt->size;
    return err;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_extent");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_get_extent", datatype, lb && extent ? lb : NULL, &dt);
    if (!err) {
        *lb = dt->lb;
        *extent = dt->extent;
    }
    return err;
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_extent_x");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_get_extent_x", datatype, lb && extent ? lb : NULL, &dt);
    if (!err) {
        *lb = dt->lb;
        *extent = dt->extent;
    }
    return err;
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_true_extent");
    MPIR_Datatype *dt;
    int err =
        query("MPI_Type_get_true_extent", datatype, true_lb && true_extent ? true_lb : NULL, &dt);
    if (!err) {
        *true_lb = dt->true_lb;
        *true_extent = dt->true_ub - dt->true_lb;
    }
    return err;
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_true_extent_x");
    MPIR_Datatype *dt;
    int err =
        query("MPI_Type_get_true_extent_x", datatype, true_lb && true_extent ? true_lb : NULL, &dt);
    if (!err) {
        *true_lb = dt->true_lb;
        *true_extent = dt->true_ub - dt->true_lb;
    }
    return err;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    MPIR_CHECK_INIT("MPI_Type_get_envelope");
    MPIR_Datatype *dt;
    int all = num_integers && num_addresses && num_datatypes && combiner;
    int err = query("MPI_Type_get_envelope", datatype, all ? combiner : NULL, &dt);
    if (err)
        return err;
    if (dt->kind == MPIR_DT_BUILTIN) {
        *num_integers = *num_addresses = *num_datatypes = 0;
        *combiner = MPI_COMBINER_NAMED;
    } else {
        *num_integers = dt->n_ints;
        *num_addresses = dt->n_aints;
        *num_datatypes = dt->n_types;
        *combiner = dt->combiner;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[])
{
    MPIR_CHECK_INIT("MPI_Type_get_contents");
    MPIR_Datatype *dt;
    int err = check_type(datatype, &dt);
    if (!err && dt->kind == MPIR_DT_BUILTIN)
        err = MPIR_Err_create(MPI_ERR_TYPE,
                              "MPI_Type_get_contents of the predefined datatype %s (combiner "
                              "MPI_COMBINER_NAMED has no contents)",
                              dt->name);
    if (!err &&
        (max_integers < dt->n_ints || max_addresses < dt->n_aints || max_datatypes < dt->n_types))
        err = MPIR_Err_create(MPI_ERR_ARG,
                              "contents need %d integers, %d addresses, %d datatypes; room "
                              "given for %d, %d, %d",
                              dt->n_ints, dt->n_aints, dt->n_types, max_integers, max_addresses,
                              max_datatypes);
    if (!err && ((dt->n_ints && !array_of_integers) || (dt->n_aints && !array_of_addresses) ||
                 (dt->n_types && !array_of_datatypes)))
        err = MPIR_Err_create(MPI_ERR_ARG, "an output array is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Type_get_contents", err);
    if (dt->n_ints)
        memcpy(array_of_integers, dt->ints, dt->n_ints * sizeof(int));
    if (dt->n_aints)
        memcpy(array_of_addresses, dt->aints, dt->n_aints * sizeof(MPI_Aint));
    for (int i = 0; i < dt->n_types; i++) {
        /* Derived types come back as new references the user must free. */
        MPIR_Datatype_add_ref(dt->types[i]);
        array_of_datatypes[i] = dt->types[i]->handle;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    MPIR_CHECK_INIT("MPI_Type_get_name");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_get_name", datatype, type_name && resultlen ? type_name : NULL, &dt);
    if (!err) {
        strcpy(type_name, dt->name);
        *resultlen = (int)strlen(type_name);
    }
    return err;
}

#pragma weak MPI_Type_set_name = PMPI_Type_set_name
int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    MPIR_CHECK_INIT("MPI_Type_set_name");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_set_name", datatype, type_name, &dt);
    if (!err) {
        /* Longer names are truncated, as the standard allows. */
        strncpy(dt->name, type_name, MPI_MAX_OBJECT_NAME - 1);
        dt->name[MPI_MAX_OBJECT_NAME - 1] = 0;
    }
    return err;
}
