/* datatype.h: datatype objects (predefined ones for now) and their lookup. */
#ifndef DATATYPE_H_INCLUDED
#define DATATYPE_H_INCLUDED

#include "mpi.h"

typedef struct MPIR_Datatype {
    MPI_Datatype handle;
    const char *name;
    MPI_Aint size;   /* bytes of data in one element */
    MPI_Aint extent; /* stride between consecutive elements */
    MPI_Aint lb;     /* lower bound */
    int is_contig;   /* size == extent and no holes: the segment is plain memory */
    /* Pair types (MPI_DOUBLE_INT ...): bytes of the first field and offset of
     * the int that follows it; 0 for other types. */
    MPI_Aint pair_len1, pair_off2;
} MPIR_Datatype;

/* Returns the datatype object, or NULL for an invalid or null handle. */
MPIR_Datatype *MPIR_Datatype_get(MPI_Datatype type);

static inline int MPIR_Datatype_is_builtin(MPI_Datatype type)
{
    return (type & 0xfc000000) == MPIR_HANDLE_KIND_DATATYPE && (type & 0x03ffffff) > 0 &&
           (type & 0x03ffffff) < MPIR_DT_BUILTIN_COUNT;
}

#endif /* DATATYPE_H_INCLUDED */
