/* datatype.h: datatype objects: predefined and derived types, their bounds, contents, handles
 * and references, and the dataloop that commit builds. */
#ifndef DATATYPE_H_INCLUDED
#define DATATYPE_H_INCLUDED

#include "mpi.h"

struct MPIR_Dataloop;

/* How a type is made from its children.  Constructors are reduced to these
 * few shapes (displacements always in bytes); what the user passed is kept
 * apart, in the contents, for MPI_Type_get_contents. */
typedef enum {
    MPIR_DT_BUILTIN,
    MPIR_DT_VECTOR,  /* count blocks of blocklen children, block i at i * stride bytes */
    MPIR_DT_BLKIDX,  /* count blocks of blocklen children, block i at displs[i] */
    MPIR_DT_INDEXED, /* count blocks of blocklens[i] children at displs[i] */
    MPIR_DT_STRUCT,  /* count blocks of blocklens[i] elements of children[i] at displs[i] */
    MPIR_DT_ALIAS,   /* the child's data; bounds are the child's or set (resized) */
} MPIR_Datatype_kind_t;

typedef struct MPIR_Datatype {
    MPI_Datatype handle; /* 0 for internal types that the user never sees */
    int ref;             /* derived types: user handle, parents, requests, contents copies */
    MPIR_Datatype_kind_t kind;
    int committed;
    char name[MPI_MAX_OBJECT_NAME];

    MPI_Aint size;             /* bytes of data in one element */
    MPI_Aint lb, ub, extent;   /* bounds; extent = ub - lb is the stride between elements */
    MPI_Aint true_lb, true_ub; /* bounds of the data bytes alone */
    /* Bounds set by markers (MPI_Type_create_resized): as the standard's MPI_LB/MPI_UB
     * markers, they win over the data when this type is a child of another. */
    int sticky_lb, sticky_ub;
    int align;           /* largest alignment of a basic type inside (pads struct extents) */
    int is_contig;       /* the data of one element is size bytes, in order, from true_lb */
    MPI_Aint n_elements; /* basic elements in one element (a pair type counts 2) */
    MPI_Aint ext32_size; /* bytes of one element in the external32 representation */
    MPI_Aint depth;      /* levels of the type tree (1 for predefined types) */

    /* Predefined types: external32 size of one basic element; for the pair types
     * (MPI_DOUBLE_INT, MPI_2REAL ...) the two fields' types and the offset of the second. */
    MPI_Aint ext32_basic;
    MPI_Datatype pair_first, pair_second;
    MPI_Aint pair_off2;

    /* The type tree. */
    MPI_Aint count, blocklen, stride;
    MPI_Aint *blocklens, *displs;
    struct MPIR_Datatype *child;     /* all kinds but STRUCT and BUILTIN */
    struct MPIR_Datatype **children; /* STRUCT */

    /* Contents, as the user gave them (MPI_Type_get_envelope/get_contents); a type made by a
     * large-count (_c) constructor has its numeric arguments in counts. */
    int combiner;
    int n_ints, n_aints, n_counts, n_types;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    struct MPIR_Datatype **types; /* each holds a reference */

    struct MPIR_Dataloop *loop; /* built by commit (or on first use) */
} MPIR_Datatype;

/* Handles: predefined types have indexes 1 .. MPIR_DT_BUILTIN_COUNT - 1; derived
 * types MPIR_DT_DERIVED_BASE and up. */
#define MPIR_DT_DERIVED_BASE 128
#define MPIR_DT_INDEX_MASK 0x03ffffff
_Static_assert(MPIR_DT_BUILTIN_COUNT <= MPIR_DT_DERIVED_BASE, "predefined and derived handles meet");

static inline int MPIR_Datatype_is_builtin(MPI_Datatype type)
{
    return (type & 0xfc000000) == MPIR_HANDLE_KIND_DATATYPE && (type & MPIR_DT_INDEX_MASK) > 0 &&
           (type & MPIR_DT_INDEX_MASK) < MPIR_DT_BUILTIN_COUNT;
}

/* The predefined types, indexed by their handles' low bits (builtin.c). */
extern MPIR_Datatype MPIR_Datatype_builtins[];
MPIR_Datatype *MPIR_Datatype_get_derived(MPI_Datatype type);
MPIR_Datatype *MPIR_Datatype_builtin(MPI_Datatype type);

/* Returns the datatype object, or NULL for an invalid, null or freed handle.
 * Inline for the predefined types: every point-to-point call looks its type
 * up two or three times (issue 12's per-message budget). */
static inline MPIR_Datatype *MPIR_Datatype_get(MPI_Datatype type)
{
    if (MPIR_Datatype_is_builtin(type))
        return &MPIR_Datatype_builtins[type & MPIR_DT_INDEX_MASK];
    return MPIR_Datatype_get_derived(type);
}

/* References: no-ops for predefined types (inline, for the same reason).
 * The object (and its handle) goes away when the last one is dropped, so a
 * pending request or a parent type keeps a type alive after MPI_Type_free. */
