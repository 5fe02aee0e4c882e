/* type.c: the MPI datatype API: constructors, commit/free/dup, sizes and extents, envelope and
 * contents, names. */
#include <float.h>
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

static int check_count(MPI_Count count, const char *what)
{
    return count >= 0
               ? MPI_SUCCESS
               : MPIR_Err_create(MPI_ERR_COUNT, "%s is %lld, must be >= 0", what, (long long)count);
}

static int check_blocklens(MPI_Aint count, const MPI_Aint *bl)
{
    for (MPI_Aint i = 0; i < count; i++)
        if (bl[i] < 0)
            return MPIR_Err_create(MPI_ERR_ARG, "blocklength[%ld] is %ld, must be >= 0", (long)i,
                                   (long)bl[i]);
    return MPI_SUCCESS;
}

/* ---- Contents: the user's arguments, kept for MPI_Type_get_contents.  The classic
 * constructors keep their int and address arguments apart; the large-count (_c) forms keep
 * them all, in argument order, as large counts (MPI-4.1 sec. 5.1.13). ---- */

typedef struct {
    int large;
    int ni, na, nc;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
} contents_t;

/* Room for n arguments of each kind. */
static int contents_init(contents_t *c, int large, MPI_Aint n)
{
    size_t room = n > 0 ? (size_t)n : 1;
    *c = (contents_t){.large = large,
                      .ints = malloc(room * sizeof(int)),
                      .aints = malloc(room * sizeof(MPI_Aint)),
                      .counts = malloc(room * sizeof(MPI_Count))};
    if (c->ints && c->aints && c->counts)
        return MPI_SUCCESS;
    free(c->ints);
    free(c->aints);
    free(c->counts);
    return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
}

static void contents_free(contents_t *c)
{
    free(c->ints);
    free(c->aints);
    free(c->counts);
}

/* A count, blocklength, stride or displacement in elements: an int of the classic call. */
static void put_int(contents_t *c, MPI_Aint v)
{
    if (c->large)
        c->counts[c->nc++] = v;
    else
        c->ints[c->ni++] = (int)v;
}

/* An address-sized argument (a byte stride or displacement, a bound). */
static void put_aint(contents_t *c, MPI_Aint v)
{
    if (c->large)
        c->counts[c->nc++] = v;
    else
        c->aints[c->na++] = v;
}

/* An argument that is an int in both forms (ndims, order, a distribution). */
static void put_fixed(contents_t *c, int v)
{
    c->ints[c->ni++] = v;
}

/* Records the contents, gives t a handle and stores it in *newtype; on failure drops t.
 * Frees the contents either way.  Returns an error code. */
static int publish(MPIR_Datatype *t, int combiner, contents_t *c, MPI_Aint nt,
                   const MPI_Datatype *types, MPI_Datatype *newtype)
{
    int err = MPI_SUCCESS;
    if (!t)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    else if (MPIR_Type_set_contents(t, combiner, c->ni, c->ints, c->na, c->aints, c->nc, c->counts,
                                    (int)nt, types) ||
             MPIR_Datatype_register(t)) {
        MPIR_Datatype_release(t);
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    } else
        *newtype = t->handle;
    contents_free(c);
    return err;
}

/* A copy as MPI_Aint of an array of either form (NULL for NULL or when memory is short). */
static MPI_Aint *aints_from_ints(const int *a, MPI_Aint n)
{
    MPI_Aint *r = a ? malloc((n > 0 ? n : 1) * sizeof(*r)) : NULL;
    for (MPI_Aint i = 0; r && i < n; i++)
        r[i] = a[i];
    return r;
}

static MPI_Aint *aints_from_counts(const MPI_Count *a, MPI_Aint n)
{
    MPI_Aint *r = a ? malloc((n > 0 ? n : 1) * sizeof(*r)) : NULL;
    for (MPI_Aint i = 0; r && i < n; i++)
        r[i] = (MPI_Aint)a[i];
    return r;
}

static MPI_Aint *aints_copy(const MPI_Aint *a, MPI_Aint n)
{
    MPI_Aint *r = a ? malloc((n > 0 ? n : 1) * sizeof(*r)) : NULL;
    if (r && n > 0)
        memcpy(r, a, n * sizeof(*r));
    return r;
}

/* Displacements in elements of extent ext, in bytes. */
static int scale_displs(const MPI_Aint *d, MPI_Aint n, MPI_Aint ext, MPI_Aint **out)
{
    MPI_Aint *r = malloc((n > 0 ? n : 1) * sizeof(*r));
    if (!r)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    for (MPI_Aint i = 0; i < n; i++) {
        if (__builtin_mul_overflow(d[i], ext, &r[i])) {
            free(r);
            return MPIR_Err_create(MPI_ERR_ARG,
                                   "displacement[%ld] = %ld elements of extent %ld overflows "
                                   "an address",
                                   (long)i, (long)d[i], (long)ext);
        }
    }
    *out = r;
    return MPI_SUCCESS;
}

