/* type_get_elements.c: MPI_Get_elements (and _x, _c) and MPI_Get_count after receiving part of
 * a derived type: a struct {int, double, short} receiving fewer bytes than one element counts
 * the whole basic elements that arrived; whole elements count their basic elements each; pair
 * types count two.  (MPICH 4.0.2 reports truncation for 20 bytes into 3 MPI_DOUBLE_INT.) */
#include "mtest.h"

#include <string.h>

static int errs;

/* Rank 0 sends `bytes` bytes; rank 1 receives them with count x type and checks. */
static void one(MPI_Datatype type, int count, int bytes, int want_count, int want_elems,
                const char *what)
{
    char buf[1024];
    memset(buf, 0, sizeof buf);
    if (mtest_rank == 0) {
        MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else if (mtest_rank == 1) {
        MPI_Status st;
        MPI_Recv(buf, count, type, 0, 0, MPI_COMM_WORLD, &st);
        int c, e;
        MPI_Count ex, ec;
        MPI_Get_count(&st, type, &c);
        MPI_Get_elements(&st, type, &e);
        MPI_Get_elements_x(&st, type, &ex);
        MPI_Get_elements_c(&st, type, &ec);
        MTEST_CHECK_INT(errs, want_count, c, "%s, %d bytes: MPI_Get_count", what, bytes);
        MTEST_CHECK_INT(errs, want_elems, e, "%s, %d bytes: MPI_Get_elements", what, bytes);
        MTEST_CHECK_INT(errs, want_elems, ex, "%s, %d bytes: MPI_Get_elements_x", what, bytes);
        MTEST_CHECK_INT(errs, want_elems, ec, "%s, %d bytes: MPI_Get_elements_c", what, bytes);
    }
}

int main(int argc, char **argv)
{
    MTest_Init(&argc, &argv);
    if (mtest_size < 2) {
        MTEST_FAIL(errs, "needs 2 processes");
        return MTest_Finalize(errs);
    }
    struct s {
        int i;
        double d;
        short h;
    };
    int bl[3] = {1, 1, 1};
    MPI_Aint dis[3] = {offsetof(struct s, i), offsetof(struct s, d), offsetof(struct s, h)};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT}, t;
    MPI_Type_create_struct(3, bl, dis, ty, &t);
    MPI_Type_commit(&t);
    const int S = 4 + 8 + 2; /* bytes of data in one element */

    one(t, 4, 0, 0, 0, "struct");
    one(t, 4, 4, MPI_UNDEFINED, 1, "struct");
    one(t, 4, 12, MPI_UNDEFINED, 2, "struct");
    one(t, 4, S, 1, 3, "struct");
    one(t, 4, 2 * S + 12, MPI_UNDEFINED, 8, "struct");
    one(t, 4, 4 * S, 4, 12, "struct");

    /* pair types are two basic elements each */
    one(MPI_DOUBLE_INT, 3, 12, 1, 2, "MPI_DOUBLE_INT");
    one(MPI_DOUBLE_INT, 3, 20, MPI_UNDEFINED, 3, "MPI_DOUBLE_INT");
    one(MPI_2INT, 3, 8, 1, 2, "MPI_2INT");

    /* a vector of 3 blocks of 2 ints: 6 elements per element */
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    MPI_Type_commit(&v);
    one(v, 2, 40, MPI_UNDEFINED, 10, "vector(3,2,5)");
    one(v, 2, 48, 2, 12, "vector(3,2,5)");

    MPI_Type_free(&v);
    MPI_Type_free(&t);
    return MTest_Finalize(errs);
}
