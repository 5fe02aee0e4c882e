/* err.h: MPI error codes that carry a message (class in the low bits). */
#ifndef ERR_H_INCLUDED
#define ERR_H_INCLUDED

#include "mpi.h"

#define MPIR_ERR_CLASS_MASK 0x7f

static inline int MPIR_Err_class(int code) { return code & MPIR_ERR_CLASS_MASK; }
/* Creates a code of class errclass with a formatted message. */
int MPIR_Err_create(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The message of a code; the class's generic text if its message is gone. */
const char *MPIR_Err_string(int code);
const char *MPIR_Err_class_string(int errclass);

#endif /* ERR_H_INCLUDED */
