/* mtest.c: helpers shared by the MPI conformance tests (see mtest.h). */
#define _POSIX_C_SOURCE 200809L
#include "mtest.h"

#include <complex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

int mtest_rank = -1;
int mtest_size = 0;

/* Enough to diagnose, few enough that a badly broken run still leaves a readable log. */
#define MTEST_MAX_REPORTS 200
static int mtest_nreports;

void MTest_Init(int *argc, char ***argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    int rc = MPI_Init(argc, argv);
    if (rc != MPI_SUCCESS) {
        printf("MPI_Init returned %d\n", rc);
        exit(1);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &mtest_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mtest_size);
}

int MTest_Finalize(int errs)
{
    int total = 0;
    int rc = MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        printf("[%d] MTest_Finalize: MPI_Allreduce of the error counts returned %d\n", mtest_rank,
               rc);
        total = errs > 0 ? errs : 1;
    }
    if (mtest_rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
    }
    fflush(stdout);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}

void mtest_report(const char *file, int line, const char *fmt, ...)
{
    if (mtest_nreports >= MTEST_MAX_REPORTS) {
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    printf("[%d] %s:%d: %s\n", mtest_rank, base ? base + 1 : file, line, msg);
    if (++mtest_nreports == MTEST_MAX_REPORTS)
        printf("[%d] (further failures on this rank are not shown)\n", mtest_rank);
}

const char *mtest_errstr(int code)
{
    static char buf[MPI_MAX_ERROR_STRING + 1];
    int len = 0;
    buf[0] = '\0';
    if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        snprintf(buf, sizeof buf, "(MPI_Error_string failed for code %d)", code);
    return buf;
}

const char *mtest_classname(int c)
{
    static char other[32];
    switch (c) {
    case MPI_SUCCESS:
        return "MPI_SUCCESS";
    case MPI_ERR_BUFFER:
        return "MPI_ERR_BUFFER";
    case MPI_ERR_COUNT:
        return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE:
        return "MPI_ERR_TYPE";
    case MPI_ERR_TAG:
        return "MPI_ERR_TAG";
    case MPI_ERR_COMM:
        return "MPI_ERR_COMM";
    case MPI_ERR_RANK:
        return "MPI_ERR_RANK";
    case MPI_ERR_ROOT:
        return "MPI_ERR_ROOT";
    case MPI_ERR_OP:
        return "MPI_ERR_OP";
    case MPI_ERR_ARG:
        return "MPI_ERR_ARG";
    case MPI_ERR_UNKNOWN:
        return "MPI_ERR_UNKNOWN";
    case MPI_ERR_TRUNCATE:
        return "MPI_ERR_TRUNCATE";
    case MPI_ERR_OTHER:
        return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN:
        return "MPI_ERR_INTERN";
    case MPI_ERR_IN_STATUS:
        return "MPI_ERR_IN_STATUS";
    case MPI_ERR_PENDING:
        return "MPI_ERR_PENDING";
    case MPI_ERR_REQUEST:
        return "MPI_ERR_REQUEST";
    default:
        snprintf(other, sizeof other, "class %d", c);
        return other;
    }
}

int mtest_check_class(int rc, int expected_class, const char *what)
{
    int cls = rc;
    if (rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) != MPI_SUCCESS) {
        mtest_report(__FILE__, __LINE__, "%s: MPI_Error_class(%d) failed", what, rc);
        return 1;
    }
    if (cls != expected_class) {
        mtest_report(__FILE__, __LINE__, "%s: expected error class %s, saw %s (code %d: %s)", what,
                     mtest_classname(expected_class), mtest_classname(cls), rc,
                     rc == MPI_SUCCESS ? "success" : mtest_errstr(rc));
        return 1;
    }
    return 0;
}