/* An array argument that is NULL although count > 0, or that could not be copied. */
static int check_array(MPI_Count count, const void *user, const void *copy, const char *what)
{
    if (count <= 0)
        return MPI_SUCCESS;
    if (!user)
        return MPIR_Err_create(MPI_ERR_ARG, "%s is NULL", what);
    if (!copy)
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    return MPI_SUCCESS;
}

static int contiguous(const char *fname, MPI_Count count, MPI_Datatype oldtype,
                      MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old;
    contents_t c;
    int err = check_count(count, "count");
    if (!err && !(err = check_type(oldtype, &old)) && !(err = check_arg(newtype, "newtype")) &&
        !(err = contents_init(&c, large, 1))) {
        put_int(&c, count);
        err = publish(MPIR_Type_vector(1, count, 0, old), MPI_COMBINER_CONTIGUOUS, &c, 1, &oldtype,
                      newtype);
    }
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_contiguous = PMPI_Type_contiguous
int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_contiguous");
    return contiguous("MPI_Type_contiguous", count, oldtype, newtype, 0);
}

#pragma weak MPI_Type_contiguous_c = PMPI_Type_contiguous_c
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_contiguous_c");
    return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, 1);
}

/* vector (stride in elements of oldtype) and hvector (stride in bytes). */
static int vector(const char *fname, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                  int stride_in_bytes, MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old;
    contents_t c;
    MPI_Aint bl = blocklength, bytes = stride;
    int err = check_count(count, "count");
    if (!err && !(err = check_blocklens(1, &bl)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype")) && !stride_in_bytes &&
        __builtin_mul_overflow((MPI_Aint)stride, old->extent, &bytes))
        err = MPIR_Err_create(MPI_ERR_ARG, "stride of %lld elements of extent %ld overflows",
                              (long long)stride, (long)old->extent);
    if (!err && !(err = contents_init(&c, large, 3))) {
        put_int(&c, count);
        put_int(&c, blocklength);
        if (stride_in_bytes)
            put_aint(&c, stride);
        else
            put_int(&c, stride);
        err = publish(MPIR_Type_vector(count, blocklength, bytes, old),
                      stride_in_bytes ? MPI_COMBINER_HVECTOR : MPI_COMBINER_VECTOR, &c, 1, &oldtype,
                      newtype);
    }
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_vector = PMPI_Type_vector
int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                     MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_vector");
    return vector("MPI_Type_vector", count, blocklength, stride, 0, oldtype, newtype, 0);
}

#pragma weak MPI_Type_vector_c = PMPI_Type_vector_c
int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_vector_c");
    return vector("MPI_Type_vector_c", count, blocklength, stride, 0, oldtype, newtype, 1);
}

#pragma weak MPI_Type_create_hvector = PMPI_Type_create_hvector
int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hvector");
    return vector("MPI_Type_create_hvector", count, blocklength, stride, 1, oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_hvector_c = PMPI_Type_create_hvector_c
int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                               MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hvector_c");
    return vector("MPI_Type_create_hvector_c", count, blocklength, stride, 1, oldtype, newtype, 1);
}

/* indexed (displacements in elements) and hindexed (in bytes).  bl and displs are copies made
 * by the caller (owned here), user_bl and user_displs the user's arrays (for the NULL check). */
static int indexed(const char *fname, MPI_Count count, const void *user_bl, MPI_Aint *bl,
                   const void *user_displs, MPI_Aint *displs, int displs_in_bytes,
                   MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old;
    contents_t c;
    MPI_Aint *bytes = NULL;
    int err = check_count(count, "count");
    if (!err && !(err = check_array(count, user_bl, bl, "array_of_blocklengths")) &&
        !(err = check_array(count, user_displs, displs, "array_of_displacements")) &&
        !(err = check_blocklens(count, bl)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype")) &&
        !(err = scale_displs(displs, count, displs_in_bytes ? 1 : old->extent, &bytes)) &&
        !(err = contents_init(&c, large, 2 * count + 1))) {
        put_int(&c, count);
        for (MPI_Aint i = 0; i < count; i++)
            put_int(&c, bl[i]);
        for (MPI_Aint i = 0; i < count; i++) {
            if (displs_in_bytes)
                put_aint(&c, displs[i]);
            else
                put_int(&c, displs[i]);
        }
        err = publish(MPIR_Type_indexed(count, bl, bytes, old),
                      displs_in_bytes ? MPI_COMBINER_HINDEXED : MPI_COMBINER_INDEXED, &c, 1,
                      &oldtype, newtype);
    }
    free(bytes);
    free(bl);
    free(displs);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_indexed = PMPI_Type_indexed
int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                      const int array_of_displacements[], MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_indexed");
    return indexed("MPI_Type_indexed", count, array_of_blocklengths,
                   aints_from_ints(array_of_blocklengths, count), array_of_displacements,
                   aints_from_ints(array_of_displacements, count), 0, oldtype, newtype, 0);
}

#pragma weak MPI_Type_indexed_c = PMPI_Type_indexed_c
int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                        MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_indexed_c");
    return indexed("MPI_Type_indexed_c", count, array_of_blocklengths,
                   aints_from_counts(array_of_blocklengths, count), array_of_displacements,
                   aints_from_counts(array_of_displacements, count), 0, oldtype, newtype, 1);
}

