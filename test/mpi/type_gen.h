/* type_gen.h: random nested derived datatypes built through the public MPI API, and a naive
 * reference that computes their type map (the byte of every basic element, in order) straight
 * from the constructor arguments.  Shared by test/unit/dtype_random.c and test/mpi/type_random.c;
 * uses only standard MPI, so the same checks run against any MPI library. */
#ifndef TYPE_GEN_H_INCLUDED
#define TYPE_GEN_H_INCLUDED

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* ---- random numbers (reproducible from the seed on every platform) ---- */

typedef struct {
    uint64_t s;
} tg_rng_t;

static inline uint64_t tg_next(tg_rng_t *r)
{
    /* xorshift64*: small, fast, and the sequence depends only on the seed. */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Dull;
}

static inline void tg_seed(tg_rng_t *r, uint64_t seed)
{
    r->s = seed * 0x9E3779B97F4A7C15ull + 1;
}

/* Uniform in [lo, hi]. */
static inline long tg_range(tg_rng_t *r, long lo, long hi)
{
    return lo + (long)(tg_next(r) % (uint64_t)(hi - lo + 1));
}

/* ---- basic types the generator uses ---- */

/* 1 for the types whose C representation has padding bytes that need not travel (x86 long
 * double: 10 bytes of data in 16); the portable MPI test avoids them. */
static inline int tg_has_padding(MPI_Datatype dt)
{
    return dt == MPI_LONG_DOUBLE || dt == MPI_C_LONG_DOUBLE_COMPLEX || dt == MPI_LONG_DOUBLE_INT;
}

typedef struct {
    MPI_Datatype dt;
    const char *name;
    int size;     /* bytes of data (both fields of a pair type) */
    int extent;   /* C size, padding included */
    int align;    /* C alignment */
    int pair_off; /* pair types: offset of the int; 0 otherwise */
    int first;    /* pair types: size of the first field */
} tg_basic_t;

#define TG_PAIR(T)                                                                                 \
    struct {                                                                                       \
        T a;                                                                                       \
        int b;                                                                                     \
    }
#define TG_B(dt, T)                                                                                \
    {                                                                                              \
        dt, #dt, sizeof(T), sizeof(T), _Alignof(T), 0, 0                                           \
    }
#define TG_P(dt, T)                                                                                \
    {                                                                                              \
        dt, #dt, sizeof(T) + sizeof(int), sizeof(TG_PAIR(T)), _Alignof(TG_PAIR(T)),                \
            offsetof(TG_PAIR(T), b), sizeof(T)                                                     \
    }
