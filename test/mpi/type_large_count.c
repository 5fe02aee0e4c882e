/* type_large_count.c: the large-count (_c) forms of the datatype and packing calls (MPI-4.1
 * sec. 5.1, 5.2):
 * - each _c constructor given the values of a classic call builds the same type: size, bounds,
 *   true bounds and packed bytes agree, and it carries data between two ranks;
 * - its decoding: MPI_Type_get_envelope_c counts every numeric argument as a large count (in
 *   argument order, ndims/order and the distributions stay integers), MPI_Type_get_contents_c
 *   returns them, and the classic MPI_Type_get_envelope/get_contents refuse such a type with
 *   MPI_ERR_TYPE; a classic type has no large counts;
 * - values past 2^31: a contiguous type of 3e9 bytes and a vector whose stride is past 2^31
 *   elements (the types are only described, never filled), sizes and extents through the _c
 *   queries, MPI_Type_size gives MPI_UNDEFINED, MPI_Pack_size cannot say what MPI_Pack_size_c
 *   returns;
 * - MPI_Pack_c/Unpack_c and MPI_Pack_external_c/Unpack_external_c round trips with an
 *   MPI_Count position, MPI_ERR_TRUNCATE when the buffer is short, big-endian external32;
 * - bad arguments: negative count (MPI_ERR_COUNT), negative blocklength, NULL arrays.
 * MPICH 4.0.2 fails the truncation checks (MPI_Pack_c and MPI_Unpack_external_c past the
 * buffer succeed there, doing part of the work).
 * Written from the standard's text. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define BIG ((MPI_Count)3000000000LL) /* past INT_MAX */

/* Size, extent and true extent of a and b (made by the classic and the _c call) agree, and
 * packing `count` elements of each from the same buffer gives the same bytes. */
static int same_type(MPI_Datatype a, MPI_Datatype b, const char *what)
{
    int errs = 0;
    MPI_Count sa, sb, lba, lbb, exa, exb, tla, tlb, tea, teb;
    MPI_Type_size_c(a, &sa);
    MPI_Type_size_c(b, &sb);
    MPI_Type_get_extent_c(a, &lba, &exa);
    MPI_Type_get_extent_c(b, &lbb, &exb);
    MPI_Type_get_true_extent_c(a, &tla, &tea);
    MPI_Type_get_true_extent_c(b, &tlb, &teb);
    MTEST_CHECK_INT(errs, sa, sb, "%s: size", what);
    MTEST_CHECK_INT(errs, lba, lbb, "%s: lb", what);
    MTEST_CHECK_INT(errs, exa, exb, "%s: extent", what);
    MTEST_CHECK_INT(errs, tla, tlb, "%s: true lb", what);
    MTEST_CHECK_INT(errs, tea, teb, "%s: true extent", what);
    MPI_Aint lb_aint, ex_aint;
    MPI_Type_get_extent(b, &lb_aint, &ex_aint);
    MTEST_CHECK_INT(errs, exb, ex_aint, "%s: MPI_Type_get_extent agrees with the _c form", what);
    if (errs)
        return errs;
    /* Two elements from a patterned buffer that covers the true extent of both. */
    MPI_Count span = tea + exa + 64;
    char *src = mtest_malloc(span), *pa = mtest_malloc(2 * sa + 1), *pb = mtest_malloc(2 * sa + 1);
    mtest_fill_bytes(src, span, 5);
    MPI_Count posa = 0, posb = 0;
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    int rc = MPI_Pack_c(src - tla, 2, a, pa, 2 * sa, &posa, MPI_COMM_SELF);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Pack_c with the classic type", what);
    rc = MPI_Pack_c(src - tlb, 2, b, pb, 2 * sb, &posb, MPI_COMM_SELF);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Pack_c with the _c type", what);
    MTEST_CHECK_INT(errs, 2 * sa, posb, "%s: position after MPI_Pack_c", what);
    if (memcmp(pa, pb, 2 * sa) != 0)
        MTEST_FAIL(errs, "%s: the two types pack different bytes", what);
    free(src);
    free(pa);
    free(pb);
    return errs;
}

