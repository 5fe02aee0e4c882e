/* type_table.h: datatypes whose bounds were worked out by hand from the standard's definitions
 * (MPI-4.1 5.1: the type map, lb = least displacement, ub = greatest end rounded up by the
 * alignment epsilon, lb/ub markers set by MPI_Type_create_resized and the array constructors,
 * which win over the data and survive nesting).  Shared by test/mpi/type_bounds.c (the library
 * against the numbers) and test/unit/dtype_random.c (its bounds oracle against the numbers).
 * The numbers assume the x86-64 / aarch64 C alignments: double 8, int 4, short 2, char 1.
 *
 * S below is struct { double at 0; char at 8 }: 9 bytes of data, extent 16. */
#ifndef TYPE_TABLE_H_INCLUDED
#define TYPE_TABLE_H_INCLUDED

#include "type_gen.h"

static inline tg_type *tt_basic(MPI_Datatype dt)
{
    tg_type *t = tg_new(MPI_COMBINER_NAMED);
    for (int i = 0; i < TG_NBASICS; i++)
        if (tg_basics[i].dt == dt)
            t->basic = &tg_basics[i];
    if (!t->basic) {
        fprintf(stderr, "type_table: no such basic type\n");
        abort();
    }
    t->h = dt;
    t->nel = t->basic->pair_off ? 2 : 1;
    return t;
}

static inline tg_type *tt_one(int comb, tg_type *k)
{
    tg_type *t = tg_new(comb);
    t->nkids = 1;
    t->kids = tg_alloc(sizeof(*t->kids));
    t->kids[0] = k;
    return t;
}

static inline tg_type *tt_contig(int count, tg_type *k)
{
    tg_type *t = tt_one(MPI_COMBINER_CONTIGUOUS, k);
    t->count = count;
    return t;
}

static inline tg_type *tt_vector(int count, int blocklen, int stride, tg_type *k)
{
    tg_type *t = tt_one(MPI_COMBINER_VECTOR, k);
    t->count = count;
    t->blocklen = blocklen;
    t->stride = stride;
    return t;
}

static inline tg_type *tt_hvector(int count, int blocklen, MPI_Aint stride, tg_type *k)
{
    tg_type *t = tt_one(MPI_COMBINER_HVECTOR, k);
    t->count = count;
    t->blocklen = blocklen;
    t->hstride = stride;
    return t;
}

static inline tg_type *tt_hindexed(int count, const int *bls, const MPI_Aint *ads, tg_type *k)
{
    tg_type *t = tt_one(MPI_COMBINER_HINDEXED, k);
    t->count = count;
    t->bls = tg_alloc(count * sizeof(int));
    t->ids = tg_alloc(count * sizeof(int));
    t->ads = tg_alloc(count * sizeof(MPI_Aint));
    memcpy(t->bls, bls, count * sizeof(int));
    memcpy(t->ads, ads, count * sizeof(MPI_Aint));
    return t;
}

static inline tg_type *tt_resized(tg_type *k, MPI_Aint lb, MPI_Aint extent)
{
    tg_type *t = tt_one(MPI_COMBINER_RESIZED, k);
    t->rlb = lb;
    t->rextent = extent;
    return t;
}

/* 1-dimensional subarray: sub elements from start of an array of size. */
static inline tg_type *tt_subarray1(int size, int sub, int start, tg_type *k)
{
    tg_type *t = tt_one(MPI_COMBINER_SUBARRAY, k);
    t->ndims = 1;
    t->order = MPI_ORDER_C;
    t->sizes[0] = size;
    t->subsizes[0] = sub;
    t->starts[0] = start;
    return t;
}

/* struct of n members: blocklens, byte displacements, member types. */
static inline tg_type *tt_struct(int n, const int *bls, const MPI_Aint *ads, tg_type **kids)
{
    tg_type *t = tg_new(MPI_COMBINER_STRUCT);
    t->count = t->nkids = n;
    t->kids = tg_alloc(n * sizeof(*t->kids));
    t->bls = tg_alloc(n * sizeof(int));
    t->ads = tg_alloc(n * sizeof(MPI_Aint));
    for (int i = 0; i < n; i++) {
        t->kids[i] = kids[i];
        t->bls[i] = bls[i];
        t->ads[i] = ads[i];
    }
    return t;
}

