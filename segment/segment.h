/* segment.h: byte-range pack/unpack and iovec conversion over (buffer, count, datatype). */
#ifndef SEGMENT_H_INCLUDED
#define SEGMENT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include "mpi.h"
#include "datatype.h"

struct MPIR_Dataloop;
struct MPIR_Datatype;

/* A segment describes the typed buffer of one message as a byte stream of
 * count * type_size bytes (the packed form).  Pack, unpack and iovec
 * conversion work on any byte range [first, last) of that stream, which is
 * what lets protocols move a message in pieces.  A segment keeps no
 * position: each call seeks to `first` by arithmetic on the dataloop (a
 * division per level, a binary search in indexed blocks), so calls may come
 * in any order, from any number of users, and the segment stays const.
 *
 * The segment does not hold a reference to the datatype; whoever keeps it
 * past the call that made it (a request) must hold one. */
typedef struct MPIR_Segment {
    char *buf;   /* first byte of the data when is_contig (buffer + true lb) */
    size_t size; /* bytes in the stream */
    MPI_Datatype type;
    MPI_Aint count;
    int is_contig; /* the stream is the memory at buf */
    /* Noncontiguous data: element j of the type starts at origin + j * extent
     * and is walked by the type's dataloop. */
    uintptr_t origin;
    MPI_Aint extent;
    MPI_Aint el_size;
    const struct MPIR_Dataloop *loop;
    /* A derived type, which a request holds a reference on while it is
     * pending; NULL for a predefined one (no reference to hold, and a
     * request's release need not look at the type: issue 12). */
    struct MPIR_Datatype *dt;
} MPIR_Segment;

/* Returns MPI_SUCCESS, MPI_ERR_TYPE for an invalid handle, MPI_ERR_NO_MEM.
 * A contiguous predefined type is set up inline (every small message has
 * one; the call and the type lookup were a tenth of a send, issue 12); the
 * rest in MPIR_Segment_init_any. */
int MPIR_Segment_init_any(MPIR_Segment *seg, const void *buf, MPI_Aint count, MPI_Datatype type);
static inline int MPIR_Segment_init(MPIR_Segment *seg, const void *buf, MPI_Aint count,
                                    MPI_Datatype type)
{
    if (MPIR_Datatype_is_builtin(type)) {
        struct MPIR_Datatype *dt = &MPIR_Datatype_builtins[type & MPIR_DT_INDEX_MASK];
        if (dt->is_contig && (count == 1 || dt->extent == dt->size)) {
            uintptr_t origin = (uintptr_t)buf;
            *seg = (MPIR_Segment){.buf = (char *)(origin + (uintptr_t)dt->true_lb),
                                  .size = (size_t)count * (size_t)dt->size,
                                  .type = type,
                                  .count = count,
                                  .is_contig = 1,
                                  .origin = origin,
                                  .extent = dt->extent,
                                  .el_size = dt->size};
            return MPI_SUCCESS;
        }
    }
    return MPIR_Segment_init_any(seg, buf, count, type);
}
/* memcpy for the few bytes of a small message, without the call: two
 * overlapping moves of 8 bytes from 8 to 16 bytes, of 4 from 4 to 7, memcpy
 * otherwise (issue 12: memcpy's call was a tenth of an 8-byte send, and a
 * twentieth of its delivery).  n may be 0 with NULL pointers. */
static inline void MPIR_Memcpy_small(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        memcpy(d, s, n);
    }
}

/* Copies stream bytes [first, last) to dst.  Returns the bytes copied.
 * Contiguous data is one memcpy, inline; the rest in MPIR_Segment_pack_any. */
size_t MPIR_Segment_pack_any(const MPIR_Segment *seg, size_t first, size_t last, void *dst);
static inline size_t MPIR_Segment_pack(const MPIR_Segment *seg, size_t first, size_t last,
                                       void *dst)
{
    if (seg->is_contig && first < last && last <= seg->size) {
        memcpy(dst, seg->buf + first, last - first);
        return last - first;
    }
    return MPIR_Segment_pack_any(seg, first, last, dst);
}
/* Copies src into stream bytes [first, last).  Returns the bytes copied.
 * As pack: contiguous data inline, the rest in MPIR_Segment_unpack_any. */
size_t MPIR_Segment_unpack_any(const MPIR_Segment *seg, size_t first, size_t last,
                               const void *src);
static inline size_t MPIR_Segment_unpack(const MPIR_Segment *seg, size_t first, size_t last,
                                         const void *src)
{
    if (seg->is_contig && first < last && last <= seg->size) {
        memcpy(seg->buf + first, src, last - first);
        return last - first;
    }
    return MPIR_Segment_unpack_any(seg, first, last, src);
}
/* If the whole stream is one contiguous piece of memory, returns the address
 * of stream byte `first`, else NULL.  Lets methods send and receive in place. */
void *MPIR_Segment_contig_ptr(const MPIR_Segment *seg, size_t first);
/* Describes stream bytes [first, *last_p) as at most max_iov pieces of user
 * memory (adjacent pieces merged), in stream order.  When they do not fit,
 * stops early and lowers *last_p to the end of what iov describes.  Returns
 * the number of entries. */
int MPIR_Segment_to_iov(const MPIR_Segment *seg, size_t first, size_t *last_p, struct iovec *iov,
                        int max_iov);
/* Contiguous pieces in the whole stream, at most (1 when contiguous): with
 * size, tells a protocol the average piece it would move by iovec. */
size_t MPIR_Segment_pieces(const MPIR_Segment *seg);

#endif /* SEGMENT_H_INCLUDED */
