/* op_test.c: unit test of datatype/op.c, the predefined reduction kernels.
 *
 * For every predefined datatype and every predefined operation it checks
 * MPIR_Op_check against the MPI standard's table (written out again here, by
 * category), and for every defined pair runs MPIR_Op_apply over the cross
 * product of a pool of awkward values (negative numbers, extremes that wrap,
 * ties with different indices for MAXLOC/MINLOC), once from an aligned start
 * and once from the second element so vector prologues and epilogues run.
 * Expected results come from reference code written differently from the
 * kernels: integers in 128-bit arithmetic truncated to the type's width,
 * complex numbers with C's own _Complex arithmetic, pairs with if/else.
 *
 * Build: gcc -std=gnu11 -Wall -Wextra -Iinclude -Idatatype test/unit/op_test.c datatype/op.c
 * Exit status 0 when every check passed; each failure prints its values.
 */
#include "op.h"

#include <complex.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

static long passed, failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            if (failed <= 200) {                                               \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
                fprintf(stderr, __VA_ARGS__);                                  \
                fputc('\n', stderr);                                           \
            }                                                                  \
        }                                                                      \
    } while (0)

/* ---- the standard's table, by category ---- */

enum cat {
    CAT_C_INTEGER,  /* signed/unsigned char .. long long, intN_t, uintN_t */
    CAT_CHAR,       /* MPI_CHAR: a C integer by extension (as MPICH, Open MPI) */
    CAT_MULTI,      /* MPI_AINT, MPI_OFFSET, MPI_COUNT */
    CAT_FLOATING,
    CAT_COMPLEX,
    CAT_LOGICAL,    /* MPI_C_BOOL, MPI_CXX_BOOL, MPI_LOGICAL */
    CAT_F_INTEGER,  /* MPI_INTEGER, MPI_INTEGER1 .. 8: no logical operation */
    CAT_BYTE,
    CAT_PAIR,       /* MPI_FLOAT_INT ... */
    CAT_CHARACTER,  /* MPI_WCHAR, MPI_CHARACTER: no reduction */
    CAT_PACKED,     /* no operation at all */
    CAT_MARKER,     /* MPI_LB, MPI_UB: no data, no operation at all */
};

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {
    {MPI_MAX, "MPI_MAX"},       {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
    {MPI_PROD, "MPI_PROD"},     {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
    {MPI_LOR, "MPI_LOR"},       {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
    {MPI_BXOR, "MPI_BXOR"},     {MPI_MINLOC, "MPI_MINLOC"}, {MPI_MAXLOC, "MPI_MAXLOC"},
    {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static int allowed(enum cat c, MPI_Op op)
{
    const int maxmin = op == MPI_MAX || op == MPI_MIN;
    const int arith = op == MPI_SUM || op == MPI_PROD;
    const int logical = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
    const int bitwise = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
    const int loc = op == MPI_MAXLOC || op == MPI_MINLOC;
    if (c == CAT_PACKED || c == CAT_MARKER)
        return 0;
    if (op == MPI_REPLACE || op == MPI_NO_OP)
        return 1;
    switch (c) {
    case CAT_C_INTEGER:
    case CAT_CHAR:
        return maxmin || arith || logical || bitwise;
    case CAT_MULTI: /* logical too: an extension, as in MPICH and Open MPI */
        return maxmin || arith || logical || bitwise;
    case CAT_F_INTEGER:
        return maxmin || arith || bitwise;
    case CAT_FLOATING:
        return maxmin || arith;
    case CAT_COMPLEX:
        return arith;
    case CAT_LOGICAL:
        return logical;
    case CAT_BYTE:
        return bitwise;
    case CAT_PAIR:
        return loc;
    default:
        return 0;
    }
}

/* Checks MPIR_Op_check for every op on one type; returns nothing. */
static void check_table(MPI_Datatype t, const char *tname, enum cat c)
{
    for (int o = 0; o < NOPS; o++) {
        int want = allowed(c, ops[o].op) ? MPI_SUCCESS : MPI_ERR_OP;
        int got = MPIR_Op_check(ops[o].op, t);
        CHECK(got == want, "MPIR_Op_check(%s, %s) = %d, want %d", ops[o].name, tname, got, want);
    }
}

/* Pool size and element count of the cross product in[i]=pool[i/P],
 * inout[i]=pool[i%P]. */
#define P 14
#define N (P * P)

/* ---- integers: reference in 128-bit arithmetic ---- */

static i128 truncate_to(u128 v, int bytes, int is_signed)
{
    const int bits = 8 * bytes;
    if (bits == 128) /* the reference's own width: nothing to cut (and no shift by 128) */
        return (i128)v;
    const u128 mask = (((u128)1) << bits) - 1;
    v &= mask;
    if (is_signed && (v >> (bits - 1)) & 1)
        return (i128)v - (i128)(((u128)1) << bits);
    return (i128)v;
}

static i128 ref_int(MPI_Op op, i128 a, i128 b, int bytes, int is_signed)
{
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_SUM) return truncate_to((u128)a + (u128)b, bytes, is_signed);
    if (op == MPI_PROD) return truncate_to((u128)a * (u128)b, bytes, is_signed);
    if (op == MPI_LAND) return (a != 0) && (b != 0);
    if (op == MPI_LOR) return (a != 0) || (b != 0);
    if (op == MPI_LXOR) return (a != 0) != (b != 0);
    if (op == MPI_BAND) return truncate_to((u128)a & (u128)b, bytes, is_signed);
    if (op == MPI_BOR) return truncate_to((u128)a | (u128)b, bytes, is_signed);
    if (op == MPI_BXOR) return truncate_to((u128)a ^ (u128)b, bytes, is_signed);
    if (op == MPI_REPLACE) return a;
    if (op == MPI_NO_OP) return b;
    abort();
}

static void int_pool(i128 *pool, int bytes, int is_signed, int boolean)
{
    const int bits = 8 * bytes;
    if (boolean) { /* C_BOOL holds 0 or 1 only */
        for (int i = 0; i < P; i++)
            pool[i] = (i * 5 / 3) & 1;
        return;
    }
    const i128 umax = bits == 128 ? (i128)~(u128)0 : (i128)((((u128)1) << bits) - 1);
    const i128 smax = (i128)((((u128)1) << (bits - 1)) - 1);
    const i128 pattern = truncate_to((u128)0x5a5a5a5a5a5a5a5aULL, bytes, is_signed);
    if (is_signed) {
        const i128 smin = -smax - 1;
        const i128 v[P] = {0, 1, -1, 2, -2, 3, -7, smax, smin, smax - 1, smin + 1, pattern,
                           -pattern, smax / 3};
        memcpy(pool, v, sizeof v);
    } else {
        const i128 v[P] = {0, 1, 2, 3, 7, umax, umax - 1, umax / 2, umax / 2 + 1, pattern,
                           umax ^ pattern, 100, umax / 3, 1};
        memcpy(pool, v, sizeof v);
    }
}

#define INT_TEST(fname, T)                                                     \
    static void fname(MPI_Datatype t, const char *tname, enum cat c)           \
    {                                                                          \
        const int sgn = (T)-1 < (T)1;                                          \
        const int bytes = (int)sizeof(T);                                      \
        i128 pool[P];                                                          \
        static T in[N], io0[N], io[N];                                         \
        check_table(t, tname, c);                                              \
        int_pool(pool, bytes, sgn, c == CAT_LOGICAL);                          \
        for (int i = 0; i < N; i++) {                                          \
            in[i] = (T)pool[i / P];                                            \
            io0[i] = (T)pool[i % P];                                           \
            CHECK((i128)in[i] == pool[i / P], "%s pool value does not fit", tname); \
        }                                                                      \
        for (int o = 0; o < NOPS; o++) {                                       \
            if (!allowed(c, ops[o].op))                                        \
                continue;                                                      \
            for (int off = 0; off < 2; off++) {                                \
                memcpy(io, io0, sizeof io);                                    \
                MPIR_Op_apply(ops[o].op, t, in + off, io + off, N - off);      \
                int bad = 0;                                                   \
                for (int i = 0; i < N; i++) {                                  \
                    i128 want = i < off ? (i128)io0[i]                         \
                                        : ref_int(ops[o].op, (i128)in[i], (i128)io0[i], \
                                                  bytes, sgn);                 \
                    if ((i128)io[i] != want && bad++ < 5)                      \
                        CHECK(0, "%s %s [%d] (offset %d): in=%lld inout=%lld -> got %lld, want %lld", \
                              ops[o].name, tname, i, off, (long long)in[i],    \
                              (long long)io0[i], (long long)io[i], (long long)want); \
                }                                                              \
                CHECK(bad == 0, "%s %s: %d wrong elements", ops[o].name, tname, bad); \
            }                                                                  \
        }                                                                      \
    }

/* Unsigned 64-bit values above LLONG_MAX print as negative numbers above;
 * the bit pattern is what matters. */
INT_TEST(test_char, char)
INT_TEST(test_schar, signed char)
INT_TEST(test_uchar, unsigned char)
INT_TEST(test_short, short)
INT_TEST(test_ushort, unsigned short)
INT_TEST(test_int, int)
INT_TEST(test_uint, unsigned)
INT_TEST(test_long, long)
INT_TEST(test_ulong, unsigned long)
INT_TEST(test_llong, long long)
INT_TEST(test_ullong, unsigned long long)
INT_TEST(test_bool, _Bool)
INT_TEST(test_i8, int8_t)
INT_TEST(test_i16, int16_t)
INT_TEST(test_i32, int32_t)
INT_TEST(test_i64, int64_t)
INT_TEST(test_u8, uint8_t)
INT_TEST(test_u16, uint16_t)
INT_TEST(test_u32, uint32_t)
INT_TEST(test_u64, uint64_t)
INT_TEST(test_aint, MPI_Aint)
INT_TEST(test_offset, MPI_Offset)
INT_TEST(test_count, MPI_Count)
INT_TEST(test_byte, unsigned char) /* MPI_BYTE: only the bitwise ops are allowed */
#ifdef MPIR_HAVE_INT128
INT_TEST(test_i128, MPIR_int128_t) /* MPI_INTEGER16 */
#endif

/* ---- floating point: reference in the type itself ---- */

#define FLOAT_TEST(fname, T)                                                   \
    static void fname(MPI_Datatype t, const char *tname, enum cat c)           \
    {                                                                          \
        const T pool[P] = {0, 1, -1, 2.5, -2.5, 3, 1e3, -1e3, 0.125, (T)1e30,  \
                           -7, (T)-1e30, 3, (T)1e-30};                         \
        static T in[N], io0[N], io[N];                                         \
        check_table(t, tname, c);                                              \
        for (int i = 0; i < N; i++) {                                          \
            in[i] = pool[i / P];                                               \
            io0[i] = pool[i % P];                                              \
        }                                                                      \
        for (int o = 0; o < NOPS; o++) {                                       \
            const MPI_Op op = ops[o].op;                                       \
            if (!allowed(c, op))                                               \
                continue;                                                      \
            for (int off = 0; off < 2; off++) {                                \
                memcpy(io, io0, sizeof io);                                    \
                MPIR_Op_apply(op, t, in + off, io + off, N - off);             \
                int bad = 0;                                                   \
                for (int i = 0; i < N; i++) {                                  \
                    T a = in[i], b = io0[i], want;                             \
                    if (i < off) want = b;                                     \
                    else if (op == MPI_MAX) want = a < b ? b : a;              \
                    else if (op == MPI_MIN) want = b < a ? b : a;              \
                    else if (op == MPI_SUM) want = b + a;                      \
                    else if (op == MPI_PROD) want = b * a;                     \
                    else if (op == MPI_REPLACE) want = a;                      \
                    else want = b;                                             \
                    if (io[i] != want && bad++ < 5)                            \
                        CHECK(0, "%s %s [%d] (offset %d): in=%Lg inout=%Lg -> got %Lg, want %Lg", \
                              ops[o].name, tname, i, off, (long double)a,      \
                              (long double)b, (long double)io[i], (long double)want); \
                }                                                              \
                CHECK(bad == 0, "%s %s: %d wrong elements", ops[o].name, tname, bad); \
            }                                                                  \
        }                                                                      \
    }

FLOAT_TEST(test_float, float)
FLOAT_TEST(test_double, double)
FLOAT_TEST(test_ldouble, long double)
#ifdef MPIR_HAVE_FLOAT128
FLOAT_TEST(test_quad, _Float128) /* MPI_REAL16 */
#endif

/* ---- complex: reference with C's _Complex arithmetic ---- */

#define COMPLEX_TEST(fname, R)                                                 \
    static void fname(MPI_Datatype t, const char *tname, enum cat c)           \
    {                                                                          \
        const R re[P] = {0, 1, 0, -1, 3, -2.5, 1, 4, -3, 0.5, 2, -1, 7, 0};     \
        const R im[P] = {0, 0, 1, 2, -4, 0.5, 1, -4, -3, 0.25, 0, -1, -2, -6};  \
        static R _Complex in[N], io0[N], io[N];                                \
        check_table(t, tname, c);                                              \
        for (int i = 0; i < N; i++) {                                          \
            in[i] = re[i / P] + im[i / P] * (R _Complex)I;                     \
            io0[i] = re[i % P] + im[i % P] * (R _Complex)I;                    \
        }                                                                      \
        for (int o = 0; o < NOPS; o++) {                                       \
            const MPI_Op op = ops[o].op;                                       \
            if (!allowed(c, op))                                               \
                continue;                                                      \
            for (int off = 0; off < 2; off++) {                                \
                memcpy(io, io0, sizeof io);                                    \
                MPIR_Op_apply(op, t, in + off, io + off, N - off);             \
                int bad = 0;                                                   \
                for (int i = 0; i < N; i++) {                                  \
                    R _Complex a = in[i], b = io0[i], want;                    \
                    if (i < off) want = b;                                     \
                    else if (op == MPI_SUM) want = a + b;                      \
                    else if (op == MPI_PROD) want = a * b;                     \
                    else if (op == MPI_REPLACE) want = a;                      \
                    else want = b;                                             \
                    if (io[i] != want && bad++ < 5)                            \
                        CHECK(0, "%s %s [%d] (offset %d): in=%Lg%+Lgi inout=%Lg%+Lgi -> " \
                              "got %Lg%+Lgi, want %Lg%+Lgi", ops[o].name, tname, i, off, \
                              (long double)creall(a), (long double)cimagl(a),  \
                              (long double)creall(b), (long double)cimagl(b),  \
                              (long double)creall(io[i]), (long double)cimagl(io[i]), \
                              (long double)creall(want), (long double)cimagl(want)); \
                }                                                              \
                CHECK(bad == 0, "%s %s: %d wrong elements", ops[o].name, tname, bad); \
            }                                                                  \
        }                                                                      \
    }

COMPLEX_TEST(test_cfloat, float)
COMPLEX_TEST(test_cdouble, double)
COMPLEX_TEST(test_cldouble, long double)
#ifdef MPIR_HAVE_FLOAT128
COMPLEX_TEST(test_cquad, _Float128) /* MPI_COMPLEX32 */
#endif

/* ---- value-index pairs ---- */

#define PAIR_TEST_K(fname, T, K)                                                  \
    static void fname(MPI_Datatype t, const char *tname, enum cat c)           \
    {                                                                          \
        struct pair {                                                          \
            T v;                                                               \
            K k;                                                               \
        };                                                                     \
        /* equal values with different indices, negative values and indices */ \
        const T v[P] = {-3, -3, 5, 5, 0, 7, -8, 5, 0, -3, 7, -8, 100, -100};   \
        const K k[P] = {4, 2, 9, 1, 0, 3, -1, 9, 5, -6, 3, 8, 0, 2};           \
        static struct pair in[N], io0[N], io[N];                               \
        check_table(t, tname, c);                                              \
        memset(in, 0, sizeof in); /* padding compares equal under memcmp */    \
        memset(io0, 0, sizeof io0);                                            \
        for (int i = 0; i < N; i++) {                                          \
            in[i].v = v[i / P], in[i].k = k[i / P];                            \
            io0[i].v = v[i % P], io0[i].k = k[i % P];                          \
        }                                                                      \
        for (int o = 0; o < NOPS; o++) {                                       \
            const MPI_Op op = ops[o].op;                                       \
            if (!allowed(c, op))                                               \
                continue;                                                      \
            for (int off = 0; off < 2; off++) {                                \
                memcpy(io, io0, sizeof io);                                    \
                MPIR_Op_apply(op, t, in + off, io + off, N - off);             \
                int bad = 0;                                                   \
                for (int i = 0; i < N; i++) {                                  \
                    struct pair a = in[i], b = io0[i], want = b;               \
                    if (i < off) {                                             \
                        want = b;                                              \
                    } else if (op == MPI_MAXLOC || op == MPI_MINLOC) {         \
                        int a_wins = op == MPI_MAXLOC ? a.v > b.v : a.v < b.v; \
                        int b_wins = op == MPI_MAXLOC ? b.v > a.v : b.v < a.v; \
                        if (a_wins) {                                          \
                            want = a;                                          \
                        } else if (b_wins) {                                   \
                            want = b;                                          \
                        } else {                                               \
                            want.v = a.v;                                      \
                            want.k = a.k <= b.k ? a.k : b.k;                   \
                        }                                                      \
                    } else if (op == MPI_REPLACE) {                            \
                        want = a;                                              \
                    }                                                          \
                    if ((io[i].v != want.v || io[i].k != want.k) && bad++ < 5) \
                        CHECK(0, "%s %s [%d] (offset %d): in=(%Lg,%d) inout=(%Lg,%d) -> " \
                              "got (%Lg,%d), want (%Lg,%d)", ops[o].name, tname, i, off, \
                              (long double)a.v, (int)a.k, (long double)b.v, (int)b.k,\
                              (long double)io[i].v, (int)io[i].k, (long double)want.v, (int)want.k); \
                }                                                              \
                CHECK(bad == 0, "%s %s: %d wrong elements", ops[o].name, tname, bad); \
            }                                                                  \
        }                                                                      \
    }
#define PAIR_TEST(fname, T) PAIR_TEST_K(fname, T, int)

PAIR_TEST(test_float_int, float)
PAIR_TEST(test_double_int, double)
PAIR_TEST(test_long_int, long)
PAIR_TEST(test_2int, int)
PAIR_TEST(test_short_int, short)
PAIR_TEST(test_long_double_int, long double)
PAIR_TEST_K(test_2integer, int32_t, int32_t)
PAIR_TEST_K(test_2real, float, float)
PAIR_TEST_K(test_2double_precision, double, double)

/* ---- types with no arithmetic: MPI_WCHAR (replace and no-op), MPI_PACKED ---- */

static void test_bytes_only(MPI_Datatype t, const char *tname, enum cat c, size_t size)
{
    enum { COUNT = 37 };
    unsigned char in[COUNT * 32], io0[COUNT * 32], io[COUNT * 32];
    check_table(t, tname, c);
    for (size_t i = 0; i < sizeof in; i++) {
        in[i] = (unsigned char)(i * 7 + 1);
        io0[i] = (unsigned char)(i * 13 + 5);
    }
    for (int o = 0; o < NOPS; o++) {
        if (!allowed(c, ops[o].op))
            continue;
        memcpy(io, io0, sizeof io);
        MPIR_Op_apply(ops[o].op, t, in, io, COUNT);
        const unsigned char *want = ops[o].op == MPI_REPLACE ? in : io0;
        CHECK(memcmp(io, want, COUNT * size) == 0 &&
                  memcmp(io + COUNT * size, io0 + COUNT * size, sizeof io - COUNT * size) == 0,
              "%s %s: wrong bytes (or bytes beyond count touched)", ops[o].name, tname);
    }
}

static void test_wchar(MPI_Datatype t, const char *tname, enum cat c)
{
    test_bytes_only(t, tname, c, sizeof(wchar_t));
}

static void test_character(MPI_Datatype t, const char *tname, enum cat c)
{
    test_bytes_only(t, tname, c, 1);
}

/* The 16-byte Fortran kinds where the compiler has no C type for them: data, no reduction. */
#if !defined(MPIR_HAVE_INT128) || !defined(MPIR_HAVE_FLOAT128)
static void test_opaque16(MPI_Datatype t, const char *tname, enum cat c)
{
    test_bytes_only(t, tname, c, 16);
}
#endif
#ifndef MPIR_HAVE_FLOAT128
static void test_opaque32(MPI_Datatype t, const char *tname, enum cat c)
{
    test_bytes_only(t, tname, c, 32);
}
#endif

static void test_packed(MPI_Datatype t, const char *tname, enum cat c)
{
    test_bytes_only(t, tname, c, 1);
}

/* MPI-1's bound markers: every operation refused (MPI_ERR_OP, as for MPI_PACKED). */
static void test_marker(MPI_Datatype t, const char *tname, enum cat c)
{
    check_table(t, tname, c);
}

/* ---- the list of every predefined datatype ---- */

static const struct {
    MPI_Datatype t;
    const char *name;
    enum cat c;
    void (*fn)(MPI_Datatype, const char *, enum cat);
} types[] = {
    {MPI_CHAR, "MPI_CHAR", CAT_CHAR, test_char},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", CAT_C_INTEGER, test_schar},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", CAT_C_INTEGER, test_uchar},
    {MPI_BYTE, "MPI_BYTE", CAT_BYTE, test_byte},
    {MPI_WCHAR, "MPI_WCHAR", CAT_CHARACTER, test_wchar},
    {MPI_SHORT, "MPI_SHORT", CAT_C_INTEGER, test_short},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", CAT_C_INTEGER, test_ushort},
    {MPI_INT, "MPI_INT", CAT_C_INTEGER, test_int},
    {MPI_UNSIGNED, "MPI_UNSIGNED", CAT_C_INTEGER, test_uint},
    {MPI_LONG, "MPI_LONG", CAT_C_INTEGER, test_long},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", CAT_C_INTEGER, test_ulong},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", CAT_C_INTEGER, test_llong},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", CAT_C_INTEGER, test_ullong},
    {MPI_FLOAT, "MPI_FLOAT", CAT_FLOATING, test_float},
    {MPI_DOUBLE, "MPI_DOUBLE", CAT_FLOATING, test_double},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", CAT_FLOATING, test_ldouble},
    {MPI_C_BOOL, "MPI_C_BOOL", CAT_LOGICAL, test_bool},
    {MPI_INT8_T, "MPI_INT8_T", CAT_C_INTEGER, test_i8},
    {MPI_INT16_T, "MPI_INT16_T", CAT_C_INTEGER, test_i16},
    {MPI_INT32_T, "MPI_INT32_T", CAT_C_INTEGER, test_i32},
    {MPI_INT64_T, "MPI_INT64_T", CAT_C_INTEGER, test_i64},
    {MPI_UINT8_T, "MPI_UINT8_T", CAT_C_INTEGER, test_u8},
    {MPI_UINT16_T, "MPI_UINT16_T", CAT_C_INTEGER, test_u16},
    {MPI_UINT32_T, "MPI_UINT32_T", CAT_C_INTEGER, test_u32},
    {MPI_UINT64_T, "MPI_UINT64_T", CAT_C_INTEGER, test_u64},
    {MPI_AINT, "MPI_AINT", CAT_MULTI, test_aint},
    {MPI_OFFSET, "MPI_OFFSET", CAT_MULTI, test_offset},
    {MPI_COUNT, "MPI_COUNT", CAT_MULTI, test_count},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", CAT_COMPLEX, test_cfloat},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", CAT_COMPLEX, test_cdouble},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", CAT_COMPLEX, test_cldouble},
    {MPI_PACKED, "MPI_PACKED", CAT_PACKED, test_packed},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", CAT_PAIR, test_float_int},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", CAT_PAIR, test_double_int},
    {MPI_LONG_INT, "MPI_LONG_INT", CAT_PAIR, test_long_int},
    {MPI_2INT, "MPI_2INT", CAT_PAIR, test_2int},
    {MPI_SHORT_INT, "MPI_SHORT_INT", CAT_PAIR, test_short_int},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", CAT_PAIR, test_long_double_int},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", CAT_LOGICAL, test_bool},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", CAT_COMPLEX, test_cfloat},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", CAT_COMPLEX, test_cdouble},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", CAT_COMPLEX, test_cldouble},
    {MPI_LB, "MPI_LB", CAT_MARKER, test_marker},
    {MPI_UB, "MPI_UB", CAT_MARKER, test_marker},
    {MPI_INTEGER, "MPI_INTEGER", CAT_F_INTEGER, test_i32},
    {MPI_REAL, "MPI_REAL", CAT_FLOATING, test_float},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", CAT_FLOATING, test_double},
    {MPI_COMPLEX, "MPI_COMPLEX", CAT_COMPLEX, test_cfloat},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", CAT_COMPLEX, test_cdouble},
    {MPI_LOGICAL, "MPI_LOGICAL", CAT_LOGICAL, test_i32},
    {MPI_CHARACTER, "MPI_CHARACTER", CAT_CHARACTER, test_character},
    {MPI_INTEGER1, "MPI_INTEGER1", CAT_F_INTEGER, test_i8},
    {MPI_INTEGER2, "MPI_INTEGER2", CAT_F_INTEGER, test_i16},
    {MPI_INTEGER4, "MPI_INTEGER4", CAT_F_INTEGER, test_i32},
    {MPI_INTEGER8, "MPI_INTEGER8", CAT_F_INTEGER, test_i64},
    {MPI_REAL4, "MPI_REAL4", CAT_FLOATING, test_float},
    {MPI_REAL8, "MPI_REAL8", CAT_FLOATING, test_double},
    {MPI_COMPLEX8, "MPI_COMPLEX8", CAT_COMPLEX, test_cfloat},
    {MPI_COMPLEX16, "MPI_COMPLEX16", CAT_COMPLEX, test_cdouble},
    {MPI_2INTEGER, "MPI_2INTEGER", CAT_PAIR, test_2integer},
    {MPI_2REAL, "MPI_2REAL", CAT_PAIR, test_2real},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", CAT_PAIR, test_2double_precision},
