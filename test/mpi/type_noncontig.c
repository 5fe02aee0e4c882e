/* type_noncontig.c: the common noncontiguous shapes (doubles with stride 2, the three faces of
 * a 3-D array as subarrays, an array of structs of mixed fields, indexed single doubles, a
 * vector of big blocks), each sent to and received from a contiguous buffer and another
 * shape of the same signature, at sizes from 0 to 8 MiB, so eager, every rendezvous mode and
 * the pipeline (forced by the test list's variants) meet every combination of contiguous and
 * noncontiguous sender and receiver.  Data checked element by element, guard bytes around. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

static int errs;

enum { CONTIG, STRIDE2, FACE_X, FACE_Y, FACE_Z, STRUCTS, INDEXED1, BIGBLOCKS, NSHAPES };
static const char *shape_name[] = {"contiguous", "stride-2 vector", "face x",    "face y",
                                   "face z",     "structs",         "indexed 1", "big blocks"};

/* A shape holding n doubles (n a multiple of 8), with the doubles' positions in a buffer of
 * *len bytes: pos[i] is the byte offset of the i-th double of the message. */
static MPI_Datatype make(int shape, long n, size_t *len, long *pos)
{
    MPI_Datatype t = MPI_DATATYPE_NULL;
    long i = 0;
    switch (shape) {
    case CONTIG:
        MPI_Type_contiguous((int)n, MPI_DOUBLE, &t);
        for (; i < n; i++)
            pos[i] = i * 8;
        *len = n * 8;
        break;
    case STRIDE2:
        MPI_Type_vector((int)n, 1, 2, MPI_DOUBLE, &t);
        for (; i < n; i++)
            pos[i] = i * 16;
        *len = n * 16;
        break;
    case FACE_X:
    case FACE_Y:
    case FACE_Z: {
        /* The plane at index 1 of dimension f of a D0 x D1 x D2 array of doubles whose
         * dimension f is 2 and whose other two multiply to n. */
        int f = shape - FACE_X, dims[3], sub[3], st[3] = {0, 0, 0};
        long p = 1;
        while (p * p * 4 <= n)
            p *= 2;
        long q = n > 0 ? n / p : 0;
        if (n == 0) {
            MPI_Type_contiguous(0, MPI_DOUBLE, &t);
            *len = 0;
            break;
        }
        for (int k = 0, o = 0; k < 3; k++)
            dims[k] = k == f ? 2 : (int)(o++ == 0 ? p : q);
        for (int k = 0; k < 3; k++)
            sub[k] = k == f ? 1 : dims[k];
        st[f] = 1;
        MPI_Type_create_subarray(3, dims, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
        for (int x = 0; x < dims[0]; x++)
            for (int y = 0; y < dims[1]; y++)
                for (int z = 0; z < dims[2]; z++) {
                    int c[3] = {x, y, z};
                    if (c[f] == 1)
                        pos[i++] = ((long)(x * dims[1] + y) * dims[2] + z) * 8;
                }
        *len = (size_t)dims[0] * dims[1] * dims[2] * 8;
        break;
    }
    case STRUCTS: {
        /* struct { double a; char pad[8]; double b[3]; } holds 4 doubles */
        struct s {
            double a;
            char pad[8];
            double b[3];
        };
        int bl[2] = {1, 3};
        MPI_Aint dis[2] = {offsetof(struct s, a), offsetof(struct s, b)};
        MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_DOUBLE}, one;
        MPI_Type_create_struct(2, bl, dis, ty, &one);
        MPI_Type_contiguous((int)(n / 4), one, &t);
        MPI_Type_free(&one);
        for (long e = 0; e < n / 4; e++) {
            pos[i++] = e * (long)sizeof(struct s) + offsetof(struct s, a);
            for (int k = 0; k < 3; k++)
                pos[i++] = e * (long)sizeof(struct s) + offsetof(struct s, b) + 8 * k;
        }
        *len = (n / 4) * sizeof(struct s);
        break;
    }
    case INDEXED1: {
        /* single doubles, scattered: every third, in an order that runs backwards in pairs */
        int *dis = malloc((n + 1) * sizeof(int));
        for (; i < n; i++) {
            long k = (i ^ 1) * 3;
            dis[i] = (int)k;
            pos[i] = k * 8;
        }
        MPI_Type_create_indexed_block((int)n, 1, dis, MPI_DOUBLE, &t);
        free(dis);
        *len = (n + 1) * 3 * 8;
        break;
    }
    case BIGBLOCKS: {
        /* blocks of 512 doubles 520 apart, then the rest as one shorter block */
        long nb = n / 512, tail = n % 512;
        int *bl = malloc((nb + 1) * sizeof(int));
        MPI_Aint *dis = malloc((nb + 1) * sizeof(MPI_Aint));
        for (long b = 0; b <= nb; b++) {
            bl[b] = b < nb ? 512 : (int)tail;
            dis[b] = b * 520 * 8;
            for (long k = 0; k < bl[b]; k++)
                pos[i++] = (b * 520 + k) * 8;
        }
        MPI_Type_create_hindexed((int)nb + 1, bl, dis, MPI_DOUBLE, &t);
        free(bl);
        free(dis);
        *len = (nb * 520 + tail) * 8;
        break;
    }
    }
    MPI_Type_commit(&t);
    return t;
}

