/* type_lb_ub.c: MPI-1's pseudo-datatypes MPI_LB and MPI_UB (MPI-1.1 sec. 3.12.3, MPI-2.2
 * sec. 4.1.7; removed in MPI-3.0, still defined by MPICH 4 and Ferry for old programs). The
 * markers themselves (size 0, bounds 0, named, no reduction, nothing to pack); the bounds of
 * structs with lb/ub entries at negative displacements, inside and beyond the data, several of
 * one kind, nested, in vectors, through the MPI-1 calls (MPI_Type_struct, MPI_Type_lb/ub/extent)
 * too; their contents (MPI_LB comes back as a named type); and counts of such types sent from
 * rank 0 to the last rank (itself when alone), received as the same type and as packed bytes
 * and back: the data lands at the strides of the extent and the gaps stay untouched.
 *
 * Expected bounds are the standard's: lb the least lb marker, ub the greatest ub marker, else
 * the data's, with the alignment epsilon only where no ub marker is. Compiled against MPICH
 * (4.0.2 seen), the values it is known to give instead are notes, not errors (test/mpi/README.md).
 * Open MPI 4.1 does not compile this program: its mpi.h refuses MPI_LB/MPI_UB at compile time
 * unless it was built with --enable-mpi1-compatibility. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#if defined(MPICH_VERSION) && !defined(FERRY_VERSION)
#define AGAINST_MPICH 1
#else
#define AGAINST_MPICH 0
#endif

static MPI_Datatype make_struct(int n, const int *bl, const MPI_Aint *d, const MPI_Datatype *ty)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = MPI_Type_create_struct(n, bl, d, ty, &t);
    if (rc != MPI_SUCCESS) {
        printf("[%d] MPI_Type_create_struct failed: %s\n", mtest_rank, mtest_errstr(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return t;
}

static const int ONES[] = {1, 1, 1, 1};

/* A: { lb at -8, int at 0, double at 8, ub at 24 }: 12 bytes of data in [0, 16), extent 32. */
static MPI_Datatype make_a(void)
{
    const MPI_Aint d[] = {-8, 0, 8, 24};
    const MPI_Datatype ty[] = {MPI_LB, MPI_INT, MPI_DOUBLE, MPI_UB};
    return make_struct(4, ONES, d, ty);
}

/* ---- the markers themselves ---- */

static int check_marker(MPI_Datatype t, const char *name)
{
    int errs = 0, size = -1, ni = -1, na = -1, nt = -1, comb = -1, len = 0, psize = -1;
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1, olb = -1, oub = -1, oext = -1;
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    MPI_Type_lb(t, &olb);
    MPI_Type_ub(t, &oub);
    MPI_Type_extent(t, &oext);
    MTEST_CHECK_INT(errs, 0, size, "%s: MPI_Type_size", name);
    MTEST_CHECK_INT(errs, 0, lb, "%s: lb", name);
    MTEST_CHECK_INT(errs, 0, ext, "%s: extent", name);
    MTEST_CHECK_INT(errs, 0, tlb, "%s: true lb", name);
    MTEST_CHECK_INT(errs, 0, text, "%s: true extent", name);
    MTEST_CHECK_INT(errs, 0, olb, "%s: MPI_Type_lb", name);
    MTEST_CHECK_INT(errs, 0, oub, "%s: MPI_Type_ub", name);
    MTEST_CHECK_INT(errs, 0, oext, "%s: MPI_Type_extent", name);
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    MTEST_CHECK_INT(errs, MPI_COMBINER_NAMED, comb, "%s: combiner", name);
    char tname[MPI_MAX_OBJECT_NAME] = "";
    MPI_Type_get_name(t, tname, &len);
    if (strcmp(tname, name) != 0)
        MTEST_FAIL(errs, "%s: MPI_Type_get_name gave \"%s\"", name, tname);
    MPI_Pack_size(7, t, MPI_COMM_WORLD, &psize);
    MTEST_CHECK_INT(errs, 0, psize, "%s: MPI_Pack_size of 7", name);
#if AGAINST_MPICH
    printf("note: MPI_Pack_external_size of %s not called: MPICH 4.0.2 divides by zero there\n",
           name);
#else
    MPI_Aint esize = -1;
    MPI_Pack_external_size("external32", 7, t, &esize);
    MTEST_CHECK_INT(errs, 0, esize, "%s: MPI_Pack_external_size of 7", name);
#endif
    /* No reduction is defined on them: refused as an operation this type does not take, or as
     * a type no operation takes. */
    int in[4] = {1, 2, 3, 4}, out[4] = {0};
    int rc = MPI_Allreduce(in, out, 4, t, MPI_SUM, MPI_COMM_WORLD), cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OP && cls != MPI_ERR_TYPE)
        MTEST_FAIL(errs,
                   "%s: MPI_Allreduce with MPI_SUM returned %d (class %s), expected "
                   "MPI_ERR_OP or MPI_ERR_TYPE",
                   name, rc, mtest_classname(cls));
    return errs;
}

