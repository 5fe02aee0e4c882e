/* segment.c: the segment engine: pack, unpack and iovec conversion of any byte range of
 * (buffer, count, datatype) by walking the type's dataloop, seeking by arithmetic. */
#include <string.h>
#include "segment.h"
#include "dataloop.h"
#include "datatype.h"

int MPIR_Segment_init_any(MPIR_Segment *seg, const void *buf, MPI_Aint count, MPI_Datatype type)
{
    MPIR_Datatype *dt = MPIR_Datatype_get(type);
    if (!dt)
        return MPI_ERR_TYPE;
    /* Addresses are computed as integers: with MPI_BOTTOM (NULL) the type's
     * displacements are absolute addresses, and NULL + offset is not C. */
    uintptr_t origin = (uintptr_t)buf;
    seg->type = type;
    seg->count = count;
    seg->dt = dt->kind == MPIR_DT_BUILTIN ? NULL : dt;
    seg->origin = origin;
    seg->extent = dt->extent;
    seg->el_size = dt->size;
    seg->size = (size_t)count * (size_t)dt->size;
    seg->loop = NULL;
    /* A contiguous predefined type never comes here (MPIR_Segment_init in
     * segment.h takes it inline); an empty stream of any type is contiguous. */
    if (seg->size == 0) {
        seg->is_contig = 1;
    } else {
        seg->loop = MPIR_Datatype_loop(dt); /* sets dt->is_contig */
        if (!seg->loop)
            return MPI_ERR_NO_MEM;
        seg->is_contig = dt->is_contig && (count == 1 || dt->extent == dt->size);
    }
    seg->buf = (char *)(origin + (uintptr_t)dt->true_lb);
    return MPI_SUCCESS;
}

void *MPIR_Segment_contig_ptr(const MPIR_Segment *seg, size_t first)
{
    return seg->is_contig ? seg->buf + first : NULL;
}

size_t MPIR_Segment_pieces(const MPIR_Segment *seg)
{
    if (seg->is_contig)
        return 1;
    return (size_t)seg->count * (size_t)seg->loop->nblocks;
}

/* ---- the walker ---- */

enum { OP_PACK, OP_UNPACK, OP_IOV };

typedef struct walk {
    int op;
    char *stream; /* PACK: next byte to write; UNPACK: next byte to read */
    struct iovec *iov;
    int niov, maxiov;
    MPI_Aint done; /* IOV: stream bytes described so far */
} walk_t;

/* Copies n bytes between non-overlapping buffers.  Small pieces (struct
 * fields, single elements) are the common case of noncontiguous data and a
 * memcpy call of variable length costs more than the copy: up to 32 bytes
 * take two possibly overlapping fixed-size moves instead. */
