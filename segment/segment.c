/* segment.c: byte-range pack/unpack; every type is contiguous until derived types land. */
#include <string.h>
#include "segment.h"
#include "datatype.h"

int MPIR_Segment_init(MPIR_Segment *seg, const void *buf, MPI_Aint count, MPI_Datatype type)
{
    MPIR_Datatype *dt = MPIR_Datatype_get(type);
    if (!dt)
        return MPI_ERR_TYPE;
    seg->buf = (char *)buf + dt->lb;
    seg->type = type;
    seg->count = count;
    seg->size = (size_t)count * (size_t)dt->size;
    seg->is_contig = dt->is_contig || count == 0 || (count == 1 && dt->pair_off2 == dt->pair_len1);
    return MPI_SUCCESS;
}

/* Pair types whose fields have padding between them (e.g. MPI_DOUBLE_INT)
 * are the only non-contiguous types so far: walk them element by element. */
static size_t copy_range(const MPIR_Segment *seg, size_t first, size_t last, char *packed,
                         int to_packed)
{
    if (last > seg->size)
        last = seg->size;
    if (first >= last)
        return 0;
    if (seg->is_contig) {
        if (to_packed)
            memcpy(packed, seg->buf + first, last - first);
        else
            memcpy(seg->buf + first, packed, last - first);
        return last - first;
    }
    MPIR_Datatype *dt = MPIR_Datatype_get(seg->type);
    size_t esize = (size_t)dt->size, ext = (size_t)dt->extent;
    size_t f1 = (size_t)dt->pair_len1, f2off = (size_t)dt->pair_off2;
    size_t done = 0;
    for (size_t off = first; off < last;) {
        size_t elem = off / esize, in = off % esize;
        char *base = seg->buf + elem * ext;
        size_t n, moff;
        if (in < f1) {
            moff = in;
            n = f1 - in;
        } else {
            moff = f2off + (in - f1);
            n = esize - in;
        }
        if (n > last - off)
            n = last - off;
        if (to_packed)
            memcpy(packed + done, base + moff, n);
        else
            memcpy(base + moff, packed + done, n);
        done += n;
        off += n;
    }
    return done;
}

size_t MPIR_Segment_pack(const MPIR_Segment *seg, size_t first, size_t last, void *dst)
{
    return copy_range(seg, first, last, dst, 1);
}

size_t MPIR_Segment_unpack(const MPIR_Segment *seg, size_t first, size_t last, const void *src)
{
    return copy_range(seg, first, last, (char *)src, 0);
}

void *MPIR_Segment_contig_ptr(const MPIR_Segment *seg, size_t first)
{
    return seg->is_contig ? seg->buf + first : NULL;
}
