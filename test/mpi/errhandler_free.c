/* errhandler_free.c: MPI_Errhandler_free (MPI-4.1 9.3.5).  A handle from MPI_Comm_get_errhandler
 * is a reference of its own: freeing it sets it to MPI_ERRHANDLER_NULL and leaves the
 * communicator's handler in force (an erroneous call still returns its error), also when the
 * communicator itself is freed before the handle; a duplicate inherits its parent's handler;
 * many get/free cycles work; freeing MPI_ERRHANDLER_NULL is an error that is returned (not a
 * crash) when the handlers say so. */
#include "mtest.h"

/* An erroneous call on comm (a send to a rank that does not exist): it must return an error of
 * class MPI_ERR_RANK, which shows that comm's handler is still MPI_ERRORS_RETURN. */
static int still_returns(MPI_Comm comm, const char *what)
{
    int size, errs = 0, buf = 0;
    MPI_Comm_size(comm, &size);
    int rc = MPI_Send(&buf, 1, MPI_INT, size, 0, comm);
    if (rc == MPI_SUCCESS)
        MTEST_FAIL(errs, "%s: MPI_Send to rank %d of %d succeeded", what, size, size);
    else
        errs += mtest_check_class(rc, MPI_ERR_RANK, what);
    return errs;
}

static int get_free(MPI_Comm comm, MPI_Errhandler expected, const char *what)
{
    int errs = 0;
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int rc = MPI_Comm_get_errhandler(comm, &eh);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Comm_get_errhandler", what);
    if (eh != expected)
        MTEST_FAIL(errs, "%s: MPI_Comm_get_errhandler gave handle %#x, expected %#x", what,
                   (unsigned)eh, (unsigned)expected);
    rc = MPI_Errhandler_free(&eh);
    MTEST_CHECK_RC(errs, rc, "%s: MPI_Errhandler_free", what);
    if (eh != MPI_ERRHANDLER_NULL)
        MTEST_FAIL(errs,
                   "%s: the handle is %#x after MPI_Errhandler_free, not "
                   "MPI_ERRHANDLER_NULL",
                   what, (unsigned)eh);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0, rc;
    MTest_Init(&argc, &argv);
    /* Errors not tied to a communicator go to MPI_COMM_SELF's handler (MPI-4), to
     * MPI_COMM_WORLD's in MPI-3: both return. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    errs += get_free(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "MPI_COMM_WORLD");
    errs += still_returns(MPI_COMM_WORLD, "MPI_COMM_WORLD after freeing its handler's handle");
    errs += get_free(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "MPI_COMM_WORLD again");
    errs += get_free(MPI_COMM_SELF, MPI_ERRORS_RETURN, "MPI_COMM_SELF");
    errs += still_returns(MPI_COMM_SELF, "MPI_COMM_SELF after freeing its handler's handle");

    /* A duplicate inherits the handler; a handle outlives the communicator it came from. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    errs += get_free(dup, MPI_ERRORS_RETURN, "duplicate of MPI_COMM_WORLD");
    errs += still_returns(dup, "duplicate after freeing its handler's handle");
    MPI_Errhandler held = MPI_ERRHANDLER_NULL;
    rc = MPI_Comm_get_errhandler(dup, &held);
    MTEST_CHECK_RC(errs, rc, "MPI_Comm_get_errhandler of the duplicate");
    MPI_Comm_free(&dup);
    rc = MPI_Errhandler_free(&held);
    MTEST_CHECK_RC(errs, rc, "MPI_Errhandler_free of a handle whose communicator is freed");
    MTEST_CHECK_INT(errs, MPI_ERRHANDLER_NULL, held, "that handle after MPI_Errhandler_free");

    /* MPI_ERRORS_ARE_FATAL on a communicator, fetched and freed; then set back. */
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_ARE_FATAL);
    errs += get_free(dup, MPI_ERRORS_ARE_FATAL, "duplicate with MPI_ERRORS_ARE_FATAL");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    errs += still_returns(dup, "duplicate set back to MPI_ERRORS_RETURN");
    MPI_Comm_free(&dup);

    /* Handles are references: many of them fetched and freed. */
    for (int i = 0; i < 1000 && errs == 0; i++)
        errs += get_free(MPI_COMM_WORLD, MPI_ERRORS_RETURN, "get/free cycle");

    /* Freeing MPI_ERRHANDLER_NULL is erroneous: the error is returned, nothing is freed. */
    MPI_Errhandler none = MPI_ERRHANDLER_NULL;
    rc = MPI_Errhandler_free(&none);
    if (rc == MPI_SUCCESS)
        MTEST_FAIL(errs, "MPI_Errhandler_free(MPI_ERRHANDLER_NULL) returned MPI_SUCCESS");
    errs += still_returns(MPI_COMM_WORLD, "MPI_COMM_WORLD at the end");
    return MTest_Finalize(errs);
}