#pragma weak MPI_Type_create_hindexed = PMPI_Type_create_hindexed
int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hindexed");
    return indexed("MPI_Type_create_hindexed", count, array_of_blocklengths,
                   aints_from_ints(array_of_blocklengths, count), array_of_displacements,
                   aints_copy(array_of_displacements, count), 1, oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_hindexed_c = PMPI_Type_create_hindexed_c
int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hindexed_c");
    return indexed("MPI_Type_create_hindexed_c", count, array_of_blocklengths,
                   aints_from_counts(array_of_blocklengths, count), array_of_displacements,
                   aints_from_counts(array_of_displacements, count), 1, oldtype, newtype, 1);
}

/* indexed_block (displacements in elements) and hindexed_block (in bytes); displs as for
 * indexed. */
static int indexed_block(const char *fname, MPI_Count count, MPI_Count blocklength,
                         const void *user_displs, MPI_Aint *displs, int displs_in_bytes,
                         MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old;
    contents_t c;
    MPI_Aint bl = blocklength, *bytes = NULL;
    int err = check_count(count, "count");
    if (!err && !(err = check_array(count, user_displs, displs, "array_of_displacements")) &&
        !(err = check_blocklens(1, &bl)) && !(err = check_type(oldtype, &old)) &&
        !(err = check_arg(newtype, "newtype")) &&
        !(err = scale_displs(displs, count, displs_in_bytes ? 1 : old->extent, &bytes)) &&
        !(err = contents_init(&c, large, count + 2))) {
        put_int(&c, count);
        put_int(&c, blocklength);
        for (MPI_Aint i = 0; i < count; i++) {
            if (displs_in_bytes)
                put_aint(&c, displs[i]);
            else
                put_int(&c, displs[i]);
        }
        err = publish(MPIR_Type_blkidx(count, blocklength, bytes, old),
                      displs_in_bytes ? MPI_COMBINER_HINDEXED_BLOCK : MPI_COMBINER_INDEXED_BLOCK,
                      &c, 1, &oldtype, newtype);
    }
    free(bytes);
    free(displs);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_create_indexed_block = PMPI_Type_create_indexed_block
int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_indexed_block");
    return indexed_block("MPI_Type_create_indexed_block", count, blocklength,
                         array_of_displacements, aints_from_ints(array_of_displacements, count), 0,
                         oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_indexed_block_c = PMPI_Type_create_indexed_block_c
int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_indexed_block_c");
    return indexed_block("MPI_Type_create_indexed_block_c", count, blocklength,
                         array_of_displacements, aints_from_counts(array_of_displacements, count),
                         0, oldtype, newtype, 1);
}

#pragma weak MPI_Type_create_hindexed_block = PMPI_Type_create_hindexed_block
int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                    const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hindexed_block");
    return indexed_block("MPI_Type_create_hindexed_block", count, blocklength,
                         array_of_displacements, aints_copy(array_of_displacements, count), 1,
                         oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_hindexed_block_c = PMPI_Type_create_hindexed_block_c
int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[],
                                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_hindexed_block_c");
    return indexed_block("MPI_Type_create_hindexed_block_c", count, blocklength,
                         array_of_displacements, aints_from_counts(array_of_displacements, count),
                         1, oldtype, newtype, 1);
}

/* bl and displs as for indexed. */
static int create_struct(const char *fname, MPI_Count count, const void *user_bl, MPI_Aint *bl,
                         const void *user_displs, MPI_Aint *displs, const MPI_Datatype *types,
                         MPI_Datatype *newtype, int large)
{
    contents_t c;
    MPIR_Datatype **ch = NULL;
    int err = check_count(count, "count");
    if (!err && !(err = check_array(count, user_bl, bl, "array_of_blocklengths")) &&
        !(err = check_array(count, user_displs, displs, "array_of_displacements")) &&
        !(err = check_array(count, types, types, "array_of_types")) &&
        !(err = check_blocklens(count, bl)) && !(err = check_arg(newtype, "newtype")) &&
        !(ch = malloc((count > 0 ? count : 1) * sizeof(*ch))))
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a struct type");
    for (MPI_Aint i = 0; !err && i < count; i++) {
        if ((err = MPIR_Check_type(types[i])))
            err = MPIR_Err_create(MPI_ERR_TYPE, "array_of_types[%ld] = %#x is not a datatype",
                                  (long)i, (unsigned)types[i]);
        else
            ch[i] = MPIR_Datatype_get(types[i]);
    }
    if (!err && !(err = contents_init(&c, large, 2 * count + 1))) {
        put_int(&c, count);
        for (MPI_Aint i = 0; i < count; i++)
            put_int(&c, bl[i]);
        for (MPI_Aint i = 0; i < count; i++)
            put_aint(&c, displs[i]);
        err = publish(MPIR_Type_struct(count, bl, displs, ch), MPI_COMBINER_STRUCT, &c, count,
                      types, newtype);
    }
    free(ch);
    free(bl);
    free(displs);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_create_struct = PMPI_Type_create_struct
int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                            const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_struct");
    return create_struct("MPI_Type_create_struct", count, array_of_blocklengths,
                         aints_from_ints(array_of_blocklengths, count), array_of_displacements,
                         aints_copy(array_of_displacements, count), array_of_types, newtype, 0);
}

#pragma weak MPI_Type_create_struct_c = PMPI_Type_create_struct_c
int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_struct_c");
    return create_struct("MPI_Type_create_struct_c", count, array_of_blocklengths,
                         aints_from_counts(array_of_blocklengths, count), array_of_displacements,
                         aints_from_counts(array_of_displacements, count), array_of_types, newtype,
                         1);
}

