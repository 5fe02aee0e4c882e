/* external32.c: MPI_Pack_external's portable representation: big-endian, the standard's
 * sizes (long 4 bytes, wchar 2), IEEE binary128 for long double. */
#include <float.h>
#include <stdint.h>
#include <string.h>
#include "datatype.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG_ENDIAN 1
#else
#define HOST_BIG_ENDIAN 0
#endif

/* Copies n bytes reversing their order on a little-endian host. */
static void to_big(unsigned char *dst, const unsigned char *src, size_t n)
{
    if (HOST_BIG_ENDIAN) {
        memcpy(dst, src, n);
        return;
    }
    for (size_t i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* Long double to binary128 and back.  On x86 long double is the 80-bit
 * extended format: the same sign and 15-bit exponent with bias 16383 as
 * binary128, and a 64-bit significand with an explicit integer bit, so the
 * conversion moves the 63 fraction bits to the top of binary128's 112 (exact)
 * and back (keeping the top 63 bits). */
static void ldouble_out(unsigned char *ext, const unsigned char *native)
{
#if LDBL_MANT_DIG == 64 && !HOST_BIG_ENDIAN
    uint64_t mant, hi, lo;
    uint16_t se;
    memcpy(&mant, native, 8);
    memcpy(&se, native + 8, 2);
    hi = (uint64_t)se << 48 | ((mant << 1) >> 16);
    lo = mant << 49;
    to_big(ext, (const unsigned char *)&hi, 8);
    to_big(ext + 8, (const unsigned char *)&lo, 8);
#elif LDBL_MANT_DIG == 113
    to_big(ext, native, 16);
#else
    /* long double is double (or double-double): widen through double. */
    double d = (double)*(const long double *)native;
    uint64_t bits, hi, lo;
    memcpy(&bits, &d, 8);
    uint64_t sign = bits >> 63, exp = (bits >> 52) & 0x7ff, frac = bits & ((1ull << 52) - 1);
    if (exp == 0x7ff)
        exp = 0x7fff;
    else if (exp != 0)
        exp = exp - 1023 + 16383;
    hi = sign << 63 | exp << 48 | frac >> 4;
    lo = frac << 60;
    to_big(ext, (const unsigned char *)&hi, 8);
    to_big(ext + 8, (const unsigned char *)&lo, 8);
#endif
}

static void ldouble_in(unsigned char *native, const unsigned char *ext)
{
#if LDBL_MANT_DIG == 64 && !HOST_BIG_ENDIAN
    uint64_t hi, lo, mant;
    to_big((unsigned char *)&hi, ext, 8);
    to_big((unsigned char *)&lo, ext + 8, 8);
    uint16_t se = (uint16_t)(hi >> 48);
    mant = (hi & 0xffffffffffffull) << 15 | lo >> 49;
    if (se & 0x7fff)
        mant |= 1ull << 63; /* the explicit integer bit of normal numbers, inf and nan */
    memset(native, 0, sizeof(long double));
    memcpy(native, &mant, 8);
    memcpy(native + 8, &se, 2);
#elif LDBL_MANT_DIG == 113
    to_big(native, ext, 16);
#else
    uint64_t hi, lo, bits;
    to_big((unsigned char *)&hi, ext, 8);
    to_big((unsigned char *)&lo, ext + 8, 8);
    uint64_t sign = hi >> 63, exp = (hi >> 48) & 0x7fff;
    uint64_t frac = (hi & 0xffffffffffffull) << 4 | lo >> 60;
    if (exp == 0x7fff)
        exp = 0x7ff;
    else if (exp != 0)
        exp = exp + 1023 - 16383; /* out-of-range values are not handled */
    bits = sign << 63 | exp << 52 | frac;
    double d;
    memcpy(&d, &bits, 8);
    *(long double *)native = d;
#endif
}

/* A complex of two floats, doubles or binary128s (C's, C++'s or Fortran's): each half converts
 * alone. */
static int is_float_complex_pair(MPI_Datatype t)
{
    return t == MPI_C_FLOAT_COMPLEX || t == MPI_C_DOUBLE_COMPLEX || t == MPI_CXX_FLOAT_COMPLEX ||
           t == MPI_CXX_DOUBLE_COMPLEX || t == MPI_COMPLEX || t == MPI_DOUBLE_COMPLEX ||
           t == MPI_COMPLEX8 || t == MPI_COMPLEX16 || t == MPI_COMPLEX32;
}

/* One basic element: native at n (size nsize) to external at e (size esize). */
static void out_one(MPI_Datatype t, MPI_Aint nsize, MPI_Aint esize, const unsigned char *n,
                    unsigned char *e)
{
    if (t == MPI_LONG_DOUBLE) {
        ldouble_out(e, n);
    } else if (t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_CXX_LONG_DOUBLE_COMPLEX) {
        ldouble_out(e, n);
        ldouble_out(e + 16, n + sizeof(long double));
    } else if (is_float_complex_pair(t)) {
        to_big(e, n, nsize / 2);
        to_big(e + esize / 2, n + nsize / 2, nsize / 2);
    } else if (nsize == esize) {
        to_big(e, n, nsize);
    } else if (t == MPI_LONG || t == MPI_UNSIGNED_LONG || t == MPI_WCHAR) {
        /* Narrower in external32: keep the low-order bytes (values that do
         * not fit are truncated, as MPICH does). */
        uint64_t v = 0;
        if (nsize == 8) {
            memcpy(&v, n, 8);
        } else {
            uint32_t v32;
            memcpy(&v32, n, 4);
            v = v32;
        }
        if (esize == 4) {
            uint32_t x = (uint32_t)v;
            to_big(e, (const unsigned char *)&x, 4);
        } else {
            uint16_t x = (uint16_t)v;
            to_big(e, (const unsigned char *)&x, 2);
        }
    }
}

static void in_one(MPI_Datatype t, MPI_Aint nsize, MPI_Aint esize, unsigned char *n,
                   const unsigned char *e)
{
    if (t == MPI_LONG_DOUBLE) {
        ldouble_in(n, e);
    } else if (t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_CXX_LONG_DOUBLE_COMPLEX) {
        ldouble_in(n, e);
        ldouble_in(n + sizeof(long double), e + 16);
    } else if (is_float_complex_pair(t)) {
        to_big(n, e, nsize / 2);
        to_big(n + nsize / 2, e + esize / 2, nsize / 2);
    } else if (nsize == esize) {
        to_big(n, e, nsize);
    } else if (t == MPI_LONG || t == MPI_UNSIGNED_LONG || t == MPI_WCHAR) {
        int64_t v;
        if (esize == 4) {
            uint32_t x;
            to_big((unsigned char *)&x, e, 4);
            v = t == MPI_LONG ? (int64_t)(int32_t)x : (int64_t)x;
        } else {
            uint16_t x;
            to_big((unsigned char *)&x, e, 2);
            v = x;
        }
        if (nsize == 8) {
            memcpy(n, &v, 8);
        } else {
            int32_t v32 = (int32_t)v;
            memcpy(n, &v32, 4);
        }
    }
}

typedef struct {
    unsigned char *ext;
    int unpack;
} ext_cursor_t;

static int convert_run(MPI_Datatype basic, MPI_Aint size, uintptr_t addr, MPI_Aint n,
                       MPI_Aint stride, void *arg)
{
    ext_cursor_t *c = arg;
    MPI_Aint esize = MPIR_Datatype_builtin(basic)->ext32_basic;
    for (MPI_Aint i = 0; i < n; i++) {
        unsigned char *p = (unsigned char *)(addr + (uintptr_t)(i * stride));
        if (c->unpack)
            in_one(basic, size, esize, p, c->ext);
        else
            out_one(basic, size, esize, p, c->ext);
        c->ext += esize;
    }
    return 0;
}

int MPIR_Pack_external(MPIR_Datatype *dt, MPI_Aint count, const void *buf, void *ext)
{
    ext_cursor_t c = {.ext = ext, .unpack = 0};
    return MPIR_Typemap_iterate(dt, count, (uintptr_t)buf, convert_run, &c);
}

int MPIR_Unpack_external(MPIR_Datatype *dt, MPI_Aint count, const void *ext, void *buf)
{
    ext_cursor_t c = {.ext = (unsigned char *)ext, .unpack = 1};
    return MPIR_Typemap_iterate(dt, count, (uintptr_t)buf, convert_run, &c);
}
