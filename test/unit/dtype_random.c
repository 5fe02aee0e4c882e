/* dtype_random.c: thousands of random nested datatypes checked against the naive reference of
 * test/mpi/type_gen.h: bounds, MPI_Pack/Unpack, byte-range pack and unpack in random chunks and
 * orders, iovec conversion, MPI_Get_elements with partial elements, external32 round trips,
 * send/recv to self with mismatched types, envelope/contents, and no leaked type objects.
 *
 *   dtype_random [SEED [NTYPES]]     (default: DTYPE_SEED or 1, DTYPE_NTYPES or 3000)
 *   DTYPE_DEPTH=6 DTYPE_MAXEL=50000  deeper and bigger types (default 4 and 1500)
 *
 * Each type is made from seed * 1000003 + i, so a failure names the one seed to rerun:
 * `dtype_random S 1` with the seed it prints (with DTYPE_VERBOSE=1 for the dataloop). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../mpi/type_table.h"
#include "datatype.h"
#include "dataloop.h"
#include "segment.h"

static int errors;
static int max_depth = 4;  /* DTYPE_DEPTH */
static long max_el = 1500; /* DTYPE_MAXEL: basic elements per type, about */
static unsigned long long cur_seed;
static char cur_desc[4096];

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        if (errors++ < 20) {                                                                       \
            fprintf(stderr, "FAIL seed %llu (rerun: dtype_random %llu 1): ", cur_seed, cur_seed);  \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n  type: %s\n", cur_desc);                                           \
        }                                                                                          \
    } while (0)

/* ---- the bounds oracle ----
 *
 * Written from the definitions of MPI-4.1 5.1 and 5.1.7, not from datatype/: every node's type
 * map is built in full, lb and ub markers included as entries, by placing copies of its
 * children's maps as the constructor says; then
 *   lb = the least displacement of an lb marker if there is one, else of any entry;
 *   ub = the greatest displacement of a ub marker if there is one, else the greatest end
 *        (displacement + size) of any entry, plus epsilon: the least increment that rounds
 *        ub - lb up to a multiple of the largest alignment of a basic entry;
 *   true lb / true ub = the least displacement / greatest end of the data entries alone.
 * MPI_Type_create_resized erases its child's markers and puts new ones at lb and lb + extent;
 * subarray and darray do the same at 0 and the whole array's extent.  A member replicated zero
 * times contributes no entries, so neither its data nor its markers nor its alignment. */

enum { OM_DATA, OM_LB, OM_UB };

typedef struct {
    MPI_Aint disp;
    int kind, size, align;
} om_entry_t;

typedef struct {
    om_entry_t *e;
    long n, cap;
} om_map_t;

typedef struct {
    MPI_Aint lb, ub, tlb, tub;
    long size;
} om_bounds_t;

static void om_push(om_map_t *m, int kind, MPI_Aint disp, int size, int align)
{
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->e = realloc(m->e, m->cap * sizeof(*m->e));
        if (!m->e) {
            fprintf(stderr, "dtype_random: out of memory\n");
            abort();
        }
    }
    m->e[m->n++] = (om_entry_t){disp, kind, size, align};
}

/* Appends a copy of src displaced by shift; with_markers 0 drops its markers. */
static void om_place(om_map_t *dst, const om_map_t *src, MPI_Aint shift, int with_markers)
{
    for (long i = 0; i < src->n; i++)
        if (with_markers || src->e[i].kind == OM_DATA)
            om_push(dst, src->e[i].kind, src->e[i].disp + shift, src->e[i].size, src->e[i].align);
}

