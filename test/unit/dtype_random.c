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
#include "../mpi/type_gen.h"
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

/* ---- reference bounds: the standard's rules, computed over the test's own tree ---- */

typedef struct {
    int any, slb, sub;
    MPI_Aint lb, ub, slb_v, sub_v;
    int align;
} rb_t;

static void rb_block(rb_t *b, const tg_type *c, MPI_Aint n, MPI_Aint d)
{
    if (n <= 0)
        return;
    MPI_Aint span = (n - 1) * c->ext, lo = d + (span < 0 ? span : 0),
             hi = d + (span > 0 ? span : 0);
    MPI_Aint l = lo + c->r_lb, u = hi + c->r_ub;
    if (!b->any || l < b->lb)
        b->lb = l;
    if (!b->any || u > b->ub)
        b->ub = u;
    b->any = 1;
    if (c->r_slb && (!b->slb || l < b->slb_v))
        b->slb_v = l, b->slb = 1;
    if (c->r_sub && (!b->sub || u > b->sub_v))
        b->sub_v = u, b->sub = 1;
    if (c->r_align > b->align)
        b->align = c->r_align;
}

/* Sets r_lb, r_ub, stickiness, alignment and ext of every node, bottom-up. */
static void ref_bounds(tg_type *t)
{
    for (int i = 0; i < t->nkids; i++)
        ref_bounds(t->kids[i]);
    tg_type *k = t->nkids ? t->kids[0] : NULL;
    rb_t b = {.align = 1};
    switch (t->comb) {
    case MPI_COMBINER_NAMED:
        t->r_lb = 0;
        t->r_ub = t->basic->extent;
        t->r_align = t->basic->align;
        t->ext = t->r_ub;
        return;
    case MPI_COMBINER_RESIZED:
        t->r_lb = t->rlb;
        t->r_ub = t->rlb + t->rextent;
        t->r_slb = t->r_sub = 1;
        t->r_align = k->r_align;
        t->ext = t->rextent;
        return;
    case MPI_COMBINER_DUP:
        t->r_lb = k->r_lb;
        t->r_ub = k->r_ub;
        t->r_slb = k->r_slb;
        t->r_sub = k->r_sub;
        t->r_align = k->r_align;
        t->ext = k->ext;
        return;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY: {
        MPI_Aint n = 1;
        for (int i = 0; i < t->ndims; i++)
            n *= t->sizes[i];
        t->r_lb = 0;
        t->r_ub = n * k->ext;
        t->r_slb = t->r_sub = 1;
        t->r_align = k->r_align;
        t->ext = t->r_ub;
        return;
    }
    case MPI_COMBINER_CONTIGUOUS:
        rb_block(&b, k, t->count, 0);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < t->count; i++)
            rb_block(&b, k, t->blocklen,
                     t->comb == MPI_COMBINER_VECTOR ? (MPI_Aint)i * t->stride * k->ext
                                                    : i * t->hstride);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < t->count; i++)
            rb_block(&b, k, t->bls[i], (MPI_Aint)t->ids[i] * k->ext);
        break;
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < t->count; i++)
            rb_block(&b, k, t->bls[i], t->ads[i]);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < t->count; i++)
            rb_block(&b, t->kids[i], t->bls[i], t->ads[i]);
        break;
    }
    t->r_slb = b.slb;
    t->r_sub = b.sub;
    t->r_lb = b.slb ? b.slb_v : b.any ? b.lb : 0;
    t->r_ub = b.sub ? b.sub_v : b.any ? b.ub : 0;
    t->r_align = b.align;
    MPI_Aint ext = t->r_ub - t->r_lb;
    if (!b.sub && ext > 0 && ext % b.align)
        t->r_ub += b.align - ext % b.align; /* the epsilon */
    t->ext = t->r_ub - t->r_lb;
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
    int *ints = malloc((ni + 1) * sizeof(int));
    MPI_Aint *aints = malloc((na + 1) * sizeof(MPI_Aint));
    MPI_Datatype *types = malloc((nd + 1) * sizeof(MPI_Datatype));
    MPI_Type_get_contents(t->h, ni, na, nd, ints, aints, types);
    int bad = 0;
    switch (comb) {
    case MPI_COMBINER_VECTOR:
        bad = ni != 3 || ints[0] != t->count || ints[1] != t->blocklen || ints[2] != t->stride;
        break;
    case MPI_COMBINER_HVECTOR:
        bad = ni != 2 || na != 1 || ints[1] != t->blocklen || aints[0] != t->hstride;
        break;
    case MPI_COMBINER_INDEXED:
        bad = ni != 2 * t->count + 1;
        for (int i = 0; !bad && i < t->count; i++)
            bad = ints[1 + i] != t->bls[i] || ints[1 + t->count + i] != t->ids[i];
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        bad = ni != 2 || na != t->count;
        for (int i = 0; !bad && i < t->count; i++)
            bad = aints[i] != t->ads[i];
        break;
    case MPI_COMBINER_STRUCT:
        bad = ni != t->count + 1 || na != t->count || nd != t->count;
        for (int i = 0; !bad && i < t->count; i++)
            bad = ints[1 + i] != t->bls[i] || aints[i] != t->ads[i] || types[i] != t->kids[i]->h;
        break;
    case MPI_COMBINER_RESIZED:
        bad = na != 2 || aints[0] != t->rlb || aints[1] != t->rextent;
        break;
    case MPI_COMBINER_SUBARRAY:
        bad = ni != 3 * t->ndims + 2 || ints[0] != t->ndims || ints[3 * t->ndims + 1] != t->order;
        break;
    case MPI_COMBINER_DARRAY:
        bad = ni != 4 * t->ndims + 4 || ints[0] != t->psize || ints[1] != t->prank;
        break;
    }
    if (nd >= 1 && comb != MPI_COMBINER_STRUCT && types[0] != t->kids[0]->h)
        bad = 1;
    if (bad)
        FAIL("contents of %s do not match the constructor's arguments", tg_comb_name(comb));
    for (int i = 0; i < nd; i++) {
        int a, b, c, k;
        MPI_Type_get_envelope(types[i], &a, &b, &c, &k);
        if (k != MPI_COMBINER_NAMED)
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
    check_bounds(t);
    check_contents(t);
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
