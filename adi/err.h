/* err.h: MPI error codes that carry a message (class in the low bits). */
#ifndef ERR_H_INCLUDED
#define ERR_H_INCLUDED

#include "mpi.h"

#define MPIR_ERR_CLASS_MASK 0x7f
/* Classes and codes added by the user (MPI_Add_error_class/code) are this bit and an index:
 * above MPI_ERR_LASTCODE, as the standard wants. */
#define MPIR_ERR_USER_BIT 0x40000000

/* The class of a user-added code (itself for a class); -1 if it is not one. */
int MPIR_Err_user_class(int code);
static inline int MPIR_Err_class(int code)
{
    return (code & MPIR_ERR_USER_BIT) ? MPIR_Err_user_class(code) : code & MPIR_ERR_CLASS_MASK;
}
/* A new class (errclass < 0) or a new code of errclass; -1 when the table is full. */
int MPIR_Err_user_add(int errclass);
/* Sets the text of a user-added class or code (copied; at most MPI_MAX_ERROR_STRING - 1
 * characters). */
int MPIR_Err_user_set_string(int code, const char *text);
/* Why MPIR_Err_user_remove and MPIR_Err_user_remove_string did not take a number back. MPI-4.1
 * sec. 9.5 makes each of these erroneous; they are detected, so that the program learns of it. */
typedef enum {
    MPIR_ERR_REMOVED,
    MPIR_ERR_REMOVE_NOT_ADDED,   /* not a class (code) that MPI_Add_error_class (code) gave */
    MPIR_ERR_REMOVE_CODES_LEFT,  /* a class whose codes were not removed first */
    MPIR_ERR_REMOVE_STRING_LEFT, /* a class or code whose string was not removed first */
    MPIR_ERR_REMOVE_NO_STRING    /* MPI_Remove_error_string of one without a string */
} MPIR_err_remove_t;
/* Takes back a class (is_class) or code that MPIR_Err_user_add gave. */
MPIR_err_remove_t MPIR_Err_user_remove(int code, int is_class);
/* Takes back the string MPIR_Err_user_set_string gave to a class or code. */
MPIR_err_remove_t MPIR_Err_user_remove_string(int code);
/* The largest error class, the user-added ones included (MPI_LASTUSEDCODE). */
int MPIR_Err_last_used(void);
/* Creates a code of class errclass with a formatted message. */
int MPIR_Err_create(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message of a code; the class's generic text if its message is gone. */
const char *MPIR_Err_string(int code);
const char *MPIR_Err_class_string(int errclass);
/* Whether code is an error code MPI_Error_class accepts (a class, predefined or added, or a
 * code of one); MPI_SUCCESS is not. */
static inline int MPIR_Err_is_code(int code)
{
    return code > 0 && MPIR_Err_class_string(MPIR_Err_class(code)) != NULL;
}

#endif /* ERR_H_INCLUDED */