#ifdef MPIR_HAVE_INT128
    {MPI_INTEGER16, "MPI_INTEGER16", CAT_F_INTEGER, test_i128},
#else
    {MPI_INTEGER16, "MPI_INTEGER16", CAT_CHARACTER, test_opaque16},
#endif
#ifdef MPIR_HAVE_FLOAT128
    {MPI_REAL16, "MPI_REAL16", CAT_FLOATING, test_quad},
    {MPI_COMPLEX32, "MPI_COMPLEX32", CAT_COMPLEX, test_cquad},
#else
    {MPI_REAL16, "MPI_REAL16", CAT_CHARACTER, test_opaque16},
    {MPI_COMPLEX32, "MPI_COMPLEX32", CAT_CHARACTER, test_opaque32},
#endif
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

/* Spot checks of the semantics, independent of the pools above. */
static void test_spot(void)
{
    /* unsigned wrap and signed wrap */
    unsigned char u8a[3] = {255, 200, 16}, u8b[3] = {1, 100, 16};
    MPIR_Op_apply(MPI_SUM, MPI_UNSIGNED_CHAR, u8a, u8b, 3);
    CHECK(u8b[0] == 0 && u8b[1] == 44 && u8b[2] == 32, "uchar sum wrap: %d %d %d", u8b[0],
          u8b[1], u8b[2]);
    unsigned short us_a = 65535, us_b = 65535; /* would overflow int if promoted */
    MPIR_Op_apply(MPI_PROD, MPI_UNSIGNED_SHORT, &us_a, &us_b, 1);
    CHECK(us_b == 1, "ushort 65535*65535 = %u, want 1", us_b);
    int ia = INT_MAX, ib = 1;
    MPIR_Op_apply(MPI_SUM, MPI_INT, &ia, &ib, 1);
    CHECK(ib == INT_MIN, "int INT_MAX+1 = %d, want INT_MIN", ib);
    long long la = LLONG_MIN, lb = -1;
    MPIR_Op_apply(MPI_PROD, MPI_LONG_LONG, &la, &lb, 1);
    CHECK(lb == LLONG_MIN, "llong LLONG_MIN*-1 = %lld, want LLONG_MIN", lb);
    /* signed compare for MAX: -1 < 1 even though 0xff.. > 1 unsigned */
    int ma = -1, mb = 1;
    MPIR_Op_apply(MPI_MAX, MPI_INT, &ma, &mb, 1);
    CHECK(mb == 1, "int max(-1,1) = %d", mb);
    unsigned mua = (unsigned)-1, mub = 1;
    MPIR_Op_apply(MPI_MAX, MPI_UNSIGNED, &mua, &mub, 1);
    CHECK(mub == UINT_MAX, "unsigned max(UINT_MAX,1) = %u", mub);
    /* logical ops return 1, not the operand */
    int l1 = 6, l2 = 3;
    MPIR_Op_apply(MPI_LAND, MPI_INT, &l1, &l2, 1);
    CHECK(l2 == 1, "int 6 land 3 = %d, want 1", l2);
    l1 = 6, l2 = 3;
    MPIR_Op_apply(MPI_LXOR, MPI_INT, &l1, &l2, 1);
    CHECK(l2 == 0, "int 6 lxor 3 = %d, want 0", l2);
    /* MAXLOC/MINLOC ties: the lower index, from either side */
    struct {
        int v, k;
    } p_in[2] = {{5, 7}, {5, 1}}, p_io[2] = {{5, 3}, {5, 4}};
    MPIR_Op_apply(MPI_MAXLOC, MPI_2INT, p_in, p_io, 2);
    CHECK(p_io[0].k == 3 && p_io[1].k == 1, "2int maxloc ties: k=%d,%d want 3,1", p_io[0].k,
          p_io[1].k);
    struct {
        double v;
        int k;
    } d_in = {-2.0, 9}, d_io = {1.0, 0};
    MPIR_Op_apply(MPI_MINLOC, MPI_DOUBLE_INT, &d_in, &d_io, 1);
    CHECK(d_io.v == -2.0 && d_io.k == 9, "double_int minloc: (%g,%d) want (-2,9)", d_io.v, d_io.k);
    /* count 0 changes nothing */
    int z_in = 5, z_io = 9;
    MPIR_Op_apply(MPI_SUM, MPI_INT, &z_in, &z_io, 0);
    CHECK(z_io == 9, "count 0 changed inout to %d", z_io);
    /* MPI_REPLACE may overlap */
    int ov[4] = {1, 2, 3, 4};
    MPIR_Op_apply(MPI_REPLACE, MPI_INT, ov, ov + 1, 3);
    CHECK(ov[0] == 1 && ov[1] == 1 && ov[2] == 2 && ov[3] == 3, "overlapping replace: %d %d %d %d",
          ov[0], ov[1], ov[2], ov[3]);
}