static int resized(const char *fname, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                   MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old;
    contents_t c;
    int err = check_type(oldtype, &old);
    if (!err && !(err = check_arg(newtype, "newtype")) && !(err = contents_init(&c, large, 2))) {
        put_aint(&c, lb);
        put_aint(&c, extent);
        err = publish(MPIR_Type_alias(old, 1, lb, extent), MPI_COMBINER_RESIZED, &c, 1, &oldtype,
                      newtype);
    }
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_create_resized = PMPI_Type_create_resized
int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_resized");
    return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, 0);
}

#pragma weak MPI_Type_create_resized_c = PMPI_Type_create_resized_c
int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_resized_c");
    return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, 1);
}

/* sizes, subsizes and starts one after the other in arrays (owned); any NULL (user) gives
 * arrays NULL. */
static int subarray(const char *fname, int ndims, int any_null, MPI_Aint *arrays, int order,
                    MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old, *t = NULL;
    contents_t c;
    int err = check_type(oldtype, &old);
    if (!err && ndims > 0 && any_null)
        err = MPIR_Err_create(MPI_ERR_ARG, "an array argument is NULL");
    else if (!err && ndims > 0 && !arrays)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a subarray type");
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        char msg[256];
        int cls = MPIR_Type_subarray(ndims, arrays, arrays + ndims, arrays + 2 * ndims, order, old,
                                     &t, msg, sizeof(msg));
        if (cls)
            err = MPIR_Err_create(cls, "%s", msg);
    }
    if (!err && (err = contents_init(&c, large, 3 * ndims + 2)))
        MPIR_Datatype_release(t);
    if (!err) {
        put_fixed(&c, ndims);
        for (int i = 0; i < 3 * ndims; i++)
            put_int(&c, arrays[i]);
        put_fixed(&c, order);
        err = publish(t, MPI_COMBINER_SUBARRAY, &c, 1, &oldtype, newtype);
    }
    free(arrays);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_create_subarray = PMPI_Type_create_subarray
int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_subarray");
    int any_null = !array_of_sizes || !array_of_subsizes || !array_of_starts, n = ndims;
    MPI_Aint *a = any_null || n <= 0 ? NULL : malloc(3 * n * sizeof(*a));
    for (int i = 0; a && i < n; i++) {
        a[i] = array_of_sizes[i];
        a[n + i] = array_of_subsizes[i];
        a[2 * n + i] = array_of_starts[i];
    }
    return subarray("MPI_Type_create_subarray", ndims, any_null, a, order, oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_subarray_c = PMPI_Type_create_subarray_c
int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_subarray_c");
    int any_null = !array_of_sizes || !array_of_subsizes || !array_of_starts, n = ndims;
    MPI_Aint *a = any_null || n <= 0 ? NULL : malloc(3 * n * sizeof(*a));
    for (int i = 0; a && i < n; i++) {
        a[i] = (MPI_Aint)array_of_sizes[i];
        a[n + i] = (MPI_Aint)array_of_subsizes[i];
        a[2 * n + i] = (MPI_Aint)array_of_starts[i];
    }
    return subarray("MPI_Type_create_subarray_c", ndims, any_null, a, order, oldtype, newtype, 1);
}

/* gsizes is a copy (owned), user_gsizes the user's array. */
static int darray(const char *fname, int size, int rank, int ndims, const void *user_gsizes,
                  MPI_Aint *gsizes, const int *distribs, const int *dargs, const int *psizes,
                  int order, MPI_Datatype oldtype, MPI_Datatype *newtype, int large)
{
    MPIR_Datatype *old, *t = NULL;
    contents_t c;
    int err = check_type(oldtype, &old);
    if (!err && ndims > 0 && (!user_gsizes || !distribs || !dargs || !psizes))
        err = MPIR_Err_create(MPI_ERR_ARG, "an array argument is NULL");
    else if (!err && ndims > 0 && !gsizes)
        err = MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a darray type");
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        char msg[256];
        int cls = MPIR_Type_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old,
                                   &t, msg, sizeof(msg));
        if (cls)
            err = MPIR_Err_create(cls, "%s", msg);
    }
    if (!err && (err = contents_init(&c, large, 4 * ndims + 4)))
        MPIR_Datatype_release(t);
    if (!err) {
        put_fixed(&c, size);
        put_fixed(&c, rank);
        put_fixed(&c, ndims);
        for (int i = 0; i < ndims; i++)
            put_int(&c, gsizes[i]);
        for (int i = 0; i < ndims; i++)
            put_fixed(&c, distribs[i]);
        for (int i = 0; i < ndims; i++)
            put_fixed(&c, dargs[i]);
        for (int i = 0; i < ndims; i++)
            put_fixed(&c, psizes[i]);
        put_fixed(&c, order);
        err = publish(t, MPI_COMBINER_DARRAY, &c, 1, &oldtype, newtype);
    }
    free(gsizes);
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Type_create_darray = PMPI_Type_create_darray
int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[],
                            const int array_of_psizes[], int order, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_darray");
    return darray("MPI_Type_create_darray", size, rank, ndims, array_of_gsizes,
                  aints_from_ints(array_of_gsizes, ndims), array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype, newtype, 0);
}

