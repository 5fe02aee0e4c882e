! status_ignore_c.f90: C code called from Fortran (status_ignore_c.c) sees the program's
! MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE as C's MPI_F_STATUS_IGNORE and
! MPI_F_STATUSES_IGNORE ("use mpi") and MPI_F08_STATUS_IGNORE and MPI_F08_STATUSES_IGNORE
! ("use mpi_f08"), and a real status as neither (it converts it); receives given the ignore
! constants leave them untouched.  Rank 0 sends to rank 1; two or more ranks.
module status_ignore_c_iface
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  integer :: errs = 0
  interface
     integer(c_int) function which_status(st) bind(C, name='ferry_test_which_status')
       import :: c_int
       integer :: st(*)
     end function which_status
     integer(c_int) function ignore_untouched() bind(C, name='ferry_test_ignore_untouched')
       import :: c_int
     end function ignore_untouched
  end interface
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    errs = errs + 1
    print *, 'Error: ', what
  end subroutine fail
end module status_ignore_c_iface

subroutine check_f08(rank)
  use mpi_f08
  use status_ignore_c_iface, only: fail
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  integer, intent(in) :: rank
  interface
     integer(c_int) function which_f08(st) bind(C, name='ferry_test_which_status_f08')
       import :: c_int, MPI_Status
       type(MPI_Status) :: st
     end function which_f08
     integer(c_int) function which_f08s(st) bind(C, name='ferry_test_which_status_f08')
       import :: c_int, MPI_Status
       type(MPI_Status) :: st(*)
     end function which_f08s
  end interface
  type(MPI_Status) :: status
  integer :: v
  if (which_f08(MPI_STATUS_IGNORE) /= 1) call fail('mpi_f08 MPI_STATUS_IGNORE')
  if (which_f08s(MPI_STATUSES_IGNORE) /= 2) call fail('mpi_f08 MPI_STATUSES_IGNORE')
  if (rank == 0) call MPI_Send(7, 1, MPI_INTEGER, 1, 102, MPI_COMM_WORLD)
  if (rank == 1) then
     call MPI_Recv(v, 1, MPI_INTEGER, 0, 102, MPI_COMM_WORLD, status)
     if (which_f08(status) /= 102) call fail('mpi_f08 received status')
  end if
end subroutine check_f08

program status_ignore_c
  use mpi
  use status_ignore_c_iface
  implicit none
  integer :: rank, ierr, total, v, req(1)
  integer :: status(MPI_STATUS_SIZE)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (which_status(MPI_STATUS_IGNORE) /= 1) call fail('MPI_STATUS_IGNORE')
  if (which_status(MPI_STATUSES_IGNORE) /= 2) call fail('MPI_STATUSES_IGNORE')
  if (rank == 0) then
     call MPI_Send(5, 1, MPI_INTEGER, 1, 100, MPI_COMM_WORLD, ierr)
     call MPI_Send(6, 1, MPI_INTEGER, 1, 101, MPI_COMM_WORLD, ierr)
     call MPI_Send(8, 1, MPI_INTEGER, 1, 103, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
     call MPI_Recv(v, 1, MPI_INTEGER, 0, 100, MPI_COMM_WORLD, status, ierr)
     if (which_status(status) /= 100) call fail('received status')
     call MPI_Recv(v, 1, MPI_INTEGER, 0, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     if (v /= 6) call fail('receive with MPI_STATUS_IGNORE')
     call MPI_Irecv(v, 1, MPI_INTEGER, 0, 103, MPI_COMM_WORLD, req(1), ierr)
     call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
     if (v /= 8) call fail('Waitall with MPI_STATUSES_IGNORE')
  end if
  call check_f08(rank)
  if (ignore_untouched() /= 1) call fail('a call wrote into an ignore constant')
  call MPI_Reduce(errs, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     if (total == 0) then
        print *, 'No Errors'
     else
        print *, 'Found ', total, ' errors'
     end if
  end if
  call MPI_Finalize(ierr)
end program status_ignore_c
