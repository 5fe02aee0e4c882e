! coll.f90: free form with "use mpi".  MPI_Bcast; MPI_Allreduce on
! INTEGER, DOUBLE PRECISION and LOGICAL (LAND, LOR, LXOR), with
! MPI_IN_PLACE; MINLOC on MPI_2INTEGER; a user operation made by
! MPI_Op_create from a Fortran subroutine; MPI_Comm_split into even and
! odd ranks, with an Allreduce on each half.  Any number of ranks.
subroutine absmax(invec, inoutvec, len, datatype)
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  do i = 1, len
     inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine absmax

program coll
  use mpi
  implicit none
  external absmax
  integer :: rank, size, ierr, errs, i, op, half, hrank, hsize, isum
  integer :: ivals(4), isums(4), pair(2), minpair(2), user(3), uout(3)
  double precision :: dval, dsum
  logical :: mine, land, lor, lxor
  character(len=8) :: word
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  ! Bcast of INTEGERs and of a CHARACTER string from the last rank.
  ivals = 0
  word = '        '
  if (rank == size - 1) then
     ivals = (/ 5, 6, 7, 8 /)
     word = 'ferry'
  end if
  call MPI_Bcast(ivals, 4, MPI_INTEGER, size - 1, MPI_COMM_WORLD, ierr)
  call MPI_Bcast(word, 8, MPI_CHARACTER, size - 1, MPI_COMM_WORLD, ierr)
  if (any(ivals /= (/ 5, 6, 7, 8 /)) .or. word /= 'ferry') then
     errs = errs + 1
     print *, 'bcast: ', ivals, word
  end if

  ! Allreduce of INTEGER, DOUBLE PRECISION; in place.
  ivals = (/ rank, 1, -rank, 2 * rank /)
  call MPI_Allreduce(ivals, isums, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (isums(1) /= size * (size - 1) / 2 .or. isums(2) /= size) then
     errs = errs + 1
     print *, 'allreduce integer: ', isums
  end if
  dval = 0.5d0 * rank
  call MPI_Allreduce(MPI_IN_PLACE, dval, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (dval /= 0.5d0 * (size - 1)) then
     errs = errs + 1
     print *, 'allreduce in place double max: ', dval
  end if
  dval = 1.5d0
  call MPI_Allreduce(dval, dsum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (dsum /= 1.5d0 * size) then
     errs = errs + 1
     print *, 'allreduce double sum: ', dsum
  end if

  ! LOGICAL: only rank 0 holds .TRUE.
  mine = rank == 0
  call MPI_Allreduce(mine, land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(mine, lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(mine, lxor, 1, MPI_LOGICAL, MPI_LXOR, MPI_COMM_WORLD, ierr)
  if ((land .neqv. (size == 1)) .or. .not. lor .or. .not. lxor) then
     errs = errs + 1
     print *, 'logical reductions: ', land, lor, lxor
  end if

  ! MINLOC on MPI_2INTEGER: the smallest value and its rank.
  pair = (/ mod(rank + 1, size), rank /)
  call MPI_Allreduce(pair, minpair, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  if (minpair(1) /= 0 .or. minpair(2) /= size - 1) then
     errs = errs + 1
     print *, 'minloc: ', minpair
  end if

  ! A user operation: the largest absolute value.
  call MPI_Op_create(absmax, .true., op, ierr)
  user = (/ -rank, rank, 3 /)
  call MPI_Allreduce(user, uout, 3, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  if (uout(1) /= size - 1 .or. uout(2) /= size - 1 .or. uout(3) /= 3) then
     errs = errs + 1
     print *, 'user op: ', uout
  end if
  call MPI_Op_free(op, ierr)
  if (op /= MPI_OP_NULL) then
     errs = errs + 1
     print *, 'op after MPI_Op_free is not MPI_OP_NULL'
  end if

  ! Comm_split: even and odd ranks, ordered by rank.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_rank(half, hrank, ierr)
  call MPI_Comm_size(half, hsize, ierr)
  if (hrank /= rank / 2 .or. hsize /= (size + 1 - mod(rank, 2)) / 2) then
     errs = errs + 1
     print *, 'split: rank ', hrank, ' size ', hsize
  end if
  call MPI_Allreduce(1, isum, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  if (isum /= hsize) then
     errs = errs + 1
     print *, 'allreduce on the half: ', isum
  end if
  call MPI_Comm_free(half, ierr)
  if (half /= MPI_COMM_NULL) errs = errs + 1

  i = errs
  call MPI_Reduce(i, errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)
end program coll
