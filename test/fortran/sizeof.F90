! sizeof.f90: free form with "use mpi".  MPI_SIZEOF, the generic of the
! module, on scalars, arrays of several ranks and array sections of every
! intrinsic numeric and logical kind gfortran has: the size must be the
! kind's storage size in bytes (STORAGE_SIZE / 8, Fortran 2008) and
! IERROR MPI_SUCCESS; then a message of a REAL(8) array sent by the size
! MPI_SIZEOF gave (MPI_Type_match_size).  Any number of ranks.  The
! standard asks for numeric types of any rank; LOGICAL is Ferry's extra.
! Neither Debian's MPICH 4.0.2 (no arrays of rank 2 or more) nor Open MPI
! 4.1 (no LOGICAL) builds it.  Then REAL(16), COMPLEX(16) and INTEGER(16)
! reduced as MPI_REAL16, MPI_INTEGER16 and the f90 types of their
! precision and range.
program sizeof
  use mpi
  implicit none
  integer :: rank, nranks, ierr, errs, total, sz, t, i
  integer(kind=1) :: i1
  integer(kind=2) :: i2(3)
  integer :: i4(2, 3)
  integer(kind=8) :: i8(2, 2, 2)
  real :: r4(5)
  real(kind=8) :: r8, buf(4)
  complex :: c8(2)
  complex(kind=8) :: c16
  logical :: l4(2)
  logical(kind=1) :: l1
  logical(kind=8) :: l8
#ifdef __GFC_INT_16__
  integer(kind=16) :: i16(2)
#endif
#ifdef __GFC_REAL_10__
  real(kind=10) :: r10
  complex(kind=10) :: c20(3)
#endif
#ifdef __GFC_REAL_16__
  real(kind=16) :: r16(2)
  complex(kind=16) :: c32
#endif
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)

  call MPI_SIZEOF(i1, sz, ierr)
  call check('integer(1)', sz, ierr, storage_size(i1))
  call MPI_SIZEOF(i2, sz, ierr)
  call check('integer(2) array', sz, ierr, storage_size(i2))
  call MPI_SIZEOF(i4, sz, ierr)
  call check('integer 2-d', sz, ierr, storage_size(i4))
  call MPI_SIZEOF(i4(2, :), sz, ierr)
  call check('integer section', sz, ierr, storage_size(i4))
  call MPI_SIZEOF(i8, sz, ierr)
  call check('integer(8) 3-d', sz, ierr, storage_size(i8))
  call MPI_SIZEOF(r4, sz, ierr)
  call check('real', sz, ierr, storage_size(r4))
  call MPI_SIZEOF(r8, sz, ierr)
  call check('real(8)', sz, ierr, storage_size(r8))
  call MPI_SIZEOF(c8, sz, ierr)
  call check('complex', sz, ierr, storage_size(c8))
  call MPI_SIZEOF(c16, sz, ierr)
  call check('complex(8)', sz, ierr, storage_size(c16))
  call MPI_SIZEOF(l4, sz, ierr)
  call check('logical', sz, ierr, storage_size(l4))
  call MPI_SIZEOF(l1, sz, ierr)
  call check('logical(1)', sz, ierr, storage_size(l1))
  call MPI_SIZEOF(l8, sz, ierr)
  call check('logical(8)', sz, ierr, storage_size(l8))
#ifdef __GFC_INT_16__
  call MPI_SIZEOF(i16, sz, ierr)
  call check('integer(16)', sz, ierr, storage_size(i16))
#endif
#ifdef __GFC_REAL_10__
  call MPI_SIZEOF(r10, sz, ierr)
  call check('real(10)', sz, ierr, storage_size(r10))
  call MPI_SIZEOF(c20, sz, ierr)
  call check('complex(10)', sz, ierr, storage_size(c20))
#endif
#ifdef __GFC_REAL_16__
  call MPI_SIZEOF(r16, sz, ierr)
  call check('real(16)', sz, ierr, storage_size(r16))
  call MPI_SIZEOF(c32, sz, ierr)
  call check('complex(16)', sz, ierr, storage_size(c32))
#endif

  ! The use it is made for: a type of the size of the program's own variables.
  call MPI_SIZEOF(buf, sz, ierr)
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, sz, t, ierr)
  if (rank == 0) then
     buf = (/ (1.5d0 * i, i = 1, 4) /)
     do i = 1, nranks - 1
        call MPI_Send(buf, 4, t, i, 7, MPI_COMM_WORLD, ierr)
     end do
  else
     buf = 0
     call MPI_Recv(buf, 4, t, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
     do i = 1, 4
        if (buf(i) /= 1.5d0 * i) then
           errs = errs + 1
           print *, 'received ', buf(i), ' at ', i, ', expected ', 1.5d0 * i
        end if
     end do
  end if

#ifdef __GFC_REAL_16__
  ! REAL(16) and INTEGER(16) travel and reduce as MPI_REAL16 and MPI_INTEGER16, and as the
  ! types of their precision and range.
  r16(1) = 1.0_16 + 2.0_16**(-100) * rank
  r16(2) = -r16(1)
  call MPI_Allreduce(MPI_IN_PLACE, r16, 2, MPI_REAL16, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (r16(1) /= 1.0_16 + 2.0_16**(-100) * (nranks - 1) .or. r16(2) /= -1.0_16) then
     errs = errs + 1
     print *, 'MAX of REAL16: ', r16
  end if
  call MPI_Type_create_f90_real(precision(r16), range(r16), t, ierr)
  c32 = cmplx(1.0_16, 2.0_16**(-100), kind=16)
  call MPI_Type_create_f90_complex(precision(c32), range(c32), t, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, c32, 1, t, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (c32 /= cmplx(nranks * 1.0_16, nranks * 2.0_16**(-100), kind=16)) then
     errs = errs + 1
     print *, 'SUM of COMPLEX(16) by its f90 type: ', c32
  end if
#endif
#ifdef __GFC_INT_16__
  i16(1) = 2_16**100 + rank
  i16(2) = rank
  call MPI_Type_create_f90_integer(range(i16), t, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, i16, 2, t, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (i16(1) /= nranks * 2_16**100 + nranks * (nranks - 1) / 2) then
     errs = errs + 1
     print *, 'SUM of INTEGER(16) by its f90 type: ', i16
  end if
  call MPI_Allreduce(MPI_IN_PLACE, i16, 2, MPI_INTEGER16, MPI_MAX, MPI_COMM_WORLD, ierr)
#endif

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. total == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)

contains

  subroutine check(what, got, ierror, bits)
    character(len=*), intent(in) :: what
    integer, intent(in) :: got, ierror, bits
    if (got /= bits / 8 .or. ierror /= MPI_SUCCESS) then
       errs = errs + 1
       print *, 'MPI_SIZEOF(', what, '): ', got, ' ierror ', ierror, ', expected ', bits / 8
    end if
  end subroutine check
end program sizeof
