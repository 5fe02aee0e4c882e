/* cxx_types.c: the C++ datatypes from C (MPI-4.0 3.2.2: MPI_CXX_BOOL and the three
 * MPI_CXX_*_COMPLEX).  Each has the size, extent and name the standard gives it, is a distinct
 * predefined type (combiner MPI_COMBINER_NAMED), travels between ranks, reduces with the
 * operations of its class (logical ops on bool, sum and product on the complex types) and
 * round-trips through external32.  Any number of ranks (a ring; 1 rank sends to itself). */
#include "mtest.h"

#include <complex.h>
#include <stdbool.h>
#include <string.h>

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
        {MPI_CXX_BOOL, "MPI_CXX_BOOL", (int)sizeof(bool)},
        {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", (int)sizeof(float _Complex)},
        {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", (int)sizeof(double _Complex)},
        {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
         (int)sizeof(long double _Complex)},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        errs += mtest_check_named_type(types[i].t, types[i].name, types[i].size);
        for (size_t j = 0; j < i; j++)
            if (types[j].t == types[i].t)
                MTEST_FAIL(errs, "%s is the same handle as %s", types[i].name, types[j].name);
    }
    if (MPI_CXX_BOOL == MPI_C_BOOL || MPI_CXX_DOUBLE_COMPLEX == MPI_C_DOUBLE_COMPLEX)
        MTEST_FAIL(errs, "a C++ type is the same handle as its C type");

    /* A ring of each type. */
    bool bs[3] = {true, false, me % 2 == 0}, br[3];
    double _Complex ds[2] = {me + 1.0 * I, -me - 2.0 * I}, dr[2];
    long double _Complex ls[2] = {me * 0.5L + 3.0L * I, 1.0L}, lr[2];
    float _Complex fs = (float)me - 1.0f * I, fr;
    MPI_Sendrecv(bs, 3, MPI_CXX_BOOL, right, 1, br, 3, MPI_CXX_BOOL, left, 1, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(ds, 2, MPI_CXX_DOUBLE_COMPLEX, right, 2, dr, 2, MPI_CXX_DOUBLE_COMPLEX, left, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(ls, 2, MPI_CXX_LONG_DOUBLE_COMPLEX, right, 3, lr, 2, MPI_CXX_LONG_DOUBLE_COMPLEX,
                 left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&fs, 1, MPI_CXX_FLOAT_COMPLEX, right, 4, &fr, 1, MPI_CXX_FLOAT_COMPLEX, left, 4,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (br[0] != true || br[1] != false || br[2] != (left % 2 == 0))
        MTEST_FAIL(errs, "bool ring: %d %d %d from rank %d", br[0], br[1], br[2], left);
    if (dr[0] != left + 1.0 * I || dr[1] != -left - 2.0 * I)
        MTEST_FAIL(errs, "double complex ring from rank %d", left);
    if (lr[0] != left * 0.5L + 3.0L * I || lr[1] != 1.0L)
        MTEST_FAIL(errs, "long double complex ring from rank %d", left);
    if (fr != (float)left - 1.0f * I)
        MTEST_FAIL(errs, "float complex ring from rank %d", left);

    /* Reductions: logical on bool, sum and product on complex. */
    bool mine = me == 0, any, all;
    MPI_Allreduce(&mine, &any, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, 1, any, "LOR of CXX_BOOL");
    MTEST_CHECK_INT(errs, n == 1, all, "LAND of CXX_BOOL");
    double _Complex z = 1.0 + 1.0 * I, sum, prod;
    MPI_Allreduce(&z, &sum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&z, &prod, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    double _Complex want = 1.0;
    for (int r = 0; r < n; r++)
        want *= z;
    if (sum != n * z || prod != want)
        MTEST_FAIL(errs, "SUM/PROD of CXX_DOUBLE_COMPLEX: (%g,%g) (%g,%g)", creal(sum), cimag(sum),
                   creal(prod), cimag(prod));
    /* MAX is not defined on complex types (nor LOR on them, nor SUM on bool). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Allreduce(&z, &sum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD), cls = -1;
    MPI_Error_class(rc, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_OP, cls, "MAX of CXX_DOUBLE_COMPLEX: error class");
    rc = MPI_Allreduce(&mine, &any, 1, MPI_CXX_BOOL, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_OP, cls, "SUM of CXX_BOOL: error class");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* external32: 1 + 8 + 16 + 32 bytes, back unchanged. */
    char packed[128];
    MPI_Aint pos = 0, need;
    MPI_Pack_external_size("external32", 1, MPI_CXX_LONG_DOUBLE_COMPLEX, &need);
    MTEST_CHECK_INT(errs, 32, need, "external32 size of CXX_LONG_DOUBLE_COMPLEX");
    MPI_Pack_external("external32", bs, 1, MPI_CXX_BOOL, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", &fs, 1, MPI_CXX_FLOAT_COMPLEX, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", ds, 1, MPI_CXX_DOUBLE_COMPLEX, packed, sizeof packed, &pos);
    MPI_Pack_external("external32", ls, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, packed, sizeof packed,
                      &pos);
    MTEST_CHECK_INT(errs, 57, pos, "external32 bytes of the four");
    bool b1;
    float _Complex f1;
    double _Complex d1;
    long double _Complex l1;
    pos = 0;
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &b1, 1, MPI_CXX_BOOL);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &f1, 1, MPI_CXX_FLOAT_COMPLEX);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &d1, 1, MPI_CXX_DOUBLE_COMPLEX);
    MPI_Unpack_external("external32", packed, sizeof packed, &pos, &l1, 1,
                        MPI_CXX_LONG_DOUBLE_COMPLEX);
    if (b1 != bs[0] || f1 != fs || d1 != ds[0] || l1 != ls[0])
        MTEST_FAIL(errs, "external32 round trip of the C++ types");
    return MTest_Finalize(errs);
}