/* Every predefined C type (the mix matters for alignment, pair layouts and external32). */
static const tg_basic_t tg_basics[] = {
    TG_B(MPI_CHAR, char),
    TG_B(MPI_SHORT, short),
    TG_B(MPI_INT, int),
    TG_B(MPI_LONG, long),
    TG_B(MPI_FLOAT, float),
    TG_B(MPI_DOUBLE, double),
    TG_B(MPI_LONG_DOUBLE, long double),
    TG_B(MPI_C_BOOL, _Bool),
    TG_B(MPI_INT8_T, int8_t),
    TG_B(MPI_UINT16_T, uint16_t),
    TG_B(MPI_INT64_T, int64_t),
    TG_B(MPI_C_DOUBLE_COMPLEX, double _Complex),
    TG_B(MPI_C_FLOAT_COMPLEX, float _Complex),
    TG_B(MPI_BYTE, unsigned char),
    TG_P(MPI_DOUBLE_INT, double),
    TG_P(MPI_SHORT_INT, short),
    TG_P(MPI_2INT, int),
    TG_P(MPI_FLOAT_INT, float),
    TG_B(MPI_SIGNED_CHAR, signed char),
    TG_B(MPI_UNSIGNED_CHAR, unsigned char),
    TG_B(MPI_WCHAR, wchar_t),
    TG_B(MPI_UNSIGNED_SHORT, unsigned short),
    TG_B(MPI_UNSIGNED, unsigned),
    TG_B(MPI_UNSIGNED_LONG, unsigned long),
    TG_B(MPI_LONG_LONG, long long),
    TG_B(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    TG_B(MPI_INT16_T, int16_t),
    TG_B(MPI_INT32_T, int32_t),
    TG_B(MPI_UINT8_T, uint8_t),
    TG_B(MPI_UINT32_T, uint32_t),
    TG_B(MPI_UINT64_T, uint64_t),
    TG_B(MPI_AINT, MPI_Aint),
    TG_B(MPI_OFFSET, MPI_Offset),
    TG_B(MPI_COUNT, MPI_Count),
    TG_B(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex),
    TG_B(MPI_PACKED, unsigned char),
    TG_P(MPI_LONG_INT, long),
    TG_P(MPI_LONG_DOUBLE_INT, long double),
};
#define TG_NBASICS ((int)(sizeof(tg_basics) / sizeof(tg_basics[0])))

/* ---- the type tree ---- */

typedef struct tg_type {
    int comb; /* MPI_COMBINER_NAMED or the constructor */
    MPI_Datatype h;
    const tg_basic_t *basic;
    int count, blocklen, stride;
    MPI_Aint hstride, rlb, rextent;
    int *bls, *ids;
    MPI_Aint *ads;
    int nkids;
    struct tg_type **kids;
    int ndims, order, sizes[3], subsizes[3], starts[3];
    int psize, prank, distribs[3], dargs[3], psizes[3];
    long nel; /* basic entries in one element (a pair type counts 2) */
    /* Extent used to place consecutive elements: the reference's own (tg_ref_bounds) or the
     * library's, as the test chooses. */
    MPI_Aint ext;
    /* The reference bounds (test/unit/dtype_random.c's oracle computes them). */
    MPI_Aint r_lb, r_ub;
} tg_type;

typedef struct {
    int max_depth;
    long max_el;      /* basic entries in one element of the top type, at most */
    int single_basic; /* >= 0: every leaf is tg_basics[single_basic] */
    int no_darray;    /* darray needs the MPI library to agree on the process grid */
} tg_opts_t;

static inline void tg_free(tg_type *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nkids; i++)
        tg_free(t->kids[i]);
    free(t->kids);
    free(t->bls);
    free(t->ids);
    free(t->ads);
    if (t->comb != MPI_COMBINER_NAMED && t->h != MPI_DATATYPE_NULL)
        MPI_Type_free(&t->h);
    free(t);
}

static inline tg_type *tg_new(int comb)
{
    tg_type *t = calloc(1, sizeof(*t));
    if (!t) {
        fprintf(stderr, "type_gen: out of memory\n");
        abort();
    }
    t->comb = comb;
    t->h = MPI_DATATYPE_NULL;
    return t;
}

static inline void *tg_alloc(size_t n)
{
    void *p = calloc(n ? n : 1, 1);
    if (!p) {
        fprintf(stderr, "type_gen: out of memory\n");
        abort();
    }
    return p;
}

static inline tg_type *tg_basic(tg_rng_t *r, const tg_opts_t *o)
{
    tg_type *t = tg_new(MPI_COMBINER_NAMED);
    t->basic = &tg_basics[o->single_basic >= 0 ? o->single_basic : tg_range(r, 0, TG_NBASICS - 1)];
    t->h = t->basic->dt;
    t->nel = t->basic->pair_off ? 2 : 1;
    return t;
}

static inline MPI_Aint tg_lib_extent(MPI_Datatype h)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(h, &lb, &ext);
    return ext;
}

/* A random count with count * per <= budget (0 now and then). */
static inline int tg_count(tg_rng_t *r, long per, long budget, int maxc)
{
    long m = per > 0 ? budget / per : maxc;
    if (m > maxc)
        m = maxc;
    if (m < 1 || tg_range(r, 0, 19) == 0)
        return (int)(m < 1 ? 0 : tg_range(r, 0, 1));
    return (int)tg_range(r, 1, m);
}

static inline tg_type *tg_gen(tg_rng_t *r, int depth, long budget, const tg_opts_t *o);