#define TT_STRUCT(...)                                                                             \
    ({                                                                                             \
        struct {                                                                                   \
            int bl;                                                                                \
            MPI_Aint d;                                                                            \
            tg_type *k;                                                                            \
        } m_[] = {__VA_ARGS__};                                                                    \
        int n_ = (int)(sizeof m_ / sizeof m_[0]), b_[8];                                           \
        MPI_Aint a_[8];                                                                            \
        tg_type *k_[8];                                                                            \
        for (int i_ = 0; i_ < n_; i_++)                                                            \
            b_[i_] = m_[i_].bl, a_[i_] = m_[i_].d, k_[i_] = m_[i_].k;                              \
        tt_struct(n_, b_, a_, k_);                                                                 \
    })

/* S = struct { double at 0; char at 8 }. */
static inline tg_type *tt_S(void)
{
    return TT_STRUCT({1, 0, tt_basic(MPI_DOUBLE)}, {1, 8, tt_basic(MPI_CHAR)});
}

typedef struct {
    const char *name;
    tg_type *(*make)(void);
    long size;
    MPI_Aint lb, extent, true_lb, true_extent;
} tt_case_t;

/* Each case: the type, and size, lb, extent, true lb, true extent by hand. */
static inline tg_type *tt_c1(void)
{
    return tt_contig(3, tt_S());
}
static inline tg_type *tt_c2(void)
{
    return tt_vector(2, 1, 3, tt_S());
}
static inline tg_type *tt_c3(void)
{
    return tt_vector(2, 1, -1, tt_S());
}
static inline tg_type *tt_c4(void)
{
    return tt_resized(tt_S(), -4, 20);
}
static inline tg_type *tt_c5(void)
{
    return tt_contig(2, tt_c4());
}
static inline tg_type *tt_c6(void)
{
    return TT_STRUCT({1, 100, tt_c4()}, {1, 0, tt_basic(MPI_CHAR)});
}
static inline tg_type *tt_c7(void)
{
    static const int bl[2] = {1, 1};
    static const MPI_Aint d[2] = {-32, 8};
    return tt_hindexed(2, bl, d, tt_S());
}
static inline tg_type *tt_c8(void)
{
    return TT_STRUCT({1, 0, tt_basic(MPI_CHAR)}, {1, 1, tt_basic(MPI_DOUBLE)});
}
static inline tg_type *tt_c9(void)
{
    return TT_STRUCT({1, 0, tt_basic(MPI_CHAR)}, {1, 1, tt_basic(MPI_CHAR)});
}
static inline tg_type *tt_c10(void)
{
    return TT_STRUCT({1, 0, tt_basic(MPI_INT)}, {1, 4, tt_basic(MPI_CHAR)},
                     {1, 6, tt_basic(MPI_SHORT)});
}
static inline tg_type *tt_c11(void)
{
    return TT_STRUCT({0, 0, tt_S()}, {1, 0, tt_basic(MPI_CHAR)});
}
static inline tg_type *tt_c12(void)
{
    return tt_subarray1(4, 2, 1, tt_S());
}
static inline tg_type *tt_c13(void)
{
    return tt_resized(tt_S(), 0, -16);
}
static inline tg_type *tt_c14(void)
{
    return tt_contig(2, tt_resized(tt_basic(MPI_INT), 0, -16));
}
static inline tg_type *tt_c15(void)
{
    return TT_STRUCT({1, 0, tt_basic(MPI_SHORT)}, {2, 8, tt_S()});
}
static inline tg_type *tt_c16(void)
{
    return TT_STRUCT({1, -50, tt_c4()}, {1, 10, tt_basic(MPI_DOUBLE)});
}
static inline tg_type *tt_c17(void)
{
    return tt_contig(0, tt_S());
}
static inline tg_type *tt_c18(void)
{
    return TT_STRUCT({0, 0, tt_c4()}, {1, 0, tt_basic(MPI_INT)});
}
static inline tg_type *tt_c19(void)
{
    return tt_hvector(2, 1, -20, tt_c4());
}
static inline tg_type *tt_c20(void)
{
    return tt_contig(2, tt_c12());
}
static inline tg_type *tt_c21(void)
{
    static const int bl[2] = {1, 1};
    static const MPI_Aint d[2] = {0, 20};
    return tt_hindexed(2, bl, d, tt_S());
}
static inline tg_type *tt_c22(void)
{
    return TT_STRUCT({3, 128, tt_contig(0, tt_basic(MPI_INT))}, {1, 0, tt_basic(MPI_CHAR)});
}
static inline tg_type *tt_c23(void)
{
    static const int bl[1] = {3};
    static const MPI_Aint d[1] = {128};
    return tt_hindexed(1, bl, d, tt_contig(0, tt_basic(MPI_INT)));
}
static inline tg_type *tt_c24(void)
{
    static const int bl[1] = {1};
    static const MPI_Aint d[1] = {41};
    return tt_hindexed(1, bl, d, tt_resized(tt_contig(0, tt_basic(MPI_INT)), -8, 10));
}