/* ---- bounds ---- */

typedef struct {
    const char *name;
    MPI_Datatype t;
    MPI_Aint size, lb, extent, true_lb, true_extent;
    /* What MPICH 4.0.2 gives where it differs (has_mpich): noted, not counted, against MPICH. */
    int has_mpich;
    MPI_Aint mpich_lb, mpich_extent, mpich_true_extent;
} bcase_t;

static int check_value(MPI_Aint want, MPI_Aint mpich, int has_mpich, MPI_Aint seen,
                       const char *name, const char *what)
{
    int errs = 0;
    if (seen == want)
        return 0;
    if (AGAINST_MPICH && has_mpich && seen == mpich) {
        printf("note: %s: %s %ld, the standard gives %ld (known MPICH 4.0.2 deviation)\n", name,
               what, (long)seen, (long)want);
        return 0;
    }
    MTEST_CHECK_INT(errs, want, seen, "%s: %s", name, what);
    return errs;
}

static int check_bounds(const bcase_t *c)
{
    int errs = 0, size = -1;
    MPI_Aint lb = -1, ext = -1, tlb = -1, text = -1, olb = -1, oub = -1, oext = -1;
    MPI_Type_size(c->t, &size);
    MPI_Type_get_extent(c->t, &lb, &ext);
    MPI_Type_get_true_extent(c->t, &tlb, &text);
    MTEST_CHECK_INT(errs, c->size, size, "%s: size", c->name);
    errs += check_value(c->lb, c->mpich_lb, c->has_mpich, lb, c->name, "lb");
    errs += check_value(c->extent, c->mpich_extent, c->has_mpich, ext, c->name, "extent");
    MTEST_CHECK_INT(errs, c->true_lb, tlb, "%s: true lb", c->name);
    errs += check_value(c->true_extent, c->mpich_true_extent, c->has_mpich, text, c->name,
                        "true extent");
    /* The MPI-1 queries say the same as MPI_Type_get_extent. */
    MPI_Type_lb(c->t, &olb);
    MPI_Type_ub(c->t, &oub);
    MPI_Type_extent(c->t, &oext);
    MTEST_CHECK_INT(errs, lb, olb, "%s: MPI_Type_lb against MPI_Type_get_extent", c->name);
    MTEST_CHECK_INT(errs, lb + ext, oub, "%s: MPI_Type_ub against MPI_Type_get_extent", c->name);
    MTEST_CHECK_INT(errs, ext, oext, "%s: MPI_Type_extent against MPI_Type_get_extent", c->name);
    return errs;
}