/* Fills the darray fields: a random grid and distribution whose local part is not too big. */
static inline void tg_darray_args(tg_rng_t *r, tg_type *t)
{
    t->ndims = (int)tg_range(r, 1, 3);
    t->order = tg_range(r, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    t->psize = 1;
    for (int i = 0; i < t->ndims; i++) {
        t->sizes[i] = (int)tg_range(r, 1, 6); /* gsizes */
        t->psizes[i] = (int)tg_range(r, 1, 3);
        int d = (int)tg_range(r, 0, 2);
        t->distribs[i] = d == 0   ? MPI_DISTRIBUTE_BLOCK
                         : d == 1 ? MPI_DISTRIBUTE_CYCLIC
                                  : MPI_DISTRIBUTE_NONE;
        if (t->distribs[i] == MPI_DISTRIBUTE_NONE)
            t->psizes[i] = 1;
        int g = t->sizes[i], p = t->psizes[i];
        if (tg_range(r, 0, 1) || t->distribs[i] == MPI_DISTRIBUTE_NONE)
            t->dargs[i] = MPI_DISTRIBUTE_DFLT_DARG;
        else if (t->distribs[i] == MPI_DISTRIBUTE_BLOCK)
            t->dargs[i] = (int)tg_range(r, (g + p - 1) / p, g);
        else
            t->dargs[i] = (int)tg_range(r, 1, 3);
        t->psize *= p;
    }
    t->prank = (int)tg_range(r, 0, t->psize - 1);
}

static inline int tg_owns(const tg_type *t, int d, int i, int c);

/* Indexes of the global array a darray's process owns. */
static inline long tg_darray_owned(const tg_type *t)
{
    long n = 1;
    for (int i = t->ndims - 1, rank = t->prank; i >= 0; i--) {
        int c = rank % t->psizes[i], m = 0;
        rank /= t->psizes[i];
        for (int x = 0; x < t->sizes[i]; x++)
            m += tg_owns(t, i, x, c);
        n *= m;
    }
    return n;
}

static inline tg_type *tg_gen(tg_rng_t *r, int depth, long budget, const tg_opts_t *o)
{
    if (depth <= 0 || budget < 4 || tg_range(r, 0, 5) == 0)
        return tg_basic(r, o);
    static const int combs[] = {
        MPI_COMBINER_CONTIGUOUS,     MPI_COMBINER_VECTOR,   MPI_COMBINER_HVECTOR,
        MPI_COMBINER_INDEXED,        MPI_COMBINER_HINDEXED, MPI_COMBINER_INDEXED_BLOCK,
        MPI_COMBINER_HINDEXED_BLOCK, MPI_COMBINER_STRUCT,   MPI_COMBINER_RESIZED,
        MPI_COMBINER_SUBARRAY,       MPI_COMBINER_DARRAY,   MPI_COMBINER_DUP,
    };
    int comb = combs[tg_range(r, 0, (int)(sizeof(combs) / sizeof(combs[0])) - 1)];
    if (comb == MPI_COMBINER_DARRAY && o->no_darray)
        comb = MPI_COMBINER_SUBARRAY;
    tg_type *t = tg_new(comb);
    if (comb == MPI_COMBINER_STRUCT) {
        t->count = t->nkids = (int)tg_range(r, 1, 4);
        t->kids = tg_alloc(t->nkids * sizeof(*t->kids));
        t->bls = tg_alloc(t->count * sizeof(int));
        t->ads = tg_alloc(t->count * sizeof(MPI_Aint));
        for (int i = 0; i < t->count; i++) {
            t->kids[i] = tg_gen(r, depth - 1, budget / t->count, o);
            t->bls[i] = tg_count(r, t->kids[i]->nel, budget / t->count, 3);
            t->ads[i] = tg_range(r, -48, 96);
            t->nel += t->bls[i] * t->kids[i]->nel;
        }
        return t;
    }
    t->nkids = 1;
    t->kids = tg_alloc(sizeof(*t->kids));
    tg_type *k = t->kids[0] = tg_gen(r, depth - 1, budget / 2, o);
    long per = k->nel > 0 ? k->nel : 1;
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS:
        t->count = tg_count(r, per, budget, 6);
        t->nel = t->count * k->nel;
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        t->count = tg_count(r, per, budget, 6);
        t->blocklen = t->count ? tg_count(r, per * t->count, budget, 3) : 1;
        t->stride = (int)tg_range(r, -4, 6);
        t->hstride = tg_range(r, -64, 96);
        t->nel = (long)t->count * t->blocklen * k->nel;
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        t->count = (int)tg_range(r, 0, 5);
        int blk = comb == MPI_COMBINER_INDEXED_BLOCK || comb == MPI_COMBINER_HINDEXED_BLOCK;
        long each = t->count ? budget / t->count : budget;
        t->blocklen = tg_count(r, per, each, 3);
        t->bls = tg_alloc((t->count + 1) * sizeof(int));
        t->ids = tg_alloc((t->count + 1) * sizeof(int));
        t->ads = tg_alloc((t->count + 1) * sizeof(MPI_Aint));
        for (int i = 0; i < t->count; i++) {
            t->bls[i] = blk ? t->blocklen : tg_count(r, per, each, 3);
            t->ids[i] = (int)tg_range(r, -6, 12);
            t->ads[i] = tg_range(r, -64, 128);
            t->nel += t->bls[i] * k->nel;
        }
        break;
    }
    case MPI_COMBINER_RESIZED:
        t->rlb = tg_range(r, -24, 24);
        t->rextent = tg_range(r, 0, 9) == 0 ? -tg_range(r, 1, 16) : tg_range(r, 0, 64);
        t->nel = k->nel;
        break;
    case MPI_COMBINER_DUP:
        t->nel = k->nel;
        break;
    case MPI_COMBINER_SUBARRAY: {
        t->ndims = (int)tg_range(r, 1, 3);
        t->order = tg_range(r, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
        long n = 1;
        for (int i = 0; i < t->ndims; i++) {
            t->sizes[i] = (int)tg_range(r, 1, 5);
            t->subsizes[i] = (int)tg_range(r, 1, t->sizes[i]);
            if (n * t->subsizes[i] * per > budget)
                t->subsizes[i] = 1;
            t->starts[i] = (int)tg_range(r, 0, t->sizes[i] - t->subsizes[i]);
            n *= t->subsizes[i];
        }
        t->nel = n * k->nel;
        break;
    }
    case MPI_COMBINER_DARRAY:
        for (int tries = 0;; tries++) {
            tg_darray_args(r, t);
            t->nel = tg_darray_owned(t) * k->nel;
            if (t->nel <= budget || tries == 8)
                break;
        }
        break;
    }
    return t;
}