#pragma weak MPI_Type_create_darray_c = PMPI_Type_create_darray_c
int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_darray_c");
    return darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes,
                  aints_from_counts(array_of_gsizes, ndims), array_of_distribs, array_of_dargs,
                  array_of_psizes, order, oldtype, newtype, 1);
}

#pragma weak MPI_Type_dup = PMPI_Type_dup
int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_dup");
    MPIR_Datatype *old;
    int err = check_type(oldtype, &old);
    if (!err && !(err = check_arg(newtype, "newtype"))) {
        MPIR_Datatype *t = MPIR_Type_alias(old, 0, 0, 0);
        contents_t c;
        if (!(err = contents_init(&c, 0, 0)))
            err = publish(t, MPI_COMBINER_DUP, &c, 1, &oldtype, newtype);
        else
            MPIR_Datatype_release(t);
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
        } else if (MPIR_Datatype_is_f90(dt)) {
            err = MPIR_Err_create(MPI_ERR_TYPE,
                                  "Cannot free the predefined datatype %#x (from "
                                  "MPI_Type_create_f90_*)",
                                  (unsigned)*datatype);
        } else if (!(err = MPIR_Attr_delete_all(MPIR_ATTR_TYPE, *datatype))) {
            /* Parents, pending requests and get_contents copies hold their own
             * references, so they keep the object alive. */
            MPIR_Datatype_release(dt);
            *datatype = MPI_DATATYPE_NULL;
        }
    }
    return MPIR_Err_return(NULL, "MPI_Type_free", err);
}

/* The type argument of a query, and whether its pointer arguments were all given. */
static int query(const char *fname, MPI_Datatype type, int args_given, MPIR_Datatype **dt_p)
{
    int err = check_type(type, dt_p);
    if (!err && !args_given)
        err = MPIR_Err_create(MPI_ERR_ARG, "an output argument is NULL");
    return err ? MPIR_Err_return(NULL, fname, err) : MPI_SUCCESS;
}

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    MPIR_CHECK_INIT("MPI_Type_size");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_size", datatype, size != NULL, &dt);
    if (!err)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return err;
}

static int size_count(const char *fname, MPI_Datatype datatype, MPI_Count *size)
{
    MPIR_Datatype *dt;
    int err = query(fname, datatype, size != NULL, &dt);
    if (!err)
        *size = dt->size;
    return err;
}

#pragma weak MPI_Type_size_x = PMPI_Type_size_x
int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Type_size_x");
    return size_count("MPI_Type_size_x", datatype, size);
}

#pragma weak MPI_Type_size_c = PMPI_Type_size_c
int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    MPIR_CHECK_INIT("MPI_Type_size_c");
    return size_count("MPI_Type_size_c", datatype, size);
}

/* Bounds (the true ones if use_true) as MPI_Aint (the _addr pointers) or MPI_Count. */
static int extent_of(const char *fname, MPI_Datatype datatype, int use_true, MPI_Aint *lb_addr,
                     MPI_Aint *extent_addr, MPI_Count *lb_count, MPI_Count *extent_count)
{
    MPIR_Datatype *dt;
    int given = (lb_addr && extent_addr) || (lb_count && extent_count);
    int err = query(fname, datatype, given, &dt);
    if (err)
        return err;
    MPI_Aint lb = use_true ? dt->true_lb : dt->lb;
    MPI_Aint extent = use_true ? dt->true_ub - dt->true_lb : dt->extent;
    if (lb_addr) { /* the MPI_Aint form */
        *lb_addr = lb;
        *extent_addr = extent;
    } else {
        *lb_count = lb;
        *extent_count = extent;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_extent = PMPI_Type_get_extent
int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_extent");
    return extent_of("MPI_Type_get_extent", datatype, 0, lb, extent, NULL, NULL);
}

#pragma weak MPI_Type_get_extent_x = PMPI_Type_get_extent_x
int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_extent_x");
    return extent_of("MPI_Type_get_extent_x", datatype, 0, NULL, NULL, lb, extent);
}

#pragma weak MPI_Type_get_extent_c = PMPI_Type_get_extent_c
int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_extent_c");
    return extent_of("MPI_Type_get_extent_c", datatype, 0, NULL, NULL, lb, extent);
}