static int test_bounds(void)
{
    int errs = 0;
    bcase_t cases[16];
    int n = 0;
    MPI_Datatype a = make_a(), tmp;
#define CASE(nm, ty, sz, l, e, tl, te)                                                             \
    cases[n++] = (bcase_t){                                                                        \
        .name = nm, .t = ty, .size = sz, .lb = l, .extent = e, .true_lb = tl, .true_extent = te}
#define MPICH_GIVES(l, e, te)                                                                      \
    (cases[n - 1].has_mpich = 1, cases[n - 1].mpich_lb = l, cases[n - 1].mpich_extent = e,         \
     cases[n - 1].mpich_true_extent = te)

    CASE("A = {lb@-8, int@0, double@8, ub@24}", a, 12, -8, 32, 0, 16);
    {
        const MPI_Aint d[] = {-3, 0};
        const MPI_Datatype ty[] = {MPI_LB, MPI_INT};
        /* no ub marker: the epsilon rounds the extent 7 up to the int's alignment */
        CASE("{lb@-3, int@0}", make_struct(2, ONES, d, ty), 4, -3, 8, 0, 4);
        MPICH_GIVES(-3, 7, 4);
    }
    {
        const MPI_Aint d[] = {0, 2};
        const MPI_Datatype ty[] = {MPI_INT, MPI_UB};
        CASE("{int@0, ub@2} (ub inside the data)", make_struct(2, ONES, d, ty), 4, 0, 2, 0, 4);
    }
    {
        const MPI_Aint d[] = {4, 0};
        const MPI_Datatype ty[] = {MPI_LB, MPI_INT};
        CASE("{lb@4, int@0} (lb above the data)", make_struct(2, ONES, d, ty), 4, 4, 0, 0, 4);
    }
    {
        const MPI_Aint d[] = {0, 20, 12};
        const MPI_Datatype ty[] = {MPI_INT, MPI_UB, MPI_UB};
        CASE("{int@0, ub@20, ub@12} (the greatest ub)", make_struct(3, ONES, d, ty), 4, 0, 20, 0,
             4);
        MPICH_GIVES(0, 12, 4); /* the last ub entry */
    }
    {
        const MPI_Aint d[] = {0, -8, -4};
        const MPI_Datatype ty[] = {MPI_INT, MPI_LB, MPI_LB};
        CASE("{int@0, lb@-8, lb@-4} (the least lb)", make_struct(3, ONES, d, ty), 4, -8, 12, 0, 4);
        MPICH_GIVES(-4, 8, 4); /* the last lb entry */
    }
    {
        const MPI_Aint d[] = {-4, 12};
        const MPI_Datatype ty[] = {MPI_LB, MPI_UB};
        CASE("{lb@-4, ub@12} (markers only)", make_struct(2, ONES, d, ty), 0, -4, 16, 0, 0);
    }
    {
        const MPI_Aint d[] = {0, 4, 8};
        const MPI_Datatype ty[] = {MPI_INT, MPI_INT, MPI_UB};
        CASE("C = {int@0, int@4, ub@8}", make_struct(3, ONES, d, ty), 8, 0, 8, 0, 8);
    }
    {
        const MPI_Aint d[] = {0, 0, 8, 8};
        const MPI_Datatype ty[] = {MPI_LB, MPI_DOUBLE, MPI_INT, MPI_UB};
        CASE("{lb@0, double@0, int@8, ub@8} (data beyond ub)", make_struct(4, ONES, d, ty), 12, 0,
             8, 0, 12);
    }
    {
        /* A's markers are kept through the struct: lb -8 (first A), ub 32 + 24 (second A),
         * although the char lies beyond that ub. */
        const int bl[] = {2, 1};
        const MPI_Aint d[] = {0, 60};
        const MPI_Datatype ty[] = {a, MPI_CHAR};
        CASE("N = {2 A@0, char@60}", make_struct(2, bl, d, ty), 25, -8, 64, 0, 61);
        MPICH_GIVES(-8, 72, 61); /* the ub from the data, with the epsilon */
    }
    MPI_Type_vector(3, 1, 2, a, &tmp);
    CASE("vector(3, 1, 2, A)", tmp, 36, -8, 160, 0, 144);
    MPI_Type_create_hvector(2, 1, -40, a, &tmp);
    CASE("hvector(2, 1, -40, A)", tmp, 24, -48, 72, -40, 56);
    {
        MPI_Datatype r;
        MPI_Type_create_resized(MPI_INT, 0, 8, &r);
        const MPI_Aint d[] = {0, 4};
        const MPI_Datatype ty[] = {r, MPI_UB};
        CASE("{resized(int, 0, 8)@0, ub@4}", make_struct(2, ONES, d, ty), 4, 0, 8, 0, 4);
        MPICH_GIVES(0, 4, 4);
        MPI_Type_free(&r);
    }
    {
        MPI_Datatype h;
        const int hb[] = {1, 1};
        const MPI_Aint hd[] = {-6, 10};
        MPI_Type_create_hindexed(2, hb, hd, MPI_UB, &h);
        const MPI_Aint d[] = {0, 0};
        const MPI_Datatype ty[] = {MPI_INT, h};
        CASE("{int@0, hindexed({-6, 10}, MPI_UB)@0}", make_struct(2, ONES, d, ty), 4, 0, 10, 0, 4);
        MPICH_GIVES(0, 4, 4);
        MPI_Type_free(&h);
    }
    {
        MPI_Datatype c3;
        MPI_Type_contiguous(3, MPI_UB, &c3);
        const MPI_Aint d[] = {0, 8};
        const MPI_Datatype ty[] = {MPI_INT, c3};
        CASE("{int@0, contiguous(3, MPI_UB)@8}", make_struct(2, ONES, d, ty), 4, 0, 8, 0, 4);
        MPICH_GIVES(0, 8, 8);
        MPI_Type_free(&c3);
    }
    {
        /* The MPI-1 constructor. */
        int bl[] = {1, 1, 1};
        MPI_Aint d[] = {-8, 0, 24};
        MPI_Datatype ty[] = {MPI_LB, MPI_INT, MPI_UB};
        MPI_Type_struct(3, bl, d, ty, &tmp);
        CASE("MPI_Type_struct {lb@-8, int@0, ub@24}", tmp, 4, -8, 32, 0, 4);
    }
#undef CASE
#undef MPICH_GIVES
    for (int i = 0; i < n; i++) {
        errs += check_bounds(&cases[i]);
        MPI_Type_commit(&cases[i].t);
        errs += check_bounds(&cases[i]);
    }
    for (int i = 0; i < n; i++)
        MPI_Type_free(&cases[i].t);
    return errs;
}