/* Builds the MPI handles bottom-up.  Returns 0 or the first MPI error. */
static inline int tg_build(tg_type *t)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < t->nkids && !rc; i++)
        rc = tg_build(t->kids[i]);
    if (rc || t->comb == MPI_COMBINER_NAMED)
        return rc;
    MPI_Datatype k = t->kids[0]->h;
    switch (t->comb) {
    case MPI_COMBINER_CONTIGUOUS:
        return MPI_Type_contiguous(t->count, k, &t->h);
    case MPI_COMBINER_VECTOR:
        return MPI_Type_vector(t->count, t->blocklen, t->stride, k, &t->h);
    case MPI_COMBINER_HVECTOR:
        return MPI_Type_create_hvector(t->count, t->blocklen, t->hstride, k, &t->h);
    case MPI_COMBINER_INDEXED:
        return MPI_Type_indexed(t->count, t->bls, t->ids, k, &t->h);
    case MPI_COMBINER_HINDEXED:
        return MPI_Type_create_hindexed(t->count, t->bls, t->ads, k, &t->h);
    case MPI_COMBINER_INDEXED_BLOCK:
        return MPI_Type_create_indexed_block(t->count, t->blocklen, t->ids, k, &t->h);
    case MPI_COMBINER_HINDEXED_BLOCK:
        return MPI_Type_create_hindexed_block(t->count, t->blocklen, t->ads, k, &t->h);
    case MPI_COMBINER_STRUCT: {
        MPI_Datatype *types = tg_alloc(t->count * sizeof(MPI_Datatype));
        for (int i = 0; i < t->count; i++)
            types[i] = t->kids[i]->h;
        rc = MPI_Type_create_struct(t->count, t->bls, t->ads, types, &t->h);
        free(types);
        return rc;
    }
    case MPI_COMBINER_RESIZED:
        return MPI_Type_create_resized(k, t->rlb, t->rextent, &t->h);
    case MPI_COMBINER_DUP:
        return MPI_Type_dup(k, &t->h);
    case MPI_COMBINER_SUBARRAY:
        return MPI_Type_create_subarray(t->ndims, t->sizes, t->subsizes, t->starts, t->order, k,
                                        &t->h);
    case MPI_COMBINER_DARRAY:
        return MPI_Type_create_darray(t->psize, t->prank, t->ndims, t->sizes, t->distribs, t->dargs,
                                      t->psizes, t->order, k, &t->h);
    }
    return MPI_ERR_INTERN;
}

