! attrs.f90: free form with "use mpi".  Attributes with
! INTEGER(KIND=MPI_ADDRESS_KIND) values: a keyval made with the
! predefined MPI_COMM_DUP_FN and MPI_COMM_NULL_DELETE_FN is copied by
! MPI_Comm_dup; one made with MPI_COMM_NULL_COPY_FN is not; one made with
! copy and delete callbacks written in Fortran sees its extra state, the
! value and the communicators, doubles the value on copy and is called
! on delete and on MPI_Comm_free.  Any number of ranks.
module attr_calls
  implicit none
  integer :: copies = 0, deletes = 0
end module attr_calls

subroutine my_copy(oldcomm, keyval, extra_state, value_in, value_out, flag, ierr)
  use mpi
  use attr_calls
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra_state, value_in, value_out
  logical :: flag
  copies = copies + 1
  value_out = value_in * 2 + extra_state
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine my_copy

subroutine my_delete(comm, keyval, value, extra_state, ierr)
  use mpi
  use attr_calls
  implicit none
  integer :: comm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: value, extra_state
  deletes = deletes + 1
  ierr = MPI_SUCCESS
end subroutine my_delete

program attrs
  use mpi
  use attr_calls
  implicit none
  external my_copy, my_delete
  integer :: rank, ierr, errs, i, kdup, knull, kmine, dup
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, big
  logical :: flag
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, kdup, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, knull, extra, ierr)
  extra = 1
  call MPI_Comm_create_keyval(my_copy, my_delete, kmine, extra, ierr)
  big = 2_MPI_ADDRESS_KIND**40 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, big, ierr)
  val = 7
  call MPI_Comm_set_attr(MPI_COMM_WORLD, knull, val, ierr)
  val = 100
  call MPI_Comm_set_attr(MPI_COMM_WORLD, kmine, val, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)

  call MPI_Comm_get_attr(dup, kdup, val, flag, ierr)
  if (.not. flag .or. val /= big) then
     errs = errs + 1
     print *, 'MPI_COMM_DUP_FN: ', flag, val
  end if
  call MPI_Comm_get_attr(dup, knull, val, flag, ierr)
  if (flag) then
     errs = errs + 1
     print *, 'MPI_COMM_NULL_COPY_FN copied ', val
  end if
  call MPI_Comm_get_attr(dup, kmine, val, flag, ierr)
  if (.not. flag .or. val /= 201 .or. copies /= 1) then
     errs = errs + 1
     print *, 'own copy: ', flag, val, copies
  end if
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, kmine, ierr)
  if (deletes /= 1) then
     errs = errs + 1
     print *, 'own delete: ', deletes
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, kmine, val, flag, ierr)
  if (flag) errs = errs + 1
  call MPI_Comm_free(dup, ierr)
  if (deletes /= 2) then
     errs = errs + 1
     print *, 'delete on MPI_Comm_free: ', deletes
  end if
  call MPI_Comm_free_keyval(kdup, ierr)
  call MPI_Comm_free_keyval(knull, ierr)
  call MPI_Comm_free_keyval(kmine, ierr)
  if (kmine /= MPI_KEYVAL_INVALID) errs = errs + 1

  i = errs
  call MPI_Reduce(i, errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)
end program attrs
