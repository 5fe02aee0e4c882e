/* type_pack.c: MPI_Pack/MPI_Unpack of several items into one buffer (a derived type, ints,
 * another derived type), MPI_Pack_size, the packed buffer sent as MPI_PACKED and unpacked on
 * the other side; too small a buffer is MPI_ERR_TRUNCATE.  MPI_Pack_external ("external32"):
 * the exact big-endian bytes the standard defines for ints, doubles, long (4 bytes), wchar
 * (2 bytes), long double (IEEE binary128), complex, bool and a pair type, the sizes from
 * MPI_Pack_external_size, and MPI_Unpack_external back to the values. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int errs;

static void native(void)
{
    double m[4][5];
    for (int i = 0; i < 20; i++)
        m[i / 5][i % 5] = i;
    MPI_Datatype col, face;
    MPI_Type_vector(4, 1, 5, MPI_DOUBLE, &col); /* column 2 of a 4x5 matrix */
    MPI_Type_commit(&col);
    int sizes[2] = {4, 5}, sub[2] = {2, 2}, st[2] = {2, 3};
    MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &face);
    MPI_Type_commit(&face);
    int ints[3] = {7, 8, 9};
    int s1, s2, s3;
    MPI_Pack_size(1, col, MPI_COMM_WORLD, &s1);
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &s2);
    MPI_Pack_size(1, face, MPI_COMM_WORLD, &s3);
    MTEST_CHECK_INT(errs, 4 * sizeof(double), s1, "MPI_Pack_size of a column");
    int total = s1 + s2 + s3, pos = 0;
    char *buf = mtest_malloc(total);
    MPI_Pack(&m[0][2], 1, col, buf, total, &pos, MPI_COMM_WORLD);
    MPI_Pack(ints, 3, MPI_INT, buf, total, &pos, MPI_COMM_WORLD);
    MPI_Pack(m, 1, face, buf, total, &pos, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, total, pos, "position after three MPI_Pack");

    /* Too small: MPI_ERR_TRUNCATE, position unchanged. */
    int p2 = total - 1;
    int rc = MPI_Pack(ints, 1, MPI_INT, buf, total, &p2, MPI_COMM_WORLD);
    errs += mtest_check_class(rc, MPI_ERR_TRUNCATE, "MPI_Pack past outsize");
    MTEST_CHECK_INT(errs, total - 1, p2, "position after a failed MPI_Pack");

    /* Round the ring as MPI_PACKED, unpacked in the same order. */
    int next = (mtest_rank + 1) % mtest_size, prev = (mtest_rank + mtest_size - 1) % mtest_size;
    char *rbuf = mtest_malloc(total);
    MPI_Sendrecv(buf, total, MPI_PACKED, next, 0, rbuf, total, MPI_PACKED, prev, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    double col_out[4], face_out[4][5];
    int ints_out[3];
    memset(face_out, 0, sizeof face_out);
    MPI_Datatype face_dst; /* the same face, unpacked into a zeroed matrix */
    MPI_Type_dup(face, &face_dst);
    pos = 0;
    MPI_Unpack(rbuf, total, &pos, col_out, 4, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, total, &pos, ints_out, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(rbuf, total, &pos, face_out, 1, face_dst, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, total, pos, "position after three MPI_Unpack");
    for (int i = 0; i < 4; i++)
        if (col_out[i] != i * 5 + 2)
            MTEST_FAIL(errs, "column element %d: %g, expected %d", i, col_out[i], i * 5 + 2);
    if (ints_out[0] != 7 || ints_out[2] != 9)
        MTEST_FAIL(errs, "ints unpacked as %d %d %d", ints_out[0], ints_out[1], ints_out[2]);
    for (int i = 0; i < 20; i++) {
        int r = i / 5, c = i % 5;
        double want = (r >= 2 && c >= 3) ? i : 0;
        if (face_out[r][c] != want)
            MTEST_FAIL(errs, "face element (%d,%d): %g, expected %g", r, c, face_out[r][c], want);
    }
    pos = total - 2;
    rc = MPI_Unpack(rbuf, total, &pos, ints_out, 1, MPI_INT, MPI_COMM_WORLD);
    errs += mtest_check_class(rc, MPI_ERR_TRUNCATE, "MPI_Unpack past insize");
    MPI_Type_free(&face_dst);
    MPI_Type_free(&face);
    MPI_Type_free(&col);
    free(buf);
    free(rbuf);
}

/* Packs count items of t from in, compares with the expected bytes, unpacks into out. */
static void ext32(const char *what, MPI_Datatype t, int count, const void *in, void *out,
                  const unsigned char *want, int nwant)
{
    MPI_Aint size, pos = 0, upos = 0;
    unsigned char buf[64];
    MPI_Pack_external_size("external32", count, t, &size);
    MTEST_CHECK_INT(errs, nwant, size, "%s: MPI_Pack_external_size", what);
    int rc = MPI_Pack_external("external32", in, count, t, buf, sizeof buf, &pos);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Pack_external", what);
    MTEST_CHECK_INT(errs, nwant, pos, "%s: position", what);
    for (int i = 0; i < nwant && i < pos; i++)
        if (buf[i] != want[i]) {
            MTEST_FAIL(errs, "%s: external32 byte %d is %#04x, expected %#04x", what, i, buf[i],
                       want[i]);
            break;
        }
    rc = MPI_Unpack_external("external32", buf, pos, &upos, out, count, t);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Unpack_external", what);
    MTEST_CHECK_INT(errs, nwant, upos, "%s: position after unpacking", what);
}

static void external(void)
{
    int i[2] = {0x01020304, -2}, io[2];
    static const unsigned char wi[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
    ext32("int", MPI_INT, 2, i, io, wi, 8);
    if (io[0] != i[0] || io[1] != i[1])
        MTEST_FAIL(errs, "int round trip: %#x %d", io[0], io[1]);

    double d = 1.0, dout;
    static const unsigned char wd[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    ext32("double", MPI_DOUBLE, 1, &d, &dout, wd, 8);
    MTEST_CHECK_INT(errs, 1, dout == 1.0, "double round trip");

    long l[2] = {-2, 0x12345678}, lo[2];
    static const unsigned char wl[] = {0xff, 0xff, 0xff, 0xfe, 0x12, 0x34, 0x56, 0x78};
    ext32("long (4 bytes in external32)", MPI_LONG, 2, l, lo, wl, 8);
    if (lo[0] != -2 || lo[1] != 0x12345678)
        MTEST_FAIL(errs, "long round trip: %ld %#lx", lo[0], lo[1]);

    wchar_t w = L'A', wo;
    static const unsigned char ww[] = {0, 0x41};
    ext32("wchar (2 bytes)", MPI_WCHAR, 1, &w, &wo, ww, 2);
    MTEST_CHECK_INT(errs, L'A', wo, "wchar round trip");

    long double ld[2] = {1.0L, -0.5L}, ldo[2];
    unsigned char wld[32] = {0x3f, 0xff};
    wld[16] = 0xbf;
    wld[17] = 0xfe;
    ext32("long double (binary128)", MPI_LONG_DOUBLE, 2, ld, ldo, wld, 32);
    if (ldo[0] != 1.0L || ldo[1] != -0.5L)
        MTEST_FAIL(errs, "long double round trip: %Lg %Lg", ldo[0], ldo[1]);

    float fc[2] = {1.0f, -2.0f}, fco[2];
    static const unsigned char wfc[] = {0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0};
    ext32("float complex", MPI_C_FLOAT_COMPLEX, 1, fc, fco, wfc, 8);
    MTEST_CHECK_INT(errs, 1, fco[0] == 1.0f && fco[1] == -2.0f, "float complex round trip");

    _Bool b = 1, bo = 0;
    static const unsigned char wb[] = {1};
    ext32("bool", MPI_C_BOOL, 1, &b, &bo, wb, 1);
    MTEST_CHECK_INT(errs, 1, bo, "bool round trip");

    struct {
        short s;
        int i;
    } si = {7, 9}, sio;
    static const unsigned char wsi[] = {0, 7, 0, 0, 0, 9};
    ext32("short_int", MPI_SHORT_INT, 1, &si, &sio, wsi, 6);
    MTEST_CHECK_INT(errs, 1, sio.s == 7 && sio.i == 9, "short_int round trip");

    /* A derived type: every other int of four, packed as two big-endian ints. */
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    int vi[4] = {0x0a0b0c0d, -1, 0x01000000, -1}, vo[4] = {0, 5, 0, 5};
    static const unsigned char wv[] = {0x0a, 0x0b, 0x0c, 0x0d, 1, 0, 0, 0};
    ext32("vector of ints", v, 1, vi, vo, wv, 8);
    if (vo[0] != vi[0] || vo[1] != 5 || vo[2] != vi[2] || vo[3] != 5)
        MTEST_FAIL(errs, "vector round trip: %#x %d %#x %d", vo[0], vo[1], vo[2], vo[3]);
    MPI_Type_free(&v);

    MPI_Aint pos = 0;
    unsigned char buf[8];
    int rc = MPI_Pack_external("native", i, 1, MPI_INT, buf, 8, &pos);
    errs += mtest_check_class(rc, MPI_ERR_ARG, "MPI_Pack_external with datarep \"native\"");
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    native();
    external();
    return MTest_Finalize(errs);
}