/* Sets every node's placement extent from the library (MPI_Type_get_extent). */
static inline void tg_use_lib_extents(tg_type *t)
{
    for (int i = 0; i < t->nkids; i++)
        tg_use_lib_extents(t->kids[i]);
    t->ext = tg_lib_extent(t->h);
}

/* ---- the reference type map ---- */

typedef struct {
    MPI_Aint off; /* from the buffer origin */
    int size;
    const tg_basic_t *basic; /* for pair types: the pair; part says which field */
    int part;                /* 0 whole / first field, 1 the int of a pair */
} tg_entry_t;

typedef struct {
    tg_entry_t *e;
    long n, cap;
} tg_map_t;

static inline void tg_push(tg_map_t *m, MPI_Aint off, int size, const tg_basic_t *b, int part)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->e = realloc(m->e, m->cap * sizeof(*m->e));
        if (!m->e) {
            fprintf(stderr, "type_gen: out of memory\n");
            abort();
        }
    }
    m->e[m->n++] = (tg_entry_t){off, size, b, part};
}

/* Darray: does the process with grid coordinates c own global index i of dimension d? */
static inline int tg_owns(const tg_type *t, int d, int i, int c)
{
    int g = t->sizes[d], p = t->psizes[d], k = t->dargs[d];
    switch (t->distribs[d]) {
    case MPI_DISTRIBUTE_BLOCK:
        if (k == MPI_DISTRIBUTE_DFLT_DARG)
            k = (g + p - 1) / p;
        return i / k == c;
    case MPI_DISTRIBUTE_CYCLIC:
        if (k == MPI_DISTRIBUTE_DFLT_DARG)
            k = 1;
        return (i / k) % p == c;
    default:
        return 1;
    }
}

static inline void tg_map_at(const tg_type *t, MPI_Aint base, tg_map_t *m);

/* Array constructors: every index of the (sub)array in storage order, the first dimension
 * fastest in Fortran order, the last in C order. */
static inline void tg_map_array(const tg_type *t, MPI_Aint base, tg_map_t *m)
{
    int nd = t->ndims, idx[3] = {0, 0, 0}, lo[3], hi[3], coords[3];
    const tg_type *k = t->kids[0];
    int darray = t->comb == MPI_COMBINER_DARRAY;
    for (int i = nd - 1, rank = t->prank; darray && i >= 0; i--) {
        coords[i] = rank % t->psizes[i]; /* the process grid is row-major */
        rank /= t->psizes[i];
    }
    for (int i = 0; i < nd; i++) {
        lo[i] = darray ? 0 : t->starts[i];
        hi[i] = darray ? t->sizes[i] : t->starts[i] + t->subsizes[i];
        idx[i] = lo[i];
    }
    for (;;) {
        int mine = 1;
        for (int i = 0; darray && i < nd; i++)
            mine &= tg_owns(t, i, idx[i], coords[i]);
        if (mine) {
            MPI_Aint lin = 0;
            if (t->order == MPI_ORDER_C)
                for (int i = 0; i < nd; i++)
                    lin = lin * t->sizes[i] + idx[i];
            else
                for (int i = nd - 1; i >= 0; i--)
                    lin = lin * t->sizes[i] + idx[i];
            tg_map_at(k, base + lin * k->ext, m);
        }
        /* next index, fastest dimension first */
        int i;
        for (i = 0; i < nd; i++) {
            int d = t->order == MPI_ORDER_C ? nd - 1 - i : i;
            if (++idx[d] < hi[d])
                break;
            idx[d] = lo[d];
        }
        if (i == nd)
            return;
    }
}

