/* refused_calls.c: the calls doc/api.md lists as refused exist (a program naming them links)
 * and fail cleanly: under MPI_ERRORS_RETURN each returns an error of class
 * MPI_ERR_UNSUPPORTED_OPERATION whose text names the call, and leaves the program able to go
 * on communicating.  One call of each refused family, and a few of the later additions; their
 * errors go to the handler the standard names (the communicator given, MPI_FILE_NULL's). */
#include "mtest.h"

#include <string.h>

static int check(int err, const char *name)
{
    int errs = 0, cls = MPI_SUCCESS, len = 0;
    char text[MPI_MAX_ERROR_STRING] = "";
    MPI_Error_class(err, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_UNSUPPORTED_OPERATION, cls, "error class of %s", name);
    MPI_Error_string(err, text, &len);
    if (!strstr(text, name))
        MTEST_FAIL(errs, "the error text of %s does not name it: \"%s\"", name, text);
    return errs;
}

static void comm_handler(MPI_Comm *comm, int *code, ...)
{
}

static int extent_fn(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    return MPI_Type_get_extent(type, &(MPI_Aint){0}, extent);
}

int main(int argc, char **argv)
{
    int errs = 0, out[4];
    MPI_Comm comm = MPI_COMM_SELF;
    MPI_Info info = MPI_INFO_NULL;
    MTest_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* One of each family. */
    MPI_Win win;
    errs += check(MPI_Win_create(out, sizeof(out), 1, info, comm, &win), "MPI_Win_create");
    MPI_File fh;
    errs += check(MPI_File_open(comm, "refused_calls.tmp", MPI_MODE_RDONLY, info, &fh),
                  "MPI_File_open");
    char port[MPI_MAX_PORT_NAME];
    errs += check(MPI_Open_port(info, port), "MPI_Open_port");
    /* The last one-sided call of MPI-3.0 and the large-count forms of MPI-4.0 are there too. */
    MPI_Request req;
    errs += check(MPI_Rget_accumulate(out, 1, MPI_INT, out + 1, 1, MPI_INT, 0, 0, 1, MPI_INT,
                                      MPI_SUM, MPI_WIN_NULL, &req),
                  "MPI_Rget_accumulate");
    errs += check(MPI_Put_c(out, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), "MPI_Put_c");
    void *base;
    errs += check(MPI_Win_allocate_c(16, 1, info, comm, &base, &win), "MPI_Win_allocate_c");

    /* Where the errors go (MPI-4.0): a call given a communicator raises them on its handler, an
     * I/O call on MPI_FILE_NULL's, which is MPI_ERRORS_RETURN at first: with MPI_COMM_WORLD and
     * MPI_COMM_SELF fatal, these still return. */
    MPI_Errhandler feh = MPI_ERRHANDLER_NULL;
    MPI_File_get_errhandler(MPI_FILE_NULL, &feh);
    if (feh != MPI_ERRORS_RETURN)
        MTEST_FAIL(errs, "MPI_FILE_NULL's handler is not MPI_ERRORS_RETURN at first");
    MPI_Comm returning;
    MPI_Comm_dup(MPI_COMM_SELF, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    errs += check(MPI_File_open(MPI_COMM_SELF, "refused_calls.tmp", MPI_MODE_RDONLY, info, &fh),
                  "MPI_File_open");
    errs += check(MPI_File_iwrite_shared(MPI_FILE_NULL, out, 1, MPI_INT, &req),
                  "MPI_File_iwrite_shared");
    errs += check(MPI_File_read_all_begin_c(MPI_FILE_NULL, out, 1, MPI_INT),
                  "MPI_File_read_all_begin_c");
    errs += check(MPI_Register_datarep("ferry_test", MPI_CONVERSION_FN_NULL,
                                       MPI_CONVERSION_FN_NULL, extent_fn, NULL),
                  "MPI_Register_datarep");
    errs += check(MPI_Register_datarep_c("ferry_test", MPI_CONVERSION_FN_NULL_C,
                                         MPI_CONVERSION_FN_NULL_C, extent_fn, NULL),
                  "MPI_Register_datarep_c");
    errs += check(MPI_Win_create(out, sizeof(out), 1, info, returning, &win), "MPI_Win_create");
    MPI_Comm inter;
    errs += check(MPI_Comm_spawn("no-such-program", MPI_ARGV_NULL, 1, info, 0, returning, &inter,
                                 MPI_ERRCODES_IGNORE),
                  "MPI_Comm_spawn");
    /* Only the predefined handlers fit MPI_FILE_NULL here; a communicator's is refused. */
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler(comm_handler, &ceh);
    int rc = MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL), cls = -1;
    MTEST_CHECK_INT(errs, MPI_SUCCESS, rc, "MPI_File_set_errhandler(MPI_FILE_NULL, fatal)");
    MPI_File_get_errhandler(MPI_FILE_NULL, &feh);
    if (feh != MPI_ERRORS_ARE_FATAL)
        MTEST_FAIL(errs, "MPI_FILE_NULL's handler did not become MPI_ERRORS_ARE_FATAL");
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_File_set_errhandler(MPI_FILE_NULL, ceh);
    MPI_Error_class(rc, &cls);
    MTEST_CHECK_INT(errs, MPI_ERR_ARG, cls,
                    "MPI_File_set_errhandler(MPI_FILE_NULL, a communicator's handler)");
    MPI_File_get_errhandler(MPI_FILE_NULL, &feh);
    if (feh != MPI_ERRORS_RETURN)
        MTEST_FAIL(errs, "a refused MPI_File_set_errhandler changed MPI_FILE_NULL's handler");
    MPI_Errhandler_free(&ceh);
    MPI_Comm_free(&returning);

    /* The library still works. */
    int sum = 0;
    MPI_Allreduce(&mtest_rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK_INT(errs, mtest_size * (mtest_size - 1) / 2, sum, "an allreduce afterwards");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return MTest_Finalize(errs);
}