#pragma weak MPI_Type_get_true_extent = PMPI_Type_get_true_extent
int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_true_extent");
    return extent_of("MPI_Type_get_true_extent", datatype, 1, true_lb, true_extent, NULL, NULL);
}

#pragma weak MPI_Type_get_true_extent_x = PMPI_Type_get_true_extent_x
int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_true_extent_x");
    return extent_of("MPI_Type_get_true_extent_x", datatype, 1, NULL, NULL, true_lb, true_extent);
}

#pragma weak MPI_Type_get_true_extent_c = PMPI_Type_get_true_extent_c
int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    MPIR_CHECK_INIT("MPI_Type_get_true_extent_c");
    return extent_of("MPI_Type_get_true_extent_c", datatype, 1, NULL, NULL, true_lb, true_extent);
}

/* A type made by a large-count constructor can only be described by the _c calls. */
static int check_not_large(const MPIR_Datatype *dt, const char *c_form)
{
    if (dt->kind == MPIR_DT_BUILTIN || dt->n_counts == 0)
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_TYPE,
                           "the datatype was made by a large-count constructor: its %d "
                           "arguments are large counts, which only %s returns",
                           dt->n_counts, c_form);
}

static void envelope(const MPIR_Datatype *dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nc,
                     MPI_Count *nt, int *combiner)
{
    int builtin = dt->kind == MPIR_DT_BUILTIN;
    *ni = builtin ? 0 : dt->n_ints;
    *na = builtin ? 0 : dt->n_aints;
    *nc = builtin ? 0 : dt->n_counts;
    *nt = builtin ? 0 : dt->n_types;
    *combiner = builtin ? MPI_COMBINER_NAMED : dt->combiner;
}

#pragma weak MPI_Type_get_envelope = PMPI_Type_get_envelope
int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                           int *num_datatypes, int *combiner)
{
    MPIR_CHECK_INIT("MPI_Type_get_envelope");
    MPIR_Datatype *dt;
    int all = num_integers && num_addresses && num_datatypes && combiner;
    int err = query("MPI_Type_get_envelope", datatype, all, &dt);
    if (err)
        return err;
    if ((err = check_not_large(dt, "MPI_Type_get_envelope_c")))
        return MPIR_Err_return(NULL, "MPI_Type_get_envelope", err);
    MPI_Count ni, na, nc, nt;
    envelope(dt, &ni, &na, &nc, &nt, combiner);
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nt;
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_envelope_c = PMPI_Type_get_envelope_c
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                             MPI_Count *num_addresses, MPI_Count *num_large_counts,
                             MPI_Count *num_datatypes, int *combiner)
{
    MPIR_CHECK_INIT("MPI_Type_get_envelope_c");
    MPIR_Datatype *dt;
    int all = num_integers && num_addresses && num_large_counts && num_datatypes && combiner;
    int err = query("MPI_Type_get_envelope_c", datatype, all, &dt);
    if (!err)
        envelope(dt, num_integers, num_addresses, num_large_counts, num_datatypes, combiner);
    return err;
}

/* Copies the contents out; counts is NULL for the classic call (checked before). */
static int contents(const char *fname, MPI_Datatype datatype, MPI_Count max_integers,
                    MPI_Count max_addresses, MPI_Count max_counts, MPI_Count max_datatypes,
                    int *ints, MPI_Aint *aints, MPI_Count *counts, MPI_Datatype *types, int large)
{
    MPIR_Datatype *dt;
    int err = check_type(datatype, &dt);
    if (!err && dt->kind == MPIR_DT_BUILTIN)
        err = MPIR_Err_create(MPI_ERR_TYPE,
                              "%s of the predefined datatype %s (combiner MPI_COMBINER_NAMED has "
                              "no contents)",
                              fname, dt->name);
    if (!err && !large)
        err = check_not_large(dt, "MPI_Type_get_contents_c");
    if (!err && (max_integers < dt->n_ints || max_addresses < dt->n_aints ||
                 max_counts < dt->n_counts || max_datatypes < dt->n_types))
        err = MPIR_Err_create(MPI_ERR_ARG,
                              "contents need %d integers, %d addresses, %d large counts, %d "
                              "datatypes; room given for %lld, %lld, %lld, %lld",
                              dt->n_ints, dt->n_aints, dt->n_counts, dt->n_types,
                              (long long)max_integers, (long long)max_addresses,
                              (long long)max_counts, (long long)max_datatypes);
    if (!err && ((dt->n_ints && !ints) || (dt->n_aints && !aints) || (dt->n_counts && !counts) ||
                 (dt->n_types && !types)))
        err = MPIR_Err_create(MPI_ERR_ARG, "an output array is NULL");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    if (dt->n_ints)
        memcpy(ints, dt->ints, dt->n_ints * sizeof(int));
    if (dt->n_aints)
        memcpy(aints, dt->aints, dt->n_aints * sizeof(MPI_Aint));
    if (dt->n_counts)
        memcpy(counts, dt->counts, dt->n_counts * sizeof(MPI_Count));
    for (int i = 0; i < dt->n_types; i++) {
        /* Derived types come back as new references the user must free. */
        MPIR_Datatype_add_ref(dt->types[i]);
        types[i] = dt->types[i]->handle;
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Type_get_contents = PMPI_Type_get_contents
int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[],
                           MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    MPIR_CHECK_INIT("MPI_Type_get_contents");
    return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0,
                    max_datatypes, array_of_integers, array_of_addresses, NULL, array_of_datatypes,
                    0);
}