int mtest_check_named_type(MPI_Datatype t, const char *name, int size)
{
    int errs = 0, got_size, len, ni, na, nd, comb;
    MPI_Aint lb, extent;
    char got_name[MPI_MAX_OBJECT_NAME];
    MPI_Type_size(t, &got_size);
    MTEST_CHECK_INT(errs, size, got_size, "%s: size", name);
    MPI_Type_get_extent(t, &lb, &extent);
    MTEST_CHECK_INT(errs, 0, lb, "%s: lb", name);
    MTEST_CHECK_INT(errs, size, extent, "%s: extent", name);
    MPI_Type_get_name(t, got_name, &len);
    if (strcmp(got_name, name) != 0)
        MTEST_FAIL(errs, "name of %s: '%s'", name, got_name);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    MTEST_CHECK_INT(errs, MPI_COMBINER_NAMED, comb, "%s: combiner", name);
    return errs;
}

/* Fills bytes [from, to) of buf with the pattern, 8 bytes per hash. */
static void fill_range(unsigned char *p, size_t from, size_t to, int seed)
{
    size_t i = from;
    for (; i < to && (i & 7); i++)
        p[i] = mtest_pattern_byte(i, seed);
    for (; i + 8 <= to; i += 8) {
        uint64_t h = mtest_pattern_word(i >> 3, seed);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(p + i, &h, 8);
#else
        for (int b = 0; b < 8; b++)
            p[i + b] = (unsigned char)(h >> (8 * b));
#endif
    }
    for (; i < to; i++)
        p[i] = mtest_pattern_byte(i, seed);
}

void mtest_fill_bytes(void *buf, size_t n, int seed)
{
    fill_range(buf, 0, n, seed);
}

/* Checks bytes [from, to) of buf against the pattern (indexed from buf) and reports the first
 * wrong byte and how many are wrong. */
static int check_pattern(const void *buf, size_t from, size_t to, int seed, const char *what,
                         const char *kind)
{
    const unsigned char *p = buf;
    size_t bad = 0, first = 0;
    size_t i = from;
    while (i < to) {
        uint64_t h = mtest_pattern_word(i >> 3, seed);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* whole aligned word equal: skip it at once */
        if ((i & 7) == 0 && i + 8 <= to) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            if (v == h) {
                i += 8;
                continue;
            }
        }
#endif
        do {
            if (p[i] != (unsigned char)(h >> ((i & 7) * 8))) {
                if (!bad)
                    first = i;
                bad++;
            }
            i++;
        } while (i < to && (i & 7));
    }
    if (bad)
        mtest_report(
            __FILE__, __LINE__,
            "%s: %zu wrong %s bytes in [%zu,%zu), first [%zu]: expected 0x%02x, saw 0x%02x", what,
            bad, kind, from, to, first, mtest_pattern_byte(first, seed), p[first]);
    return bad ? 1 : 0;
}

int mtest_check_bytes(const void *buf, size_t n, int seed, const char *what)
{
    return check_pattern(buf, 0, n, seed, what, "data");
}

void mtest_fill_guard(void *buf, size_t n)
{
    mtest_fill_bytes(buf, n, MTEST_GUARD_SEED);
}

void mtest_fill_guard_range(void *buf, size_t from, size_t to)
{
    fill_range(buf, from, to, MTEST_GUARD_SEED);
}

int mtest_check_guard(const void *buf, size_t from, size_t to, const char *what)
{
    return check_pattern(buf, from, to, MTEST_GUARD_SEED, what, "guard (must stay untouched)");
}

int mtest_check_status(const MPI_Status *st, int source, int tag, MPI_Datatype dt, int count,
                       const char *what)
{
    int errs = 0;
    MTEST_CHECK_INT(errs, source, st->MPI_SOURCE, "%s: status.MPI_SOURCE", what);
    MTEST_CHECK_INT(errs, tag, st->MPI_TAG, "%s: status.MPI_TAG", what);
    int n = -12345;
    int rc = MPI_Get_count(st, dt, &n);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Get_count", what);
    MTEST_CHECK_INT(errs, count, n, "%s: MPI_Get_count", what);
    return errs;
}

