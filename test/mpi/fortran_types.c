/* fortran_types.c: the Fortran named datatypes from C (MPI-4.0 19.3.6: mpi.h defines them too).
 * Each has the size and extent of gfortran's default kinds (INTEGER, REAL, LOGICAL 4 bytes,
 * DOUBLE PRECISION 8, COMPLEX two REALs), its name, combiner MPI_COMBINER_NAMED, a handle of its
 * own; they travel between ranks, reduce with the operations of their class (sum/max on numbers,
 * LAND/LOR/LXOR on LOGICAL with Fortran's truth values, MINLOC/MAXLOC on the pair types whose
 * index has the value's type) and round-trip through external32 (not under MPICH 4.0.2, which
 * fails an assertion there); MPI_Type_match_size and MPI_Type_create_f90_integer/real/complex give
 * types of the sizes asked for, the latter under their F90 combiners with the arguments given,
 * one handle per arguments, not freeable.  Any number of ranks.  (Open MPI 4.1 counts one MPI_2REAL
 * as one element, not two, and fails that check.) */
#include "mtest.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

/* One f90 type: its envelope and contents say the combiner and the arguments as given (MPI-4.1
 * sec. 19.1.9), its data is the named type's. */
static int check_f90_envelope(MPI_Datatype t, int combiner, int ni, const int *ints,
                              MPI_Datatype named, const char *what)
{
    int errs = 0, nints = -1, naddrs = -1, ntypes = -1, comb = -1, got[2] = {-1, -1};
    MPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &comb);
    MTEST_CHECK_INT(errs, combiner, comb, "%s: combiner", what);
    MTEST_CHECK_INT(errs, ni, nints, "%s: integers", what);
    MTEST_CHECK_INT(errs, 0, naddrs, "%s: addresses", what);
    MTEST_CHECK_INT(errs, 0, ntypes, "%s: datatypes", what);
    if (comb == combiner && nints == ni) {
        MPI_Aint a;
        MPI_Datatype d;
        MPI_Type_get_contents(t, 2, 0, 0, got, &a, &d);
        for (int i = 0; i < ni; i++)
            MTEST_CHECK_INT(errs, ints[i], got[i], "%s: contents integer %d", what, i);
    }
    int size = -1, named_size = -2;
    MPI_Aint lb, ext, named_lb, named_ext;
    MPI_Type_size(t, &size);
    MPI_Type_size(named, &named_size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_extent(named, &named_lb, &named_ext);
    if (size != named_size || lb != named_lb || ext != named_ext)
        MTEST_FAIL(errs, "%s: size %d, extent [%ld, %ld), the named type's %d, [%ld, %ld)", what,
                   size, (long)lb, (long)ext, named_size, (long)named_lb, (long)named_ext);
    return errs;
}

/* MPI_Type_create_f90_*: F90 combiners, one handle per arguments (the same again for the same),
 * which MPI_Type_free refuses as it does the named types'. */
