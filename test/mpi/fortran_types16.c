/* fortran_types16.c: Fortran's 16-byte kinds from C, the optional MPI_INTEGER16, MPI_REAL16
 * (IEEE binary128, gfortran's REAL(16)) and MPI_COMPLEX32 (two of them): name, size 16 (32),
 * a handle of their own; they travel around a ring, reduce (SUM with carries past 64 bits,
 * MAX, BXOR on INTEGER16; SUM and MAX on REAL16 with values a double cannot hold; SUM and PROD
 * on COMPLEX32) and round-trip through external32 as big-endian bytes; MPI_Type_match_size of
 * 16 (32) bytes and MPI_Type_create_f90_* of precisions past a double's (33 digits, and 18,
 * which is x86's REAL(10), 16 bytes too) and ranges past 18 digits give types of those sizes.
 * Needs a C compiler with __int128 and _Float128 (gcc on x86-64 or aarch64); otherwise it only
 * checks the names and sizes.  Any number of ranks.  The types are optional: where mpi.h lacks
 * them (Open MPI 4.1) or they are MPI_DATATYPE_NULL (MPICH 4.0.2's MPI_INTEGER16), a note says
 * so and nothing is checked; Ferry has all three. */
#include "mtest.h"

#include <string.h>

#if defined(__SIZEOF_INT128__) && defined(__FLT128_MAX__)
#define HAVE_QUAD 1
__extension__ typedef __int128 i128;
typedef _Float128 quad;
typedef struct {
    quad re, im;
} cquad;
#endif

#if !defined(MPI_INTEGER16) || !defined(MPI_REAL16) || !defined(MPI_COMPLEX32)
int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
#ifdef FERRY_VERSION
    MTEST_FAIL(errs, "Ferry's mpi.h lacks MPI_INTEGER16, MPI_REAL16 or MPI_COMPLEX32");
#else
    if (mtest_rank == 0)
        printf("note: this MPI's mpi.h has no MPI_INTEGER16, MPI_REAL16 or MPI_COMPLEX32\n");
#endif
    return MTest_Finalize(errs);
}
#else
int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int me = mtest_rank, n = mtest_size, right = (me + 1) % n, left = (me + n - 1) % n;
#ifndef FERRY_VERSION
    if (MPI_INTEGER16 == MPI_DATATYPE_NULL || MPI_REAL16 == MPI_DATATYPE_NULL ||
        MPI_COMPLEX32 == MPI_DATATYPE_NULL) {
        if (me == 0)
            printf("note: this MPI gives MPI_DATATYPE_NULL for a 16-byte Fortran kind\n");
        return MTest_Finalize(0);
    }
#endif
    errs += mtest_check_named_type(MPI_INTEGER16, "MPI_INTEGER16", 16);
    errs += mtest_check_named_type(MPI_REAL16, "MPI_REAL16", 16);
    errs += mtest_check_named_type(MPI_COMPLEX32, "MPI_COMPLEX32", 32);
    if (MPI_REAL16 == MPI_INTEGER16 || MPI_REAL16 == MPI_COMPLEX32 ||
        MPI_REAL16 == MPI_LONG_DOUBLE || MPI_COMPLEX32 == MPI_C_LONG_DOUBLE_COMPLEX)
        MTEST_FAIL(errs, "the 16-byte kinds share a handle with each other or long double");