#pragma weak MPI_Type_get_contents_c = PMPI_Type_get_contents_c
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes,
                             int array_of_integers[], MPI_Aint array_of_addresses[],
                             MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[])
{
    MPIR_CHECK_INIT("MPI_Type_get_contents_c");
    return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                    max_large_counts, max_datatypes, array_of_integers, array_of_addresses,
                    array_of_large_counts, array_of_datatypes, 1);
}

#pragma weak MPI_Type_get_name = PMPI_Type_get_name
int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    MPIR_CHECK_INIT("MPI_Type_get_name");
    MPIR_Datatype *dt;
    int err = query("MPI_Type_get_name", datatype, type_name && resultlen, &dt);
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
    int err = query("MPI_Type_set_name", datatype, type_name != NULL, &dt);
    if (!err) {
        /* Longer names are truncated, as the standard allows. */
        strncpy(dt->name, type_name, MPI_MAX_OBJECT_NAME - 1);
        dt->name[MPI_MAX_OBJECT_NAME - 1] = 0;
    }
    return err;
}

/* ---- Fortran's kinds (MPI-4.0 19.3.6) ----
 * The named Fortran types stand for every kind gfortran has: INTEGER of 1, 2, 4, 8 and 16
 * bytes, REAL and COMPLEX of 4, 8 and 16 bytes per part (REAL(16) is IEEE binary128), and on x86
 * REAL(10), the 80-bit extended precision of C's long double, which has no named Fortran type:
 * MPI_LONG_DOUBLE and MPI_C_LONG_DOUBLE_COMPLEX are its data (size 0 below: MPI_Type_match_size
 * never gives them).
 * The f90 calls return an alias of one of them under the F90 combiner with the p and r asked
 * (MPIR_Datatype_is_f90), one per combiner, p and r, kept for the process; the smallest kind
 * that has them, as SELECTED_REAL_KIND. */
static const struct {
    int typeclass, size;
    int precision, range; /* decimal digits and exponent range, as Fortran's SELECTED_*_KIND */
    MPI_Datatype type;
} fortran_kinds[] = {
    {MPI_TYPECLASS_INTEGER, 1, 0, 2, MPI_INTEGER1},
    {MPI_TYPECLASS_INTEGER, 2, 0, 4, MPI_INTEGER2},
    {MPI_TYPECLASS_INTEGER, 4, 0, 9, MPI_INTEGER4},
    {MPI_TYPECLASS_INTEGER, 8, 0, 18, MPI_INTEGER8},
    {MPI_TYPECLASS_INTEGER, 16, 0, 38, MPI_INTEGER16},
    {MPI_TYPECLASS_REAL, 4, 6, 37, MPI_REAL4},
    {MPI_TYPECLASS_REAL, 8, 15, 307, MPI_REAL8},
#if LDBL_MANT_DIG == 64
    {MPI_TYPECLASS_REAL, 0, 18, 4931, MPI_LONG_DOUBLE},
#endif
    {MPI_TYPECLASS_REAL, 16, 33, 4931, MPI_REAL16},
    {MPI_TYPECLASS_COMPLEX, 8, 6, 37, MPI_COMPLEX8},
    {MPI_TYPECLASS_COMPLEX, 16, 15, 307, MPI_COMPLEX16},
#if LDBL_MANT_DIG == 64
    {MPI_TYPECLASS_COMPLEX, 0, 18, 4931, MPI_C_LONG_DOUBLE_COMPLEX},
#endif
    {MPI_TYPECLASS_COMPLEX, 32, 33, 4931, MPI_COMPLEX32},
};
#define N_FORTRAN_KINDS (sizeof fortran_kinds / sizeof fortran_kinds[0])

#pragma weak MPI_Type_match_size = PMPI_Type_match_size
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    MPIR_CHECK_INIT("MPI_Type_match_size");
    if (!datatype)
        return MPIR_Err_return(NULL, "MPI_Type_match_size",
                               MPIR_Err_create(MPI_ERR_ARG, "datatype is NULL"));
    for (size_t i = 0; i < N_FORTRAN_KINDS; i++) {
        if (fortran_kinds[i].typeclass == typeclass && size > 0 && fortran_kinds[i].size == size) {
            *datatype = fortran_kinds[i].type;
            return MPI_SUCCESS;
        }
    }
    return MPIR_Err_return(NULL, "MPI_Type_match_size",
                           MPIR_Err_create(MPI_ERR_ARG,
                                           "no Fortran type of class %d and size %d (classes: "
                                           "MPI_TYPECLASS_INTEGER 1, 2, 4, 8, 16; _REAL 4, 8, "
                                           "16; _COMPLEX 8, 16, 32)",
                                           typeclass, size));
}