static om_bounds_t om_bounds(const om_map_t *m)
{
    om_bounds_t b = {0, 0, 0, 0, 0};
    int have_lb = 0, have_ub = 0, first = 1, first_data = 1, align = 1;
    MPI_Aint lo = 0, hi = 0, mlb = 0, mub = 0;
    for (long i = 0; i < m->n; i++) {
        const om_entry_t *e = &m->e[i];
        MPI_Aint end = e->disp + e->size;
        if (first || e->disp < lo)
            lo = e->disp;
        if (first || end > hi)
            hi = end;
        first = 0;
        if (e->kind == OM_LB && (!have_lb || e->disp < mlb))
            mlb = e->disp, have_lb = 1;
        if (e->kind == OM_UB && (!have_ub || e->disp > mub))
            mub = e->disp, have_ub = 1;
        if (e->kind == OM_DATA) {
            if (first_data || e->disp < b.tlb)
                b.tlb = e->disp;
            if (first_data || end > b.tub)
                b.tub = end;
            first_data = 0;
            b.size += e->size;
            if (e->align > align)
                align = e->align;
        }
    }
    b.lb = have_lb ? mlb : lo;
    if (have_ub) {
        b.ub = mub;
    } else {
        b.ub = hi;
        MPI_Aint ext = b.ub - b.lb;
        if (ext % align)
            b.ub += align - ext % align;
    }
    return b;
}

/* The type map of one element of t at displacement 0; sets t->ext (where tg_map puts the next
 * element), t->r_lb and t->r_ub on t and, through the recursion, on every node below it. */
static om_map_t om_typemap(tg_type *t)
{
    om_map_t m = {0};
    om_map_t k = {0};
    MPI_Aint kext = 0;
    if (t->comb != MPI_COMBINER_NAMED && t->comb != MPI_COMBINER_STRUCT) {
        k = om_typemap(t->kids[0]);
        kext = t->kids[0]->ext;
    }
    switch (t->comb) {
    case MPI_COMBINER_NAMED: {
        const tg_basic_t *b = t->basic;
        if (b->pair_off) {
            /* A pair is the C struct { T a; int b; }: its alignment is the struct's. */
            om_push(&m, OM_DATA, 0, b->first, b->align);
            om_push(&m, OM_DATA, b->pair_off, sizeof(int), _Alignof(int));
        } else {
            om_push(&m, OM_DATA, 0, b->size, b->align);
        }
        break;
    }
    case MPI_COMBINER_DUP:
        om_place(&m, &k, 0, 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < t->count; i++)
            om_place(&m, &k, i * kext, 1);
        break;
    case MPI_COMBINER_VECTOR:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->blocklen; j++)
                om_place(&m, &k, ((MPI_Aint)i * t->stride + j) * kext, 1);
        break;
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->blocklen; j++)
                om_place(&m, &k, i * t->hstride + j * kext, 1);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bls[i]; j++)
                om_place(&m, &k, ((MPI_Aint)t->ids[i] + j) * kext, 1);
        break;
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < t->count; i++)
            for (int j = 0; j < t->bls[i]; j++)
                om_place(&m, &k, t->ads[i] + j * kext, 1);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < t->count; i++) {
            om_map_t ki = om_typemap(t->kids[i]);
            for (int j = 0; j < t->bls[i]; j++)
                om_place(&m, &ki, t->ads[i] + j * t->kids[i]->ext, 1);
            free(ki.e);
        }
        break;
    case MPI_COMBINER_RESIZED:
        om_place(&m, &k, 0, 0);
        om_push(&m, OM_LB, t->rlb, 0, 1);
        om_push(&m, OM_UB, t->rlb + t->rextent, 0, 1);
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY: {
        /* The selected elements' data (test/mpi/type_gen.h's array walk, which places them
         * t->kids[0]->ext apart as set above), in an array whose extent the markers give. */
        tg_map_t data = {0};
        MPI_Aint n = 1;
        for (int i = 0; i < t->ndims; i++)
            n *= t->sizes[i];
        tg_map_array(t, 0, &data);
        for (long i = 0; i < data.n; i++) {
            const tg_entry_t *e = &data.e[i];
            om_push(&m, OM_DATA, e->off, e->size, e->part ? (int)_Alignof(int) : e->basic->align);
        }
        free(data.e);
        om_push(&m, OM_LB, 0, 0, 1);
        om_push(&m, OM_UB, n * kext, 0, 1);
        break;
    }
    }
    free(k.e);
    om_bounds_t b = om_bounds(&m);
    t->r_lb = b.lb;
    t->r_ub = b.ub;
    t->ext = b.ub - b.lb;
    return m;
}

