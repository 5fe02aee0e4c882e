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
    [MPI_ERR_NO_MEM] = "Out of memory",
    [MPI_ERR_KEYVAL] = "Invalid keyval",
};

const char *MPIR_Err_class_string(int errclass)
{
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
    int s = (code >> 7) - 1;
    if (s >= 0 && s < NSLOTS && slots[s].code == code)
        return slots[s].msg;
    return MPIR_Err_class_string(MPIR_Err_class(code));
}

const char *MPIDU_err_string(int code)
{
    return MPIR_Err_string(code);
}