/* ---- contents ---- */

static int test_contents(void)
{
    int errs = 0, ni = -1, na = -1, nt = -1, comb = -1;
    MPI_Datatype a = make_a();
    MPI_Type_get_envelope(a, &ni, &na, &nt, &comb);
    MTEST_CHECK_INT(errs, MPI_COMBINER_STRUCT, comb, "A: combiner");
    MTEST_CHECK_INT(errs, 5, ni, "A: integers");
    MTEST_CHECK_INT(errs, 4, na, "A: addresses");
    MTEST_CHECK_INT(errs, 4, nt, "A: types");
    if (ni == 5 && na == 4 && nt == 4) {
        int ints[5];
        MPI_Aint aints[4];
        MPI_Datatype types[4];
        MPI_Type_get_contents(a, 5, 4, 4, ints, aints, types);
        const MPI_Aint d[] = {-8, 0, 8, 24};
        const MPI_Datatype ty[] = {MPI_LB, MPI_INT, MPI_DOUBLE, MPI_UB};
        MTEST_CHECK_INT(errs, 4, ints[0], "A: contents count");
        for (int i = 0; i < 4; i++) {
            MTEST_CHECK_INT(errs, 1, ints[1 + i], "A: blocklength %d", i);
            MTEST_CHECK_INT(errs, d[i], aints[i], "A: displacement %d", i);
            if (types[i] != ty[i])
                MTEST_FAIL(errs, "A: type %d is %#lx, expected the named %#lx", i,
                           (unsigned long)types[i], (unsigned long)ty[i]);
            /* Named types come back as themselves (not to be freed). */
            int e[3], c = -1;
            MPI_Type_get_envelope(types[i], &e[0], &e[1], &e[2], &c);
            MTEST_CHECK_INT(errs, MPI_COMBINER_NAMED, c, "A: combiner of type %d", i);
        }
    }
    MPI_Type_free(&a);
    return errs;
}

/* ---- communication ---- */

/* A type's data in one element: pieces (offset, length) in typemap order. */
typedef struct {
    int n;
    MPI_Aint off[8], len[8];
} layout_t;

static MPI_Aint layout_size(const layout_t *l)
{
    MPI_Aint s = 0;
    for (int i = 0; i < l->n; i++)
        s += l->len[i];
    return s;
}

/* Room for count elements of a type of bounds [lb, lb + ext) plus one element of guard
 * before and after, so the origin is at buf + pad. */
typedef struct {
    unsigned char *buf;
    size_t bytes, pad;
} tbuf_t;

static tbuf_t tbuf_alloc(size_t count, MPI_Aint lb, MPI_Aint ext)
{
    tbuf_t b;
    b.pad = (size_t)(ext + (lb < 0 ? -lb : 0) + 64);
    b.bytes = count * (size_t)ext + 2 * b.pad;
    b.buf = mtest_malloc(b.bytes);
    return b;
}

/* Receiving count elements of (t, lay) at origin: the data bytes equal the sender's (filled
 * with seed over the same buffer shape), every other byte of the buffer is still guard. */