void *mtest_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        printf("[%d] cannot allocate %zu bytes\n", mtest_rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

void mtest_sleep(double seconds)
{
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* ---- typed patterns ----
 * Element i of seed s has the value tv(i, s) reduced into [-(mod/2), mod - mod/2), so every C
 * type can hold it exactly (mod is chosen per type) and neighbouring elements differ. */
static long long tv(size_t i, int seed, long long mod)
{
    unsigned long long h =
        (unsigned long long)i * 7919u + (unsigned long long)(unsigned)seed * 104729u;
    return (long long)(h % (unsigned long long)mod) - mod / 2;
}

#define SCALAR_TYPE(NAME, CT, MOD, FMT, CAST)                                                      \
    static void fill_##NAME(void *buf, size_t count, int seed)                                     \
    {                                                                                              \
        CT *p = buf;                                                                               \
        for (size_t i = 0; i < count; i++)                                                         \
            p[i] = (CT)tv(i, seed, MOD);                                                           \
    }                                                                                              \
    static int check_##NAME(const void *buf, size_t count, int seed, const char *what)             \
    {                                                                                              \
        const CT *p = buf;                                                                         \
        size_t bad = 0, first = 0;                                                                 \
        for (size_t i = 0; i < count; i++) {                                                       \
            CT e = (CT)tv(i, seed, MOD);                                                           \
            if (p[i] != e) {                                                                       \
                if (!bad)                                                                          \
                    first = i;                                                                     \
                bad++;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (bad) {                                                                                 \
            CT e = (CT)tv(first, seed, MOD);                                                       \
            mtest_report(__FILE__, __LINE__,                                                       \
                         "%s: %zu of %zu " #CT " elements wrong, first [%zu]: expected " FMT       \
                         ", saw " FMT,                                                             \
                         what, bad, count, first, CAST(e), CAST(p[first]));                        \
        }                                                                                          \
        return bad ? 1 : 0;                                                                        \
    }

#define AS_LL(x) ((long long)(x))
#define AS_ULL(x) ((unsigned long long)(x))
#define AS_LD(x) ((long double)(x))

SCALAR_TYPE(char, char, 251, "%lld", AS_LL)
SCALAR_TYPE(schar, signed char, 251, "%lld", AS_LL)
SCALAR_TYPE(uchar, unsigned char, 251, "%lld", AS_LL)
SCALAR_TYPE(wchar, wchar_t, 30011, "%lld", AS_LL)
SCALAR_TYPE(short, short, 30011, "%lld", AS_LL)
SCALAR_TYPE(ushort, unsigned short, 30011, "%lld", AS_LL)
SCALAR_TYPE(int, int, 1000003, "%lld", AS_LL)
SCALAR_TYPE(uint, unsigned, 1000003, "%llu", AS_ULL)
SCALAR_TYPE(long, long, 1000003, "%lld", AS_LL)
SCALAR_TYPE(ulong, unsigned long, 1000003, "%llu", AS_ULL)
SCALAR_TYPE(llong, long long, 1000003, "%lld", AS_LL)
SCALAR_TYPE(ullong, unsigned long long, 1000003, "%llu", AS_ULL)
SCALAR_TYPE(float, float, 1000003, "%Lg", AS_LD)
SCALAR_TYPE(double, double, 1000003, "%Lg", AS_LD)
SCALAR_TYPE(ldouble, long double, 1000003, "%Lg", AS_LD)
SCALAR_TYPE(bool, bool, 3, "%lld", AS_LL)
SCALAR_TYPE(int8, int8_t, 251, "%lld", AS_LL)
SCALAR_TYPE(int16, int16_t, 30011, "%lld", AS_LL)
SCALAR_TYPE(int32, int32_t, 1000003, "%lld", AS_LL)
SCALAR_TYPE(int64, int64_t, 1000003, "%lld", AS_LL)
SCALAR_TYPE(uint8, uint8_t, 251, "%lld", AS_LL)
SCALAR_TYPE(uint16, uint16_t, 30011, "%lld", AS_LL)
SCALAR_TYPE(uint32, uint32_t, 1000003, "%llu", AS_ULL)
SCALAR_TYPE(uint64, uint64_t, 1000003, "%llu", AS_ULL)
SCALAR_TYPE(aint, MPI_Aint, 1000003, "%lld", AS_LL)
SCALAR_TYPE(offset, MPI_Offset, 1000003, "%lld", AS_LL)
SCALAR_TYPE(countt, MPI_Count, 1000003, "%lld", AS_LL)

/* Complex: real part from the pattern, imaginary part a different function of it. */
#define COMPLEX_TYPE(NAME, CT, RT)                                                                 \
    static CT cval_##NAME(size_t i, int seed)                                                      \
    {                                                                                              \
        RT re = (RT)tv(i, seed, 1000003);                                                          \
        RT im = (RT)tv(i, seed + 1, 1000003) + (RT)0.5;                                            \
        return re + im * (CT)I;                                                                    \
    }                                                                                              \
    static void fill_##NAME(void *buf, size_t count, int seed)                                     \
    {                                                                                              \
        CT *p = buf;                                                                               \
        for (size_t i = 0; i < count; i++)                                                         \
            p[i] = cval_##NAME(i, seed);                                                           \
    }                                                                                              \
    static int check_##NAME(const void *buf, size_t count, int seed, const char *what)             \
    {                                                                                              \
        const CT *p = buf;                                                                         \
        size_t bad = 0, first = 0;                                                                 \
        for (size_t i = 0; i < count; i++) {                                                       \
            if (p[i] != cval_##NAME(i, seed)) {                                                    \
                if (!bad)                                                                          \
                    first = i;                                                                     \
                bad++;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (bad) {                                                                                 \
            CT e = cval_##NAME(first, seed);                                                       \
            mtest_report(__FILE__, __LINE__,                                                       \
                         "%s: %zu of %zu " #CT                                                     \
                         " elements wrong, first [%zu]: expected (%Lg,%Lg), "                      \
                         "saw (%Lg,%Lg)",                                                          \
                         what, bad, count, first, (long double)creall(e), (long double)cimagl(e),  \
                         (long double)creall(p[first]), (long double)cimagl(p[first]));            \
        }                                                                                          \
        return bad ? 1 : 0;                                                                        \
    }

COMPLEX_TYPE(cfloat, float _Complex, float)
COMPLEX_TYPE(cdouble, double _Complex, double)
COMPLEX_TYPE(cldouble, long double _Complex, long double)

/* Pair types (value, int) as used by MINLOC/MAXLOC. Only the two fields are compared: the
 * padding of the C struct is not part of the MPI type and may or may not be copied. */
#define PAIR_TYPE(NAME, VT, MOD, FMT, CAST)                                                        \
    struct pair_##NAME {                                                                           \
        VT v;                                                                                      \
        int i;                                                                                     \
    };                                                                                             \
    static void fill_##NAME(void *buf, size_t count, int seed)                                     \
    {                                                                                              \
        struct pair_##NAME *p = buf;                                                               \
        for (size_t i = 0; i < count; i++) {                                                       \
            p[i].v = (VT)tv(i, seed, MOD);                                                         \
            p[i].i = (int)tv(i, seed + 3, 2000003);                                                \
        }                                                                                          \
    }                                                                                              \
    static int check_##NAME(const void *buf, size_t count, int seed, const char *what)             \
    {                                                                                              \
        const struct pair_##NAME *p = buf;                                                         \
        size_t bad = 0, first = 0;                                                                 \
        for (size_t i = 0; i < count; i++) {                                                       \
            if (p[i].v != (VT)tv(i, seed, MOD) || p[i].i != (int)tv(i, seed + 3, 2000003)) {       \
                if (!bad)                                                                          \
                    first = i;                                                                     \
                bad++;                                                                             \
            }                                                                                      \
        }                                                                                          \
        if (bad) {                                                                                 \
            mtest_report(__FILE__, __LINE__,                                                       \
                         "%s: %zu of %zu (" #VT ",int) elements wrong, first [%zu]: expected "     \
                         "(" FMT ",%d), saw (" FMT ",%d)",                                         \
                         what, bad, count, first, CAST((VT)tv(first, seed, MOD)),                  \
                         (int)tv(first, seed + 3, 2000003), CAST(p[first].v), p[first].i);         \
        }                                                                                          \
        return bad ? 1 : 0;                                                                        \
    }

PAIR_TYPE(float_int, float, 1000003, "%Lg", AS_LD)
PAIR_TYPE(double_int, double, 1000003, "%Lg", AS_LD)
PAIR_TYPE(long_int, long, 1000003, "%lld", AS_LL)
PAIR_TYPE(2int, int, 1000003, "%lld", AS_LL)
PAIR_TYPE(short_int, short, 30011, "%lld", AS_LL)
PAIR_TYPE(ldouble_int, long double, 1000003, "%Lg", AS_LD)

/* MPI_BYTE has no C value semantics: use the byte pattern. */
static void fill_byte(void *buf, size_t count, int seed)
{
    mtest_fill_bytes(buf, count, seed);
}
static int check_byte(const void *buf, size_t count, int seed, const char *what)
{
    return mtest_check_bytes(buf, count, seed, what);
}

#define T(DT, NAME, CT)                                                                            \
    {                                                                                              \
        DT, #DT, sizeof(CT), (int)sizeof(CT), fill_##NAME, check_##NAME                            \
    }
#define P(DT, NAME, VT)                                                                            \
    {                                                                                              \
        DT, #DT, sizeof(struct pair_##NAME), (int)(sizeof(VT) + sizeof(int)), fill_##NAME,         \
            check_##NAME                                                                           \
    }

const struct mtest_type mtest_types[] = {
    T(MPI_CHAR, char, char),
    T(MPI_SIGNED_CHAR, schar, signed char),
    T(MPI_UNSIGNED_CHAR, uchar, unsigned char),
    T(MPI_BYTE, byte, unsigned char),
    T(MPI_WCHAR, wchar, wchar_t),
    T(MPI_SHORT, short, short),
    T(MPI_UNSIGNED_SHORT, ushort, unsigned short),
    T(MPI_INT, int, int),
    T(MPI_UNSIGNED, uint, unsigned),
    T(MPI_LONG, long, long),
    T(MPI_UNSIGNED_LONG, ulong, unsigned long),
    T(MPI_LONG_LONG, llong, long long),
    T(MPI_UNSIGNED_LONG_LONG, ullong, unsigned long long),
    T(MPI_FLOAT, float, float),
    T(MPI_DOUBLE, double, double),
    T(MPI_LONG_DOUBLE, ldouble, long double),
    T(MPI_C_BOOL, bool, bool),
    T(MPI_INT8_T, int8, int8_t),
    T(MPI_INT16_T, int16, int16_t),
    T(MPI_INT32_T, int32, int32_t),
    T(MPI_INT64_T, int64, int64_t),
    T(MPI_UINT8_T, uint8, uint8_t),
    T(MPI_UINT16_T, uint16, uint16_t),
    T(MPI_UINT32_T, uint32, uint32_t),
    T(MPI_UINT64_T, uint64, uint64_t),
    T(MPI_AINT, aint, MPI_Aint),
    T(MPI_OFFSET, offset, MPI_Offset),
    T(MPI_COUNT, countt, MPI_Count),
    T(MPI_C_FLOAT_COMPLEX, cfloat, float _Complex),
    T(MPI_C_DOUBLE_COMPLEX, cdouble, double _Complex),
    T(MPI_C_LONG_DOUBLE_COMPLEX, cldouble, long double _Complex),
    P(MPI_FLOAT_INT, float_int, float),
    P(MPI_DOUBLE_INT, double_int, double),
    P(MPI_LONG_INT, long_int, long),
    P(MPI_2INT, 2int, int),
    P(MPI_SHORT_INT, short_int, short),
    P(MPI_LONG_DOUBLE_INT, ldouble_int, long double),
};

const int mtest_ntypes = (int)(sizeof mtest_types / sizeof mtest_types[0]);