/* Sets the oracle's bounds on every node of t; returns t's. */
static om_bounds_t ref_bounds(tg_type *t)
{
    om_map_t m = om_typemap(t);
    om_bounds_t b = om_bounds(&m);
    free(m.e);
    return b;
}

/* The oracle, and the library, against the bounds worked out by hand (type_table.h). */
static void check_table(void)
{
    for (int i = 0; i < TT_NCASES; i++) {
        const tt_case_t *c = &tt_cases[i];
        tg_type *t = c->make();
        snprintf(cur_desc, sizeof cur_desc, "hand-computed case \"%s\"", c->name);
        cur_seed = 0;
        om_bounds_t b = ref_bounds(t);
        if (b.size != c->size || b.lb != c->lb || b.ub - b.lb != c->extent ||
            (c->size && (b.tlb != c->true_lb || b.tub - b.tlb != c->true_extent)))
            FAIL("the oracle gives size %ld lb %ld extent %ld true lb %ld true extent %ld; by "
                 "hand %ld %ld %ld %ld %ld",
                 b.size, (long)b.lb, (long)(b.ub - b.lb), (long)b.tlb, (long)(b.tub - b.tlb),
                 c->size, (long)c->lb, (long)c->extent, (long)c->true_lb, (long)c->true_extent);
        if (tg_build(t) != MPI_SUCCESS) {
            FAIL("building the type failed");
        } else {
            MPI_Aint lb, ext, tlb, text;
            MPI_Count size;
            MPI_Type_get_extent(t->h, &lb, &ext);
            MPI_Type_get_true_extent(t->h, &tlb, &text);
            MPI_Type_size_x(t->h, &size);
            if (size != c->size || lb != c->lb || ext != c->extent ||
                (c->size && (tlb != c->true_lb || text != c->true_extent)))
                FAIL("the library gives size %lld lb %ld extent %ld true lb %ld true extent "
                     "%ld; by hand %ld %ld %ld %ld %ld",
                     size, (long)lb, (long)ext, (long)tlb, (long)text, c->size, (long)c->lb,
                     (long)c->extent, (long)c->true_lb, (long)c->true_extent);
        }
        tg_free(t);
    }
}

/* ---- helpers ---- */

static uint64_t rng_state;
static unsigned char rbyte(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned char)(rng_state >> 56);
}

typedef struct {
    unsigned char *mem;
    unsigned char *origin; /* where the type's offset 0 is */
    size_t len;
} buf_t;

static void buf_make(buf_t *b, MPI_Aint lo, MPI_Aint hi)
{
    b->len = (size_t)(hi - lo) + 64;
    b->mem = malloc(b->len);
    b->origin = b->mem + 32 - lo;
    for (size_t i = 0; i < b->len; i++)
        b->mem[i] = rbyte();
}

/* Whether entry e holds long doubles (the whole entry, a pair's first field, both halves of
 * a complex): only their 10 data bytes survive external32. */
static int is_ldouble(const tg_entry_t *e)
{
    MPI_Datatype dt = e->basic->dt;
    return !e->part &&
           (dt == MPI_LONG_DOUBLE || dt == MPI_LONG_DOUBLE_INT || dt == MPI_C_LONG_DOUBLE_COMPLEX);
}

/* Fills the bytes of each entry with a value that external32 represents exactly: integers
 * that fit 16 bits (external32 narrows long to 4 bytes and wchar to 2), non-negative for the
 * unsigned ones, floating values from small integers. */
