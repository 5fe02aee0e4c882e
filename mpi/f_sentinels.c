/* f_sentinels.c: the common blocks of mpif.h whose addresses stand for MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE ... in Fortran programs (mpi/fortran/fortran.h says why they live alone in
 * this file).  They are in libmpi, not in the Fortran bindings' library, because C has names for
 * two of them (MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE, mpi/compat.c) that a C program or
 * tool must be able to use without loading the Fortran bindings. */
#include "fortran/fortran.h"

/* gfortran aligns a common block to 16 bytes; the mpi_f08 module's object in this library names
 * them too, and the linker warns when the definition is less aligned than that. */
#define FERRY_F_COMMON __attribute__((aligned(16)))
FERRY_F_COMMON MPI_Fint ferry_bottom_;
FERRY_F_COMMON MPI_Fint ferry_in_place_;
FERRY_F_COMMON MPI_Fint ferry_status_ignore_[MPI_F_STATUS_SIZE];
FERRY_F_COMMON MPI_Fint ferry_statuses_ignore_[MPI_F_STATUS_SIZE];
FERRY_F_COMMON MPI_Fint ferry_errcodes_ignore_[1];
FERRY_F_COMMON MPI_Fint ferry_unweighted_[1];
FERRY_F_COMMON MPI_Fint ferry_weights_empty_[1];
