/* segment.h: byte-range pack/unpack over (buffer, count, datatype). */
#ifndef SEGMENT_H_INCLUDED
#define SEGMENT_H_INCLUDED

#include <stddef.h>
#include "mpi.h"

/* A segment describes the typed buffer of one message as a byte stream of
 * count * type_size bytes.  Pack and unpack work on any byte range
 * [first, last) of that stream, which is what lets protocols move a message
 * in pieces.  Until derived datatypes land (issue 4) every type is
 * contiguous, so the stream is the memory at buf + true_lb. */
typedef struct MPIR_Segment {
    char *buf;           /* first byte of the data (buffer + lower bound) */
    size_t size;         /* bytes in the stream */
    MPI_Datatype type;
    MPI_Aint count;
    int is_contig;
} MPIR_Segment;

int MPIR_Segment_init(MPIR_Segment *seg, const void *buf, MPI_Aint count, MPI_Datatype type);
/* Copies stream bytes [first, last) to dst.  Returns the bytes copied. */
size_t MPIR_Segment_pack(const MPIR_Segment *seg, size_t first, size_t last, void *dst);
/* Copies src into stream bytes [first, last).  Returns the bytes copied. */
size_t MPIR_Segment_unpack(const MPIR_Segment *seg, size_t first, size_t last, const void *src);
/* If the range [first, last) is one contiguous piece of memory, returns its
 * address, else NULL.  Lets methods send and receive in place. */
void *MPIR_Segment_contig_ptr(const MPIR_Segment *seg, size_t first);

#endif /* SEGMENT_H_INCLUDED */