static void fill_values(const tg_map_t *m, unsigned char *origin)
{
    for (long i = 0; i < m->n; i++) {
        const tg_entry_t *e = &m->e[i];
        unsigned char *p = origin + e->off;
        MPI_Datatype dt = e->part ? MPI_INT : e->basic->dt;
        long v = (long)(rbyte() << 8 | rbyte()) - 20000;
        if (e->basic->pair_off && !e->part) {
            if (dt == MPI_DOUBLE_INT)
                dt = MPI_DOUBLE;
            else if (dt == MPI_FLOAT_INT)
                dt = MPI_FLOAT;
            else if (dt == MPI_LONG_DOUBLE_INT)
                dt = MPI_LONG_DOUBLE;
            else
                dt = MPI_INT; /* short, int, long: integers */
        }
        if (dt == MPI_LONG_DOUBLE || dt == MPI_C_LONG_DOUBLE_COMPLEX) {
            long double x[2] = {(long double)v / 7.0L, -(long double)v / 3.0L};
            memset(p, 0, e->size);
            for (int k = 0; k * (int)sizeof(long double) < e->size; k++)
                memcpy(p + k * sizeof(long double), &x[k], 10);
        } else if (dt == MPI_DOUBLE || dt == MPI_C_DOUBLE_COMPLEX) {
            double x[2] = {v / 3.0, -v / 5.0};
            memcpy(p, x, e->size);
        } else if (dt == MPI_FLOAT || dt == MPI_C_FLOAT_COMPLEX) {
            float x[2] = {v / 3.0f, -v / 5.0f};
            memcpy(p, x, e->size);
        } else if (dt == MPI_C_BOOL) {
            *p = (unsigned char)(v & 1);
        } else {
            /* integers, chars, bytes: the low bytes of a small value */
            int64_t x = (dt == MPI_WCHAR || dt == MPI_UNSIGNED_LONG) ? (v & 0x7fff) : v;
            memcpy(p, &x, e->size);
        }
    }
}

/* Whether the external32 round trip kept entry e (only the data bytes of long doubles). */
static int same_value(const tg_entry_t *e, const unsigned char *a, const unsigned char *b)
{
    if (!is_ldouble(e))
        return memcmp(a, b, e->size) == 0;
    for (int k = 0; k * (int)sizeof(long double) < e->size; k++)
        if (memcmp(a + k * sizeof(long double), b + k * sizeof(long double), 10))
            return 0;
    return 1;
}

/* ---- the checks of one type ---- */

static void check_bounds(tg_type *t)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Count size;
    MPI_Type_get_extent(t->h, &lb, &ext);
    if (lb != t->r_lb || ext != t->r_ub - t->r_lb)
        FAIL("lb/extent %ld/%ld, reference %ld/%ld", (long)lb, (long)ext, (long)t->r_lb,
             (long)(t->r_ub - t->r_lb));
    tg_map_t m = {0};
    tg_map(t, 1, &m);
    MPI_Aint lo, hi;
    tg_map_span(&m, &lo, &hi);
    MPI_Type_get_true_extent(t->h, &tlb, &text);
    if (m.n > 0 && (tlb != lo || text != hi - lo))
        FAIL("true lb/extent %ld/%ld, reference %ld/%ld", (long)tlb, (long)text, (long)lo,
             (long)(hi - lo));
    MPI_Type_size_x(t->h, &size);
    if (size != tg_map_bytes(&m))
        FAIL("size %lld, reference %ld", size, tg_map_bytes(&m));
    free(m.e);
    for (int i = 0; i < t->nkids; i++)
        check_bounds(t->kids[i]);
}

/* The envelope and contents of t: the combiner, exactly the numbers of integers, addresses and
 * types the standard's table gives for it (MPI-4.1 5.1.13), and every argument the type was
 * made with, in the order of the table. */
