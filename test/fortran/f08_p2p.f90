! f08_p2p.f90: "use mpi_f08", point to point.  Blocking send and receive with
! MPI_ANY_SOURCE and MPI_ANY_TAG (the status's MPI_SOURCE and MPI_TAG, MPI_Get_count),
! MPI_Probe and MPI_Iprobe, then a ring exchange with both neighbours four ways:
! MPI_Waitall into an array of type(MPI_Status), MPI_Waitany, MPI_Testsome, and
! MPI_Waitall with MPI_STATUSES_IGNORE; MPI_Wait and MPI_Test with MPI_STATUS_IGNORE.
! Two or more ranks.
program f08_p2p
  use mpi_f08
  implicit none
  integer :: rank, nprocs, errs, total, i, count, left, right, idx, outcount, done, j
  integer :: buf(10), rbuf(10), rvals(2), svals(2)
  double precision :: dbuf(3)
  logical :: flag, seen(4)
  type(MPI_Status) :: status, statuses(4)
  type(MPI_Request) :: reqs(4), req
  integer :: indices(4)
  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! Blocking, wildcards.
  if (rank == 0) then
     buf = [(i, i = 1, 10)]
     call MPI_Send(buf, 7, MPI_INTEGER, 1, 5, MPI_COMM_WORLD)
  else if (rank == 1) then
     rbuf = -1
     call MPI_Recv(rbuf, 10, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
     call MPI_Get_count(status, MPI_INTEGER, count)
     if (status%MPI_SOURCE /= 0 .or. status%MPI_TAG /= 5 .or. count /= 7) then
        errs = errs + 1
        print *, 'recv status: source ', status%MPI_SOURCE, ' tag ', status%MPI_TAG, &
             ' count ', count
     end if
     if (any(rbuf(1:7) /= [(i, i = 1, 7)]) .or. any(rbuf(8:10) /= -1)) then
        errs = errs + 1
        print *, 'recv data: ', rbuf
     end if
  end if

  ! No ring message may meet the wildcards above.
  call MPI_Barrier(MPI_COMM_WORLD)

  ! Probe (rank 1 to 0) and Iprobe (rank 0 to 1).
  if (rank == 1) then
     dbuf = [1.5d0, 2.5d0, 3.5d0]
     call MPI_Send(dbuf, 3, MPI_DOUBLE_PRECISION, 0, 9, MPI_COMM_WORLD)
     flag = .false.
     do while (.not. flag)
        call MPI_Iprobe(0, 11, MPI_COMM_WORLD, flag, status)
     end do
     call MPI_Get_count(status, MPI_INTEGER, count)
     if (status%MPI_SOURCE /= 0 .or. status%MPI_TAG /= 11 .or. count /= 2) then
        errs = errs + 1
        print *, 'iprobe: ', status%MPI_SOURCE, status%MPI_TAG, count
     end if
     call MPI_Recv(rbuf, 2, MPI_INTEGER, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
     if (rbuf(1) /= 42 .or. rbuf(2) /= 43) then
        errs = errs + 1
        print *, 'after iprobe: ', rbuf(1:2)
     end if
  else if (rank == 0) then
     call MPI_Probe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, status)
     call MPI_Get_count(status, MPI_DOUBLE_PRECISION, count)
     if (status%MPI_SOURCE /= 1 .or. status%MPI_TAG /= 9 .or. count /= 3) then
        errs = errs + 1
        print *, 'probe: ', status%MPI_SOURCE, status%MPI_TAG, count
     end if
     dbuf = 0
     call MPI_Recv(dbuf, 3, MPI_DOUBLE_PRECISION, status%MPI_SOURCE, 9, MPI_COMM_WORLD, &
          MPI_STATUS_IGNORE)
     if (any(dbuf /= [1.5d0, 2.5d0, 3.5d0])) then
        errs = errs + 1
        print *, 'after probe: ', dbuf
     end if
     buf(1:2) = [42, 43]
     call MPI_Send(buf, 2, MPI_INTEGER, 1, 11, MPI_COMM_WORLD)
  end if

  ! Ring: tag 1 goes right, tag 2 goes left.
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  svals = [rank * 100 + 1, rank * 100 + 2]

  ! 1. Waitall with statuses.
  call post()
  call MPI_Waitall(4, reqs, statuses)
  call check_ring('waitall')
  do i = 1, 4
     if (reqs(i) /= MPI_REQUEST_NULL) then
        errs = errs + 1
        print *, 'waitall left request ', i, ' active'
     end if
  end do
  if (statuses(1)%MPI_SOURCE /= left .or. statuses(1)%MPI_TAG /= 1 .or. &
       statuses(2)%MPI_SOURCE /= right .or. statuses(2)%MPI_TAG /= 2) then
     errs = errs + 1
     print *, 'waitall statuses: ', statuses(1)%MPI_SOURCE, statuses(1)%MPI_TAG, &
          statuses(2)%MPI_SOURCE, statuses(2)%MPI_TAG
  end if

  ! 2. Waitany, each request once, then MPI_UNDEFINED.
  call post()
  seen = .false.
  do i = 1, 4
     call MPI_Waitany(4, reqs, idx, status)
     if (idx < 1 .or. idx > 4) then
        errs = errs + 1
        print *, 'waitany index ', idx
        exit
     end if
     if (seen(idx)) then
        errs = errs + 1
        print *, 'waitany index twice ', idx
     end if
     seen(idx) = .true.
     if (idx == 1 .and. (status%MPI_SOURCE /= left .or. status%MPI_TAG /= 1)) then
        errs = errs + 1
        print *, 'waitany status 1: ', status%MPI_SOURCE, status%MPI_TAG
     end if
     if (idx == 2 .and. (status%MPI_SOURCE /= right .or. status%MPI_TAG /= 2)) then
        errs = errs + 1
        print *, 'waitany status 2: ', status%MPI_SOURCE, status%MPI_TAG
     end if
  end do
  call MPI_Waitany(4, reqs, idx, status)
  if (idx /= MPI_UNDEFINED) then
     errs = errs + 1
     print *, 'waitany on null requests: ', idx
  end if
  call check_ring('waitany')

  ! 3. Testsome until all four are done.
  call post()
  done = 0
  do while (done < 4)
     call MPI_Testsome(4, reqs, outcount, indices, statuses)
     if (outcount == MPI_UNDEFINED .or. outcount < 0 .or. outcount > 4) then
        errs = errs + 1
        print *, 'testsome outcount ', outcount
        exit
     end if
     do j = 1, outcount
        if (indices(j) == 1 .and. statuses(j)%MPI_SOURCE /= left) then
           errs = errs + 1
           print *, 'testsome status of 1: ', statuses(j)%MPI_SOURCE
        end if
        if (indices(j) == 2 .and. statuses(j)%MPI_TAG /= 2) then
           errs = errs + 1
           print *, 'testsome status of 2: ', statuses(j)%MPI_TAG
        end if
     end do
     done = done + outcount
  end do
  call check_ring('testsome')

  ! 4. Waitall with MPI_STATUSES_IGNORE.
  call post()
  call MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE)
  call check_ring('waitall ignore')

  ! Wait and Test with MPI_STATUS_IGNORE.
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, left, 3, MPI_COMM_WORLD, req)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 3, MPI_COMM_WORLD)
  flag = .false.
  do while (.not. flag)
     call MPI_Test(req, flag, MPI_STATUS_IGNORE)
  end do
  if (rbuf(1) /= left .or. req /= MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'test: ', rbuf(1)
  end if
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, req)
  call MPI_Recv(rbuf, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rbuf(1) /= left) then
     errs = errs + 1
     print *, 'wait: ', rbuf(1)
  end if

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()

contains

  subroutine post()
    rvals = -1
    call MPI_Irecv(rvals(1), 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, reqs(1))
    call MPI_Irecv(rvals(2), 1, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2))
    call MPI_Isend(svals(1), 1, MPI_INTEGER, right, 1, MPI_COMM_WORLD, reqs(3))
    call MPI_Isend(svals(2), 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(4))
  end subroutine post

  subroutine check_ring(what)
    character(len=*), intent(in) :: what
    if (rvals(1) /= left * 100 + 1 .or. rvals(2) /= right * 100 + 2) then
       errs = errs + 1
       print *, what, ': got ', rvals, ' from ', left, right
    end if
  end subroutine check_ring
end program f08_p2p
