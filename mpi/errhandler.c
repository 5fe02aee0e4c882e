/* errhandler.c: error handlers, error classes and strings, and the argument checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "mpiimpl.h"

/* User error handlers (MPI_Comm_create_errhandler, MPI_Session_create_errhandler); handles
 * above the predefined ones index this table.  Both kinds of function take a pointer to an int
 * handle and a pointer to the code, so one pointer type holds either. */
#define MAX_ERRHANDLERS 256
#define FIRST_USER 3
static struct {
    int ref;
    MPIR_Eh_kind_t kind;
    MPI_Comm_errhandler_function *fn;
} user_eh[MAX_ERRHANDLERS];

static int user_index(MPI_Errhandler eh)
{
    int i = (eh & 0x03ffffff) - FIRST_USER;
    if ((eh & 0xfc000000) != MPIR_HANDLE_KIND_ERRHANDLER || i < 0 || i >= MAX_ERRHANDLERS ||
        user_eh[i].ref == 0)
        return -1;
    return i;
}

static int is_predefined(MPI_Errhandler eh)
{
    return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT;
}

void MPIR_Errhandler_add_ref(MPI_Errhandler eh)
{
    int i = user_index(eh);
    if (i >= 0)
        user_eh[i].ref++;
}

void MPIR_Errhandler_release(MPI_Errhandler eh)
{
    int i = user_index(eh);
    if (i >= 0)
        user_eh[i].ref--;
}

/* An object's handler slot takes eh: its reference first, so eh may be the handler there. */
void MPIR_Errhandler_set(MPI_Errhandler *slot, MPI_Errhandler eh)
{
    MPIR_Errhandler_add_ref(eh);
    MPIR_Errhandler_release(*slot);
    *slot = eh;
}

/* Whether the program gave MPI_COMM_SELF a handler (MPI_Comm_set_errhandler). */
static int self_handler_set;

/* The communicator an error bound to no object is raised on (a datatype, info or error-code call,
 * a bad argument before any communicator is known): MPI_COMM_SELF in the World Model (MPI-4.0
 * sec. 9.3; MPI-3.1 said MPI_COMM_WORLD).  A program written for MPI-3 gives MPI_COMM_WORLD
 * alone a handler and expects such errors there: as long as the program never set
 * MPI_COMM_SELF's handler and MPI_COMM_WORLD's differs from it, MPI_COMM_WORLD's is used, so
 * that it gets the errors returned that it asked for instead of an abort.  NULL (the fatal
 * handler) when neither communicator is there. */
static MPIR_Comm *unbound_comm(void)
{
    MPIR_Comm *self = MPIR_Comm_get(MPI_COMM_SELF), *world = MPIR_Comm_get(MPI_COMM_WORLD);
    if (self && world && !self_handler_set && world->errhandler != self->errhandler)
        return world;
    return self ? self : world;
}

/* The handler an error in a call on comm goes to (unbound_comm's when comm is NULL); *comm_p is
 * set to the communicator it belongs to. */
static MPI_Errhandler handler_of(MPIR_Comm **comm_p)
{
    if (!*comm_p)
        *comm_p = unbound_comm();
    return *comm_p ? (*comm_p)->errhandler : MPI_ERRORS_ARE_FATAL;
}

/* The predefined fatal handlers (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT). */
static int is_fatal(MPI_Errhandler eh)
{
    return eh != MPI_ERRORS_RETURN && user_index(eh) < 0;
}

/* Runs handler eh of the object named handle. */
static int invoke(MPI_Errhandler eh, int handle, const char *fname, int code)
{
    if (eh == MPI_ERRORS_RETURN)
        return code;
    int i = user_index(eh);
    if (i >= 0) {
        /* The handler gets the handle and the code; the call returns the code. */
        int h = handle, c = code;
        user_eh[i].fn(&h, &c);
        return code;
    }
    char msg[MPI_MAX_ERROR_STRING + 128];
    snprintf(msg, sizeof(msg), "Fatal error in %s: %s (error class %d: %s)", fname,
             MPIR_Err_string(code), MPIR_Err_class(code),
             MPIR_Err_class_string(MPIR_Err_class(code)));
    MPID_Abort(1, msg);
}