static inline void copy_bytes(char *d, const char *s, size_t n)
{
    if (n <= 16) {
        if (n >= 8) {
            uint64_t a, b;
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
            memcpy(d, &a, 8);
            memcpy(d + n - 8, &b, 8);
        } else if (n >= 4) {
            uint32_t a, b;
            memcpy(&a, s, 4);
            memcpy(&b, s + n - 4, 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
        } else if (n > 0) {
            char a = s[0], b = s[n / 2], c = s[n - 1];
            d[0] = a;
            d[n / 2] = b;
            d[n - 1] = c;
        }
    } else if (n <= 32) {
        uint64_t a[2], b[2];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else {
        memcpy(d, s, n);
    }
}

/* One contiguous piece of user memory.  Returns 1 when the walk must stop
 * (the iovec is full) before this piece. */
static inline int piece(walk_t *w, uintptr_t addr, MPI_Aint len)
{
    switch (w->op) {
    case OP_PACK:
        copy_bytes(w->stream, (const char *)addr, len);
        w->stream += len;
        return 0;
    case OP_UNPACK:
        copy_bytes((char *)addr, w->stream, len);
        w->stream += len;
        return 0;
    default:
        if (w->niov > 0 &&
            (uintptr_t)w->iov[w->niov - 1].iov_base + w->iov[w->niov - 1].iov_len == addr) {
            w->iov[w->niov - 1].iov_len += len;
        } else {
            if (w->niov == w->maxiov)
                return 1;
            w->iov[w->niov].iov_base = (void *)addr;
            w->iov[w->niov].iov_len = len;
            w->niov++;
        }
        w->done += len;
        return 0;
    }
}

/* Tight copy loops for runs of equal blocks, specialised on the block size
 * so that small blocks (a double, a complex) compile to plain moves instead
 * of a memcpy call each.  These carry most of the bytes of a large
 * noncontiguous message. */
#define RUN_SIZES(X) X(1) X(2) X(4) X(8) X(12) X(16) X(24) X(32) X(48) X(64) X(128)

#define PACK_VEC_CASE(N)                                                                           \
    case N:                                                                                        \
        _Pragma("GCC unroll 4") for (MPI_Aint i = 0; i < n; i++, dst += N, src += stride)          \
            memcpy(dst, (const void *)src, N);                                                     \
        return;
static void pack_vec(char *dst, uintptr_t src, MPI_Aint n, MPI_Aint bl, MPI_Aint stride)
{
    switch (bl) {
        RUN_SIZES(PACK_VEC_CASE)
    default:
        for (MPI_Aint i = 0; i < n; i++, dst += bl)
            copy_bytes(dst, (const char *)(src + (uintptr_t)(i * stride)), bl);
    }
}

#define UNPACK_VEC_CASE(N)                                                                         \
    case N:                                                                                        \
        _Pragma("GCC unroll 4") for (MPI_Aint i = 0; i < n; i++, s += N, dst += stride)            \
            memcpy((void *)dst, s, N);                                                             \
        return;
static void unpack_vec(uintptr_t dst, const char *s, MPI_Aint n, MPI_Aint bl, MPI_Aint stride)
{
    switch (bl) {
        RUN_SIZES(UNPACK_VEC_CASE)
    default:
        for (MPI_Aint i = 0; i < n; i++, s += bl)
            copy_bytes((char *)(dst + (uintptr_t)(i * stride)), s, bl);
    }
}

#define PACK_IDX_CASE(N)                                                                           \
    case N:                                                                                        \
        _Pragma("GCC unroll 4") for (MPI_Aint i = 0; i < n; i++, dst += N)                         \
            memcpy(dst, (const void *)(base + (uintptr_t)displs[i]), N);                           \
        return;
static void pack_blk(char *dst, uintptr_t base, const MPI_Aint *displs, MPI_Aint n, MPI_Aint bl)
{
    switch (bl) {
        RUN_SIZES(PACK_IDX_CASE)
    default:
        for (MPI_Aint i = 0; i < n; i++, dst += bl)
            copy_bytes(dst, (const char *)(base + (uintptr_t)displs[i]), bl);
    }
}

#define UNPACK_IDX_CASE(N)                                                                         \
    case N:                                                                                        \
        _Pragma("GCC unroll 4") for (MPI_Aint i = 0; i < n; i++, s += N)                           \
            memcpy((void *)(base + (uintptr_t)displs[i]), s, N);                                   \
        return;
static void unpack_blk(uintptr_t base, const char *s, const MPI_Aint *displs, MPI_Aint n,
                       MPI_Aint bl)
{
    switch (bl) {
        RUN_SIZES(UNPACK_IDX_CASE)
    default:
        for (MPI_Aint i = 0; i < n; i++, s += bl)
            copy_bytes((char *)(base + (uintptr_t)displs[i]), s, bl);
    }
}

static int walk_range(const MPIR_Dataloop *L, uintptr_t base, MPI_Aint first, MPI_Aint last,
                      walk_t *w);

static int walk_full(const MPIR_Dataloop *L, uintptr_t base, walk_t *w);

/* n whole consecutive elements of C from addr, ee apart.  A leaf loop packed
 * or unpacked many times (an array of structs) runs here without a call per
 * element. */
static int walk_run(const MPIR_Dataloop *C, uintptr_t addr, MPI_Aint ee, MPI_Aint n, walk_t *w)
{
    if (!C->child && w->op != OP_IOV) {
        int pack = w->op == OP_PACK;
        if (C->kind == MPIR_DL_VECTOR && C->count == 1) {
            /* one block per element: a vector of them */
            if (pack)
                pack_vec(w->stream, addr + (uintptr_t)C->disp0, n, C->blocklen, ee);
            else
                unpack_vec(addr + (uintptr_t)C->disp0, w->stream, n, C->blocklen, ee);
            w->stream += n * C->size;
            return 0;
        }
        if (C->kind == MPIR_DL_INDEXED) {
            const MPI_Aint *d = C->displs, *len = C->blocklens, k = C->count;
            char *st = w->stream;
            for (MPI_Aint j = 0; j < n; j++) {
                uintptr_t b = addr + (uintptr_t)(j * ee);
                if (pack)
                    for (MPI_Aint i = 0; i < k; st += len[i], i++)
                        copy_bytes(st, (const char *)(b + (uintptr_t)d[i]), len[i]);
                else
                    for (MPI_Aint i = 0; i < k; st += len[i], i++)
                        copy_bytes((char *)(b + (uintptr_t)d[i]), st, len[i]);
            }
            w->stream = st;
            return 0;
        }
    }
    for (MPI_Aint j = 0; j < n; j++)
        if (walk_full(C, addr + (uintptr_t)(j * ee), w))
            return 1;
    return 0;
}

/* Packed bytes [first, last) of consecutive elements of C at addr, addr + ee,
 * ..., each es packed bytes; whole elements take the fast path. */
static int walk_elems(const MPIR_Dataloop *C, uintptr_t addr, MPI_Aint ee, MPI_Aint es,
                      MPI_Aint first, MPI_Aint last, walk_t *w)
{
    MPI_Aint j = first / es, r = first - j * es;
    while (first < last) {
        if (r == 0 && last - j * es >= es) {
            MPI_Aint n = (last - j * es) / es; /* whole elements from j */
            if (walk_run(C, addr + (uintptr_t)(j * ee), ee, n, w))
                return 1;
            j += n;
            first = j * es;
            continue;
        }
        MPI_Aint stop = last - j * es;
        if (stop > es)
            stop = es;
        if (walk_range(C, addr + (uintptr_t)(j * ee), r, stop, w))
            return 1;
        first = j * es + stop;
        j++;
        r = 0;
    }
    return 0;
}

/* A whole element of L at base. */
/* One block of a vector or indexed loop: a single piece when its elements
 * are leaves (contiguous bytes), else each child element in turn. */
static int walk_block(const MPIR_Dataloop *c, uintptr_t b, MPI_Aint blocklen, MPI_Aint el_extent,
                      walk_t *w)
{
    if (!c)
        return piece(w, b, blocklen);
    for (MPI_Aint j = 0; j < blocklen; j++)
        if (walk_full(c, b + (uintptr_t)(j * el_extent), w))
            return 1;
    return 0;
}

static int walk_full(const MPIR_Dataloop *L, uintptr_t base, walk_t *w)
{
    const MPIR_Dataloop *c = L->child;
    switch (L->kind) {
    case MPIR_DL_VECTOR:
        if (!c && w->op == OP_PACK) {
            pack_vec(w->stream, base + (uintptr_t)L->disp0, L->count, L->blocklen, L->stride);
            w->stream += L->size;
            return 0;
        }
        if (!c && w->op == OP_UNPACK) {
            unpack_vec(base + (uintptr_t)L->disp0, w->stream, L->count, L->blocklen, L->stride);
            w->stream += L->size;
            return 0;
        }
        for (MPI_Aint i = 0; i < L->count; i++) {
            uintptr_t b = base + (uintptr_t)(L->disp0 + i * L->stride);
            if (walk_block(c, b, L->blocklen, L->el_extent, w))
                return 1;
        }
        return 0;
    case MPIR_DL_BLKIDX:
        if (!c && w->op == OP_PACK) {
            pack_blk(w->stream, base, L->displs, L->count, L->blocklen);
            w->stream += L->size;
            return 0;
        }
        if (!c && w->op == OP_UNPACK) {
            unpack_blk(base, w->stream, L->displs, L->count, L->blocklen);
            w->stream += L->size;
            return 0;
        }
        for (MPI_Aint i = 0; i < L->count; i++) {
            uintptr_t b = base + (uintptr_t)L->displs[i];
            if (walk_block(c, b, L->blocklen, L->el_extent, w))
                return 1;
        }
        return 0;
    case MPIR_DL_INDEXED:
        for (MPI_Aint i = 0; i < L->count; i++) {
            uintptr_t b = base + (uintptr_t)L->displs[i];
            if (walk_block(c, b, L->blocklens[i], L->el_extent, w))
                return 1;
        }
        return 0;
    case MPIR_DL_STRUCT:
        for (MPI_Aint i = 0; i < L->count; i++) {
            const MPIR_Dataloop *ci = L->children[i];
            uintptr_t b = base + (uintptr_t)L->displs[i];
            if (!ci) {
                if (piece(w, b, L->blocklens[i]))
                    return 1;
                continue;
            }
            for (MPI_Aint j = 0; j < L->blocklens[i]; j++)
                if (walk_full(ci, b + (uintptr_t)(j * ci->extent), w))
                    return 1;
        }
        return 0;
    }
    return 0;
}

/* The block of an INDEXED or STRUCT loop that holds packed byte `off`:
 * offsets[] is increasing (normalisation dropped empty blocks). */
static MPI_Aint find_block(const MPIR_Dataloop *L, MPI_Aint off)
{
    MPI_Aint lo = 0, hi = L->count - 1;
    while (lo < hi) {
        MPI_Aint mid = lo + (hi - lo + 1) / 2;
        if (L->offsets[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Packed bytes [first, last) of the element of L at base (0 <= first < last <= L->size). */
static int walk_range(const MPIR_Dataloop *L, uintptr_t base, MPI_Aint first, MPI_Aint last,
                      walk_t *w)
{
    if (L->kind == MPIR_DL_VECTOR || L->kind == MPIR_DL_BLKIDX) {
        const MPIR_Dataloop *c = L->child;
        MPI_Aint bb = L->blocklen * L->el_size; /* packed bytes per block */
        MPI_Aint b = first / bb;
        while (first < last) {
            MPI_Aint boff = b * bb, in = first - boff;
            MPI_Aint end = last - boff < bb ? last - boff : bb;
            uintptr_t ba = base + (uintptr_t)(L->kind == MPIR_DL_VECTOR ? L->disp0 + b * L->stride
                                                                        : L->displs[b]);
            if (!c && in == 0 && end == bb && w->op != OP_IOV) {
                /* A run of whole leaf blocks: the fast loops. */
                MPI_Aint k = (last - boff) / bb;
                if (w->op == OP_PACK) {
                    if (L->kind == MPIR_DL_VECTOR)
                        pack_vec(w->stream, ba, k, bb, L->stride);
                    else
                        pack_blk(w->stream, base, L->displs + b, k, bb);
                } else {
                    if (L->kind == MPIR_DL_VECTOR)
                        unpack_vec(ba, w->stream, k, bb, L->stride);
                    else
                        unpack_blk(base, w->stream, L->displs + b, k, bb);
                }
                w->stream += k * bb;
                first = boff + k * bb;
                b += k;
                continue;
            }
            if (!c) {
                if (piece(w, ba + (uintptr_t)in, end - in))
                    return 1;
            } else if (walk_elems(c, ba, L->el_extent, L->el_size, in, end, w)) {
                return 1;
            }
            first = boff + end;
            b++;
        }
        return 0;
    }
    /* INDEXED, STRUCT */
    MPI_Aint b = find_block(L, first);
    while (first < last) {
        const MPIR_Dataloop *c = L->children ? L->children[b] : L->child;
        MPI_Aint boff = L->offsets[b], bb = L->offsets[b + 1] - boff, in = first - boff;
        MPI_Aint end = last - boff < bb ? last - boff : bb;
        uintptr_t ba = base + (uintptr_t)L->displs[b];
        if (!c) {
            if (piece(w, ba + (uintptr_t)in, end - in))
                return 1;
        } else {
            MPI_Aint ee = L->children ? c->extent : L->el_extent;
            if (walk_elems(c, ba, ee, c->size, in, end, w))
                return 1;
        }
        first = boff + end;
        b++;
    }
    return 0;
}

static void seg_walk(const MPIR_Segment *seg, size_t first, size_t last, walk_t *w)
{
    walk_elems(seg->loop, seg->origin, seg->extent, seg->el_size, (MPI_Aint)first, (MPI_Aint)last,
               w);
}

size_t MPIR_Segment_pack_any(const MPIR_Segment *seg, size_t first, size_t last, void *dst)
{
    if (last > seg->size)
        last = seg->size;
    if (first >= last)
        return 0;
    if (seg->is_contig) {
        memcpy(dst, seg->buf + first, last - first);
        return last - first;
    }
    walk_t w = {.op = OP_PACK, .stream = dst};
    seg_walk(seg, first, last, &w);
    return last - first;
}

size_t MPIR_Segment_unpack_any(const MPIR_Segment *seg, size_t first, size_t last,
                               const void *src)
{
    if (last > seg->size)
        last = seg->size;
    if (first >= last)
        return 0;
    if (seg->is_contig) {
        memcpy(seg->buf + first, src, last - first);
        return last - first;
    }
    walk_t w = {.op = OP_UNPACK, .stream = (char *)src};
    seg_walk(seg, first, last, &w);
    return last - first;
}

int MPIR_Segment_to_iov(const MPIR_Segment *seg, size_t first, size_t *last_p, struct iovec *iov,
                        int max_iov)
{
    size_t last = *last_p < seg->size ? *last_p : seg->size;
    if (first >= last || max_iov <= 0) {
        *last_p = first;
        return 0;
    }
    if (seg->is_contig) {
        iov[0].iov_base = seg->buf + first;
        iov[0].iov_len = last - first;
        *last_p = last;
        return 1;
    }
    walk_t w = {.op = OP_IOV, .iov = iov, .maxiov = max_iov};
    seg_walk(seg, first, last, &w);
    *last_p = first + (size_t)w.done;
    return w.niov;
}
