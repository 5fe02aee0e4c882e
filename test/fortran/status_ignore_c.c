/* status_ignore_c.c: the C half of status_ignore_c.f90.  C code handed a Fortran program's status
 * argument tells MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE apart by MPI_F_STATUS_IGNORE and
 * MPI_F_STATUSES_IGNORE ("use mpi", mpif.h) or MPI_F08_STATUS_IGNORE and
 * MPI_F08_STATUSES_IGNORE ("use mpi_f08"), and converts any other status to C's. */
#include <mpi.h>

/* 1 for MPI_STATUS_IGNORE, 2 for MPI_STATUSES_IGNORE, else the status's tag (>= 100). */
static int which(const MPI_Fint *f, const MPI_Fint *ignore, const MPI_Fint *ignores)
{
    MPI_Status c;
    if (f == ignore)
        return 1;
    if (f == ignores)
        return 2;
    if (MPI_Status_f2c(f, &c) != MPI_SUCCESS)
        return -1;
    return c.MPI_TAG;
}

int ferry_test_which_status(const MPI_Fint *f)
{
    return which(f, MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE);
}

int ferry_test_which_status_f08(const MPI_F08_status *f08)
{
    MPI_Status c;
    if (f08 == MPI_F08_STATUS_IGNORE)
        return 1;
    if (f08 == MPI_F08_STATUSES_IGNORE)
        return 2;
    if (MPI_Status_f082c(f08, &c) != MPI_SUCCESS)
        return -1;
    return c.MPI_TAG;
}

/* The sentinels hold nothing a call could have written: all zeros. */
int ferry_test_ignore_untouched(void)
{
    for (int i = 0; i < MPI_F_STATUS_SIZE; i++)
        if (MPI_F_STATUS_IGNORE[i] != 0 || MPI_F_STATUSES_IGNORE[i] != 0)
            return 0;
    return 1;
}