int MPIR_Err_return(MPIR_Comm *comm, const char *fname, int code)
{
    if (code == MPI_SUCCESS)
        return code;
    MPI_Errhandler eh = handler_of(&comm);
    return invoke(eh, comm ? comm->handle : MPI_COMM_NULL, fname, code);
}

int MPIR_Err_return_session(MPI_Session handle, MPI_Errhandler eh, const char *fname, int code)
{
    return code == MPI_SUCCESS ? code : invoke(eh, handle, fname, code);
}

/* MPI-4.0 sec. 14.7: files start with MPI_ERRORS_RETURN, and so does MPI_FILE_NULL. */
static MPI_Errhandler file_null_eh = MPI_ERRORS_RETURN;

MPI_Errhandler MPIR_File_null_errhandler(void)
{
    return file_null_eh;
}

int MPIR_File_null_set_errhandler(MPI_Errhandler eh)
{
    if (eh != MPI_ERRORS_RETURN && eh != MPI_ERRORS_ARE_FATAL && eh != MPI_ERRORS_ABORT)
        return MPIR_Err_create(MPI_ERR_ARG,
                               "error handler %#x cannot be attached to MPI_FILE_NULL: Ferry has "
                               "no file handlers (MPI_File_create_errhandler is refused), only "
                               "the predefined ones",
                               (unsigned)eh);
    file_null_eh = eh;
    return MPI_SUCCESS;
}

int MPIR_Err_return_file_null(const char *fname, int code)
{
    return code == MPI_SUCCESS ? code : invoke(file_null_eh, MPI_FILE_NULL, fname, code);
}

/* A Waitall, Testall, Waitsome or Testsome that finished a failed request:
 * the call returns MPI_ERR_IN_STATUS itself, not a code of that class,
 * because programs compare it with == (the standard names the code), and a
 * user's handler gets the same.  Only a fatal handler's message, which
 * nobody compares, names the first failure. */
int MPIR_Err_return_in_status(MPIR_Comm *comm, const char *fname, int first_err)
{
    if (is_fatal(handler_of(&comm)))
        return MPIR_Err_return(comm, fname,
                               MPIR_Err_create(MPI_ERR_IN_STATUS,
                                               "a request failed: %s (see the statuses)",
                                               MPIR_Err_string(first_err)));
    return MPIR_Err_return(comm, fname, MPI_ERR_IN_STATUS);
}

int MPIR_Err_not_initialized(const char *fname)
{
    fflush(NULL); /* what the program printed before leaves first, as in MPID_Abort */
    fprintf(stderr, "ferry: %s called %s; exiting\n", fname,
            MPIR_initialized == 0
                ? "before MPI_Init or MPI_Session_init"
                : "after MPI ended in this process (MPI_Finalize, or the exit after the "
                  "last MPI_Session_finalize)");
    fflush(stderr);
    _exit(1);
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    int cls = MPIR_Err_class(errorcode);
    if (errorcode != MPI_SUCCESS && !MPIR_Err_is_code(errorcode))
        return MPIR_Err_return(NULL, "MPI_Error_class",
                               MPIR_Err_create(MPI_ERR_ARG, "Invalid error code %d", errorcode));
    if (!errorclass)
        return MPIR_Err_return(NULL, "MPI_Error_class",
                               MPIR_Err_create(MPI_ERR_ARG, "errorclass is NULL"));
    *errorclass = cls;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    const char *s = errorcode >= 0 ? MPIR_Err_string(errorcode) : NULL;
    if (!s)
        return MPIR_Err_return(NULL, "MPI_Error_string",
                               MPIR_Err_create(MPI_ERR_ARG, "Invalid error code %d", errorcode));
    if (!string || !resultlen)
        return MPIR_Err_return(NULL, "MPI_Error_string",
                               MPIR_Err_create(MPI_ERR_ARG, "string or resultlen is NULL"));
    snprintf(string, MPI_MAX_ERROR_STRING, "%s", s);
    *resultlen = (int)strlen(string);
    return MPI_SUCCESS;
}