/* The envelope and contents of a _c type: ni integers, nc large counts (the values in
 * counts), nt datatypes; the classic decoding calls refuse it. */
static int check_large_contents(MPI_Datatype t, int combiner, MPI_Count ni, const int *ints,
                                MPI_Count nc, const MPI_Count *counts, MPI_Count nt,
                                const char *what)
{
    int errs = 0, comb = -1;
    MPI_Count gi = -1, ga = -1, gc = -1, gt = -1;
    int rc = MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gt, &comb);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_get_envelope_c", what);
    MTEST_CHECK_INT(errs, combiner, comb, "%s: combiner", what);
    MTEST_CHECK_INT(errs, ni, gi, "%s: num_integers", what);
    MTEST_CHECK_INT(errs, 0, ga, "%s: num_addresses", what);
    MTEST_CHECK_INT(errs, nc, gc, "%s: num_large_counts", what);
    MTEST_CHECK_INT(errs, nt, gt, "%s: num_datatypes", what);
    if (errs)
        return errs;
    int *gints = malloc(sizeof(int) * (ni + 1));
    MPI_Aint gaddr[1];
    MPI_Count *gcounts = malloc(sizeof(MPI_Count) * (nc + 1));
    MPI_Datatype *gtypes = malloc(sizeof(MPI_Datatype) * (nt + 1));
    rc = MPI_Type_get_contents_c(t, ni, 0, nc, nt, gints, gaddr, gcounts, gtypes);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Type_get_contents_c", what);
    for (MPI_Count i = 0; !rc && i < ni; i++)
        MTEST_CHECK_INT(errs, ints[i], gints[i], "%s: integer %lld", what, (long long)i);
    for (MPI_Count i = 0; !rc && i < nc; i++)
        MTEST_CHECK_INT(errs, counts[i], gcounts[i], "%s: large count %lld", what, (long long)i);
    for (MPI_Count i = 0; !rc && i < nt; i++) {
        int c2, i2, a2, t2;
        MPI_Type_get_envelope(gtypes[i], &i2, &a2, &t2, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&gtypes[i]);
    }
    /* The classic calls cannot return large counts: they fail (the class is not fixed by the
     * standard; Ferry says MPI_ERR_TYPE, MPICH MPI_ERR_OTHER). */
    int ci, ca, ct, cc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Type_get_envelope(t, &ci, &ca, &ct, &cc) == MPI_SUCCESS)
        MTEST_FAIL(errs, "%s: MPI_Type_get_envelope of a _c type succeeded", what);
    if (MPI_Type_get_contents(t, 100, 100, 100, gints, gaddr, gtypes) == MPI_SUCCESS)
        MTEST_FAIL(errs, "%s: MPI_Type_get_contents of a _c type succeeded", what);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(gints);
    free(gcounts);
    free(gtypes);
    return errs;
}