/* Invalid handles: MPI_ERR_TYPE is checked before MPI_ERR_OP. */
static void test_invalid(void)
{
    const MPI_Op bad_ops[] = {MPI_OP_NULL, MPIR_OPH(0), MPIR_OPH(15), MPIR_OPH(0xffffff),
                              (MPI_Op)MPI_INT, (MPI_Op)MPI_COMM_WORLD, 0, -1};
    const MPI_Datatype bad_types[] = {MPI_DATATYPE_NULL, MPIR_DT(0), MPIR_DT(MPIR_DT_BUILTIN_COUNT),
                                      MPIR_DT(1000), (MPI_Datatype)MPI_SUM,
                                      (MPI_Datatype)MPI_COMM_WORLD, 0, -1};
    for (size_t i = 0; i < sizeof bad_ops / sizeof bad_ops[0]; i++) {
        int rc = MPIR_Op_check(bad_ops[i], MPI_INT);
        CHECK(rc == MPI_ERR_OP, "MPIR_Op_check(op 0x%x, MPI_INT) = %d, want MPI_ERR_OP",
              (unsigned)bad_ops[i], rc);
    }
    for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++) {
        for (int o = 0; o < NOPS; o++) {
            int rc = MPIR_Op_check(ops[o].op, bad_types[i]);
            CHECK(rc == MPI_ERR_TYPE, "MPIR_Op_check(%s, type 0x%x) = %d, want MPI_ERR_TYPE",
                  ops[o].name, (unsigned)bad_types[i], rc);
        }
        int rc = MPIR_Op_check(MPI_OP_NULL, bad_types[i]);
        CHECK(rc == MPI_ERR_TYPE, "MPIR_Op_check(MPI_OP_NULL, type 0x%x) = %d, want MPI_ERR_TYPE",
              (unsigned)bad_types[i], rc);
    }
}

int main(void)
{
    /* every predefined datatype of mpi.h is listed exactly once */
    int seen[MPIR_DT_BUILTIN_COUNT] = {0};
    for (int i = 0; i < NTYPES; i++) {
        int idx = types[i].t & 0xffffff;
        CHECK(idx > 0 && idx < MPIR_DT_BUILTIN_COUNT && !seen[idx]++,
              "type list: %s index %d out of range or repeated", types[i].name, idx);
    }
    CHECK(NTYPES == MPIR_DT_BUILTIN_COUNT - 1, "type list has %d types, mpi.h has %d", NTYPES,
          MPIR_DT_BUILTIN_COUNT - 1);

    for (int i = 0; i < NTYPES; i++)
        types[i].fn(types[i].t, types[i].name, types[i].c);
    test_spot();
    test_invalid();

    printf("op_test: %ld passed, %ld failed\n", passed, failed);
    return failed ? 1 : 0;
}