static inline void tg_map_at(const tg_type *t, MPI_Aint base, tg_map_t *m)
{
    const tg_type *k = t->nkids ? t->kids[0] : NULL;
    switch (t->comb) {
    case MPI_COMBINER_NAMED:
        if (t->basic->pair_off) {
            tg_push(m, base, t->basic->first, t->basic, 0);
            tg_push(m, base + t->basic->pair_off, sizeof(int), t->basic, 1);
        } else {
            tg_push(m, base, t->basic->size, t->basic, 0);
        }
        return;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < t->count; i++)
            tg_map_at(k, base + i * k->ext, m);
        return;
    case MPI_COMBINER_VECTOR:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->blocklen; j++)
                tg_map_at(k, base + ((MPI_Aint)i * t->stride + j) * k->ext, m);
        return;
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->blocklen; j++)
                tg_map_at(k, base + i * t->hstride + j * k->ext, m);
        return;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bls[i]; j++)
                tg_map_at(k, base + ((MPI_Aint)t->ids[i] + j) * k->ext, m);
        return;
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bls[i]; j++)
                tg_map_at(k, base + t->ads[i] + j * k->ext, m);
        return;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bls[i]; j++)
                tg_map_at(t->kids[i], base + t->ads[i] + j * t->kids[i]->ext, m);
        return;
    case MPI_COMBINER_RESIZED:
    case MPI_COMBINER_DUP:
        tg_map_at(k, base, m);
        return;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        tg_map_array(t, base, m);
        return;
    }
}

/* The type map of count elements of t (placed t->ext apart). */
static inline void tg_map(const tg_type *t, int count, tg_map_t *m)
{
    m->n = 0;
    for (int c = 0; c < count; c++)
        tg_map_at(t, (MPI_Aint)c * t->ext, m);
}

static inline long tg_map_bytes(const tg_map_t *m)
{
    long n = 0;
    for (long i = 0; i < m->n; i++)
        n += m->e[i].size;
    return n;
}

/* Lowest and highest+1 byte the map touches (0, 0 when empty). */
static inline void tg_map_span(const tg_map_t *m, MPI_Aint *lo, MPI_Aint *hi)
{
    *lo = *hi = 0;
    for (long i = 0; i < m->n; i++) {
        if (i == 0 || m->e[i].off < *lo)
            *lo = m->e[i].off;
        if (i == 0 || m->e[i].off + m->e[i].size > *hi)
            *hi = m->e[i].off + m->e[i].size;
    }
}

/* 1 if two entries share a byte (such a type is not valid for receiving). */
static inline int tg_map_overlaps(const tg_map_t *m, MPI_Aint lo, MPI_Aint hi)
{
    size_t n = (size_t)(hi - lo);
    unsigned char *seen = tg_alloc(n);
    int over = 0;
    for (long i = 0; i < m->n && !over; i++)
        for (int b = 0; b < m->e[i].size && !over; b++)
            over = seen[m->e[i].off - lo + b]++ != 0;
    free(seen);
    return over;
}

/* Packs per the map: the stream is every entry's bytes in order (origin is buffer + (-lo)). */
static inline void tg_ref_pack(const tg_map_t *m, const unsigned char *origin, unsigned char *out)
{
    for (long i = 0; i < m->n; i++) {
        memcpy(out, origin + m->e[i].off, m->e[i].size);
        out += m->e[i].size;
    }
}

static inline void tg_ref_unpack(const tg_map_t *m, unsigned char *origin, const unsigned char *in)
{
    for (long i = 0; i < m->n; i++) {
        memcpy(origin + m->e[i].off, in, m->e[i].size);
        in += m->e[i].size;
    }
}

/* Basic elements in the first `bytes` bytes of the packed stream; MPI_UNDEFINED when they
 * end inside one.  (The map of one element is repeated for more.) */
static inline long tg_ref_elements(const tg_map_t *m1, long bytes)
{
    long per = tg_map_bytes(m1), n = 0;
    if (per == 0)
        return 0;
    n = bytes / per * m1->n;
    bytes %= per;
    for (long i = 0; i < m1->n && bytes > 0; i++) {
        if (bytes < m1->e[i].size)
            return MPI_UNDEFINED;
        bytes -= m1->e[i].size;
        n++;
    }
    return n;
}

