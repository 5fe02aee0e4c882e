! grequest.f90: free form with "use mpi".  MPI_GREQUEST_START with query,
! free and cancel callbacks written in Fortran: MPI_WAIT on a request the
! program completed calls the query callback, whose status
! (MPI_STATUS_SET_ELEMENTS, a source and tag) MPI_WAIT returns, then the
! free callback, each seeing the extra state (the program's variable
! itself, as MPICH and Open MPI pass it: the free callback's change shows);
! MPI_CANCEL calls the cancel callback with COMPLETE .FALSE., then .TRUE.
! once completed.  Any number of ranks.
module greq_calls
  implicit none
  integer :: queries = 0, frees = 0, cancels = 0
  logical :: last_complete = .true.
end module greq_calls

subroutine my_query(extra_state, status, ierr)
  use mpi
  use greq_calls
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: status(MPI_STATUS_SIZE), ierr
  queries = queries + 1
  call MPI_Status_set_elements(status, MPI_BYTE, int(extra_state), ierr)
  call MPI_Status_set_cancelled(status, .false., ierr)
  status(MPI_SOURCE) = 3
  status(MPI_TAG) = 77
  ierr = MPI_SUCCESS
end subroutine my_query

subroutine my_free(extra_state, ierr)
  use mpi
  use greq_calls
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: ierr
  if (extra_state == 12) frees = frees + 1
  extra_state = extra_state + 1
  ierr = MPI_SUCCESS
end subroutine my_free

subroutine my_cancel(extra_state, complete, ierr)
  use mpi
  use greq_calls
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  logical :: complete
  integer :: ierr
  cancels = cancels + 1
  last_complete = complete
  ierr = MPI_SUCCESS
end subroutine my_cancel

program grequest
  use mpi
  use greq_calls
  implicit none
  external my_query, my_free, my_cancel
  integer :: rank, ierr, errs, req, count
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: extra
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 12
  call MPI_Grequest_start(my_query, my_free, my_cancel, extra, req, ierr)
  if (ierr /= MPI_SUCCESS .or. req == MPI_REQUEST_NULL) then
     errs = errs + 1
     print *, 'MPI_GREQUEST_START: ierr ', ierr
  end if
  call MPI_Cancel(req, ierr)
  if (cancels /= 1 .or. last_complete) then
     errs = errs + 1
     print *, 'cancel before completion: ', cancels, ' calls, complete ', last_complete
  end if
  call MPI_Grequest_complete(req, ierr)
  call MPI_Cancel(req, ierr)
  if (cancels /= 2 .or. .not. last_complete) then
     errs = errs + 1
     print *, 'cancel after completion: ', cancels, ' calls, complete ', last_complete
  end if
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_BYTE, count, ierr)
  if (ierr /= MPI_SUCCESS .or. req /= MPI_REQUEST_NULL .or. queries /= 1 .or. frees /= 1 .or. &
       count /= 12 .or. status(MPI_SOURCE) /= 3 .or. status(MPI_TAG) /= 77 .or. extra /= 13) then
     errs = errs + 1
     print *, 'MPI_WAIT: ierr ', ierr, ' queries ', queries, ' frees ', frees, ' count ', &
          count, ' source ', status(MPI_SOURCE), ' tag ', status(MPI_TAG), ' extra ', extra
  end if
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  if (errs /= 0) print *, 'Found ', errs, ' errors'
  call MPI_Finalize(ierr)
end program grequest
