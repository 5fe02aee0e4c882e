! strings.f90: free form with "use mpi".  Strings (MPI_Get_processor_name,
! MPI_Comm_set_name and MPI_Comm_get_name, MPI_Type_get_name of a
! predefined type, MPI_Error_string): blank-padded out, trimmed in.
! Errors: MPI_ERRORS_RETURN gives an error code back in IERROR, which
! MPI_Error_class and MPI_Error_string explain; an error handler written
! in Fortran (MPI_Comm_create_errhandler) is called with the
! communicator and the code.  MPI_Comm_get_attr of MPI_TAG_UB, and
! MPI_Initialized/MPI_Finalized as LOGICALs.  Any number of ranks.
module handler_calls
  implicit none
  integer :: calls = 0, last_code = 0
end module handler_calls

subroutine my_handler(comm, code)
  use handler_calls
  implicit none
  integer :: comm, code
  calls = calls + 1
  last_code = code
end subroutine my_handler

program strings
  use mpi
  use handler_calls
  implicit none
  external my_handler
  integer :: rank, size, ierr, errs, len, cls, eh, dup, rc, i
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_ERROR_STRING) :: msg
  character(len=4) :: short
  integer(kind=MPI_ADDRESS_KIND) :: tag_ub
  logical :: flag
  errs = 0
  call MPI_Initialized(flag, ierr)
  if (flag) errs = errs + 1
  call MPI_Init(ierr)
  call MPI_Initialized(flag, ierr)
  if (.not. flag) errs = errs + 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  host = 'x'
  call MPI_Get_processor_name(host, len, ierr)
  if (len < 1 .or. len > MPI_MAX_PROCESSOR_NAME .or. len_trim(host) /= len) then
     errs = errs + 1
     print *, 'processor name: ', len, ' "', trim(host), '"'
  end if

  ! A name set with trailing blanks comes back without them, blank-padded.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_name(dup, 'ferry dup   ', ierr)
  name = 'garbage garbage'
  call MPI_Comm_get_name(dup, name, len, ierr)
  if (name /= 'ferry dup' .or. len /= 9) then
     errs = errs + 1
     print *, 'comm name: "', name(1:20), '" ', len
  end if
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, len, ierr)
  if (name /= 'MPI_COMM_WORLD' .or. len /= 14) then
     errs = errs + 1
     print *, 'world name: "', trim(name), '" ', len
  end if
  ! Too short a variable: the name is cut, not overrun.
  short = 'zzzz'
  call MPI_Comm_get_name(MPI_COMM_WORLD, short, len, ierr)
  if (short /= 'MPI_') then
     errs = errs + 1
     print *, 'short name: "', short, '"'
  end if
  call MPI_Type_get_name(MPI_DOUBLE_PRECISION, name, len, ierr)
  if (name /= 'MPI_DOUBLE_PRECISION' .or. len /= 20) then
     errs = errs + 1
     print *, 'type name: "', trim(name), '" ', len
  end if

  ! MPI_ERRORS_RETURN: a send to a rank that does not exist returns a code.
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, size + 5, 0, dup, rc)
  if (rc == MPI_SUCCESS) then
     errs = errs + 1
     print *, 'send to rank ', size + 5, ' succeeded'
  end if
  call MPI_Error_class(rc, cls, ierr)
  if (cls /= MPI_ERR_RANK) then
     errs = errs + 1
     print *, 'error class ', cls, ' want MPI_ERR_RANK ', MPI_ERR_RANK
  end if
  msg = ''
  call MPI_Error_string(rc, msg, len, ierr)
  if (len < 1 .or. len_trim(msg) /= len) then
     errs = errs + 1
     print *, 'error string: ', len, ' "', trim(msg), '"'
  end if

  ! A Fortran error handler.
  call MPI_Comm_create_errhandler(my_handler, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, -7, 0, dup, rc)
  call MPI_Error_class(last_code, cls, ierr)
  if (calls /= 1 .or. cls /= MPI_ERR_RANK) then
     errs = errs + 1
     print *, 'handler calls ', calls, ' class ', cls
  end if
  call MPI_Comm_free(dup, ierr)

  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, tag_ub, flag, ierr)
  if (.not. flag .or. tag_ub < 32767) then
     errs = errs + 1
     print *, 'MPI_TAG_UB: ', flag, tag_ub
  end if

  i = errs
  call MPI_Reduce(i, errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)
  call MPI_Finalized(flag, ierr)
  if (.not. flag) print *, 'MPI_Finalized is false after MPI_Finalize'
end program strings