static int check_typed(const tbuf_t *b, size_t count, MPI_Aint ext, const layout_t *lay, int seed,
                       const char *what)
{
    int errs = 0;
    unsigned char *want = mtest_malloc(b->bytes);
    unsigned char *mask = calloc(b->bytes, 1);
    mtest_fill_guard(want, b->bytes);
    for (size_t k = 0; k < count; k++)
        for (int p = 0; p < lay->n; p++)
            for (MPI_Aint j = 0; j < lay->len[p]; j++) {
                size_t at = b->pad + k * (size_t)ext + (size_t)(lay->off[p] + j);
                want[at] = mtest_pattern_byte(at, seed);
                mask[at] = 1;
            }
    for (size_t i = 0; i < b->bytes; i++) {
        if (b->buf[i] != want[i]) {
            MTEST_FAIL(errs, "%s: byte at offset %ld from the origin is %#x, expected %#x (%s)",
                       what, (long)i - (long)b->pad, b->buf[i], want[i],
                       mask[i] ? "data" : "a gap, must be untouched");
            break;
        }
    }
    free(want);
    free(mask);
    return errs;
}

/* The packed stream of count elements: the data pieces in typemap order. */
static void pack_expected(const tbuf_t *b, size_t count, MPI_Aint ext, const layout_t *lay,
                          int seed, unsigned char *out)
{
    size_t o = 0;
    for (size_t k = 0; k < count; k++)
        for (int p = 0; p < lay->n; p++)
            for (MPI_Aint j = 0; j < lay->len[p]; j++) {
                size_t at = b->pad + k * (size_t)ext + (size_t)(lay->off[p] + j);
                out[o++] = mtest_pattern_byte(at, seed);
            }
}

enum { AS_TYPE, TYPE_TO_BYTES, BYTES_TO_TYPE };

/* Sends count elements of t from rank 0 to the last rank, one of three ways. */
static int exchange(MPI_Datatype t, const char *tname, const layout_t *lay, size_t count, int how,
                    int tag)
{
    int errs = 0, src = 0, dst = mtest_size - 1;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    size_t size = count * (size_t)layout_size(lay);
    int seed = tag;
    char what[160];
    snprintf(what, sizeof what, "%s count %zu %s", tname, count,
             how == AS_TYPE         ? "as itself"
             : how == TYPE_TO_BYTES ? "received as bytes"
                                    : "sent as bytes");
#if AGAINST_MPICH
    /* Debian's MPICH 4.0.2 (ch4:ucx) reports MPI_ERR_TRUNCATE and leaves data out when bytes
     * of a few KiB and more sent by another process are received into a noncontiguous type;
     * resized types without MPI_LB/MPI_UB just the same, so it is not about the markers. */
    static int noted;
    if (how == BYTES_TO_TYPE && size > 2048 && src != dst) {
        if (!noted++ && mtest_rank == 0)
            printf("note: bytes received as a noncontiguous type only up to 2 KiB: MPICH 4.0.2 "
                   "truncates larger ones\n");
        return 0;
    }
#endif
    /* Apart, for a rank that sends to itself. */
    tbuf_t sb = tbuf_alloc(count, lb, ext), tb = tbuf_alloc(count, lb, ext);
    unsigned char *sbytes = mtest_malloc(size + 64), *bytes = mtest_malloc(size + 64);
    MPI_Request rreq = MPI_REQUEST_NULL;
    if (mtest_rank == dst) {
        if (how == TYPE_TO_BYTES) {
            mtest_fill_guard(bytes, size + 64);
            MPI_Irecv(bytes, (int)size, MPI_BYTE, src, tag, MPI_COMM_WORLD, &rreq);
        } else {
            mtest_fill_guard(tb.buf, tb.bytes);
            MPI_Irecv(tb.buf + tb.pad, (int)count, t, src, tag, MPI_COMM_WORLD, &rreq);
        }
    }
    if (mtest_rank == src) {
        /* The sender's whole buffer holds the pattern, gaps included: only the data may move. */
        mtest_fill_bytes(sb.buf, sb.bytes, seed);
        int rc;
        if (how == BYTES_TO_TYPE) {
            pack_expected(&sb, count, ext, lay, seed, sbytes);
            rc = MPI_Send(sbytes, (int)size, MPI_BYTE, dst, tag, MPI_COMM_WORLD);
        } else {
            rc = MPI_Send(sb.buf + sb.pad, (int)count, t, dst, tag, MPI_COMM_WORLD);
        }
        MTEST_CHECK_RC(errs, rc, "send %s", what);
    }
    if (mtest_rank == dst) {
        MPI_Status st;
        int rc = MPI_Wait(&rreq, &st);
        MTEST_CHECK_RC(errs, rc, "receive %s", what);
        if (how == TYPE_TO_BYTES) {
            errs += mtest_check_status(&st, src, tag, MPI_BYTE, (int)size, what);
            unsigned char *want = mtest_malloc(size + 1);
            pack_expected(&tb, count, ext, lay, seed, want);
            if (memcmp(bytes, want, size) != 0)
                MTEST_FAIL(errs, "%s: the packed bytes are not the data in typemap order", what);
            errs += mtest_check_guard(bytes, size, size + 64, what);
            free(want);
        } else {
            int n = -1;
            MPI_Get_count(&st, t, &n);
            if (layout_size(lay) > 0)
                MTEST_CHECK_INT(errs, (long long)count, n, "%s: MPI_Get_count", what);
            MPI_Get_count(&st, MPI_BYTE, &n);
            MTEST_CHECK_INT(errs, (long long)size, n, "%s: bytes received", what);
            errs += check_typed(&tb, count, ext, lay, seed, what);
        }
    }
    free(sb.buf);
    free(tb.buf);
    free(sbytes);
    free(bytes);
    return errs;
}

