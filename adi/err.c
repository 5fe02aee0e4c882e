/* err.c: error codes with messages: a ring of recent messages indexed from the code. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "err.h"
#include "method.h"

/* A code is (slot << 7 | class).  Slots are reused round robin, so the text
 * of a very old code may be gone; its class text is returned then. */
#define NSLOTS 256
static struct {
    int code;
    char msg[MPI_MAX_ERROR_STRING];
} slots[NSLOTS];
static unsigned next_slot;

static const char *class_text[] = {
    [MPI_SUCCESS] = "No MPI error",
    [MPI_ERR_BUFFER] = "Invalid buffer pointer",
    [MPI_ERR_COUNT] = "Invalid count argument",
    [MPI_ERR_TYPE] = "Invalid datatype argument",
    [MPI_ERR_TAG] = "Invalid tag argument",
    [MPI_ERR_COMM] = "Invalid communicator",
    [MPI_ERR_RANK] = "Invalid rank",
    [MPI_ERR_ROOT] = "Invalid root",
    [MPI_ERR_GROUP] = "Invalid group",
    [MPI_ERR_OP] = "Invalid operation",
    [MPI_ERR_TOPOLOGY] = "Invalid topology",
    [MPI_ERR_DIMS] = "Invalid dimension argument",
    [MPI_ERR_ARG] = "Invalid argument",
    [MPI_ERR_UNKNOWN] = "Unknown error",
    [MPI_ERR_TRUNCATE] = "Message truncated",
    [MPI_ERR_OTHER] = "Other MPI error",
    [MPI_ERR_INTERN] = "Internal MPI error",
    [MPI_ERR_IN_STATUS] = "Error code is in status",
    [MPI_ERR_PENDING] = "Pending request",
    [MPI_ERR_REQUEST] = "Invalid request",
    [MPI_ERR_ACCESS] = "Permission denied",
    [MPI_ERR_AMODE] = "Invalid file access mode",
    [MPI_ERR_BAD_FILE] = "Invalid file name",
    [MPI_ERR_CONVERSION] = "Data conversion failed",
    [MPI_ERR_DUP_DATAREP] = "Data representation defined already",
    [MPI_ERR_FILE_EXISTS] = "File exists",
    [MPI_ERR_FILE_IN_USE] = "File in use",
    [MPI_ERR_FILE] = "Invalid file handle",
    [MPI_ERR_INFO] = "Invalid info object",
    [MPI_ERR_INFO_KEY] = "Invalid info key",
    [MPI_ERR_INFO_VALUE] = "Invalid info value",
    [MPI_ERR_INFO_NOKEY] = "Info key not set",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_NAME] = "Invalid service name",
    [MPI_ERR_NO_MEM] = "Out of memory",
    [MPI_ERR_NOT_SAME] = "Collective arguments differ",
    [MPI_ERR_NO_SPACE] = "No space left",
    [MPI_ERR_NO_SUCH_FILE] = "No such file",
    [MPI_ERR_PORT] = "Invalid port name",
    [MPI_ERR_QUOTA] = "Quota exceeded",
    [MPI_ERR_READ_ONLY] = "Read-only file or file system",
    [MPI_ERR_SERVICE] = "Invalid service",
    [MPI_ERR_SPAWN] = "Spawn failed",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "Unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "Unsupported operation",
    [MPI_ERR_WIN] = "Invalid window",
    [MPI_ERR_BASE] = "Invalid base address",
    [MPI_ERR_LOCKTYPE] = "Invalid lock type",
    [MPI_ERR_KEYVAL] = "Invalid keyval",
    [MPI_ERR_RMA_CONFLICT] = "Conflicting one-sided accesses",
    [MPI_ERR_RMA_SYNC] = "Wrong one-sided synchronization",
    [MPI_ERR_SIZE] = "Invalid size",
    [MPI_ERR_DISP] = "Invalid displacement",
    [MPI_ERR_ASSERT] = "Invalid assertion",
    [MPI_ERR_RMA_RANGE] = "Target memory out of the window",
    [MPI_ERR_RMA_ATTACH] = "Memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "Memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "Wrong window flavor",
    [MPI_ERR_SESSION] = "Invalid session",
    [MPI_ERR_PROC_ABORTED] = "A process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "Value too large",
    [MPI_ERR_ERRHANDLER] = "Invalid error handler",
    [MPI_T_ERR_MEMORY] = "MPI_T: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T: the tool interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T: the tool interface cannot be initialized now",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T: invalid item index",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T: no more handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T: no more sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T: the control variable cannot be set any more",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T: the performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T: the performance variable cannot be read and reset at once",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T: no variable or category has this name",
    [MPI_T_ERR_INVALID] = "MPI_T: invalid use of the interface or bad argument",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T: not supported",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "MPI_T: not accessible",
};

