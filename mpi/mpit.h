/* mpit.h: what the files of the tool information interface (mpi/mpit*.c) share. */
#ifndef MPIT_H_INCLUDED
#define MPIT_H_INCLUDED

#include <string.h>
#include "mpiimpl.h"

/* Nesting count of MPI_T_init_thread less MPI_T_finalize: the interface is usable while > 0. */
extern int MPIR_T_init_count;

/* Every MPI_T call but init and finalize begins with it: the library's lock (MPI_THREAD_MULTIPLE),
 * then the check.  MPI_T calls return their error class and never call an error handler. */
#define MPIR_T_ENTER                                                                               \
    MPIR_CS_GUARD;                                                                                 \
    if (MPIR_T_init_count == 0)                                                                    \
    return MPI_T_ERR_NOT_INITIALIZED

/* Returns the n characters at s as MPI-4.1 sec. 15.3.3 says: with buf not NULL and *len > 0,
 * at most *len - 1 characters and a null terminator go to buf; *len becomes n + 1 (what the
 * whole string needs) in any case; a NULL len returns nothing. */
void MPIR_T_string(const char *s, size_t n, char *buf, int *len);
static inline void MPIR_T_cstring(const char *s, char *buf, int *len)
{
    MPIR_T_string(s, strlen(s), buf, len);
}

/* An optional int result of a _get_info call (NULL: not wanted). */
static inline void MPIR_T_put(int *out, int value)
{
    if (out)
        *out = value;
}

/* The ends of the _get_num and _get_index calls: the count or the index found (-1: none has the
 * name) goes to *out. */
static inline int MPIR_T_give_count(int *out, int n)
{
    if (!out)
        return MPI_T_ERR_INVALID;
    *out = n;
    return MPI_SUCCESS;
}
static inline int MPIR_T_give_index(int *out, int i)
{
    if (i < 0)
        return MPI_T_ERR_INVALID_NAME;
    *out = i;
    return MPI_SUCCESS;
}

/* The category a performance variable belongs to, by its name (mpi/mpit.c). */
int MPIR_T_pvar_category(const char *name);
/* The verbosity of the variables of a category. */
int MPIR_T_category_verbosity(int cat);
/* Frees the sessions and their handles (the last MPI_T_finalize; mpi/mpit_pvar.c). */
void MPIR_T_pvar_finalize(void);

#endif /* MPIT_H_INCLUDED */
