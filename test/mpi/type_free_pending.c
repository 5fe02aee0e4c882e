/* type_free_pending.c: the life of derived types: MPI_Type_free while sends and receives that use
 * the type are pending (eager and rendezvous sizes, both sides), types from
 * MPI_Type_get_contents staying valid after their parent and original are freed, errors
 * (uncommitted type in a send or receive: MPI_ERR_TYPE; freeing a predefined type:
 * MPI_ERR_TYPE), and MPI_Type_dup of a committed type being committed. */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define NMAX (1 << 20) /* blocks of the largest vector: 8 MiB of doubles with stride 2 */

static int errs;

/* Sends n doubles with stride 2 (a vector type freed right after posting) and receives them
 * into a vector of stride 3 (also freed while pending).  Checks the data. */
static void exchange(int n, int tag)
{
    int partner = mtest_rank ^ 1;
    if (partner >= mtest_size)
        return;
    int sender = (tag & 1) == 0 ? 0 : 1;
    MPI_Datatype t;
    MPI_Request req;
    if ((mtest_rank & 1) == sender) {
        double *s = mtest_malloc(2 * (size_t)n * sizeof(double) + 8);
        for (int i = 0; i < 2 * n; i++)
            s[i] = i;
        MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        MPI_Isend(s, 1, t, partner, tag, MPI_COMM_WORLD, &req);
        MPI_Type_free(&t);
        int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK_RC(errs, rc, "send of %d strided doubles after MPI_Type_free", n);
        free(s);
    } else {
        double *r = mtest_malloc(3 * (size_t)n * sizeof(double) + 8);
        for (int i = 0; i < 3 * n; i++)
            r[i] = -1;
        MPI_Type_vector(n, 1, 3, MPI_DOUBLE, &t);
        MPI_Type_commit(&t);
        MPI_Irecv(r, 1, t, partner, tag, MPI_COMM_WORLD, &req);
        MPI_Type_free(&t);
        MPI_Status st;
        int rc = MPI_Wait(&req, &st);
        MTEST_CHECK_RC(errs, rc, "receive of %d strided doubles after MPI_Type_free", n);
        for (int i = 0; i < 3 * n; i++) {
            double want = i % 3 == 0 ? (double)(2 * (i / 3)) : -1;
            if (r[i] != want) {
                MTEST_FAIL(errs, "n %d: r[%d] = %g, expected %g", n, i, r[i], want);
                break;
            }
        }
        free(r);
    }
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int tag = 0;
    for (int n = 1; n <= NMAX; n *= 8) {
        exchange(n, tag++);
        exchange(n, tag++);
    }

    /* Contents outlive the parent and the original. */
    MPI_Datatype v, s, got[2];
    MPI_Type_vector(4, 1, 3, MPI_INT, &v);
    int bl[2] = {1, 2};
    MPI_Aint d[2] = {0, 64};
    MPI_Datatype ty[2] = {v, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, d, ty, &s);
    MPI_Type_free(&v);
    int ints[3];
    MPI_Aint aints[2];
    MPI_Type_get_contents(s, 3, 2, 2, ints, aints, got);
    MPI_Type_free(&s);
    if (got[1] != MPI_DOUBLE)
        MTEST_FAIL(errs, "get_contents returned %#x for MPI_DOUBLE", (unsigned)got[1]);
    int size = 0, comb, ni, na, nd;
    MPI_Type_size(got[0], &size);
    MTEST_CHECK_INT(errs, 4 * (int)sizeof(int), size, "size of the vector from get_contents");
    MPI_Type_get_envelope(got[0], &ni, &na, &nd, &comb);
    MTEST_CHECK_INT(errs, MPI_COMBINER_VECTOR, comb, "combiner of the vector from get_contents");
    MPI_Type_commit(&got[0]);
    int buf[12], packed[4], pos = 0;
    for (int i = 0; i < 12; i++)
        buf[i] = i;
    MPI_Pack(buf, 1, got[0], packed, sizeof packed, &pos, MPI_COMM_WORLD);
    if (packed[0] != 0 || packed[1] != 3 || packed[2] != 6 || packed[3] != 9)
        MTEST_FAIL(errs, "the vector from get_contents packs %d %d %d %d", packed[0], packed[1],
                   packed[2], packed[3]);
    MPI_Type_free(&got[0]);

    /* Errors. */
    MPI_Datatype u;
    MPI_Type_contiguous(2, MPI_INT, &u);
    int x[2] = {0, 0};
    int rc = MPI_Send(x, 1, u, 0, 0, MPI_COMM_WORLD);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Send with an uncommitted type");
    MPI_Request req;
    rc = MPI_Irecv(x, 1, u, 0, 0, MPI_COMM_WORLD, &req);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Irecv with an uncommitted type");
    pos = 0;
    rc = MPI_Pack(x, 1, u, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Pack with an uncommitted type");
    MPI_Datatype dup;
    MPI_Type_commit(&u);
    MPI_Type_dup(u, &dup);
    rc = MPI_Sendrecv(x, 1, dup, mtest_rank, 5, packed, 2, MPI_INT, mtest_rank, 5, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE);
    MTEST_CHECK_RC(errs, rc, "send with the dup of a committed type (committed too)");
    MPI_Type_free(&dup);
    MPI_Type_free(&u);
    MPI_Datatype pre = MPI_INT;
    rc = MPI_Type_free(&pre);
    errs += mtest_check_class(rc, MPI_ERR_TYPE, "MPI_Type_free(MPI_INT)");
    return MTest_Finalize(errs);
}