/* ---- Classes and codes added by the program (MPI-4.1 sec. 9.5) ---- */

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    MPIR_CHECK_INIT("MPI_Add_error_class");
    int code = errorclass ? MPIR_Err_user_add(-1) : 0;
    if (!errorclass || code < 0)
        return MPIR_Err_return(NULL, "MPI_Add_error_class",
                               errorclass ? MPIR_Err_create(MPI_ERR_OTHER, "no error class left")
                                          : MPIR_Err_create(MPI_ERR_ARG, "errorclass is NULL"));
    *errorclass = code;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    MPIR_CHECK_INIT("MPI_Add_error_code");
    int err = MPI_SUCCESS, code = -1;
    if (!errorcode)
        err = MPIR_Err_create(MPI_ERR_ARG, "errorcode is NULL");
    else if (errorclass < 0 || MPIR_Err_class(errorclass) != errorclass ||
             !MPIR_Err_class_string(errorclass))
        err = MPIR_Err_create(MPI_ERR_ARG, "%d is not an error class", errorclass);
    else if ((code = MPIR_Err_user_add(errorclass)) < 0)
        err = MPIR_Err_create(MPI_ERR_OTHER, "no error code left");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Add_error_code", err);
    *errorcode = code;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    MPIR_CHECK_INIT("MPI_Add_error_string");
    int err = MPI_SUCCESS;
    if (!string)
        err = MPIR_Err_create(MPI_ERR_ARG, "string is NULL");
    else if (strlen(string) >= MPI_MAX_ERROR_STRING)
        err = MPIR_Err_create(MPI_ERR_ARG, "the string has %zu characters, %d at most",
                              strlen(string), MPI_MAX_ERROR_STRING - 1);
    else if (MPIR_Err_user_set_string(errorcode, string))
        err = MPIR_Err_create(MPI_ERR_ARG,
                              "%d is not a class or code added by MPI_Add_error_class/code (the "
                              "predefined ones keep their text)",
                              errorcode);
    return MPIR_Err_return(NULL, "MPI_Add_error_string", err);
}

/* MPI-4.1 sec. 9.5: what the program added, taken back.  A class goes after its codes, a class
 * or code after its string. */
static int remove_error(const char *fname, int code, MPIR_err_remove_t why)
{
    int err = MPI_SUCCESS;
    switch (why) {
    case MPIR_ERR_REMOVED:
        break;
    case MPIR_ERR_REMOVE_NOT_ADDED:
        err = MPIR_Err_create(MPI_ERR_ARG,
                              "%d is not an error class or code added by "
                              "MPI_Add_error_class/code, or it was removed",
                              code);
        break;
    case MPIR_ERR_REMOVE_CODES_LEFT:
        err = MPIR_Err_create(MPI_ERR_OTHER, "error class %d still has codes (remove them first)",
                              code);
        break;
    case MPIR_ERR_REMOVE_STRING_LEFT:
        err = MPIR_Err_create(
            MPI_ERR_OTHER, "%d still has its error string (MPI_Remove_error_string first)", code);
        break;
    case MPIR_ERR_REMOVE_NO_STRING:
        err = MPIR_Err_create(MPI_ERR_ARG, "%d has no error string to remove", code);
        break;
    }
    return MPIR_Err_return(NULL, fname, err);
}

#pragma weak MPI_Remove_error_class = PMPI_Remove_error_class
int PMPI_Remove_error_class(int errorclass)
{
    MPIR_CHECK_INIT("MPI_Remove_error_class");
    return remove_error("MPI_Remove_error_class", errorclass, MPIR_Err_user_remove(errorclass, 1));
}

#pragma weak MPI_Remove_error_code = PMPI_Remove_error_code
int PMPI_Remove_error_code(int errorcode)
{
    MPIR_CHECK_INIT("MPI_Remove_error_code");
    return remove_error("MPI_Remove_error_code", errorcode, MPIR_Err_user_remove(errorcode, 0));
}

#pragma weak MPI_Remove_error_string = PMPI_Remove_error_string
int PMPI_Remove_error_string(int errorcode)
{
    MPIR_CHECK_INIT("MPI_Remove_error_string");
    return remove_error("MPI_Remove_error_string", errorcode,
                        MPIR_Err_user_remove_string(errorcode));
}