static int constructors(void)
{
    int errs = 0;
    MPI_Datatype a, b;
    int bl[3] = {2, 1, 3}, di[3] = {0, 4, 7}, ints[16] = {0};
    MPI_Count blc[3] = {2, 1, 3}, dic[3] = {0, 4, 7}, counts[16];
    MPI_Aint da[3] = {0, 20, 44};
    MPI_Count dac[3] = {0, 20, 44};

    MPI_Type_contiguous(5, MPI_INT, &a);
    MPI_Type_contiguous_c(5, MPI_INT, &b);
    errs += same_type(a, b, "contiguous");
    counts[0] = 5;
    errs += check_large_contents(b, MPI_COMBINER_CONTIGUOUS, 0, ints, 1, counts, 1, "contiguous");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &a);
    MPI_Type_vector_c(3, 2, 5, MPI_DOUBLE, &b);
    errs += same_type(a, b, "vector");
    counts[0] = 3, counts[1] = 2, counts[2] = 5;
    errs += check_large_contents(b, MPI_COMBINER_VECTOR, 0, ints, 3, counts, 1, "vector");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_create_hvector(3, 2, 24, MPI_SHORT, &a);
    MPI_Type_create_hvector_c(3, 2, 24, MPI_SHORT, &b);
    errs += same_type(a, b, "hvector");
    counts[0] = 3, counts[1] = 2, counts[2] = 24;
    errs += check_large_contents(b, MPI_COMBINER_HVECTOR, 0, ints, 3, counts, 1, "hvector");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_indexed(3, bl, di, MPI_INT, &a);
    MPI_Type_indexed_c(3, blc, dic, MPI_INT, &b);
    errs += same_type(a, b, "indexed");
    MPI_Count ic[7] = {3, 2, 1, 3, 0, 4, 7};
    errs += check_large_contents(b, MPI_COMBINER_INDEXED, 0, ints, 7, ic, 1, "indexed");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_create_hindexed(3, bl, da, MPI_INT, &a);
    MPI_Type_create_hindexed_c(3, blc, dac, MPI_INT, &b);
    errs += same_type(a, b, "hindexed");
    MPI_Count hc[7] = {3, 2, 1, 3, 0, 20, 44};
    errs += check_large_contents(b, MPI_COMBINER_HINDEXED, 0, ints, 7, hc, 1, "hindexed");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_create_indexed_block(3, 2, di, MPI_FLOAT, &a);
    MPI_Type_create_indexed_block_c(3, 2, dic, MPI_FLOAT, &b);
    errs += same_type(a, b, "indexed_block");
    MPI_Count ibc[5] = {3, 2, 0, 4, 7};
    errs +=
        check_large_contents(b, MPI_COMBINER_INDEXED_BLOCK, 0, ints, 5, ibc, 1, "indexed_block");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_create_hindexed_block(3, 2, da, MPI_FLOAT, &a);
    MPI_Type_create_hindexed_block_c(3, 2, dac, MPI_FLOAT, &b);
    errs += same_type(a, b, "hindexed_block");
    MPI_Count hbc[5] = {3, 2, 0, 20, 44};
    errs +=
        check_large_contents(b, MPI_COMBINER_HINDEXED_BLOCK, 0, ints, 5, hbc, 1, "hindexed_block");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Aint sd[3] = {0, 8, 24};
    MPI_Count sdc[3] = {0, 8, 24};
    MPI_Type_create_struct(3, bl, sd, types, &a);
    MPI_Type_create_struct_c(3, blc, sdc, types, &b);
    errs += same_type(a, b, "struct");
    MPI_Count stc[7] = {3, 2, 1, 3, 0, 8, 24};
    errs += check_large_contents(b, MPI_COMBINER_STRUCT, 0, ints, 7, stc, 3, "struct");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    MPI_Type_create_resized(MPI_INT, -4, 16, &a);
    MPI_Type_create_resized_c(MPI_INT, -4, 16, &b);
    errs += same_type(a, b, "resized");
    MPI_Count rc2[2] = {-4, 16};
    errs += check_large_contents(b, MPI_COMBINER_RESIZED, 0, ints, 2, rc2, 1, "resized");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    int sizes[2] = {6, 5}, subs[2] = {3, 2}, starts[2] = {1, 2};
    MPI_Count sizesc[2] = {6, 5}, subsc[2] = {3, 2}, startsc[2] = {1, 2};
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &a);
    MPI_Type_create_subarray_c(2, sizesc, subsc, startsc, MPI_ORDER_C, MPI_INT, &b);
    errs += same_type(a, b, "subarray");
    int sai[2] = {2, MPI_ORDER_C};
    MPI_Count sac[6] = {6, 5, 3, 2, 1, 2};
    errs += check_large_contents(b, MPI_COMBINER_SUBARRAY, 2, sai, 6, sac, 1, "subarray");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    int gs[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    MPI_Count gsc[2] = {8, 6};
    MPI_Type_create_darray(4, 3, 2, gs, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &a);
    MPI_Type_create_darray_c(4, 3, 2, gsc, dist, dargs, ps, MPI_ORDER_FORTRAN, MPI_INT, &b);
    errs += same_type(a, b, "darray");
    int dai[10] = {4, 3, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_DFLT_DARG,
                   2, 2, 2, MPI_ORDER_FORTRAN};
    errs += check_large_contents(b, MPI_COMBINER_DARRAY, 10, dai, 2, gsc, 1, "darray");
    MPI_Type_free(&a);
    MPI_Type_free(&b);

    /* A classic type has no large counts. */
    MPI_Count gi, ga, gc, gt;
    int comb;
    MPI_Type_create_hvector(2, 1, 16, MPI_INT, &a);
    MPI_Type_get_envelope_c(a, &gi, &ga, &gc, &gt, &comb);
    MTEST_CHECK_INT(errs, 2, gi, "classic hvector: num_integers");
    MTEST_CHECK_INT(errs, 1, ga, "classic hvector: num_addresses");
    MTEST_CHECK_INT(errs, 0, gc, "classic hvector: num_large_counts");
    MPI_Type_free(&a);
    MPI_Type_get_envelope_c(MPI_INT, &gi, &ga, &gc, &gt, &comb);
    MTEST_CHECK_INT(errs, MPI_COMBINER_NAMED, comb, "MPI_INT: combiner");
    return errs;
}

