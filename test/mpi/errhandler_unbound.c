/* errhandler_unbound.c: an error bound to no communicator, window or file (a datatype, info or
 * error-code call) is raised on MPI_COMM_SELF in the World Model (MPI-4.0 sec. 9.3; MPI-3.1
 * said MPI_COMM_WORLD).  With MPI_COMM_WORLD left fatal and MPI_COMM_SELF given
 * MPI_ERRORS_RETURN, MPI_Type_contiguous with a negative count, MPI_Info_get_nkeys on
 * MPI_INFO_NULL and MPI_Error_class of a code that does not exist return their error classes
 * instead of aborting; a handler of the program's own on MPI_COMM_SELF is called once per such
 * error, with MPI_COMM_SELF and the code the call returns.  Errors of calls on a communicator
 * still go to that communicator's handler.  Any number of ranks.
 * MPICH before 4.2 and Open MPI before 5.0 still raise them on MPI_COMM_WORLD: there a note
 * says so and nothing is checked. */
#include "mtest.h"

static int calls, last_code;
static MPI_Comm last_comm;

static void count_handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_comm = *comm;
    last_code = *code;
}

static int check_class(int rc, int want, const char *what)
{
    int errs = 0, cls = -1;
    if (rc == MPI_SUCCESS) {
        MTEST_FAIL(errs, "%s returned MPI_SUCCESS", what);
        return errs;
    }
    MPI_Error_class(rc, &cls);
    MTEST_CHECK_INT(errs, want, cls, "%s: error class", what);
    return errs;
}

int main(int argc, char **argv)
{
    int errs = 0;
    MTest_Init(&argc, &argv);
#if (defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40200000) ||                               \
    (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5)
    if (mtest_rank == 0)
        printf("note: this MPI raises unbound errors on MPI_COMM_WORLD (MPI-3.1's rule)\n");
    return MTest_Finalize(errs);
#else
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    int nkeys, cls;
    errs += check_class(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT,
                        "MPI_Type_contiguous(-1)");
    errs += check_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys), MPI_ERR_INFO,
                        "MPI_Info_get_nkeys(MPI_INFO_NULL)");

    /* A handler of the program's own. */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    int rc = MPI_Type_contiguous(-1, MPI_INT, &t);
    errs += check_class(rc, MPI_ERR_COUNT, "MPI_Type_contiguous(-1) under a user handler");
    MTEST_CHECK_INT(errs, 1, calls, "calls of the handler on MPI_COMM_SELF");
    if (calls == 1 && last_comm != MPI_COMM_SELF)
        MTEST_FAIL(errs, "the handler was called with another communicator than MPI_COMM_SELF");
    MTEST_CHECK_INT(errs, rc, last_code, "the code the handler was given");
    rc = MPI_Error_class(-12345, &cls);
    errs += check_class(rc, MPI_ERR_ARG, "MPI_Error_class(-12345)");
    MTEST_CHECK_INT(errs, 2, calls, "calls of the handler after MPI_Error_class");

    /* An error on a communicator goes to that communicator's handler, not MPI_COMM_SELF's. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    int x = 0;
    errs += check_class(MPI_Send(&x, 1, MPI_INT, mtest_size, 0, dup), MPI_ERR_RANK,
                        "MPI_Send to rank size on a communicator returning errors");
    MTEST_CHECK_INT(errs, 2, calls, "calls of MPI_COMM_SELF's handler after it");
    MPI_Comm_free(&dup);

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&eh);
    return MTest_Finalize(errs);
#endif
}