int MPIR_Check_comm_slow(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return MPIR_Err_create(MPI_ERR_COMM, "Invalid communicator: MPI_COMM_NULL");
    return MPIR_Err_create(MPI_ERR_COMM, "Invalid communicator %#x", (unsigned)comm);
}

int MPIR_Check_count(MPI_Aint count)
{
    return count >= 0 ? MPI_SUCCESS
                      : MPIR_Err_create(MPI_ERR_COUNT, "Negative count %ld", (long)count);
}

int MPIR_Check_type(MPI_Datatype type)
{
    if (MPIR_Datatype_get(type))
        return MPI_SUCCESS;
    if (type == MPI_DATATYPE_NULL)
        return MPIR_Err_create(MPI_ERR_TYPE, "Invalid datatype: MPI_DATATYPE_NULL");
    return MPIR_Err_create(MPI_ERR_TYPE, "Invalid datatype %#x", (unsigned)type);
}

int MPIR_Check_comm_type(MPI_Datatype type)
{
    int err = MPIR_Check_type(type);
    if (!err && !MPIR_Datatype_get(type)->committed)
        err = MPIR_Err_create(MPI_ERR_TYPE, "Datatype %#x has not been committed", (unsigned)type);
    return err;
}

int MPIR_Check_typed_buf(const void *buf, MPI_Aint count, MPI_Datatype type)
{
    /* MPI_IN_PLACE stands only for the send buffer of a collective, which its
     * callers let through before this check. */
    if (buf == MPI_IN_PLACE)
        return MPIR_Err_create(MPI_ERR_BUFFER, "MPI_IN_PLACE where a buffer is needed");
    /* A derived type may hold absolute addresses (MPI_Get_address) and be
     * used with MPI_BOTTOM, which is NULL. */
    if (!buf && count > 0 && MPIR_Datatype_is_builtin(type))
        return MPIR_Err_create(MPI_ERR_BUFFER, "NULL buffer with count %ld", (long)count);
    return MPI_SUCCESS;
}

int MPIR_Check_buf(const void *buf, MPI_Aint count)
{
    return buf || count == 0
               ? MPI_SUCCESS
               : MPIR_Err_create(MPI_ERR_BUFFER, "NULL buffer with count %ld", (long)count);
}

int MPIR_Check_send_rank(const MPIR_Comm *comm, int rank)
{
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < MPIR_Comm_peer_size(comm)))
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_RANK, "Invalid rank %d (communicator size %d)", rank,
                           MPIR_Comm_peer_size(comm));
}

int MPIR_Check_recv_rank(const MPIR_Comm *comm, int rank)
{
    return rank == MPI_ANY_SOURCE ? MPI_SUCCESS : MPIR_Check_send_rank(comm, rank);
}

int MPIR_Check_send_tag(int tag)
{
    if (tag >= 0 && tag <= MPIR_TAG_UB)
        return MPI_SUCCESS;
    return MPIR_Err_create(MPI_ERR_TAG, "Invalid tag %d (must be 0..%d)", tag, MPIR_TAG_UB);
}

int MPIR_Check_recv_tag(int tag)
{
    return tag == MPI_ANY_TAG ? MPI_SUCCESS : MPIR_Check_send_tag(tag);
}

int MPIR_Check_pt2pt_slow(const void *buf, MPI_Aint count, MPI_Datatype type, int rank, int tag,
                          MPIR_Comm *comm, int is_recv)
{
    int err;
    if ((err = MPIR_Check_count(count)) || (err = MPIR_Check_comm_type(type)) ||
        (err = MPIR_Check_typed_buf(buf, count, type)))
        return err;
    if (is_recv)
        return (err = MPIR_Check_recv_rank(comm, rank)) ? err : MPIR_Check_recv_tag(tag);
    return (err = MPIR_Check_send_rank(comm, rank)) ? err : MPIR_Check_send_tag(tag);
}

