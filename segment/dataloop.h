/* dataloop.h: the dataloop, the compact loop description of a datatype that commit builds
 * (datatype/dataloop_build.c) and the segment code walks (segment/segment.c). */
#ifndef DATALOOP_H_INCLUDED
#define DATALOOP_H_INCLUDED

#include "mpi.h"

struct MPIR_Datatype;

/* A dataloop describes one element of a type as blocks of child elements.
 * A NULL child means the elements are bytes, so each block is one
 * contiguous piece of memory (a "leaf").  Displacements are in bytes from
 * the element's origin (its address in the user's buffer, not its lower
 * bound), in typemap order, never sorted.  See doc/datatypes.md.
 *
 *   VECTOR   block i at disp0 + i * stride, blocklen child elements each
 *   BLKIDX   block i at displs[i], blocklen child elements each
 *   INDEXED  block i at displs[i], blocklens[i] child elements
 *   STRUCT   block i at displs[i], blocklens[i] elements of children[i]
 *
 * Element j of a block lies at block + j * el_extent and packs to el_size
 * bytes (both 1 for a leaf).  Commit normalises the tree: empty blocks are
 * dropped, contiguous children merge into their parent's blocks, adjacent
 * blocks merge, evenly spaced blocks become a VECTOR, and a contiguous type
 * becomes one leaf VECTOR block. */
typedef enum {
    MPIR_DL_VECTOR,
    MPIR_DL_BLKIDX,
    MPIR_DL_INDEXED,
    MPIR_DL_STRUCT,
} MPIR_Dataloop_kind_t;

typedef struct MPIR_Dataloop {
    MPIR_Dataloop_kind_t kind;
    MPI_Aint count;      /* blocks */
    MPI_Aint blocklen;   /* VECTOR, BLKIDX: child elements per block */
    MPI_Aint stride;     /* VECTOR: bytes between the starts of consecutive blocks */
    MPI_Aint disp0;      /* VECTOR: displacement of block 0 */
    MPI_Aint *displs;    /* BLKIDX, INDEXED, STRUCT: displacement of each block */
    MPI_Aint *blocklens; /* INDEXED, STRUCT: child elements of each block */
    MPI_Aint *offsets;   /* INDEXED, STRUCT: packed bytes before block i (count + 1 entries),
                            the table a seek searches */
    struct MPIR_Dataloop *child;     /* all but STRUCT; NULL: bytes */
    struct MPIR_Dataloop **children; /* STRUCT: per block; NULL entries: bytes */
    MPI_Aint el_size, el_extent;     /* all but STRUCT: of one child element */
    MPI_Aint size;                   /* packed bytes of one element of the type */
    MPI_Aint extent;                 /* the type's extent: stride between elements of it */
    MPI_Aint nblocks;                /* contiguous pieces in one element, at most */
} MPIR_Dataloop;

/* Builds the normalised dataloop of dt (NULL: out of memory). */
MPIR_Dataloop *MPIR_Dataloop_build(struct MPIR_Datatype *dt);
void MPIR_Dataloop_free(MPIR_Dataloop *loop);
/* 1 if one element's data is a single piece (or empty). */
int MPIR_Dataloop_is_contig(const MPIR_Dataloop *loop);
/* Writes a one-line-per-node description to buf (tests and debugging). */
void MPIR_Dataloop_print(const MPIR_Dataloop *loop, char *buf, size_t len);

#endif /* DATALOOP_H_INCLUDED */