static int past_int_max(void)
{
    int errs = 0, isize = 0;
    MPI_Datatype t;
    MPI_Count size = 0, lb = -1, extent = 0;
    MPI_Type_contiguous_c(BIG, MPI_BYTE, &t);
    MPI_Type_size_c(t, &size);
    MTEST_CHECK_INT(errs, BIG, size, "size of a contiguous_c type of %lld bytes", (long long)BIG);
    MPI_Type_get_extent_c(t, &lb, &extent);
    MTEST_CHECK_INT(errs, 0, lb, "lb of the big contiguous type");
    MTEST_CHECK_INT(errs, BIG, extent, "extent of the big contiguous type");
    MPI_Type_size(t, &isize);
    MTEST_CHECK_INT(errs, MPI_UNDEFINED, isize, "MPI_Type_size of a type past INT_MAX bytes");
    MPI_Type_free(&t);

    /* Two ints 3e9 elements apart. */
    MPI_Type_vector_c(2, 1, BIG, MPI_INT, &t);
    MPI_Type_get_extent_c(t, &lb, &extent);
    MTEST_CHECK_INT(errs, (BIG + 1) * 4, extent, "extent of a vector_c with a stride past 2^31");
    MPI_Type_size_c(t, &size);
    MTEST_CHECK_INT(errs, 8, size, "size of that vector");
    MPI_Type_free(&t);

    MPI_Type_create_resized_c(MPI_INT, 0, BIG, &t);
    MPI_Type_get_extent_c(t, &lb, &extent);
    MTEST_CHECK_INT(errs, BIG, extent, "extent set by MPI_Type_create_resized_c");
    MPI_Type_free(&t);

    MPI_Count psize = 0;
    int rc = MPI_Pack_size_c(BIG, MPI_INT, MPI_COMM_WORLD, &psize);
    MTEST_CHECK_RC(errs, rc, "MPI_Pack_size_c of %lld ints", (long long)BIG);
    MTEST_CHECK_INT(errs, 4 * BIG, psize, "MPI_Pack_size_c of %lld ints", (long long)BIG);
    rc = MPI_Pack_external_size_c("external32", BIG, MPI_DOUBLE, &psize);
    MTEST_CHECK_RC(errs, rc, "MPI_Pack_external_size_c");
    MTEST_CHECK_INT(errs, 8 * BIG, psize, "MPI_Pack_external_size_c of %lld doubles",
                    (long long)BIG);
    /* The classic call cannot say 8e9: MPI_ERR_VALUE_TOO_LARGE (MPI-4.0), or MPI_UNDEFINED as
     * MPICH 4.0.2 answers, never a wrapped value. */
    int ipsize = 0, cls = -1;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Pack_size(1000000000, MPI_DOUBLE, MPI_COMM_WORLD, &ipsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Error_class(rc, &cls);
    if (rc == MPI_SUCCESS ? ipsize != MPI_UNDEFINED : cls != MPI_ERR_VALUE_TOO_LARGE)
        MTEST_FAIL(errs, "MPI_Pack_size of 8e9 bytes: rc %d (%s), size %d", rc,
                   mtest_classname(cls), ipsize);
    return errs;
}

static int pack_roundtrips(void)
{
    int errs = 0;
    MPI_Datatype t;
    int src[40], dst[40];
    char packed[256];
    for (int i = 0; i < 40; i++)
        src[i] = 1000 + i;
    MPI_Type_vector_c(4, 3, 7, MPI_INT, &t); /* ints 0-2, 7-9, 14-16, 21-23 */
    MPI_Type_commit(&t);
    MPI_Count pos = 8; /* leave room: the position is an offset */
    int rc = MPI_Pack_c(src, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "MPI_Pack_c");
    MTEST_CHECK_INT(errs, 8 + 48, pos, "position after MPI_Pack_c");
    memset(dst, 0, sizeof dst);
    pos = 8;
    rc = MPI_Unpack_c(packed, sizeof packed, &pos, dst, 1, t, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "MPI_Unpack_c");
    MTEST_CHECK_INT(errs, 8 + 48, pos, "position after MPI_Unpack_c");
    for (int i = 0; i < 24; i++)
        MTEST_CHECK_INT(errs, (i % 7) < 3 ? 1000 + i : 0, dst[i], "unpacked int %d", i);
    pos = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Pack_c(src, 1, t, packed, 47, &pos, MPI_COMM_WORLD),
                              MPI_ERR_TRUNCATE, "MPI_Pack_c into 47 bytes of a 48-byte message");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MTEST_CHECK_INT(errs, 0, pos, "position after a failed MPI_Pack_c");

    pos = 0;
    rc = MPI_Pack_external_c("external32", src, 1, t, packed, sizeof packed, &pos);
    MTEST_CHECK_RC(errs, rc, "MPI_Pack_external_c");
    MTEST_CHECK_INT(errs, 48, pos, "position after MPI_Pack_external_c");
    /* external32 is big-endian: 1000 = 0x3e8 */
    unsigned char *p = (unsigned char *)packed;
    if (p[0] != 0 || p[1] != 0 || p[2] != 0x03 || p[3] != 0xe8)
        MTEST_FAIL(errs, "external32 of 1000 is %02x %02x %02x %02x, expected 00 00 03 e8", p[0],
                   p[1], p[2], p[3]);
    memset(dst, 0, sizeof dst);
    pos = 0;
    rc = MPI_Unpack_external_c("external32", packed, 48, &pos, dst, 1, t);
    MTEST_CHECK_RC(errs, rc, "MPI_Unpack_external_c");
    for (int i = 0; i < 24; i++)
        MTEST_CHECK_INT(errs, (i % 7) < 3 ? 1000 + i : 0, dst[i], "external32 unpacked int %d", i);
    pos = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Unpack_external_c("external32", packed, 40, &pos, dst, 1, t),
                              MPI_ERR_TRUNCATE, "MPI_Unpack_external_c of 48 bytes from 40");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&t);
    return errs;
}