static int check_f90_types(void)
{
    int errs = 0;
    MPI_Datatype i9, i8, i9b, r, c, ru;
    MPI_Type_create_f90_integer(9, &i9);
    MPI_Type_create_f90_integer(8, &i8);
    MPI_Type_create_f90_integer(9, &i9b);
    MPI_Type_create_f90_real(6, 30, &r);
    MPI_Type_create_f90_real(MPI_UNDEFINED, 30, &ru);
    MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &c);
    errs += check_f90_envelope(i9, MPI_COMBINER_F90_INTEGER, 1, (int[]){9}, MPI_INTEGER4,
                               "f90_integer(9)");
    errs += check_f90_envelope(i8, MPI_COMBINER_F90_INTEGER, 1, (int[]){8}, MPI_INTEGER4,
                               "f90_integer(8)");
    errs += check_f90_envelope(r, MPI_COMBINER_F90_REAL, 2, (int[]){6, 30}, MPI_REAL4,
                               "f90_real(6, 30)");
    errs += check_f90_envelope(ru, MPI_COMBINER_F90_REAL, 2, (int[]){MPI_UNDEFINED, 30}, MPI_REAL4,
                               "f90_real(MPI_UNDEFINED, 30)");
    errs += check_f90_envelope(c, MPI_COMBINER_F90_COMPLEX, 2, (int[]){15, MPI_UNDEFINED},
                               MPI_COMPLEX16, "f90_complex(15, MPI_UNDEFINED)");
    if (i9 == i8 || r == ru)
        MTEST_FAIL(errs, "different arguments, one handle: r=9 %#x r=8 %#x; (6,30) %#x (-,30) %#x",
                   (unsigned)i9, (unsigned)i8, (unsigned)r, (unsigned)ru);
    MTEST_CHECK_INT(errs, (int)i9, (int)i9b, "f90_integer(9) twice: the same handle");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t = i9;
    errs += mtest_check_class(MPI_Type_free(&t), MPI_ERR_TYPE, "MPI_Type_free(f90_integer(9))");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* Usable as they are, in point-to-point and with predefined operations. */
    int me = mtest_rank, n = mtest_size;
    int32_t isum = -1, mine = me;
    MPI_Allreduce(&mine, &isum, 1, i8, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, n * (n - 1) / 2, isum, "SUM of f90_integer(8)");
    double complex z = me, zsum = -1;
    MPI_Allreduce(&z, &zsum, 1, c, MPI_SUM, MPI_COMM_WORLD);
    if (creal(zsum) != n * (n - 1) / 2.0)
        MTEST_FAIL(errs, "SUM of f90_complex(15, MPI_UNDEFINED): (%g,%g)", creal(zsum),
                   cimag(zsum));
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    int me = mtest_rank, n = mtest_size, right = (me + 1) % n, left = (me + n - 1) % n;
    const struct {
        MPI_Datatype t;
        const char *name;
        int size;
    } types[] = {
        {MPI_INTEGER, "MPI_INTEGER", 4},
        {MPI_REAL, "MPI_REAL", 4},
        {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8},
        {MPI_COMPLEX, "MPI_COMPLEX", 8},
        {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16},
        {MPI_LOGICAL, "MPI_LOGICAL", 4},
        {MPI_CHARACTER, "MPI_CHARACTER", 1},
        {MPI_INTEGER1, "MPI_INTEGER1", 1},
        {MPI_INTEGER2, "MPI_INTEGER2", 2},
        {MPI_INTEGER4, "MPI_INTEGER4", 4},
        {MPI_INTEGER8, "MPI_INTEGER8", 8},
        {MPI_REAL4, "MPI_REAL4", 4},
        {MPI_REAL8, "MPI_REAL8", 8},
        {MPI_COMPLEX8, "MPI_COMPLEX8", 8},
        {MPI_COMPLEX16, "MPI_COMPLEX16", 16},
        {MPI_2INTEGER, "MPI_2INTEGER", 8},
        {MPI_2REAL, "MPI_2REAL", 8},
        {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        errs += mtest_check_named_type(types[i].t, types[i].name, types[i].size);
        for (size_t j = 0; j < i; j++)
            if (types[j].t == types[i].t)
                MTEST_FAIL(errs, "%s is the same handle as %s", types[i].name, types[j].name);
    }

    /* A ring of some of them; a pair type counts two elements. */
    int32_t is[3] = {me, -me, 7}, ir[3];
    double ds[2] = {me + 0.5, -1.25}, dr[2];
    float _Complex cs = (float)me + 2.0f * I, cr;
    int32_t ls[2] = {1, 0}, lr[2];
    char chs[4] = "abc", chr[4];
    MPI_Sendrecv(is, 3, MPI_INTEGER, right, 1, ir, 3, MPI_INTEGER, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(ds, 2, MPI_DOUBLE_PRECISION, right, 2, dr, 2, MPI_DOUBLE_PRECISION, left, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&cs, 1, MPI_COMPLEX, right, 3, &cr, 1, MPI_COMPLEX, left, 3, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(ls, 2, MPI_LOGICAL, right, 4, lr, 2, MPI_LOGICAL, left, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(chs, 4, MPI_CHARACTER, right, 5, chr, 4, MPI_CHARACTER, left, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (ir[0] != left || ir[1] != -left || ir[2] != 7)
        MTEST_FAIL(errs, "INTEGER ring: %d %d %d from rank %d", ir[0], ir[1], ir[2], left);
    if (dr[0] != left + 0.5 || dr[1] != -1.25)
        MTEST_FAIL(errs, "DOUBLE PRECISION ring: %g %g from rank %d", dr[0], dr[1], left);
    if (cr != (float)left + 2.0f * I)
        MTEST_FAIL(errs, "COMPLEX ring from rank %d", left);
    if (lr[0] != 1 || lr[1] != 0 || strcmp(chr, "abc") != 0)
        MTEST_FAIL(errs, "LOGICAL/CHARACTER ring from rank %d", left);
    struct {
        float v, k;
    } rp = {(float)me, (float)me}, rpr;
    MPI_Status st;
    MPI_Sendrecv(&rp, 1, MPI_2REAL, right, 6, &rpr, 1, MPI_2REAL, left, 6, MPI_COMM_WORLD, &st);
    int cnt;
    MPI_Get_elements(&st, MPI_2REAL, &cnt);
    MTEST_CHECK_INT(errs, 2, cnt, "elements of one MPI_2REAL");
    if (rpr.v != (float)left || rpr.k != (float)left)
        MTEST_FAIL(errs, "2REAL ring: (%g,%g) from rank %d", rpr.v, rpr.k, left);

    /* Reductions. */
    int32_t isum, imax;
    MPI_Allreduce(&me, &isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&me, &imax, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, n * (n - 1) / 2, isum, "SUM of INTEGER");
    MTEST_CHECK_INT(errs, n - 1, imax, "MAX of INTEGER");
    int64_t i8 = (int64_t)1 << 40, i8sum;
    MPI_Allreduce(&i8, &i8sum, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
    if (i8sum != n * ((int64_t)1 << 40))
        MTEST_FAIL(errs, "SUM of INTEGER8: %lld", (long long)i8sum);
    double d = 0.25 * me, dsum;
    MPI_Allreduce(&d, &dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD);
    if (dsum != 0.25 * n * (n - 1) / 2)
        MTEST_FAIL(errs, "SUM of DOUBLE PRECISION: %g", dsum);
    double _Complex z = 1.0 + 1.0 * I, zsum;
    MPI_Allreduce(&z, &zsum, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    if (zsum != n * z)
        MTEST_FAIL(errs, "SUM of DOUBLE COMPLEX: (%g,%g)", creal(zsum), cimag(zsum));
    /* Fortran's truth: any nonzero LOGICAL is true; results are 1 (.TRUE.) and 0. */
    int32_t mine = me == 0 ? -1 : 0, any, all, odd;
    MPI_Allreduce(&mine, &any, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &all, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &odd, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD);
    if (!any || (n == 1) != (all != 0) || !odd)
        MTEST_FAIL(errs, "LOR/LAND/LXOR of LOGICAL: %d %d %d", any, all, odd);
    struct {
        double v, k;
    } dp = {(double)(me % 2), (double)me}, dmin, dmax;
    MPI_Allreduce(&dp, &dmin, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD);
    MPI_Allreduce(&dp, &dmax, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD);
    if (dmin.v != 0 || dmin.k != 0 || dmax.v != (n > 1) || dmax.k != (n > 1))
        MTEST_FAIL(errs, "MINLOC/MAXLOC of 2DOUBLE_PRECISION: (%g,%g) (%g,%g)", dmin.v, dmin.k,
                   dmax.v, dmax.k);
    struct {
        int32_t v, k;
    } ip = {-me, me}, imin;
    MPI_Allreduce(&ip, &imin, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD);
    if (imin.v != -(n - 1) || imin.k != n - 1)
        MTEST_FAIL(errs, "MINLOC of 2INTEGER: (%d,%d)", imin.v, imin.k);

    /* Not defined: SUM on LOGICAL, MAX on COMPLEX.  (LAND on INTEGER and SUM on CHARACTER are
     * refused too, as the standard's table says, but MPICH accepts them: test/unit/op_test.) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const struct {
        MPI_Op op;
        MPI_Datatype t;
        const char *what;
    } refused[] = {
        {MPI_SUM, MPI_LOGICAL, "SUM of LOGICAL"},
        {MPI_MAX, MPI_COMPLEX, "MAX of COMPLEX"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int64_t in[2] = {0, 0}, out[2];
        int rc = MPI_Allreduce(in, out, 1, refused[i].t, refused[i].op, MPI_COMM_WORLD), cls = -1;
        MPI_Error_class(rc, &cls);
        MTEST_CHECK_INT(errs, MPI_ERR_OP, cls, "%s: error class", refused[i].what);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

#ifndef MPICH_VERSION /* MPICH 4.0.2 fails an assertion packing Fortran types to external32 */
    /* external32: INTEGER 4, DOUBLE COMPLEX 16, 2REAL 8; back unchanged. */
    char packed[64];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", is, 1, MPI_INTEGER, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", &z, 1, MPI_DOUBLE_COMPLEX, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", &rp, 1, MPI_2REAL, packed, sizeof packed, &pos);
    MTEST_CHECK_INT(errs, 28, pos, "external32 bytes of INTEGER, DOUBLE COMPLEX, 2REAL");
    if ((unsigned char)packed[4] != 0x3f || (unsigned char)packed[5] != 0xf0)
        MTEST_FAIL(errs, "external32 of DOUBLE COMPLEX (1,1): not big-endian doubles");
    int32_t i1;
    double _Complex z1;
    struct {
        float v, k;
    } rp1;
    pos = 0;
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &i1, 1, MPI_INTEGER);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &z1, 1, MPI_DOUBLE_COMPLEX);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &rp1, 1, MPI_2REAL);
    if (i1 != is[0] || z1 != z || rp1.v != rp.v || rp1.k != rp.k)
        MTEST_FAIL(errs, "external32 round trip of the Fortran types");
#endif
    /* Fortran's kinds: the named type of a class and size, and of a precision and range. */
    const struct {
        int typeclass, size;
        MPI_Datatype want;
    } sizes[] = {
        {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
        {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},
        {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
        {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        MPI_Datatype t = MPI_DATATYPE_NULL;
        int size = -1;
        MPI_Type_match_size(sizes[i].typeclass, sizes[i].size, &t);
        MPI_Type_size(t, &size);
        MTEST_CHECK_INT(errs, sizes[i].size, size, "size of MPI_Type_match_size(%d, %d)",
                        sizes[i].typeclass, sizes[i].size);
    }
    MPI_Datatype f90;
    int f90size = -1;
    MPI_Type_create_f90_integer(9, &f90);
    MPI_Type_size(f90, &f90size);
    MTEST_CHECK_INT(errs, 4, f90size, "size of MPI_Type_create_f90_integer(9)");
    MPI_Type_create_f90_real(12, MPI_UNDEFINED, &f90);
    MPI_Type_size(f90, &f90size);
    MTEST_CHECK_INT(errs, 8, f90size, "size of MPI_Type_create_f90_real(12, MPI_UNDEFINED)");
    MPI_Type_create_f90_complex(MPI_UNDEFINED, 30, &f90);
    MPI_Type_size(f90, &f90size);
    MTEST_CHECK_INT(errs, 8, f90size, "size of MPI_Type_create_f90_complex(MPI_UNDEFINED, 30)");
    /* The type reduces as its named type. */
    double mine_d = 1.0 * me, max_d;
    MPI_Type_create_f90_real(15, 300, &f90);
    MPI_Allreduce(&mine_d, &max_d, 1, f90, MPI_MAX, MPI_COMM_WORLD);
    if (max_d != n - 1)
        MTEST_FAIL(errs, "MAX of MPI_Type_create_f90_real(15, 300): %g", max_d);
    errs += check_f90_types();
    return MTest_Finalize(errs);
}
