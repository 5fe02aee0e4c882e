/* fortran.h: what the Fortran bindings share: the sentinels of mpif.h and the conversions of
 * choice buffers, statuses and strings between Fortran's forms and C's. */
#ifndef FORTRAN_H_INCLUDED
#define FORTRAN_H_INCLUDED

#include <stddef.h>
#include <stdlib.h>
#include "mpi.h"

/* Handles and INTEGERs are the same numbers, LOGICAL is an int (gfortran: 4 bytes, .TRUE. 1),
 * and mpif.h's kinds say 8 bytes for MPI_Aint, MPI_Offset, MPI_Count. */
_Static_assert(sizeof(MPI_Fint) == 4 && sizeof(MPI_Comm) == sizeof(MPI_Fint), "INTEGER handles");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "mpif.h's MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND are 8");

/* mpif.h's common blocks (gfortran's symbols: lower case and one underscore), defined in libmpi
 * (mpi/f_sentinels.c): a Fortran program passes one of them, and its address says which constant
 * it meant.  Declared here, defined in another file, so that the compiler reaches them through
 * the GOT: an executable's own copy of a common block is the one both sides must see. */
extern MPI_Fint ferry_bottom_, ferry_in_place_;
extern MPI_Fint ferry_status_ignore_[MPI_F_STATUS_SIZE], ferry_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint ferry_errcodes_ignore_[1], ferry_unweighted_[1], ferry_weights_empty_[1];

/* A choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's. */
static inline void *ferry_f_buf(void *buf)
{
    if (buf == &ferry_bottom_)
        return MPI_BOTTOM;
    if (buf == &ferry_in_place_)
        return MPI_IN_PLACE;
    return buf;
}

/* An array of edge weights: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY become C's. */
static inline MPI_Fint *ferry_f_weights(MPI_Fint *w)
{
    if (w == ferry_unweighted_)
        return MPI_UNWEIGHTED;
    if (w == ferry_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return w;
}

/* Whether a Fortran status argument is MPI_STATUS_IGNORE or MPI_STATUSES_IGNORE (of "use mpi",
 * mpif.h or "use mpi_f08": the same blocks). */
static inline int ferry_f_status_ignored(const void *f)
{
    return f == ferry_status_ignore_ || f == ferry_statuses_ignore_;
}

/* A status argument: MPI_STATUS_IGNORE, or c holding the Fortran status's values (read by calls
 * that take a status in, such as MPI_Get_count). */
static inline MPI_Status *ferry_f_status_in(MPI_Fint *f, MPI_Status *c)
{
    if (ferry_f_status_ignored(f))
        return MPI_STATUS_IGNORE;
    PMPI_Status_f2c(f, c);
    return c;
}

/* After the call: the C status back into the Fortran one (nothing for MPI_STATUS_IGNORE). */
static inline void ferry_f_status_out(MPI_Status *c, MPI_Fint *f)
{
    if (c != MPI_STATUS_IGNORE)
        PMPI_Status_c2f(c, f);
}

/* CHARACTER*(*) arguments, whose length gfortran (8 and later) passes as a size_t after all the
 * others.  In: a C string of the value without its trailing blanks (malloc'd; NULL when memory
 * ran out).  Out: a zeroed C buffer large enough for any string a call writes (len, or an
 * MPI_MAX_ length when a call writes that much whatever it is given), then the string copied
 * into the Fortran one, cut at len and padded with blanks. */
char *ferry_f_string_in(const char *f, size_t len);
/* Info keys and values lose their leading blanks too (MPI-4.1 sec. 10: in Fortran, leading and
 * trailing spaces of keys and values are stripped). */
char *ferry_f_info_string_in(const char *f, size_t len);
char *ferry_f_string_buf(size_t len);
void ferry_f_string_out(const char *c, char *f, size_t len);

/* MPI-1's INTEGER addresses: an array of n made MPI_Aint (malloc'd; NULL when memory ran out),
 * and a result stored as INTEGER, *ierr becoming MPI_ERR_ARG when it does not fit. */
MPI_Aint *ferry_f_aints_in(const MPI_Fint *f, int n);
void ferry_f_aint_out(MPI_Aint a, MPI_Fint *f, MPI_Fint *ierr);

#endif /* FORTRAN_H_INCLUDED */
