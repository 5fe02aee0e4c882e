! status_conv.f90: free form with "use mpi".  MPI_STATUS_F2F08 and
! MPI_STATUS_F082F in the mpi module (MPI-4.1 sec. 19.3.5), with the
! TYPE(MPI_Status) they take: the very type of mpi_f08, so a status made
! here goes to a "use mpi_f08" procedure as it is.  A received status
! (source, tag, count, cancelled) survives the round trip.  Any number of
! ranks: each sends itself one message.
module status_conv_f08
  use mpi_f08
  implicit none
contains
  ! Read by the mpi_f08 calls: count and cancelled of a TYPE(MPI_Status).
  subroutine f08_count(s, n, cancelled)
    type(MPI_Status), intent(in) :: s
    integer, intent(out) :: n
    logical, intent(out) :: cancelled
    call MPI_Get_count(s, MPI_INTEGER, n)
    call MPI_Test_cancelled(s, cancelled)
  end subroutine f08_count
end module status_conv_f08

program status_conv
  use mpi
  use status_conv_f08, only: f08_count
  implicit none
  integer :: ierr, rank, errs, tot, n, req
  integer :: buf(7), got(7), st(MPI_STATUS_SIZE), back(MPI_STATUS_SIZE)
  type(MPI_Status) :: s08
  logical :: cancelled
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = rank
  call MPI_Irecv(got, 7, MPI_INTEGER, rank, 42, MPI_COMM_WORLD, req, ierr)
  call MPI_Send(buf, 5, MPI_INTEGER, rank, 42, MPI_COMM_WORLD, ierr)
  call MPI_Wait(req, st, ierr)
  call MPI_Status_f2f08(st, s08, ierr)
  if (ierr /= MPI_SUCCESS .or. s08%MPI_SOURCE /= rank .or. s08%MPI_TAG /= 42) then
     errs = errs + 1
     print *, 'f2f08: ierr', ierr, ' source', s08%MPI_SOURCE, ' tag', s08%MPI_TAG
  end if
  call f08_count(s08, n, cancelled)
  if (n /= 5 .or. cancelled) then
     errs = errs + 1
     print *, 'the converted status reads count', n, ' cancelled ', cancelled
  end if
  call MPI_Status_set_cancelled(st, .true., ierr)
  call MPI_Status_f2f08(st, s08, ierr)
  call MPI_Status_f082f(s08, back, ierr)
  call MPI_Get_count(back, MPI_INTEGER, n, ierr)
  call MPI_Test_cancelled(back, cancelled, ierr)
  if (ierr /= MPI_SUCCESS .or. n /= 5 .or. .not. cancelled .or. back(MPI_SOURCE) /= rank &
       .or. back(MPI_TAG) /= 42) then
     errs = errs + 1
     print *, 'f082f: ierr', ierr, ' count', n, ' cancelled ', cancelled, ' source', &
          back(MPI_SOURCE), ' tag', back(MPI_TAG)
  end if
  call MPI_Allreduce(errs, tot, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. tot == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)
end program status_conv
