! get_status.f90: MPI-4.1's MPI_Request_get_status_any, _all and _some from "use mpi": nothing
! complete yet (flag false, index MPI_UNDEFINED, outcount 0); one of three receives complete
! (its 1-based index, its status); all three (their statuses, or MPI_STATUSES_IGNORE); the
! requests stay valid until MPI_Waitall frees them; then only null requests (MPI_UNDEFINED).
! Rank 0 sends to rank 1; two or more ranks.
program get_status
  use mpi
  implicit none
  integer :: rank, ierr, errs, total, i, idx, outcount, n
  integer :: reqs(3), bufs(3), indices(3)
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 3)
  logical :: flag
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  if (rank == 1) then
     do i = 1, 3
        call MPI_Irecv(bufs(i), 1, MPI_INTEGER, 0, i, MPI_COMM_WORLD, reqs(i), ierr)
     end do
     call MPI_Request_get_status_any(3, reqs, idx, flag, status, ierr)
     if (flag .or. idx /= MPI_UNDEFINED) call fail('any before the sends', idx)
     call MPI_Request_get_status_all(3, reqs, flag, statuses, ierr)
     if (flag) call fail('all before the sends', 0)
     call MPI_Request_get_status_some(3, reqs, outcount, indices, statuses, ierr)
     if (outcount /= 0) call fail('some before the sends', outcount)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_Send(22, 1, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, ierr)
  if (rank == 1) then
     flag = .false.
     do while (.not. flag)
        call MPI_Request_get_status_any(3, reqs, idx, flag, status, ierr)
     end do
     if (idx /= 2 .or. status(MPI_TAG) /= 2 .or. status(MPI_SOURCE) /= 0 .or. bufs(2) /= 22) &
          call fail('any after one send: index', idx)
     n = 0
     do while (n == 0)
        call MPI_Request_get_status_some(3, reqs, n, indices, statuses, ierr)
     end do
     if (n /= 1 .or. indices(1) /= 2 .or. statuses(MPI_TAG, 1) /= 2) &
          call fail('some after one send: index', indices(1))
     if (reqs(2) == MPI_REQUEST_NULL) call fail('request freed by a get_status call', 2)
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
     call MPI_Send(11, 1, MPI_INTEGER, 1, 1, MPI_COMM_WORLD, ierr)
     call MPI_Send(33, 1, MPI_INTEGER, 1, 3, MPI_COMM_WORLD, ierr)
  end if
  if (rank == 1) then
     flag = .false.
     do while (.not. flag)
        call MPI_Request_get_status_all(3, reqs, flag, statuses, ierr)
     end do
     do i = 1, 3
        if (statuses(MPI_TAG, i) /= i .or. bufs(i) /= 11 * i) call fail('all: status', i)
     end do
     call MPI_Request_get_status_all(3, reqs, flag, MPI_STATUSES_IGNORE, ierr)
     if (.not. flag .or. ierr /= MPI_SUCCESS) call fail('all with MPI_STATUSES_IGNORE', ierr)
     call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
     call MPI_Request_get_status_some(3, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
     if (outcount /= MPI_UNDEFINED) call fail('some of null requests', outcount)
     call MPI_Request_get_status_any(3, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
     if (.not. flag .or. idx /= MPI_UNDEFINED) call fail('any of null requests', idx)
  end if
  call MPI_Reduce(errs, total, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)

contains

  subroutine fail(what, value)
    character(len=*), intent(in) :: what
    integer, intent(in) :: value
    errs = errs + 1
    print *, what, ': ', value
  end subroutine fail
end program get_status