static int create_errhandler(const char *fname, MPIR_Eh_kind_t kind,
                             MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    if (!fn || !errhandler)
        return MPIR_Err_return(NULL, fname,
                               MPIR_Err_create(MPI_ERR_ARG, "function or errhandler is NULL"));
    for (int i = 0; i < MAX_ERRHANDLERS; i++) {
        if (user_eh[i].ref == 0) {
            user_eh[i].ref = 1;
            user_eh[i].kind = kind;
            user_eh[i].fn = fn;
            *errhandler = MPIR_HANDLE_KIND_ERRHANDLER | (i + FIRST_USER);
            return MPI_SUCCESS;
        }
    }
    return MPIR_Err_return(
        NULL, fname,
        MPIR_Err_create(MPI_ERR_OTHER, "out of error handlers (%d at most)", MAX_ERRHANDLERS));
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn,
                                MPI_Errhandler *errhandler)
{
    MPIR_CHECK_INIT("MPI_Comm_create_errhandler");
    return create_errhandler("MPI_Comm_create_errhandler", MPIR_EH_FOR_COMM, comm_errhandler_fn,
                             errhandler);
}

/* May be called before MPI_Session_init, which takes its result (MPI-4.0 sec. 11.2.1). */
#pragma weak MPI_Session_create_errhandler = PMPI_Session_create_errhandler
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    return create_errhandler("MPI_Session_create_errhandler", MPIR_EH_FOR_SESSION,
                             session_errhandler_fn, errhandler);
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    MPIR_CHECK_INIT("MPI_Comm_call_errhandler");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (err)
        return MPIR_Err_return(NULL, "MPI_Comm_call_errhandler", err);
    /* The handler runs; the call itself succeeds unless the handler is
     * MPI_ERRORS_RETURN-like and the code is passed back (MPI-4.1 sec. 9.3). */
    MPIR_Err_return(c, "MPI_Comm_call_errhandler", errorcode);
    return MPI_SUCCESS;
}

static int check_errhandler(MPI_Errhandler eh)
{
    if (is_predefined(eh) || user_index(eh) >= 0)
        return MPI_SUCCESS;
    if (eh == MPI_ERRHANDLER_NULL)
        return MPIR_Err_create(MPI_ERR_ARG, "Invalid error handler: MPI_ERRHANDLER_NULL");
    return MPIR_Err_create(MPI_ERR_ARG, "Invalid error handler %#x", (unsigned)eh);
}

int MPIR_Check_errhandler(MPI_Errhandler eh, MPIR_Eh_kind_t kind)
{
    static const char *const made_by[] = {[MPIR_EH_FOR_COMM] = "MPI_Comm_create_errhandler",
                                          [MPIR_EH_FOR_SESSION] = "MPI_Session_create_errhandler"};
    int err = check_errhandler(eh), i = user_index(eh);
    if (!err && i >= 0 && user_eh[i].kind != kind)
        err = MPIR_Err_create(MPI_ERR_ARG,
                              "error handler %#x was made by %s; it cannot be attached to a %s",
                              (unsigned)eh, made_by[user_eh[i].kind],
                              kind == MPIR_EH_FOR_COMM ? "communicator" : "session");
    return err;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    MPIR_CHECK_INIT("MPI_Comm_set_errhandler");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err)
        err = MPIR_Check_errhandler(errhandler, MPIR_EH_FOR_COMM);
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_set_errhandler", err);
    MPIR_Errhandler_set(&c->errhandler, errhandler);
    if (comm == MPI_COMM_SELF)
        self_handler_set = 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    MPIR_CHECK_INIT("MPI_Comm_get_errhandler");
    MPIR_Comm *c;
    int err = MPIR_Check_comm(comm, &c);
    if (!err && !errhandler)
        err = MPIR_Err_create(MPI_ERR_ARG, "errhandler is NULL");
    if (err)
        return MPIR_Err_return(c, "MPI_Comm_get_errhandler", err);
    /* The caller gets a handle of its own, to free with MPI_Errhandler_free. */
    MPIR_Errhandler_add_ref(c->errhandler);
    *errhandler = c->errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    MPIR_CS_GUARD; /* (also outside MPI_Init..MPI_Finalize) */
    int err = errhandler ? check_errhandler(*errhandler)
                         : MPIR_Err_create(MPI_ERR_ARG, "errhandler is NULL");
    if (err)
        return MPIR_Err_return(NULL, "MPI_Errhandler_free", err);
    /* Communicators using it keep it until they are freed. */
    MPIR_Errhandler_release(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
