/* sentinels.c: the common blocks of mpif.h whose addresses stand for MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE ... (fortran.h says why they live alone in this file). */
#include "fortran.h"

MPI_Fint ferry_bottom_, ferry_in_place_;
MPI_Fint ferry_status_ignore_[MPI_F_STATUS_SIZE], ferry_statuses_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint ferry_errcodes_ignore_[1], ferry_unweighted_[1], ferry_weights_empty_[1];