/* Rank 0 sends with a struct_c type, rank 1 receives with the equivalent classic struct. */
static int send_with_c_type(void)
{
    int errs = 0;
    struct rec {
        char c[2];
        double d;
        int i[3];
    } out[3], in[3];
    MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT}, t;
    if (mtest_size < 2 || mtest_rank > 1)
        return 0;
    if (mtest_rank == 0) {
        MPI_Count bl[3] = {2, 1, 3}, d[3] = {offsetof(struct rec, c), offsetof(struct rec, d),
                                             offsetof(struct rec, i)};
        MPI_Datatype s;
        MPI_Type_create_struct_c(3, bl, d, types, &s);
        MPI_Type_create_resized_c(s, 0, sizeof(struct rec), &t);
        MPI_Type_free(&s);
        for (int k = 0; k < 3; k++) {
            out[k].c[0] = 'a' + k, out[k].c[1] = 'x';
            out[k].d = 0.5 + k;
            for (int j = 0; j < 3; j++)
                out[k].i[j] = 10 * k + j;
        }
        MPI_Type_commit(&t);
        MPI_Send(out, 3, t, 1, 0, MPI_COMM_WORLD);
    } else {
        int bl[3] = {2, 1, 3};
        MPI_Aint d[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
        MPI_Datatype s;
        MPI_Type_create_struct(3, bl, d, types, &s);
        MPI_Type_create_resized(s, 0, sizeof(struct rec), &t);
        MPI_Type_free(&s);
        MPI_Type_commit(&t);
        memset(in, 0, sizeof in);
        MPI_Status st;
        MPI_Recv(in, 3, t, 0, 0, MPI_COMM_WORLD, &st);
        MPI_Count n = -1;
        MPI_Get_count_c(&st, t, &n);
        MTEST_CHECK_INT(errs, 3, n, "received elements");
        for (int k = 0; k < 3; k++) {
            MTEST_CHECK_INT(errs, 'a' + k, in[k].c[0], "record %d char", k);
            if (in[k].d != 0.5 + k)
                MTEST_FAIL(errs, "record %d double %g, expected %g", k, in[k].d, 0.5 + k);
            for (int j = 0; j < 3; j++)
                MTEST_CHECK_INT(errs, 10 * k + j, in[k].i[j], "record %d int %d", k, j);
        }
    }
    MPI_Type_free(&t);
    return errs;
}