static int test_comm(void)
{
    int errs = 0, tag = 0;
    MPI_Datatype a = make_a(), n, v, c;
    const layout_t la = {2, {0, 8}, {4, 8}};
    {
        const int bl[] = {2, 1};
        const MPI_Aint d[] = {0, 60};
        const MPI_Datatype ty[] = {a, MPI_CHAR};
        n = make_struct(2, bl, d, ty);
    }
    const layout_t ln = {5, {0, 8, 32, 40, 60}, {4, 8, 4, 8, 1}};
    MPI_Type_vector(3, 1, 2, a, &v);
    const layout_t lv = {6, {0, 8, 64, 72, 128, 136}, {4, 8, 4, 8, 4, 8}};
    {
        const MPI_Aint d[] = {0, 4, 8};
        const MPI_Datatype ty[] = {MPI_INT, MPI_INT, MPI_UB};
        c = make_struct(3, ONES, d, ty);
    }
    const layout_t lc = {1, {0}, {8}};
    const layout_t lnone = {0, {0}, {0}};
    MPI_Type_commit(&a);
    MPI_Type_commit(&n);
    MPI_Type_commit(&v);
    MPI_Type_commit(&c);

    /* Counts from none to 768 KiB of data (every protocol), the small ones several times so
     * that many small messages follow each other. */
    static const size_t counts[] = {0, 1, 2, 3, 5, 8,  16,  1,    2,    3,    5,     8,    16,
                                    1, 2, 3, 5, 8, 16, 100, 1000, 4096, 8192, 16384, 65536};
    const int ncounts = (int)(sizeof counts / sizeof counts[0]);
    for (int i = 0; i < ncounts; i++)
        for (int how = AS_TYPE; how <= BYTES_TO_TYPE; how++)
            errs += exchange(a, "A", &la, counts[i], how, tag++);
    static const size_t few[] = {0, 1, 2, 7, 1000, 20000};
    for (int i = 0; i < (int)(sizeof few / sizeof few[0]); i++) {
        for (int how = AS_TYPE; how <= BYTES_TO_TYPE; how++) {
            errs += exchange(n, "N", &ln, few[i], how, tag++);
            errs += exchange(v, "vector(3, 1, 2, A)", &lv, few[i], how, tag++);
            errs += exchange(c, "C", &lc, few[i], how, tag++);
        }
        /* The markers alone: any count moves nothing. */
        errs += exchange(MPI_LB, "MPI_LB", &lnone, few[i], AS_TYPE, tag++);
        errs += exchange(MPI_UB, "MPI_UB", &lnone, few[i], AS_TYPE, tag++);
    }
    MPI_Type_free(&a);
    MPI_Type_free(&n);
    MPI_Type_free(&v);
    MPI_Type_free(&c);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += check_marker(MPI_LB, "MPI_LB");
    errs += check_marker(MPI_UB, "MPI_UB");
    errs += test_bounds();
    errs += test_contents();
    errs += test_comm();
    return MTest_Finalize(errs);
}
