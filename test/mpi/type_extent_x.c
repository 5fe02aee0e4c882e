/* type_extent_x.c: the MPI_Count queries MPI_Type_get_extent_x, MPI_Type_get_true_extent_x and
 * MPI_Type_size_c (with MPI_Type_size_x), MPI-4.1 5.1.  Each agrees with the MPI_Aint/int query
 * where that can hold the value, and gives the value worked out here by hand from the standard's
 * definitions: predefined types, a struct padded to its alignment, a vector, a resized type with
 * a negative lower bound, and types of more than 2^31 (and 2^32) bytes, for which MPI_Type_size
 * must say MPI_UNDEFINED.  The large types are never used for data. */
#include "mtest.h"

#include <limits.h>

static int check(MPI_Datatype t, MPI_Count size, MPI_Count lb, MPI_Count extent, MPI_Count true_lb,
                 MPI_Count true_extent, const char *what)
{
    int errs = 0, rc, isize = -7;
    MPI_Count c_size = -7, x_size = -7, c_lb = -7, c_ext = -7, c_tlb = -7, c_text = -7;
    MPI_Aint a_lb = -7, a_ext = -7, a_tlb = -7, a_text = -7;

    rc = MPI_Type_size_c(t, &c_size);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_size_c", what);
    MTEST_CHECK_INT(errs, size, c_size, "%s: MPI_Type_size_c", what);
    rc = MPI_Type_size_x(t, &x_size);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_size_x", what);
    MTEST_CHECK_INT(errs, size, x_size, "%s: MPI_Type_size_x", what);
    rc = MPI_Type_size(t, &isize);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_size", what);
    MTEST_CHECK_INT(errs, size > INT_MAX ? MPI_UNDEFINED : size, isize, "%s: MPI_Type_size", what);

    rc = MPI_Type_get_extent_x(t, &c_lb, &c_ext);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_get_extent_x", what);
    MTEST_CHECK_INT(errs, lb, c_lb, "%s: lb of MPI_Type_get_extent_x", what);
    MTEST_CHECK_INT(errs, extent, c_ext, "%s: extent of MPI_Type_get_extent_x", what);
    rc = MPI_Type_get_true_extent_x(t, &c_tlb, &c_text);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_get_true_extent_x", what);
    MTEST_CHECK_INT(errs, true_lb, c_tlb, "%s: true lb of MPI_Type_get_true_extent_x", what);
    MTEST_CHECK_INT(errs, true_extent, c_text, "%s: true extent of MPI_Type_get_true_extent_x",
                    what);

    /* The MPI_Aint forms agree (MPI_Aint holds every value here on a 64-bit host). */
    MPI_Type_get_extent(t, &a_lb, &a_ext);
    MPI_Type_get_true_extent(t, &a_tlb, &a_text);
    MTEST_CHECK_INT(errs, c_lb, a_lb, "%s: lb of MPI_Type_get_extent vs _x", what);
    MTEST_CHECK_INT(errs, c_ext, a_ext, "%s: extent of MPI_Type_get_extent vs _x", what);
    MTEST_CHECK_INT(errs, c_tlb, a_tlb, "%s: true lb of MPI_Type_get_true_extent vs _x", what);
    MTEST_CHECK_INT(errs, c_text, a_text, "%s: true extent of MPI_Type_get_true_extent vs _x",
                    what);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    errs += check(MPI_CHAR, 1, 0, 1, 0, 1, "MPI_CHAR");
    errs += check(MPI_INT, sizeof(int), 0, sizeof(int), 0, sizeof(int), "MPI_INT");
    errs += check(MPI_DOUBLE, 8, 0, 8, 0, 8, "MPI_DOUBLE");
    /* A pair type: its extent is its C struct's, padding included; its true extent ends at
     * the int. */
    struct double_int {
        double d;
        int i;
    };
    errs += check(MPI_DOUBLE_INT, sizeof(double) + sizeof(int), 0, sizeof(struct double_int), 0,
                  sizeof(double) + sizeof(int), "MPI_DOUBLE_INT");

    /* struct { double; char; }: 9 bytes of data, ub 9 rounded up to the double's alignment. */
    MPI_Datatype dc, vec, res, big, huge, neg;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(2, bl, disp, types, &dc);
    errs += check(dc, 9, 0, 16, 0, 9, "struct {double; char}");

    /* vector(3, 1, 2, int): elements at 0, 8, 16: lb 0, ub 20. */
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    errs += check(vec, 12, 0, 20, 0, 20, "vector(3,1,2,MPI_INT)");

    /* resized(int, lb -8, extent 32): the bounds set, the true bounds those of the data. */
    MPI_Type_create_resized(MPI_INT, -8, 32, &res);
    errs += check(res, sizeof(int), -8, 32, 0, sizeof(int), "resized(MPI_INT, -8, 32)");

    /* 2^20 doubles, 512 times over: 2^32 bytes, more than an int holds. */
    MPI_Datatype mb8;
    MPI_Type_contiguous(1 << 20, MPI_DOUBLE, &mb8);
    MPI_Type_contiguous(512, mb8, &big);
    const MPI_Count g4 = (MPI_Count)1 << 32;
    errs += check(big, g4, 0, g4, 0, g4, "contiguous(512, contiguous(2^20, MPI_DOUBLE))");

    /* Just over INT_MAX bytes: 2^31 + 8. */
    MPI_Datatype two[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Datatype half;
    MPI_Type_contiguous(256, mb8, &half); /* 2^31 bytes */
    two[0] = half;
    int bl2[2] = {1, 1};
    MPI_Aint disp2[2] = {0, (MPI_Aint)1 << 31};
    MPI_Type_create_struct(2, bl2, disp2, two, &huge);
    const MPI_Count g2 = (MPI_Count)1 << 31;
    errs += check(huge, g2 + 8, 0, g2 + 8, 0, g2 + 8, "struct {2^31 bytes; double}");

    /* A negative lower bound beyond 32 bits: resized(big, -2^33, 2^34). */
    MPI_Type_create_resized(big, -((MPI_Aint)1 << 33), (MPI_Aint)1 << 34, &neg);
    errs += check(neg, g4, -((MPI_Count)1 << 33), (MPI_Count)1 << 34, 0, g4,
                  "resized(2^32-byte type, -2^33, 2^34)");

    /* A bad datatype is an error returned, not a crash. */
    MPI_Count c = 0;
    rc = MPI_Type_size_c(MPI_DATATYPE_NULL, &c);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Type_size_c(MPI_DATATYPE_NULL)");
    MPI_Count l = 0, e = 0;
    rc = MPI_Type_get_extent_x(MPI_DATATYPE_NULL, &l, &e);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Type_get_extent_x(MPI_DATATYPE_NULL)");
    rc = MPI_Type_get_true_extent_x(MPI_DATATYPE_NULL, &l, &e);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Type_get_true_extent_x(MPI_DATATYPE_NULL)");

    MPI_Type_free(&dc);
    MPI_Type_free(&vec);
    MPI_Type_free(&res);
    MPI_Type_free(&neg);
    MPI_Type_free(&big);
    MPI_Type_free(&huge);
    MPI_Type_free(&half);
    MPI_Type_free(&mb8);
    return MTest_Finalize(errs);
}
