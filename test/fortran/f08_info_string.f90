! f08_info_string.f90: "use mpi_f08", MPI-4.0's MPI_Info_get_string (apart from
! f08_comm.f90 so that that one builds with MPI-3.1 libraries): the value, its length
! without a terminator, a key not set, a value longer than the buffer.  Any number of
! ranks.
program f08_info_string
  use mpi_f08
  implicit none
  integer :: rank, errs, total, buflen
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
  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08_info_string
