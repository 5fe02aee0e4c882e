! f90_types.f90: free form with "use mpi".  MPI_TYPE_CREATE_F90_INTEGER,
! _REAL, _COMPLEX (MPI-4.1 sec. 19.1.9): the envelope says the F90
! combiner with the integers given (R; P and R), no addresses or types;
! different arguments give different handles, the same ones the same
! handle, even after many calls; MPI_TYPE_FREE refuses them; they carry
! data of the kind asked, point to point and in a reduction.  Any number
! of ranks.
program f90_types
  use mpi
  implicit none
  integer, parameter :: r8 = selected_real_kind(15, 300)
  integer :: rank, size, ierr, errs, i, t9, t8, t9b, tr, tc, t
  integer :: ni, na, nd, comb, ints(2), types(1)
  integer(kind=MPI_ADDRESS_KIND) :: addrs(1)
  real(kind=r8) :: x, xsum
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call MPI_Type_create_f90_integer(9, t9, ierr)
  call MPI_Type_create_f90_integer(8, t8, ierr)
  call MPI_Type_create_f90_real(15, 300, tr, ierr)
  call MPI_Type_create_f90_complex(6, MPI_UNDEFINED, tc, ierr)
  call MPI_Type_get_envelope(t9, ni, na, nd, comb, ierr)
  if (comb /= MPI_COMBINER_F90_INTEGER .or. ni /= 1 .or. na /= 0 .or. nd /= 0) then
     errs = errs + 1
     print *, 'f90_integer(9) envelope: combiner ', comb, ' counts ', ni, na, nd
  else
     call MPI_Type_get_contents(t9, 1, 0, 0, ints, addrs, types, ierr)
     if (ints(1) /= 9) then
        errs = errs + 1
        print *, 'f90_integer(9) contents: ', ints(1)
     end if
  end if
  call MPI_Type_get_envelope(tr, ni, na, nd, comb, ierr)
  if (comb /= MPI_COMBINER_F90_REAL .or. ni /= 2) then
     errs = errs + 1
     print *, 'f90_real(15, 300) envelope: combiner ', comb, ' integers ', ni
  else
     call MPI_Type_get_contents(tr, 2, 0, 0, ints, addrs, types, ierr)
     if (ints(1) /= 15 .or. ints(2) /= 300) then
        errs = errs + 1
        print *, 'f90_real(15, 300) contents: ', ints
     end if
  end if
  call MPI_Type_get_envelope(tc, ni, na, nd, comb, ierr)
  if (comb /= MPI_COMBINER_F90_COMPLEX .or. ni /= 2) then
     errs = errs + 1
     print *, 'f90_complex(6, UNDEFINED) envelope: combiner ', comb, ' integers ', ni
  else
     call MPI_Type_get_contents(tc, 2, 0, 0, ints, addrs, types, ierr)
     if (ints(1) /= 6 .or. ints(2) /= MPI_UNDEFINED) then
        errs = errs + 1
        print *, 'f90_complex(6, UNDEFINED) contents: ', ints
     end if
  end if
  if (t9 == t8) then
     errs = errs + 1
     print *, 'f90_integer(9) and (8): one handle ', t9
  end if
  do i = 1, 10000
     call MPI_Type_create_f90_integer(9, t9b, ierr)
  end do
  if (t9b /= t9) then
     errs = errs + 1
     print *, 'f90_integer(9) twice: handles ', t9, t9b
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  t = t9
  call MPI_Type_free(t, ierr)
  if (ierr == MPI_SUCCESS) then
     errs = errs + 1
     print *, 'MPI_TYPE_FREE of an f90 type succeeded'
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)
  x = 0.5_r8 + rank
  call MPI_Allreduce(x, xsum, 1, tr, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (xsum /= size * 0.5_r8 + size * (size - 1) / 2) then
     errs = errs + 1
     print *, 'SUM of f90_real(15, 300): ', xsum
  end if
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  if (errs /= 0) print *, 'Found ', errs, ' errors'
  call MPI_Finalize(ierr)
end program f90_types