static void check_contents(tg_type *t)
{
    if (t->comb == MPI_COMBINER_NAMED)
        return;
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t->h, &ni, &na, &nd, &comb);
    if (comb != t->comb) {
        FAIL("combiner %d, expected %d (%s)", comb, t->comb, tg_comb_name(t->comb));
        return;
    }
    int n = t->count, nds = t->ndims;
    int want_i = 0, want_a = 0, want_d = 1;
    switch (comb) {
    case MPI_COMBINER_DUP:
        break;
    case MPI_COMBINER_CONTIGUOUS:
        want_i = 1;
        break;
    case MPI_COMBINER_VECTOR:
        want_i = 3;
        break;
    case MPI_COMBINER_HVECTOR:
        want_i = 2, want_a = 1;
        break;
    case MPI_COMBINER_INDEXED:
        want_i = 2 * n + 1;
        break;
    case MPI_COMBINER_HINDEXED:
        want_i = n + 1, want_a = n;
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        want_i = n + 2;
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        want_i = 2, want_a = n;
        break;
    case MPI_COMBINER_STRUCT:
        want_i = n + 1, want_a = n, want_d = n;
        break;
    case MPI_COMBINER_SUBARRAY:
        want_i = 3 * nds + 2;
        break;
    case MPI_COMBINER_DARRAY:
        want_i = 4 * nds + 4;
        break;
    case MPI_COMBINER_RESIZED:
        want_a = 2;
        break;
    }
    if (ni != want_i || na != want_a || nd != want_d) {
        FAIL("envelope of %s: %d integers, %d addresses, %d types; the standard says %d, %d, %d",
             tg_comb_name(comb), ni, na, nd, want_i, want_a, want_d);
        return;
    }
    int *ints = malloc((ni + 1) * sizeof(int));
    MPI_Aint *aints = malloc((na + 1) * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((nd + 1) * sizeof(MPI_Datatype));
    MPI_Type_get_contents(t->h, ni, na, nd, ints, aints, types);
    /* What the constructor was given, in the table's order. */
    int wi[64], k = 0; /* at most 4 * 3 + 4 (darray) or 2 * 5 + 1 (indexed) */
    MPI_Aint wa[16];
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS:
        wi[k++] = n;
        break;
    case MPI_COMBINER_VECTOR:
        wi[k++] = n, wi[k++] = t->blocklen, wi[k++] = t->stride;
        break;
    case MPI_COMBINER_HVECTOR:
        wi[k++] = n, wi[k++] = t->blocklen, wa[0] = t->hstride;
        break;
    case MPI_COMBINER_INDEXED:
        wi[k++] = n;
        for (int i = 0; i < n; i++)
            wi[k + i] = t->bls[i], wi[k + n + i] = t->ids[i];
        k += 2 * n;
        break;
    case MPI_COMBINER_HINDEXED:
        wi[k++] = n;
        for (int i = 0; i < n; i++)
            wi[k++] = t->bls[i], wa[i] = t->ads[i];
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        wi[k++] = n, wi[k++] = t->blocklen;
        for (int i = 0; i < n; i++)
            wi[k++] = t->ids[i];
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        wi[k++] = n, wi[k++] = t->blocklen;
        for (int i = 0; i < n; i++)
            wa[i] = t->ads[i];
        break;
    case MPI_COMBINER_STRUCT:
        wi[k++] = n;
        for (int i = 0; i < n; i++)
            wi[k++] = t->bls[i], wa[i] = t->ads[i];
        break;
    case MPI_COMBINER_SUBARRAY:
        wi[k++] = nds;
        for (int i = 0; i < nds; i++)
            wi[k + i] = t->sizes[i], wi[k + nds + i] = t->subsizes[i],
                   wi[k + 2 * nds + i] = t->starts[i];
        k += 3 * nds;
        wi[k++] = t->order;
        break;
    case MPI_COMBINER_DARRAY:
        wi[k++] = t->psize, wi[k++] = t->prank, wi[k++] = nds;
        for (int i = 0; i < nds; i++)
            wi[k + i] = t->sizes[i], wi[k + nds + i] = t->distribs[i],
                   wi[k + 2 * nds + i] = t->dargs[i], wi[k + 3 * nds + i] = t->psizes[i];
        k += 4 * nds;
        wi[k++] = t->order;
        break;
    case MPI_COMBINER_RESIZED:
        wa[0] = t->rlb, wa[1] = t->rextent;
        break;
    }
    for (int i = 0; i < ni; i++)
        if (ints[i] != wi[i]) {
            FAIL("contents of %s: integer %d is %d, the constructor was given %d",
                 tg_comb_name(comb), i, ints[i], wi[i]);
            break;
        }
    for (int i = 0; i < na; i++)
        if (aints[i] != wa[i]) {
            FAIL("contents of %s: address %d is %ld, the constructor was given %ld",
                 tg_comb_name(comb), i, (long)aints[i], (long)wa[i]);
            break;
        }
    for (int i = 0; i < nd; i++)
        if (types[i] != t->kids[comb == MPI_COMBINER_STRUCT ? i : 0]->h) {
            FAIL("contents of %s: type %d is handle %#x, the constructor was given %#x",
                 tg_comb_name(comb), i, (unsigned)types[i],
                 (unsigned)t->kids[comb == MPI_COMBINER_STRUCT ? i : 0]->h);
            break;
        }
    for (int i = 0; i < nd; i++) {
        int a, b, c, kc;
        MPI_Type_get_envelope(types[i], &a, &b, &c, &kc);
        if (kc != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(aints);
    free(types);
    for (int i = 0; i < t->nkids; i++)
        check_contents(t->kids[i]);
}

static void check_one(unsigned long long seed)
{
    tg_rng_t r;
    tg_seed(&r, seed);
    cur_seed = seed;
    rng_state = seed;
    tg_opts_t o = {.max_depth = max_depth, .max_el = max_el, .single_basic = -1};
    /* Mostly derived types: a predefined one at the top one time in ten. */
    tg_type *t = tg_gen(&r, (int)tg_range(&r, 1, o.max_depth), o.max_el, &o);
    while (t->comb == MPI_COMBINER_NAMED && tg_range(&r, 0, 9) != 0) {
        tg_free(t);
        t = tg_gen(&r, (int)tg_range(&r, 1, o.max_depth), o.max_el, &o);
    }
    tg_describe(t, cur_desc, sizeof cur_desc);
    int rc = tg_build(t);
    if (rc != MPI_SUCCESS) {
        FAIL("building the type returned %d", rc);
        tg_free(t);
        return;
    }
    if (t->comb != MPI_COMBINER_NAMED)
        MPI_Type_commit(&t->h);
    ref_bounds(t);
    int errors_before = errors;
    check_bounds(t);
    check_contents(t);
    if (errors != errors_before) {
        /* The buffers below are sized from the oracle's bounds: with the library's different,
         * moving data would write outside them. */
        tg_free(t);
        return;
    }
    if (getenv("DTYPE_VERBOSE")) {
        char buf[8192];
        MPIR_Dataloop_print(MPIR_Datatype_loop(MPIR_Datatype_get(t->h)), buf, sizeof buf);
        fprintf(stderr, "seed %llu: %s\n%s", seed, cur_desc, buf);
    }

    int count = (int)tg_range(&r, 1, 3);
    tg_map_t m = {0}, m1 = {0};
    tg_map(t, count, &m);
    tg_map(t, 1, &m1);
    long bytes = tg_map_bytes(&m);
    MPI_Aint lo, hi;
    tg_map_span(&m, &lo, &hi);
    int overlaps = tg_map_overlaps(&m, lo, hi);
    buf_t src, dst, ref;
    buf_make(&src, lo, hi);
    buf_make(&dst, lo, hi);
    buf_make(&ref, lo, hi);
    unsigned char *want = malloc(bytes + 1), *got = malloc(bytes + 1);
    tg_ref_pack(&m, src.origin, want);

    /* MPI_Pack and MPI_Unpack */
    int pos = 0;
    rc = MPI_Pack(src.origin, count, t->h, got, (int)bytes, &pos, MPI_COMM_SELF);
    if (rc || pos != bytes || memcmp(got, want, bytes))
        FAIL("MPI_Pack of %d elements (%ld bytes): rc %d, position %d, data %s", count, bytes, rc,
             pos, memcmp(got, want, bytes) ? "differs" : "ok");
    for (long i = 0; i < bytes; i++)
        want[i] = rbyte();
    memcpy(ref.mem, dst.mem, dst.len);
    tg_ref_unpack(&m, ref.origin, want);
    pos = 0;
    rc = MPI_Unpack(want, (int)bytes, &pos, dst.origin, count, t->h, MPI_COMM_SELF);
    if (rc || pos != bytes || memcmp(dst.mem, ref.mem, dst.len))
        FAIL("MPI_Unpack of %d elements (%ld bytes): rc %d, position %d, memory %s", count, bytes,
             rc, pos, memcmp(dst.mem, ref.mem, dst.len) ? "differs" : "ok");

    /* Byte ranges: pack in random chunks; unpack them in random order. */
    MPIR_Segment seg;
    MPIR_Segment_init(&seg, src.origin, count, t->h);
    tg_ref_pack(&m, src.origin, want);
    memset(got, 0, bytes);
    long cuts[9], ncut = tg_range(&r, 1, 8);
    cuts[0] = 0;
    for (int i = 1; i < ncut; i++)
        cuts[i] = tg_range(&r, 0, bytes);
    cuts[ncut] = bytes;
    for (int i = 1; i < ncut; i++) /* sort the inner cut points */
        for (int j = i; j > 1 && cuts[j - 1] > cuts[j]; j--) {
            long x = cuts[j];
            cuts[j] = cuts[j - 1];
            cuts[j - 1] = x;
        }
    for (int i = 0; i < ncut; i++) {
        size_t n = MPIR_Segment_pack(&seg, cuts[i], cuts[i + 1], got + cuts[i]);
        if (n != (size_t)(cuts[i + 1] - cuts[i]))
            FAIL("segment pack [%ld, %ld) returned %zu", cuts[i], cuts[i + 1], n);
    }
    if (memcmp(got, want, bytes))
        FAIL("segment pack in %ld chunks differs from the reference", ncut);
    if (!overlaps) {
        MPIR_Segment dseg;
        MPIR_Segment_init(&dseg, dst.origin, count, t->h);
        for (long i = 0; i < bytes; i++)
            want[i] = rbyte();
        memcpy(ref.mem, dst.mem, dst.len);
        tg_ref_unpack(&m, ref.origin, want);
        for (int i = ncut - 1; i >= 0; i--) /* backwards: a seek each time */
            MPIR_Segment_unpack(&dseg, cuts[i], cuts[i + 1], want + cuts[i]);
        if (memcmp(dst.mem, ref.mem, dst.len))
            FAIL("segment unpack of %ld chunks in reverse order differs from the reference", ncut);
    }

    /* iovec: a random range in a few entries at a time */
    {
        tg_ref_pack(&m, src.origin, want);
        long first = tg_range(&r, 0, bytes), last = tg_range(&r, first, bytes);
        int maxiov = (int)tg_range(&r, 1, 8);
        struct iovec iov[8];
        long at = first, filled = 0;
        while (at < last) {
            size_t end = last;
            int n = MPIR_Segment_to_iov(&seg, at, &end, iov, maxiov);
            if (n <= 0 || (long)end <= at) {
                FAIL("to_iov [%ld, %ld) max %d made no progress (n %d, end %zu)", at, last, maxiov,
                     n, end);
                break;
            }
            for (int i = 0; i < n; i++) {
                memcpy(got + filled, iov[i].iov_base, iov[i].iov_len);
                filled += iov[i].iov_len;
            }
            if (filled != (long)end - first) {
                FAIL("to_iov [%ld, %zu) described %ld bytes", at, end, filled - (at - first));
                break;
            }
            at = end;
        }
        if (at == last && memcmp(got, want + first, last - first))
            FAIL("to_iov of [%ld, %ld) differs from the reference", first, last);
    }

    /* MPI_Get_elements with partial elements */
    for (int k = 0; k < 4; k++) {
        long b = k == 0 ? bytes : tg_range(&r, 0, bytes);
        MPI_Status st;
        memset(&st, 0, sizeof st);
        st.count_bytes_ = b;
        int n = -7;
        MPI_Get_elements(&st, t->h, &n);
        long expect = tg_ref_elements(&m1, b);
        if (n != expect)
            FAIL("MPI_Get_elements of %ld bytes: %d, reference %ld", b, n, expect);
    }

    /* external32: round trip of representable values */
    {
        MPI_Aint esize, epos = 0, upos = 0;
        MPI_Pack_external_size("external32", count, t->h, &esize);
        unsigned char *ext = malloc(esize + 1);
        fill_values(&m, src.origin);
        memcpy(dst.mem, ref.mem, dst.len);
        MPI_Pack_external("external32", src.origin, count, t->h, ext, esize, &epos);
        if (!overlaps)
            MPI_Unpack_external("external32", ext, esize, &upos, dst.origin, count, t->h);
        if (epos != esize || (!overlaps && upos != esize))
            FAIL("external32: size %ld, packed %ld, unpacked %ld", (long)esize, (long)epos,
                 (long)upos);
        for (long i = 0; !overlaps && i < m.n; i++) {
            const tg_entry_t *e = &m.e[i];
            if (!same_value(e, src.origin + e->off, dst.origin + e->off)) {
                FAIL("external32 round trip changed entry %ld (%s part %d, %d bytes at %ld)", i,
                     e->basic->name, e->part, e->size, (long)e->off);
                break;
            }
        }
        free(ext);
    }

    /* Send to self with mismatched types: typed -> bytes, bytes -> typed. */
    {
        tg_ref_pack(&m, src.origin, want);
        MPI_Status st;
        rc = MPI_Sendrecv(src.origin, count, t->h, 0, 1, got, (int)bytes, MPI_BYTE, 0, 1,
                          MPI_COMM_SELF, &st);
        if (rc || memcmp(got, want, bytes))
            FAIL("send of the type to self received as bytes: rc %d, data %s", rc,
                 memcmp(got, want, bytes) ? "differs" : "ok");
        if (!overlaps) {
            memcpy(ref.mem, dst.mem, dst.len);
            tg_ref_unpack(&m, ref.origin, want);
            rc = MPI_Sendrecv(want, (int)bytes, MPI_BYTE, 0, 2, dst.origin, count, t->h, 0, 2,
                              MPI_COMM_SELF, &st);
            if (rc || memcmp(dst.mem, ref.mem, dst.len))
                FAIL("bytes sent to self received with the type: rc %d, memory %s", rc,
                     memcmp(dst.mem, ref.mem, dst.len) ? "differs" : "ok");
        }
    }

    free(want);
    free(got);
    free(src.mem);
    free(dst.mem);
    free(ref.mem);
    free(m.e);
    free(m1.e);
    tg_free(t);
}

int main(int argc, char **argv)
{
    unsigned long long seed = argc > 1               ? strtoull(argv[1], NULL, 0)
                              : getenv("DTYPE_SEED") ? strtoull(getenv("DTYPE_SEED"), NULL, 0)
                                                     : 1;
    long ntypes = argc > 2                 ? atol(argv[2])
                  : getenv("DTYPE_NTYPES") ? atol(getenv("DTYPE_NTYPES"))
                                           : 3000;
    if (getenv("DTYPE_DEPTH"))
        max_depth = atoi(getenv("DTYPE_DEPTH"));
    if (getenv("DTYPE_MAXEL"))
        max_el = atol(getenv("DTYPE_MAXEL"));
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_table();
    for (long i = 0; i < ntypes; i++)
        check_one(ntypes == 1 ? seed : seed * 1000003ull + (unsigned long long)i);
    if (MPIR_Datatype_live() != 0) {
        cur_desc[0] = 0;
        FAIL("%d derived type objects still alive after every type was freed",
             MPIR_Datatype_live());
    }
    MPI_Finalize();
    printf("%ld random types from seed %llu: %d errors\n", ntypes, seed, errors);
    return errors ? 1 : 0;
}
