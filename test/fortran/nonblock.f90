! nonblock.f90: free form with "use mpi".  A ring of nonblocking sends
! and receives completed by MPI_Waitall with an array of statuses and
! with MPI_STATUSES_IGNORE, by MPI_Testany in a loop (its index counts
! from 1; MPI_UNDEFINED when no request is active: MPICH 4.0.2 gives
! MPI_UNDEFINED + 1 there), by MPI_Waitany and by MPI_Waitsome.  Any
! number of ranks.
program nonblock
  use mpi
  implicit none
  integer :: rank, size, ierr, errs, left, right, i, idx, outcount, done
  integer :: reqs(4), indices(4)
  integer :: statuses(MPI_STATUS_SIZE, 4), status(MPI_STATUS_SIZE)
  integer :: sbuf(3), rbuf(3), rbuf2(3)
  logical :: flag
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  right = mod(rank + 1, size)
  left = mod(rank + size - 1, size)
  sbuf = (/ rank, rank * 2, rank * 3 /)

  ! Waitall with statuses: the receive's source and tag.
  call MPI_Irecv(rbuf, 3, MPI_INTEGER, left, 11, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 11, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  if (statuses(MPI_SOURCE, 1) /= left .or. statuses(MPI_TAG, 1) /= 11) then
     errs = errs + 1
     print *, 'waitall status: ', statuses(MPI_SOURCE, 1), statuses(MPI_TAG, 1)
  end if
  if (rbuf(3) /= left * 3) then
     errs = errs + 1
     print *, 'waitall data: ', rbuf
  end if
  if (reqs(1) /= MPI_REQUEST_NULL .or. reqs(2) /= MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'requests not MPI_REQUEST_NULL after Waitall'
  end if

  ! Waitall with MPI_STATUSES_IGNORE.
  call MPI_Irecv(rbuf, 3, MPI_INTEGER, left, 12, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 12, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) errs = errs + 1

  ! Testany until both are done: index 1 or 2, then MPI_UNDEFINED.
  call MPI_Irecv(rbuf2, 3, MPI_INTEGER, MPI_ANY_SOURCE, 13, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 13, MPI_COMM_WORLD, reqs(2), ierr)
  done = 0
  do while (done < 2)
     call MPI_Testany(2, reqs, idx, flag, status, ierr)
     if (flag) then
        if (idx == MPI_UNDEFINED) exit
        if (idx < 1 .or. idx > 2) then
           errs = errs + 1
           print *, 'testany index ', idx
           exit
        end if
        if (idx == 1 .and. status(MPI_SOURCE) /= left) then
           errs = errs + 1
           print *, 'testany source ', status(MPI_SOURCE)
        end if
        done = done + 1
     end if
  end do
  if (done /= 2 .or. rbuf2(2) /= left * 2) then
     errs = errs + 1
     print *, 'testany: done ', done, ' data ', rbuf2
  end if
  call MPI_Testany(2, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
  if (.not. flag .or. idx /= MPI_UNDEFINED) then
     errs = errs + 1
     print *, 'testany of null requests: ', flag, idx
  end if

  ! Waitany, then Waitsome over the rest.
  call MPI_Irecv(rbuf, 3, MPI_INTEGER, left, 14, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(rbuf2, 3, MPI_INTEGER, left, 15, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 14, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(sbuf, 3, MPI_INTEGER, right, 15, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitany(4, reqs, idx, status, ierr)
  if (idx < 1 .or. idx > 4 .or. reqs(idx) /= MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'waitany index ', idx
  end if
  done = 1
  do while (done < 4)
     call MPI_Waitsome(4, reqs, outcount, indices, statuses, ierr)
     if (outcount == MPI_UNDEFINED) exit
     do i = 1, outcount
        if (indices(i) < 1 .or. indices(i) > 4) then
           errs = errs + 1
           print *, 'waitsome index ', indices(i)
        else if (indices(i) == 2 .and. statuses(MPI_TAG, i) /= 15) then
           errs = errs + 1
           print *, 'waitsome tag ', statuses(MPI_TAG, i)
        end if
     end do
     done = done + outcount
  end do
  if (done /= 4 .or. rbuf(1) /= left .or. rbuf2(3) /= 3 * left) then
     errs = errs + 1
     print *, 'waitsome: done ', done
  end if

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)
end program nonblock