/* The predefined pair types of MINLOC and MAXLOC (MPI-4.1 sec. 6.9.4), by value and index type. */
static const struct {
    MPI_Datatype value, index, pair;
} value_index_pairs[] = {
    {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
    {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
    {MPI_LONG, MPI_INT, MPI_LONG_INT},
    {MPI_INT, MPI_INT, MPI_2INT},
    {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
    {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
    {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
    {MPI_REAL, MPI_REAL, MPI_2REAL},
    {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
};

#pragma weak MPI_Type_get_value_index = PMPI_Type_get_value_index
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    static const char fname[] = "MPI_Type_get_value_index";
    MPIR_CHECK_INIT(fname);
    int err = MPIR_Check_type(value_type);
    if (!err)
        err = MPIR_Check_type(index_type);
    if (!err && !pair_type)
        err = MPIR_Err_create(MPI_ERR_ARG, "pair_type is NULL");
    if (err)
        return MPIR_Err_return(NULL, fname, err);
    *pair_type = MPI_DATATYPE_NULL; /* no predefined pair: not an error (MPI-4.1) */
    for (size_t i = 0; i < sizeof value_index_pairs / sizeof value_index_pairs[0]; i++)
        if (value_index_pairs[i].value == value_type && value_index_pairs[i].index == index_type)
            *pair_type = value_index_pairs[i].pair;
    return MPI_SUCCESS;
}

/* The f90 types made so far: the same arguments give the same handle (MPI-4.1 sec. 19.1.9 lets
 * a program call these as often as it likes and never free the result). */
typedef struct f90_type {
    struct f90_type *next;
    int combiner, p, r;
    MPI_Datatype handle;
} f90_type_t;
static f90_type_t *f90_types;

/* A new f90 type: named's data, committed, contents (p, r) or (r) for integers. */
static int f90_type_new(int combiner, int p, int r, MPI_Datatype named, MPI_Datatype *newtype)
{
    f90_type_t *f = malloc(sizeof *f);
    MPIR_Datatype *t = f ? MPIR_Type_alias(MPIR_Datatype_get(named), 0, 0, 0) : NULL;
    contents_t c;
    int err = t ? contents_init(&c, 0, 2)
                : MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory creating a datatype");
    if (err) {
        MPIR_Datatype_release(t);
        free(f);
        return err;
    }
    if (combiner != MPI_COMBINER_F90_INTEGER)
        put_fixed(&c, p);
    put_fixed(&c, r);
    if ((err = publish(t, combiner, &c, 0, NULL, newtype))) {
        free(f);
        return err;
    }
    if (MPIR_Type_commit(t)) {
        MPIR_Datatype_release(t);
        free(f);
        return MPIR_Err_create(MPI_ERR_NO_MEM, "out of memory committing a datatype");
    }
    *f = (f90_type_t){.next = f90_types, .combiner = combiner, .p = p, .r = r, .handle = *newtype};
    f90_types = f;
    return MPI_SUCCESS;
}

/* The smallest kind of the class with at least precision p and range r (MPI_UNDEFINED: any). */
static int f90_kind(const char *fname, int combiner, int typeclass, int p, int r,
                    MPI_Datatype *newtype)
{
    if (!newtype)
        return MPIR_Err_return(NULL, fname, MPIR_Err_create(MPI_ERR_ARG, "newtype is NULL"));
    for (f90_type_t *f = f90_types; f; f = f->next) {
        if (f->combiner == combiner && f->p == p && f->r == r) {
            *newtype = f->handle;
            return MPI_SUCCESS;
        }
    }
    for (size_t i = 0; i < N_FORTRAN_KINDS; i++) {
        if (fortran_kinds[i].typeclass == typeclass &&
            (p == MPI_UNDEFINED || p <= fortran_kinds[i].precision) &&
            (r == MPI_UNDEFINED || r <= fortran_kinds[i].range))
            return MPIR_Err_return(NULL, fname,
                                   f90_type_new(combiner, p, r, fortran_kinds[i].type, newtype));
    }
    return MPIR_Err_return(NULL, fname,
                           MPIR_Err_create(MPI_ERR_ARG,
                                           "no Fortran kind with precision %d and range %d "
                                           "(the largest: 33 digits, range 4931; integers 38)",
                                           p, r));
}

#pragma weak MPI_Type_create_f90_integer = PMPI_Type_create_f90_integer
int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_f90_integer");
    return f90_kind("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, MPI_TYPECLASS_INTEGER,
                    MPI_UNDEFINED, r, newtype);
}

#pragma weak MPI_Type_create_f90_real = PMPI_Type_create_f90_real
int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_f90_real");
    return f90_kind("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, MPI_TYPECLASS_REAL, p, r,
                    newtype);
}

#pragma weak MPI_Type_create_f90_complex = PMPI_Type_create_f90_complex
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    MPIR_CHECK_INIT("MPI_Type_create_f90_complex");
    return f90_kind("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, MPI_TYPECLASS_COMPLEX,
                    p, r, newtype);
}