void MPIR_Datatype_destroy(MPIR_Datatype *dt);
static inline void MPIR_Datatype_add_ref(MPIR_Datatype *dt)
{
    if (dt && dt->kind != MPIR_DT_BUILTIN)
        dt->ref++;
}
static inline void MPIR_Datatype_release(MPIR_Datatype *dt)
{
    if (dt && dt->kind != MPIR_DT_BUILTIN && --dt->ref == 0)
        MPIR_Datatype_destroy(dt);
}
/* The types of MPI_Type_create_f90_integer, _real, _complex (mpi/type.c): derived objects, each
 * an alias of the named type of its kind under an F90 combiner, which the standard calls
 * predefined (MPI-4.1 sec. 19.1.9): the user may not free them, predefined operations take them. */
static inline int MPIR_Datatype_is_f90(const MPIR_Datatype *dt)
{
    return dt->combiner == MPI_COMBINER_F90_INTEGER || dt->combiner == MPI_COMBINER_F90_REAL ||
           dt->combiner == MPI_COMBINER_F90_COMPLEX;
}
/* The named type whose data type is when type is an f90 type; else type. */
MPI_Datatype MPIR_Datatype_f90_named(MPI_Datatype type);
/* Gives a new type a user handle.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int MPIR_Datatype_register(MPIR_Datatype *dt);
int MPIR_Datatype_live(void); /* derived objects alive (leak checks in tests) */

/* Internal constructors.  Displacements and strides in bytes; child references
 * are taken, the result has one reference and no handle.  NULL: out of memory. */
MPIR_Datatype *MPIR_Type_vector(MPI_Aint count, MPI_Aint blocklen, MPI_Aint stride,
                                MPIR_Datatype *child);
MPIR_Datatype *MPIR_Type_blkidx(MPI_Aint count, MPI_Aint blocklen, const MPI_Aint *displs,
                                MPIR_Datatype *child);
MPIR_Datatype *MPIR_Type_indexed(MPI_Aint count, const MPI_Aint *blocklens, const MPI_Aint *displs,
                                 MPIR_Datatype *child);
MPIR_Datatype *MPIR_Type_struct(MPI_Aint count, const MPI_Aint *blocklens, const MPI_Aint *displs,
                                MPIR_Datatype *const *children);
/* The child's data with bounds [lb, lb + extent) (resized), or its own (set == 0: dup). */
MPIR_Datatype *MPIR_Type_alias(MPIR_Datatype *child, int set, MPI_Aint lb, MPI_Aint extent);
/* Subarray and darray; they return an MPI error class and a message in errmsg
 * for a bad argument. */
int MPIR_Type_subarray(int ndims, const MPI_Aint *sizes, const MPI_Aint *subsizes,
                       const MPI_Aint *starts, int order, MPIR_Datatype *old, MPIR_Datatype **newp,
                       char *errmsg, size_t errlen);
int MPIR_Type_darray(int size, int rank, int ndims, const MPI_Aint *gsizes, const int *distribs,
                     const int *dargs, const int *psizes, int order, MPIR_Datatype *old,
                     MPIR_Datatype **newp, char *errmsg, size_t errlen);
/* Records the user's arguments for MPI_Type_get_contents (copies them, takes
 * references on the types).  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int MPIR_Type_set_contents(MPIR_Datatype *dt, int combiner, int ni, const int *ints, int na,
                           const MPI_Aint *aints, int nc, const MPI_Count *counts, int nt,
                           const MPI_Datatype *types);

/* Commit: builds the dataloop.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
int MPIR_Type_commit(MPIR_Datatype *dt);
/* The dataloop of a type, built now if commit has not (predefined types, internal
 * callers).  NULL only when memory ran out. */
const struct MPIR_Dataloop *MPIR_Datatype_loop(MPIR_Datatype *dt);

/* Basic elements in the first `bytes` bytes of the packed data of count
 * elements of dt; -1 when the bytes end inside a basic element. */
MPI_Count MPIR_Type_get_elements(MPIR_Datatype *dt, MPI_Count bytes);

/* Calls fn for every run of n basic elements of type basic (predefined,
 * never a pair type) at addr, addr + stride, ..., in typemap order, over
 * count elements of dt at buf.  Stops and returns fn's value when it is not 0. */
typedef int (*MPIR_Typemap_fn)(MPI_Datatype basic, MPI_Aint basic_size, uintptr_t addr, MPI_Aint n,
                               MPI_Aint stride, void *arg);
int MPIR_Typemap_iterate(MPIR_Datatype *dt, MPI_Aint count, uintptr_t buf, MPIR_Typemap_fn fn,
                         void *arg);

/* external32 (datatype/external32.c): packs or unpacks count elements of dt
 * at buf from/to the big-endian stream at ext. */
int MPIR_Pack_external(MPIR_Datatype *dt, MPI_Aint count, const void *buf, void *ext);
int MPIR_Unpack_external(MPIR_Datatype *dt, MPI_Aint count, const void *ext, void *buf);

#endif /* DATATYPE_H_INCLUDED */