static int bad_arguments(void)
{
    int errs = 0;
    MPI_Datatype t;
    MPI_Count bl[2] = {1, -1}, d[2] = {0, 1};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    errs += mtest_check_class(MPI_Type_contiguous_c(-1, MPI_INT, &t), MPI_ERR_COUNT,
                              "MPI_Type_contiguous_c with count -1");
    /* A negative blocklength: MPI_ERR_ARG (Ferry) or MPI_ERR_COUNT (MPICH). */
    int rc[2] = {MPI_Type_vector_c(2, -3, 1, MPI_INT, &t),
                 MPI_Type_indexed_c(2, bl, d, MPI_INT, &t)};
    for (int i = 0; i < 2; i++) {
        int cls = -1;
        MPI_Error_class(rc[i], &cls);
        if (cls != MPI_ERR_ARG && cls != MPI_ERR_COUNT)
            MTEST_FAIL(errs, "%s with a negative blocklength: class %s",
                       i ? "MPI_Type_indexed_c" : "MPI_Type_vector_c", mtest_classname(cls));
    }
    errs += mtest_check_class(MPI_Type_create_hindexed_c(2, NULL, d, MPI_INT, &t), MPI_ERR_ARG,
                              "MPI_Type_create_hindexed_c with blocklengths NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    if (mtest_rank == 0) {
        errs += constructors();
        errs += past_int_max();
        errs += pack_roundtrips();
    }
    errs += send_with_c_type();
    errs += bad_arguments();
    return MTest_Finalize(errs);
}
