/* status_f08.c: the conversions of the mpi_f08 status, MPI_Status_c2f08, MPI_Status_f082c,
 * MPI_Status_f2f08 and MPI_Status_f082f.  A received status (source, tag, error, its count)
 * goes to MPI_F08_status and back unchanged, its public fields named as in C; a count beyond
 * 2^32 bytes and the cancelled flag survive; the INTEGER status and the f08 one convert into
 * each other field for field; an ignore constant is an error, C's or one of the Fortran ones
 * (MPI_F_STATUS_IGNORE, MPI_F08_STATUS_IGNORE ..., which are distinct and not NULL; that they
 * are the Fortran program's is test/fortran/status_ignore_c.f90's part).  2 ranks or more
 * (ranks past 1 only check the local part). */
#include <string.h>
#include "mtest.h"

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    MPI_Status st, back;
    MPI_F08_status f08, f08_back;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    int count;

    if (mtest_rank == 0) {
        int v[5] = {1, 2, 3, 4, 5};
        MPI_Send(v, 5, MPI_INT, 1, 42, MPI_COMM_WORLD);
    } else if (mtest_rank == 1) {
        int v[8];
        MPI_Recv(v, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        st.MPI_ERROR = MPI_ERR_TRUNCATE; /* any value: the field travels as it is */
        MTEST_CHECK_RC(errs, MPI_Status_c2f08(&st, &f08), "MPI_Status_c2f08");
        MTEST_CHECK_INT(errs, 0, f08.MPI_SOURCE, "f08 status: source");
        MTEST_CHECK_INT(errs, 42, f08.MPI_TAG, "f08 status: tag");
        MTEST_CHECK_INT(errs, MPI_ERR_TRUNCATE, f08.MPI_ERROR, "f08 status: error");
        MTEST_CHECK_RC(errs, MPI_Status_f082c(&f08, &back), "MPI_Status_f082c");
        MPI_Get_count(&back, MPI_INT, &count);
        MTEST_CHECK_INT(errs, 5, count, "count after the round trip");
        MTEST_CHECK_INT(errs, 0, back.MPI_SOURCE, "source after the round trip");
        MTEST_CHECK_INT(errs, 42, back.MPI_TAG, "tag after the round trip");
        MTEST_CHECK_INT(errs, MPI_ERR_TRUNCATE, back.MPI_ERROR, "error after the round trip");
    }

    /* A large count and the cancelled flag, through f08 and through INTEGER and f08. */
    MPI_Count big = ((MPI_Count)3 << 32) + 12345, got = 0;
    int flag = 0;
    MPI_Status_set_elements_x(&st, MPI_BYTE, big);
    MPI_Status_set_cancelled(&st, 1);
    st.MPI_SOURCE = 7;
    MPI_Status_c2f08(&st, &f08);
    MTEST_CHECK_RC(errs, MPI_Status_f082f(&f08, f), "MPI_Status_f082f");
    MTEST_CHECK_INT(errs, 7, f[MPI_F_SOURCE], "INTEGER status from f08: source");
    memset(&f08_back, 0, sizeof f08_back);
    MTEST_CHECK_RC(errs, MPI_Status_f2f08(f, &f08_back), "MPI_Status_f2f08");
    MPI_Status_f082c(&f08_back, &back);
    MPI_Get_elements_x(&back, MPI_BYTE, &got);
    MPI_Test_cancelled(&back, &flag);
    MTEST_CHECK_INT(errs, big, got, "a count beyond 2^32 after the round trip");
    MTEST_CHECK_INT(errs, 1, flag, "cancelled after the round trip");
    MTEST_CHECK_INT(errs, 7, back.MPI_SOURCE, "source after the round trip");

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Status_c2f08(MPI_STATUS_IGNORE, &f08);
    if (rc == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Status_c2f08(MPI_STATUS_IGNORE) succeeded");
    rc = MPI_Status_f082c(&f08, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Status_f082c(..., MPI_STATUS_IGNORE) succeeded");

    /* The Fortran ignore constants as C sees them. */
    if (!MPI_F_STATUS_IGNORE || !MPI_F_STATUSES_IGNORE ||
        MPI_F_STATUS_IGNORE == MPI_F_STATUSES_IGNORE)
        MTEST_FAIL(errs, "MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE: NULL or the same");
    if ((void *)MPI_F08_STATUS_IGNORE != (void *)MPI_F_STATUS_IGNORE ||
        (void *)MPI_F08_STATUSES_IGNORE != (void *)MPI_F_STATUSES_IGNORE)
        MTEST_FAIL(errs, "the mpi_f08 ignore constants are not the INTEGER status's");
    struct {
        const char *what;
        int rc;
    } refused[] = {
        {"MPI_Status_f2c(MPI_F_STATUS_IGNORE)", MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back)},
        {"MPI_Status_f2c(MPI_F_STATUSES_IGNORE)", MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &back)},
        {"MPI_Status_c2f(.., MPI_F_STATUS_IGNORE)", MPI_Status_c2f(&back, MPI_F_STATUS_IGNORE)},
        {"MPI_Status_f082c(MPI_F08_STATUS_IGNORE)", MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &back)},
        {"MPI_Status_c2f08(.., MPI_F08_STATUSES_IGNORE)",
         MPI_Status_c2f08(&back, MPI_F08_STATUSES_IGNORE)},
        {"MPI_Status_f2f08(MPI_F_STATUS_IGNORE)", MPI_Status_f2f08(MPI_F_STATUS_IGNORE, &f08)},
        {"MPI_Status_f082f(.., MPI_F_STATUS_IGNORE)", MPI_Status_f082f(&f08, MPI_F_STATUS_IGNORE)},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        int cls = -1;
        MPI_Error_class(refused[i].rc, &cls);
        if (cls != MPI_ERR_ARG)
            MTEST_FAIL(errs, "%s: error class %d, not MPI_ERR_ARG", refused[i].what, cls);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