static inline const char *tg_comb_name(int comb)
{
    switch (comb) {
    case MPI_COMBINER_NAMED:
        return "named";
    case MPI_COMBINER_DUP:
        return "dup";
    case MPI_COMBINER_CONTIGUOUS:
        return "contig";
    case MPI_COMBINER_VECTOR:
        return "vector";
    case MPI_COMBINER_HVECTOR:
        return "hvector";
    case MPI_COMBINER_INDEXED:
        return "indexed";
    case MPI_COMBINER_HINDEXED:
        return "hindexed";
    case MPI_COMBINER_INDEXED_BLOCK:
        return "idxblk";
    case MPI_COMBINER_HINDEXED_BLOCK:
        return "hidxblk";
    case MPI_COMBINER_STRUCT:
        return "struct";
    case MPI_COMBINER_SUBARRAY:
        return "subarray";
    case MPI_COMBINER_DARRAY:
        return "darray";
    case MPI_COMBINER_RESIZED:
        return "resized";
    }
    return "?";
}

/* A one-line description of the tree, for failure messages. */
static inline int tg_describe(const tg_type *t, char *buf, int len)
{
    int n = 0;
#define TG_OUT(...)                                                                                \
    do {                                                                                           \
        int k_ = snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__);                            \
        n += k_ > 0 ? k_ : 0;                                                                      \
    } while (0)
    if (t->comb == MPI_COMBINER_NAMED) {
        TG_OUT("%s", t->basic->name);
        return n;
    }
    TG_OUT("%s(", tg_comb_name(t->comb));
    switch (t->comb) {
    case MPI_COMBINER_CONTIGUOUS:
        TG_OUT("%d,", t->count);
        break;
    case MPI_COMBINER_VECTOR:
        TG_OUT("%d,%d,%d,", t->count, t->blocklen, t->stride);
        break;
    case MPI_COMBINER_HVECTOR:
        TG_OUT("%d,%d,%ldB,", t->count, t->blocklen, (long)t->hstride);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
        TG_OUT("[");
        for (int i = 0; i < t->count; i++) {
            int h = t->comb == MPI_COMBINER_HINDEXED || t->comb == MPI_COMBINER_HINDEXED_BLOCK ||
                    t->comb == MPI_COMBINER_STRUCT;
            TG_OUT("%s%d@%ld%s", i ? " " : "", t->bls[i], h ? (long)t->ads[i] : (long)t->ids[i],
                   h ? "B" : "");
            if (t->comb == MPI_COMBINER_STRUCT) {
                TG_OUT(":");
                n += tg_describe(t->kids[i], buf + (n < len ? n : len), n < len ? len - n : 0);
            }
        }
        TG_OUT("]");
        if (t->comb == MPI_COMBINER_STRUCT) {
            TG_OUT(")");
            return n;
        }
        TG_OUT(",");
        break;
    case MPI_COMBINER_RESIZED:
        TG_OUT("lb %ld,ext %ld,", (long)t->rlb, (long)t->rextent);
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        TG_OUT("%s,", t->order == MPI_ORDER_C ? "C" : "F");
        for (int i = 0; i < t->ndims; i++) {
            if (t->comb == MPI_COMBINER_SUBARRAY)
                TG_OUT("%d/%d+%d,", t->subsizes[i], t->sizes[i], t->starts[i]);
            else
                TG_OUT("g%d %c%d p%d,", t->sizes[i],
                       t->distribs[i] == MPI_DISTRIBUTE_BLOCK    ? 'b'
                       : t->distribs[i] == MPI_DISTRIBUTE_CYCLIC ? 'c'
                                                                 : 'n',
                       t->dargs[i], t->psizes[i]);
        }
        if (t->comb == MPI_COMBINER_DARRAY)
            TG_OUT("rank %d,", t->prank);
        break;
    }
    n += tg_describe(t->kids[0], buf + (n < len ? n : len), n < len ? len - n : 0);
    TG_OUT(")");
#undef TG_OUT
    return n;
}

#endif /* TYPE_GEN_H_INCLUDED */
