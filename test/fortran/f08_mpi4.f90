! f08_mpi4.f90: "use mpi_f08", calls new in MPI-4.0 (apart from the other f08 tests so
! that those build with MPI-3.1 libraries).  MPI_Info_get_string: the value, its length
! without a terminator, a key not set, a value longer than the buffer.  A received
! status through MPI_Status_f082f and MPI_Status_f2f08.  Two or more ranks.
program f08_mpi4
  use mpi_f08
  implicit none
  integer :: rank, errs, total, buflen, count, istatus(MPI_STATUS_SIZE), ibuf(4)
  type(MPI_Status) :: status, status2
  type(MPI_Info) :: info
  character(len=20) :: value
  character(len=3) :: short
  logical :: flag
  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'size', '42')
  call MPI_Info_set(info, 'long', 'abcdefgh')
  value = 'x'
  buflen = len(value)
  call MPI_Info_get_string(info, 'size', buflen, value, flag)
  if (.not. flag .or. value /= '42' .or. buflen /= 2) then
     errs = errs + 1
     print *, 'MPI_Info_get_string: ', flag, ' "', trim(value), '" ', buflen
  end if
  buflen = len(value)
  call MPI_Info_get_string(info, 'shape', buflen, value, flag)
  if (flag) then
     errs = errs + 1
     print *, 'MPI_Info_get_string found a key not set'
  end if
  buflen = len(short)
  call MPI_Info_get_string(info, 'long', buflen, short, flag)
  if (.not. flag .or. short /= 'abc' .or. buflen /= 8) then
     errs = errs + 1
     print *, 'MPI_Info_get_string, short buffer: ', flag, ' "', short, '" ', buflen
  end if
  call MPI_Info_free(info)

  if (rank == 0) then
     ibuf = [1, 2, 3, 4]
     call MPI_Send(ibuf, 3, MPI_INTEGER, 1, 5, MPI_COMM_WORLD)
  else if (rank == 1) then
     call MPI_Recv(ibuf, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
     istatus = -1
     call MPI_Status_f082f(status, istatus)
     call MPI_Status_f2f08(istatus, status2)
     call MPI_Get_count(status2, MPI_INTEGER, count)
     if (istatus(MPI_SOURCE) /= 0 .or. istatus(MPI_TAG) /= 5 .or. &
          status2%MPI_SOURCE /= 0 .or. status2%MPI_TAG /= 5 .or. count /= 3) then
        errs = errs + 1
        print *, 'status through INTEGER: ', istatus(MPI_SOURCE), istatus(MPI_TAG), &
             status2%MPI_SOURCE, status2%MPI_TAG, count
     end if
  end if
  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08_mpi4
