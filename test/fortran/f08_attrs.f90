! f08_attrs.f90: "use mpi_f08", attributes.  Communicator keyvals made with the
! predefined MPI_COMM_DUP_FN, MPI_COMM_NULL_COPY_FN and MPI_COMM_NULL_DELETE_FN, and with
! copy and delete callbacks of the f08 interfaces written here (type(MPI_Comm) handles,
! the extra state, the values); a datatype keyval with MPI_TYPE_DUP_FN copied by
! MPI_Type_dup; MPI_TAG_UB on MPI_COMM_WORLD; a generalized request whose query, free
! and cancel callbacks are Fortran.  Any number of ranks.
module f08_attrs_callbacks
  use mpi_f08
  implicit none
  integer :: copies = 0, deletes = 0, queries = 0, frees = 0
  type(MPI_Comm) :: copied_from, deleted_on
contains
  subroutine my_copy(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, &
       flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    copied_from = oldcomm
    attribute_val_out = attribute_val_in * 2 + extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine my_copy

  subroutine my_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    deleted_on = comm
    ierror = MPI_SUCCESS
  end subroutine my_delete

  subroutine my_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    call MPI_Status_set_elements(status, MPI_INTEGER, int(extra_state))
    call MPI_Status_set_cancelled(status, .false.)
    status%MPI_SOURCE = MPI_UNDEFINED
    status%MPI_TAG = MPI_UNDEFINED
    ierror = MPI_SUCCESS
  end subroutine my_query

  subroutine my_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    ierror = MPI_SUCCESS
  end subroutine my_free

  subroutine my_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
  end subroutine my_cancel
end module f08_attrs_callbacks

program f08_attrs
  use mpi_f08
  use f08_attrs_callbacks
  implicit none
  integer :: rank, errs, total, kdup, knull, kmine, ktype, count
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, big
  logical :: flag
  type(MPI_Comm) :: dup
  type(MPI_Datatype) :: tdup
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag)
  if (.not. flag .or. val < 32767) then
     errs = errs + 1
     print *, 'MPI_TAG_UB: ', flag, val
  end if

  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kdup, extra)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, knull, extra)
  extra = 1
  call MPI_Comm_create_keyval(my_copy, my_delete, kmine, extra)
  big = 2_MPI_ADDRESS_KIND**40 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, big)
  val = 7
  call MPI_Comm_set_attr(MPI_COMM_WORLD, knull, val)
  val = 100
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kmine, val)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)

  call MPI_Comm_get_attr(dup, kdup, val, flag)
  if (.not. flag .or. val /= big) then
     errs = errs + 1
     print *, 'MPI_COMM_DUP_FN: ', flag, val
  end if
  call MPI_Comm_get_attr(dup, knull, val, flag)
  if (flag) then
     errs = errs + 1
     print *, 'MPI_COMM_NULL_COPY_FN copied ', val
  end if
  call MPI_Comm_get_attr(dup, kmine, val, flag)
  if (.not. flag .or. val /= 201 .or. copies /= 1 .or. copied_from /= MPI_COMM_WORLD) then
     errs = errs + 1
     print *, 'own copy: ', flag, val, copies
  end if
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, kmine)
  if (deletes /= 1 .or. deleted_on /= MPI_COMM_WORLD) then
     errs = errs + 1
     print *, 'own delete: ', deletes
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, kmine, val, flag)
  if (flag) then
     errs = errs + 1
     print *, 'attribute still there after MPI_Comm_delete_attr'
  end if
  call MPI_Comm_free(dup)
  if (deletes /= 2) then
     errs = errs + 1
     print *, 'MPI_Comm_free called the delete callback ', deletes - 1, ' times'
  end if
  call MPI_Comm_free_keyval(kmine)
  call MPI_Comm_free_keyval(knull)
  call MPI_Comm_free_keyval(kdup)
  if (kdup /= MPI_KEYVAL_INVALID) then
     errs = errs + 1
     print *, 'MPI_Comm_free_keyval left ', kdup
  end if

  ! A datatype attribute.
  extra = 0
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, ktype, extra)
  val = 12345
  call MPI_Type_set_attr(MPI_INTEGER, ktype, val)
  call MPI_Type_dup(MPI_INTEGER, tdup)
  val = 0
  call MPI_Type_get_attr(tdup, ktype, val, flag)
  if (.not. flag .or. val /= 12345) then
     errs = errs + 1
     print *, 'MPI_TYPE_DUP_FN: ', flag, val
  end if
  call MPI_Type_free(tdup)
  call MPI_Type_delete_attr(MPI_INTEGER, ktype)
  call MPI_Type_free_keyval(ktype)

  ! A generalized request.
  extra = 3
  call MPI_Grequest_start(my_query, my_free, my_cancel, extra, req)
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status)
  call MPI_Get_count(status, MPI_INTEGER, count)
  if (queries /= 1 .or. frees /= 1 .or. count /= 3 .or. req /= MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'generalized request: queries ', queries, ' frees ', frees, ' count ', count
  end if

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08_attrs