/* User-added classes and codes: entry i is code MPIR_ERR_USER_BIT | (i + 1). */
#define NUSER 1024
static struct {
    int errclass;
    int removed; /* by MPI_Remove_error_class/code; its number is not given again */
    char text[MPI_MAX_ERROR_STRING];
} user[NUSER];
static int nuser, last_class = MPI_ERR_LASTCODE;

static int user_index(int code)
{
    int i = (code & ~MPIR_ERR_USER_BIT) - 1;
    return (code & MPIR_ERR_USER_BIT) && i >= 0 && i < nuser && !user[i].removed ? i : -1;
}

int MPIR_Err_user_class(int code)
{
    int i = user_index(code);
    return i < 0 ? -1 : user[i].errclass;
}

int MPIR_Err_user_add(int errclass)
{
    if (nuser == NUSER)
        return -1;
    int code = MPIR_ERR_USER_BIT | (nuser + 1);
    user[nuser].errclass = errclass < 0 ? code : errclass;
    if (errclass < 0)
        last_class = code;
    user[nuser].text[0] = 0; /* no text until MPI_Add_error_string: "" (MPI-4.1 sec. 9.5) */
    nuser++;
    return code;
}

int MPIR_Err_user_set_string(int code, const char *text)
{
    int i = user_index(code);
    if (i < 0)
        return MPI_ERR_ARG;
    snprintf(user[i].text, sizeof(user[i].text), "%s", text);
    return MPI_SUCCESS;
}

MPIR_err_remove_t MPIR_Err_user_remove(int code, int is_class)
{
    int i = user_index(code);
    if (i < 0 || (user[i].errclass == code) != is_class)
        return MPIR_ERR_REMOVE_NOT_ADDED;
    if (is_class)
        for (int j = 0; j < nuser; j++)
            if (!user[j].removed && j != i && user[j].errclass == code)
                return MPIR_ERR_REMOVE_CODES_LEFT;
    if (user[i].text[0])
        return MPIR_ERR_REMOVE_STRING_LEFT;
    user[i].removed = 1;
    if (is_class && code == last_class) {
        last_class = MPI_ERR_LASTCODE;
        for (int j = 0; j < nuser; j++)
            if (!user[j].removed && user[j].errclass == (MPIR_ERR_USER_BIT | (j + 1)))
                last_class = user[j].errclass;
    }
    return MPIR_ERR_REMOVED;
}

MPIR_err_remove_t MPIR_Err_user_remove_string(int code)
{
    int i = user_index(code);
    if (i < 0)
        return MPIR_ERR_REMOVE_NOT_ADDED;
    if (!user[i].text[0])
        return MPIR_ERR_REMOVE_NO_STRING;
    user[i].text[0] = 0;
    return MPIR_ERR_REMOVED;
}

int MPIR_Err_last_used(void)
{
    return last_class;
}

const char *MPIR_Err_class_string(int errclass)
{
    if (user_index(errclass) >= 0)
        return user[user_index(errclass)].text;
    if (errclass >= 0 && errclass < (int)(sizeof(class_text) / sizeof(class_text[0])) &&
        class_text[errclass])
        return class_text[errclass];
    return NULL;
}

static int vcreate(int errclass, const char *fmt, va_list ap)
{
    unsigned s = next_slot++ % NSLOTS;
    int code = (int)((s + 1) << 7) | errclass;
    slots[s].code = code;
    vsnprintf(slots[s].msg, sizeof(slots[s].msg), fmt, ap);
    return code;
}

int MPIR_Err_create(int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = vcreate(errclass, fmt, ap);
    va_end(ap);
    return code;
}

int MPIDU_err_create(int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = vcreate(errclass, fmt, ap);
    va_end(ap);
    return code;
}

const char *MPIR_Err_string(int code)
{
    if (code & MPIR_ERR_USER_BIT)
        return user_index(code) >= 0 ? user[user_index(code)].text : NULL;
    int s = (code >> 7) - 1;
    if (s >= 0 && s < NSLOTS && slots[s].code == code)
        return slots[s].msg;
    return MPIR_Err_class_string(MPIR_Err_class(code));
}

const char *MPIDU_err_string(int code)
{
    return MPIR_Err_string(code);
}
