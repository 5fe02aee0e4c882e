! bsend.f90: buffered sends from Fortran ("use mpi") through the three buffers of MPI-4.1: the
! process's (MPI_Buffer_attach), a communicator's (MPI_Comm_attach_buffer) and a session's
! (MPI_Session_attach_buffer, for a communicator made from the session's mpi://WORLD).  Each
! detach gives back the size attached and leaves its BUFFER_ADDR argument alone (an address has
! no Fortran form); MPI_Comm_flush_buffer and MPI_Session_flush_buffer succeed.  Rank 0 sends
! to rank 1; any number of ranks from 2.
program bsend
  use mpi
  implicit none
  integer, parameter :: n = 8
  integer :: rank, size, ierr, errs, i, total, comm, session, group, got
  integer :: status(MPI_STATUS_SIZE), msg(n)
  integer :: pbuf(64), cbuf(64), sbuf(64)
  integer(kind=8) :: slot
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group, ierr)
  call MPI_Comm_create_from_group(group, 'ferry.test.fortran.bsend', MPI_INFO_NULL, &
       MPI_ERRORS_RETURN, comm, ierr)
  call MPI_Group_free(group, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1

  call MPI_Buffer_attach(pbuf, 4 * 64, ierr)
  call exchange(MPI_COMM_WORLD, 1)
  call MPI_Comm_attach_buffer(comm, cbuf, 4 * 64, ierr)
  call exchange(comm, 2)
  call MPI_Comm_flush_buffer(comm, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  slot = 12345
  call MPI_Comm_detach_buffer(comm, slot, got, ierr)
  call check_detach('MPI_Comm_detach_buffer')
  call MPI_Session_attach_buffer(session, sbuf, 4 * 64, ierr)
  call exchange(comm, 3)
  call MPI_Session_flush_buffer(session, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1
  slot = 12345
  call MPI_Session_detach_buffer(session, slot, got, ierr)
  call check_detach('MPI_Session_detach_buffer')
  slot = 12345
  call MPI_Buffer_detach(slot, got, ierr)
  call check_detach('MPI_Buffer_detach')

  call MPI_Comm_free(comm, ierr)
  call MPI_Session_finalize(session, ierr)
  call MPI_Reduce(errs, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)

contains

  ! Rank 0 Bsends n integers (seed k) on c; rank 1 receives and checks them.
  subroutine exchange(c, k)
    integer, intent(in) :: c, k
    if (rank == 0) then
       msg = (/ (100 * k + i, i = 1, n) /)
       call MPI_Bsend(msg, n, MPI_INTEGER, 1, k, c, ierr)
       if (ierr /= MPI_SUCCESS) then
          errs = errs + 1
          print *, 'Bsend ', k, ': error ', ierr
       end if
    else if (rank == 1) then
       msg = 0
       call MPI_Recv(msg, n, MPI_INTEGER, 0, k, c, status, ierr)
       do i = 1, n
          if (msg(i) /= 100 * k + i) then
             errs = errs + 1
             print *, 'message ', k, ' element ', i, ': ', msg(i)
             exit
          end if
       end do
    end if
  end subroutine exchange

  subroutine check_detach(what)
    character(len=*), intent(in) :: what
    if (ierr /= MPI_SUCCESS .or. got /= 4 * 64 .or. slot /= 12345) then
       errs = errs + 1
       print *, what, ': ierr ', ierr, ' size ', got, ' buffer_addr ', slot
    end if
  end subroutine check_detach
end program bsend
