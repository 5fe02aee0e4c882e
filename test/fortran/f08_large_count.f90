! f08_large_count.f90: "use mpi_f08", MPI-4.0's large-count forms, chosen by the generic
! names when a count is INTEGER(KIND=MPI_COUNT_KIND): send and receive, MPI_Get_count,
! MPI_Type_size, MPI_Type_contiguous, MPI_Allreduce, MPI_Bcast; and MPI_Op_create_c with
! a user function of MPI_User_function_c (the length as a count).  Two or more ranks.
module f08_large_count_callbacks
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: bad_type = 0
contains
  subroutine my_max(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    if (datatype /= MPI_INTEGER) bad_type = bad_type + 1
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(a, b)
  end subroutine my_max
end module f08_large_count_callbacks

program f08_large_count
  use mpi_f08
  use f08_large_count_callbacks
  implicit none
  integer :: rank, nprocs, errs, total, i
  integer(kind=MPI_COUNT_KIND) :: n, count, sz
  integer :: buf(8), rbuf(8), vals(2), rvals(2)
  type(MPI_Status) :: status
  type(MPI_Datatype) :: contig
  type(MPI_Op) :: op
  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  n = 5
  if (rank == 0) then
     buf = [(i, i = 1, 8)]
     call MPI_Send(buf, n, MPI_INTEGER, 1, 0, MPI_COMM_WORLD)
  else if (rank == 1) then
     rbuf = 0
     call MPI_Recv(rbuf, 8_MPI_COUNT_KIND, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, status)
     call MPI_Get_count(status, MPI_INTEGER, count)
     if (count /= 5 .or. any(rbuf /= [1, 2, 3, 4, 5, 0, 0, 0])) then
        errs = errs + 1
        print *, 'large-count receive: count ', count, ' data ', rbuf
     end if
  end if

  call MPI_Type_contiguous(3_MPI_COUNT_KIND, MPI_INTEGER, contig)
  call MPI_Type_commit(contig)
  call MPI_Type_size(contig, sz)
  if (sz /= 12) then
     errs = errs + 1
     print *, 'large-count MPI_Type_size: ', sz
  end if
  buf = rank
  if (rank == 0) buf(1:3) = [7, 8, 9]
  call MPI_Bcast(buf, 1_MPI_COUNT_KIND, contig, 0, MPI_COMM_WORLD)
  if (any(buf(1:3) /= [7, 8, 9])) then
     errs = errs + 1
     print *, 'large-count bcast: ', buf(1:3)
  end if
  call MPI_Type_free(contig)

  vals = [rank, -rank]
  call MPI_Allreduce(vals, rvals, 2_MPI_COUNT_KIND, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rvals(1) /= nprocs * (nprocs - 1) / 2 .or. rvals(2) /= -rvals(1)) then
     errs = errs + 1
     print *, 'large-count allreduce: ', rvals
  end if

  call MPI_Op_create_c(my_max, .true., op)
  call MPI_Allreduce(vals, rvals, 2, MPI_INTEGER, op, MPI_COMM_WORLD)
  if (rvals(1) /= nprocs - 1 .or. rvals(2) /= 0 .or. bad_type /= 0) then
     errs = errs + 1
     print *, 'MPI_Op_create_c: ', rvals, ' other datatypes seen ', bad_type
  end if
  call MPI_Op_free(op)

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08_large_count
