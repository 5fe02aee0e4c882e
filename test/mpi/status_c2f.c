/* status_c2f.c: MPI_Status_c2f and MPI_Status_f2c.  A received status (source, tag, error, its
 * count) goes to the Fortran INTEGER array and back unchanged, the public fields at MPI_F_SOURCE,
 * MPI_F_TAG and MPI_F_ERROR; a count beyond 2^32 bytes and the cancelled flag (set with
 * MPI_Status_set_elements_x and MPI_Status_set_cancelled) survive too; an ignore constant is an
 * error.  2 ranks or more (ranks past 1 only check the local part). */
#include "mtest.h"

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    MPI_Status st, back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    int count;

    if (mtest_rank == 0) {
        int v[5] = {1, 2, 3, 4, 5};
        MPI_Send(v, 5, MPI_INT, 1, 42, MPI_COMM_WORLD);
    } else if (mtest_rank == 1) {
        int v[8];
        MPI_Recv(v, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        st.MPI_ERROR = MPI_ERR_TRUNCATE; /* any value: the field travels as it is */
        MTEST_CHECK_RC(errs, MPI_Status_c2f(&st, f), "MPI_Status_c2f");
        MTEST_CHECK_INT(errs, 0, f[MPI_F_SOURCE], "Fortran status: source");
        MTEST_CHECK_INT(errs, 42, f[MPI_F_TAG], "Fortran status: tag");
        MTEST_CHECK_INT(errs, MPI_ERR_TRUNCATE, f[MPI_F_ERROR], "Fortran status: error");
        MTEST_CHECK_RC(errs, MPI_Status_f2c(f, &back), "MPI_Status_f2c");
        MPI_Get_count(&back, MPI_INT, &count);
        MTEST_CHECK_INT(errs, 5, count, "count after the round trip");
        MTEST_CHECK_INT(errs, 0, back.MPI_SOURCE, "source after the round trip");
        MTEST_CHECK_INT(errs, 42, back.MPI_TAG, "tag after the round trip");
        MTEST_CHECK_INT(errs, MPI_ERR_TRUNCATE, back.MPI_ERROR, "error after the round trip");
    }

    /* A large count and the cancelled flag. */
    MPI_Count big = ((MPI_Count)3 << 32) + 12345, got = 0;
    int flag = 0;
    MPI_Status_set_elements_x(&st, MPI_BYTE, big);
    MPI_Status_set_cancelled(&st, 1);
    MPI_Status_c2f(&st, f);
    MPI_Status_f2c(f, &back);
    MPI_Get_elements_x(&back, MPI_BYTE, &got);
    MPI_Test_cancelled(&back, &flag);
    MTEST_CHECK_INT(errs, big, got, "a count beyond 2^32 after the round trip");
    MTEST_CHECK_INT(errs, 1, flag, "cancelled after the round trip");

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Status_c2f(MPI_STATUS_IGNORE, f);
    if (rc == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Status_c2f(MPI_STATUS_IGNORE) succeeded");
    rc = MPI_Status_f2c(f, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Status_f2c(..., MPI_STATUS_IGNORE) succeeded");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