#ifdef HAVE_QUAD
    /* 2^100 + me and 1 + 2^-100 * me: neither fits a long or a double. */
    const i128 big = (i128)1 << 100;
    const quad tiny = (quad)1 / (quad)((i128)1 << 100);
    i128 is[2] = {big + me, -(i128)me}, ir[2];
    quad qs = 1 + tiny * me, qr;
    cquad cs = {(quad)me, 1 + tiny}, cr;
    MPI_Sendrecv(is, 2, MPI_INTEGER16, right, 1, ir, 2, MPI_INTEGER16, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&qs, 1, MPI_REAL16, right, 2, &qr, 1, MPI_REAL16, left, 2, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&cs, 1, MPI_COMPLEX32, right, 3, &cr, 1, MPI_COMPLEX32, left, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (ir[0] != big + left || ir[1] != -(i128)left)
        MTEST_FAIL(errs, "INTEGER16 ring from rank %d: wrong value", left);
    if (qr != 1 + tiny * left)
        MTEST_FAIL(errs, "REAL16 ring from rank %d: wrong value", left);
    if (cr.re != (quad)left || cr.im != 1 + tiny)
        MTEST_FAIL(errs, "COMPLEX32 ring from rank %d: wrong value", left);

    /* Reductions. */
    i128 isum, imax, ixor, ones = ~(i128)0;
    MPI_Allreduce(&is[0], &isum, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&is[0], &imax, 1, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&ones, &ixor, 1, MPI_INTEGER16, MPI_BXOR, MPI_COMM_WORLD);
    if (isum != big * n + (i128)n * (n - 1) / 2)
        MTEST_FAIL(errs, "SUM of INTEGER16: wrong (low 64 bits %llu)", (unsigned long long)isum);
    if (imax != big + n - 1)
        MTEST_FAIL(errs, "MAX of INTEGER16: wrong");
    if (ixor != (n % 2 ? ones : 0))
        MTEST_FAIL(errs, "BXOR of INTEGER16 all ones: wrong");
    quad qsum, qmax;
    MPI_Allreduce(&qs, &qsum, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&qs, &qmax, 1, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD);
    if (qsum != n + tiny * ((quad)n * (n - 1) / 2))
        MTEST_FAIL(errs, "SUM of REAL16: %.20Lg", (long double)qsum);
    if (qmax != 1 + tiny * (n - 1))
        MTEST_FAIL(errs, "MAX of REAL16: %.20Lg", (long double)qmax);
    cquad ci = {0, 1}, cprod, csum;
    MPI_Allreduce(&ci, &cprod, 1, MPI_COMPLEX32, MPI_PROD, MPI_COMM_WORLD);
    MPI_Allreduce(&cs, &csum, 1, MPI_COMPLEX32, MPI_SUM, MPI_COMM_WORLD);
    static const int ipow_re[4] = {1, 0, -1, 0}, ipow_im[4] = {0, 1, 0, -1};
    if (cprod.re != ipow_re[n % 4] || cprod.im != ipow_im[n % 4])
        MTEST_FAIL(errs, "PROD of %d times i as COMPLEX32: (%Lg,%Lg)", n, (long double)cprod.re,
                   (long double)cprod.im);
    if (csum.re != (quad)n * (n - 1) / 2 || csum.im != n * (1 + tiny))
        MTEST_FAIL(errs, "SUM of COMPLEX32: wrong");

    /* external32: 16 and 32 bytes, big-endian; 1.0 in binary128 is 3fff 0000 ... */
    unsigned char packed[64];
    MPI_Aint pos = 0;
    quad one = 1;
    MPI_Pack_external("external32", &one, 1, MPI_REAL16, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", is, 1, MPI_INTEGER16, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", &cs, 1, MPI_COMPLEX32, packed, sizeof packed, &pos);
    MTEST_CHECK_INT(errs, 64, (int)pos, "external32 bytes of REAL16, INTEGER16, COMPLEX32");
    if (packed[0] != 0x3f || packed[1] != 0xff || packed[2] != 0 || packed[15] != 0)
        MTEST_FAIL(errs, "external32 of REAL16 1.0: %02x %02x ... %02x, want 3f ff ... 00",
                   packed[0], packed[1], packed[15]);
    if (packed[19] != 0x10 || packed[16] != 0) /* 2^100 is bit 4 of the 4th byte */
        MTEST_FAIL(errs, "external32 of INTEGER16 2^100 + rank: not big-endian");
    quad one1;
    i128 i1;
    cquad c1;
    pos = 0;
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &one1, 1, MPI_REAL16);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &i1, 1, MPI_INTEGER16);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &c1, 1, MPI_COMPLEX32);
    if (one1 != 1 || i1 != is[0] || c1.re != cs.re || c1.im != cs.im)
        MTEST_FAIL(errs, "external32 round trip of the 16-byte kinds");
#endif

    /* The kinds by size, precision and range. */
    const struct {
        int typeclass, size;
        MPI_Datatype want;
    } sizes[] = {
        {MPI_TYPECLASS_INTEGER, 16, MPI_INTEGER16},
        {MPI_TYPECLASS_REAL, 16, MPI_REAL16},
        {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        MPI_Type_match_size(sizes[i].typeclass, sizes[i].size, &t);
        if (t != sizes[i].want)
            MTEST_FAIL(errs, "MPI_Type_match_size(%d, %d): not the named 16-byte kind",
                       sizes[i].typeclass, sizes[i].size);
    }
    const struct {
        int kind; /* 0 integer, 1 real, 2 complex */
        int p, r, size;
    } f90[] = {
        {0, 0, 38, 16}, {1, 33, MPI_UNDEFINED, 16}, {1, 20, 400, 16}, {1, 18, MPI_UNDEFINED, 16},
        {1, MPI_UNDEFINED, 4000, 16}, {2, 30, MPI_UNDEFINED, 32},
    };
    for (size_t i = 0; i < sizeof f90 / sizeof f90[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int size = -1;
        if (f90[i].kind == 0)
            MPI_Type_create_f90_integer(f90[i].r, &t);
        else if (f90[i].kind == 1)
            MPI_Type_create_f90_real(f90[i].p, f90[i].r, &t);
        else
            MPI_Type_create_f90_complex(f90[i].p, f90[i].r, &t);
        MPI_Type_size(t, &size);
        MTEST_CHECK_INT(errs, f90[i].size, size, "size of the f90 type of class %d, p %d, r %d",
                        f90[i].kind, f90[i].p, f90[i].r);
    }
    /* Past every kind: an error, not a smaller type. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    int rc = MPI_Type_create_f90_real(34, MPI_UNDEFINED, &t), cls = -1;
    MPI_Error_class(rc, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_ARG, cls, "MPI_Type_create_f90_real(34): error class");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
#endif