static void exchange(int ss, int rs, long n, int tag)
{
    int partner = mtest_rank ^ 1;
    if (partner >= mtest_size)
        return;
    long *pos = mtest_malloc((n + 1) * sizeof(long));
    size_t len;
    int sending = (mtest_rank & 1) == (tag & 1);
    MPI_Datatype t = make(sending ? ss : rs, n, &len, pos);
    char *buf = mtest_malloc(len + 64);
    if (sending) {
        memset(buf, 0x77, len + 64);
        for (long i = 0; i < n; i++) {
            double v = (double)i * 3 + tag;
            memcpy(buf + pos[i], &v, 8);
        }
        int rc = MPI_Send(buf, 1, t, partner, tag, MPI_COMM_WORLD);
        MTEST_CHECK_RC(errs, rc, "send %s -> %s, %ld doubles", shape_name[ss], shape_name[rs], n);
    } else {
        mtest_fill_guard(buf, len + 64);
        char *want = mtest_malloc(len + 64);
        memcpy(want, buf, len + 64);
        for (long i = 0; i < n; i++) {
            double v = (double)i * 3 + tag;
            memcpy(want + pos[i], &v, 8);
        }
        MPI_Status st;
        int rc = MPI_Recv(buf, 1, t, partner, tag, MPI_COMM_WORLD, &st);
        MTEST_CHECK_RC(errs, rc, "recv %s -> %s, %ld doubles", shape_name[ss], shape_name[rs], n);
        if (memcmp(buf, want, len + 64)) {
            size_t b = 0;
            while (buf[b] == want[b])
                b++;
            MTEST_FAIL(errs, "%s -> %s, %ld doubles: byte %zu of the receive buffer differs",
                       shape_name[ss], shape_name[rs], n, b);
        }
        int c;
        MPI_Get_count(&st, MPI_DOUBLE, &c);
        MTEST_CHECK_INT(errs, n, c, "%s -> %s: doubles received", shape_name[ss], shape_name[rs]);
        free(want);
    }
    MPI_Type_free(&t);
    free(buf);
    free(pos);
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    /* doubles per message: empty, tiny, around the eager limits, large */
    static const long sizes[] = {0, 8, 64, 1024, 8192, 65536, 1 << 20};
    int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    int tag = 0;
    for (int z = 0; z < nsizes; z++) {
        for (int s = 0; s < NSHAPES; s++) {
            /* shape to contiguous, contiguous to shape, shape to the next shape */
            exchange(s, CONTIG, sizes[z], tag++);
            exchange(CONTIG, s, sizes[z], tag++);
            exchange(s, (s + 1) % NSHAPES, sizes[z], tag++);
            /* the largest size: only a few combinations, the run stays short */
            if (sizes[z] >= (1 << 20) && s >= 2)
                break;
        }
    }
    return MTest_Finalize(errs);
}
