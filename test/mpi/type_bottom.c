/* type_bottom.c: MPI_BOTTOM with a struct type of absolute addresses (MPI_Get_address) that
 * gathers separate variables, small and large (a 1 MiB array among scalars), sent and received
 * that way, and broadcast; MPI_Aint_add/MPI_Aint_diff; a NULL buffer with a predefined type and a
 * count is still an error (MPI_ERR_BUFFER). */
#include "mtest.h"

#include <stdlib.h>
#include <string.h>

#define BIG (1 << 18) /* ints: 1 MiB */

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    int a;
    double b[3];
    char c[5];
    int *big = malloc(BIG * sizeof(int));
    MPI_Aint addr[4];
    MPI_Get_address(&a, &addr[0]);
    MPI_Get_address(b, &addr[1]);
    MPI_Get_address(c, &addr[2]);
    MPI_Get_address(big, &addr[3]);
    MTEST_CHECK_INT(errs, (MPI_Aint)(uintptr_t)b, addr[1], "MPI_Get_address of b");
    MTEST_CHECK_INT(errs, addr[1] + 8, MPI_Aint_add(addr[1], 8), "MPI_Aint_add");
    MTEST_CHECK_INT(errs, (char *)c - (char *)b, MPI_Aint_diff(addr[2], addr[1]), "MPI_Aint_diff");

    int bl[4] = {1, 3, 5, BIG};
    MPI_Datatype ty[4] = {MPI_INT, MPI_DOUBLE, MPI_CHAR, MPI_INT}, t, small;
    MPI_Type_create_struct(4, bl, addr, ty, &t);
    MPI_Type_commit(&t);
    MPI_Type_create_struct(3, bl, addr, ty, &small);
    MPI_Type_commit(&small);

    int partner = mtest_rank ^ 1;
    if (partner < mtest_size) {
        for (int round = 0; round < 2; round++) {
            MPI_Datatype use = round ? t : small;
            int sender = round == 0 ? 0 : 1;
            if ((mtest_rank & 1) == sender) {
                a = 42 + round;
                b[0] = 1.5, b[1] = -2.25, b[2] = 1e300;
                memcpy(c, "ferry", 5);
                for (int i = 0; i < BIG; i++)
                    big[i] = i ^ 0x5a5a;
                int rc = MPI_Send(MPI_BOTTOM, 1, use, partner, round, MPI_COMM_WORLD);
                MTEST_CHECK_RC(errs, rc, "MPI_Send from MPI_BOTTOM, round %d", round);
            } else {
                a = 0;
                memset(b, 0, sizeof b);
                memset(c, 0, sizeof c);
                memset(big, 0, BIG * sizeof(int));
                MPI_Status st;
                int rc = MPI_Recv(MPI_BOTTOM, 1, use, partner, round, MPI_COMM_WORLD, &st);
                MTEST_CHECK_RC(errs, rc, "MPI_Recv into MPI_BOTTOM, round %d", round);
                MTEST_CHECK_INT(errs, 42 + round, a, "int received at its address");
                if (b[0] != 1.5 || b[1] != -2.25 || b[2] != 1e300 || memcmp(c, "ferry", 5))
                    MTEST_FAIL(errs, "round %d: doubles or chars not received at their addresses",
                               round);
                for (int i = 0; round && i < BIG; i++)
                    if (big[i] != (i ^ 0x5a5a)) {
                        MTEST_FAIL(errs, "big[%d] = %d, expected %d", i, big[i], i ^ 0x5a5a);
                        break;
                    }
            }
        }
    }

    /* MPI_Bcast from MPI_BOTTOM with the same type. */
    a = mtest_rank == 0 ? 1234 : 0;
    b[2] = mtest_rank == 0 ? -7.5 : 0;
    memcpy(c, mtest_rank == 0 ? "boats" : "-----", 5);
    int rc = MPI_Bcast(MPI_BOTTOM, 1, small, 0, MPI_COMM_WORLD);
    MTEST_CHECK_RC(errs, rc, "MPI_Bcast of MPI_BOTTOM");
    if (a != 1234 || b[2] != -7.5 || memcmp(c, "boats", 5))
        MTEST_FAIL(errs, "MPI_Bcast of a struct at MPI_BOTTOM: int %d double %g", a, b[2]);

    /* A NULL buffer is still wrong with a predefined type. */
    if (mtest_size > 1) {
        rc = MPI_Send(NULL, 1, MPI_INT, partner < mtest_size ? partner : 0, 9, MPI_COMM_WORLD);
        errs += mtest_check_class(rc, MPI_ERR_BUFFER, "MPI_Send(NULL, 1, MPI_INT)");
    }
    MPI_Type_free(&t);
    MPI_Type_free(&small);
    free(big);
    return MTest_Finalize(errs);
}
