! f08_coll.f90: "use mpi_f08", collectives and callbacks.  MPI_Bcast, MPI_Reduce,
! MPI_Allreduce and MPI_Allgather with MPI_IN_PLACE, MPI_Gather, MPI_Scatter,
! MPI_Alltoall, MPI_Iallreduce and MPI_Ibarrier; a user-defined MPI_User_function
! (type(c_ptr) buffers, the datatype it is given) as a commutative and as a
! non-commutative Op; an error handler written in Fortran, called with the communicator
! and the error.  Two or more ranks.
module f08_coll_callbacks
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  integer :: handler_calls = 0, handler_code = 0, op_calls = 0, op_bad_type = 0
  type(MPI_Comm) :: handler_comm
contains
  ! inoutvec(i) = invec(i) + inoutvec(i), for MPI_INTEGER.
  subroutine my_sum(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    op_calls = op_calls + 1
    if (datatype /= MPI_INTEGER) op_bad_type = op_bad_type + 1
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a + b
  end subroutine my_sum

  ! x op y = x: associative, not commutative; a reduction gives rank 0's value.
  subroutine my_first(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = a
  end subroutine my_first

  subroutine my_handler(comm, error_code)
    type(MPI_Comm) :: comm
    integer :: error_code
    handler_calls = handler_calls + 1
    handler_comm = comm
    handler_code = error_code
  end subroutine my_handler
end module f08_coll_callbacks

program f08_coll
  use mpi_f08
  use f08_coll_callbacks
  implicit none
  integer :: rank, nprocs, errs, total, i, val, root, cls, ierr
  integer, allocatable :: all(:), sendv(:), recvv(:)
  integer :: pair(2), rpair(2)
  type(MPI_Op) :: op_sum, op_first
  type(MPI_Errhandler) :: eh
  type(MPI_Comm) :: dup
  type(MPI_Request) :: req
  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  allocate(all(nprocs), sendv(nprocs), recvv(nprocs))
  root = nprocs - 1

  ! Bcast from the last rank.
  val = -1
  if (rank == root) val = 77
  call MPI_Bcast(val, 1, MPI_INTEGER, root, MPI_COMM_WORLD)
  if (val /= 77) then
     errs = errs + 1
     print *, 'bcast: ', val
  end if

  ! Reduce in place at the root, Allreduce in place.
  pair = [rank, 1]
  if (rank == root) then
     call MPI_Reduce(MPI_IN_PLACE, pair, 2, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD)
     if (pair(1) /= nprocs * (nprocs - 1) / 2 .or. pair(2) /= nprocs) then
        errs = errs + 1
        print *, 'reduce in place: ', pair
     end if
  else
     call MPI_Reduce(pair, rpair, 2, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD)
  end if
  val = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, val, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  if (val /= nprocs) then
     errs = errs + 1
     print *, 'allreduce in place: ', val
  end if

  ! Gather, Scatter, Allgather in place, Alltoall.
  all = -1
  call MPI_Gather(rank * 2, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(all /= [(2 * i, i = 0, nprocs - 1)])) then
     errs = errs + 1
     print *, 'gather: ', all
  end if
  sendv = [(10 * i, i = 0, nprocs - 1)]
  val = -1
  call MPI_Scatter(sendv, 1, MPI_INTEGER, val, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (val /= 10 * rank) then
     errs = errs + 1
     print *, 'scatter: ', val
  end if
  all = -1
  all(rank + 1) = rank * 3
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(all /= [(3 * i, i = 0, nprocs - 1)])) then
     errs = errs + 1
     print *, 'allgather in place: ', all
  end if
  sendv = [(rank * 100 + i, i = 0, nprocs - 1)]
  recvv = -1
  call MPI_Alltoall(sendv, 1, MPI_INTEGER, recvv, 1, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(recvv /= [(i * 100 + rank, i = 0, nprocs - 1)])) then
     errs = errs + 1
     print *, 'alltoall: ', recvv
  end if

  ! Nonblocking collectives.
  val = 0
  call MPI_Iallreduce(rank + 1, val, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (val /= nprocs * (nprocs + 1) / 2) then
     errs = errs + 1
     print *, 'iallreduce: ', val
  end if
  call MPI_Ibarrier(MPI_COMM_WORLD, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (req /= MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'ibarrier request left active'
  end if

  ! User-defined ops.
  call MPI_Op_create(my_sum, .true., op_sum)
  pair = [rank + 1, 2 * rank]
  rpair = 0
  call MPI_Allreduce(pair, rpair, 2, MPI_INTEGER, op_sum, MPI_COMM_WORLD)
  if (rpair(1) /= nprocs * (nprocs + 1) / 2 .or. rpair(2) /= nprocs * (nprocs - 1)) then
     errs = errs + 1
     print *, 'user op sum: ', rpair
  end if
  if (op_bad_type /= 0) then
     errs = errs + 1
     print *, 'user op given another datatype than MPI_INTEGER, times: ', op_bad_type
  end if
  call MPI_Allreduce(op_calls, val, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (val < nprocs - 1) then
     errs = errs + 1
     print *, 'user op called ', val, ' times in all'
  end if
  call MPI_Op_free(op_sum)
  if (op_sum /= MPI_OP_NULL) then
     errs = errs + 1
     print *, 'MPI_Op_free left the op'
  end if
  call MPI_Op_create(my_first, .false., op_first)
  val = -1
  call MPI_Reduce(rank + 5, val, 1, MPI_INTEGER, op_first, root, MPI_COMM_WORLD)
  if (rank == root .and. val /= 5) then
     errs = errs + 1
     print *, 'non-commutative op: ', val
  end if
  call MPI_Op_free(op_first)

  ! An error handler in Fortran.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(my_handler, eh)
  call MPI_Comm_set_errhandler(dup, eh)
  call MPI_Errhandler_free(eh)
  if (eh /= MPI_ERRHANDLER_NULL) then
     errs = errs + 1
     print *, 'MPI_Errhandler_free left the handler'
  end if
  call MPI_Send(val, 1, MPI_INTEGER, nprocs, 0, dup, ierr)
  call MPI_Error_class(handler_code, cls)
  if (handler_calls /= 1 .or. handler_comm /= dup .or. cls /= MPI_ERR_RANK) then
     errs = errs + 1
     print *, 'error handler: calls ', handler_calls, ' comm ', handler_comm%MPI_VAL, &
          ' (dup ', dup%MPI_VAL, ') class ', cls
  end if
  call MPI_Comm_free(dup)

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08_coll