static const tt_case_t tt_cases[] = {
    /* name, make, size, lb, extent, true lb, true extent */
    {"S = struct{double@0, char@8}", tt_S, 9, 0, 16, 0, 9},
    {"contiguous(3, S)", tt_c1, 27, 0, 48, 0, 41},
    {"vector(2, 1, 3, S)", tt_c2, 18, 0, 64, 0, 57},
    {"vector(2, 1, -1, S): negative stride", tt_c3, 18, -16, 32, -16, 25},
    {"resized(S, -4, 20)", tt_c4, 9, -4, 20, 0, 9},
    {"contiguous(2, resized(S, -4, 20))", tt_c5, 18, -4, 40, 0, 29},
    {"struct{resized(S,-4,20)@100, char@0}: markers win over lower data", tt_c6, 10, 96, 20, 0,
     109},
    {"hindexed({1,1}, {-32,8}, S): negative displacement", tt_c7, 18, -32, 56, -32, 49},
    {"struct{char@0, double@1}: padded to the double", tt_c8, 9, 0, 16, 0, 9},
    {"struct{char@0, char@1}: no padding", tt_c9, 2, 0, 2, 0, 2},
    {"struct{int@0, char@4, short@6}", tt_c10, 7, 0, 8, 0, 8},
    {"struct{0 x S@0, char@0}: an empty member adds nothing", tt_c11, 1, 0, 1, 0, 1},
    {"subarray({4}, {2}, {1}, S)", tt_c12, 18, 0, 64, 16, 25},
    {"resized(S, 0, -16): negative extent", tt_c13, 9, 0, -16, 0, 9},
    {"contiguous(2, resized(int, 0, -16))", tt_c14, 8, -16, 0, -16, 20},
    {"struct{short@0, 2 x S@8}", tt_c15, 20, 0, 40, 0, 33},
    {"struct{resized(S,-4,20)@-50, double@10}", tt_c16, 17, -54, 20, -50, 68},
    {"contiguous(0, S): empty", tt_c17, 0, 0, 0, 0, 0},
    {"struct{0 x resized(S,-4,20)@0, int@0}: no markers from an empty member", tt_c18, 4, 0, 4, 0,
     4},
    {"hvector(2, 1, -20B, resized(S, -4, 20))", tt_c19, 18, -24, 40, -20, 29},
    {"contiguous(2, subarray({4}, {2}, {1}, S))", tt_c20, 36, 0, 128, 16, 89},
    /* The epsilon pads the data's own span (29 -> 32), not the last copy's padded end (36). */
    {"hindexed({1,1}, {0,20}, S): epsilon of the data, not of the copies", tt_c21, 18, 0, 32, 0,
     29},
    {"struct{3 x contiguous(0, int)@128, char@0}: an empty element adds no bound", tt_c22, 1, 0, 1,
     0, 1},
    {"hindexed(3@128, contiguous(0, int)): empty", tt_c23, 0, 0, 0, 0, 0},
    {"hindexed(1@41, resized(contiguous(0, int), -8, 10)): markers without data", tt_c24, 0, 33, 10,
     0, 0},
};
#define TT_NCASES ((int)(sizeof tt_cases / sizeof tt_cases[0]))

#endif /* TYPE_TABLE_H_INCLUDED */
