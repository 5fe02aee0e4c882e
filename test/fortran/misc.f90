! misc.f90: free form with "use mpi".  Info objects (strings in and out,
! the LOGICAL flag), a periodic Cartesian grid (LOGICAL arrays in and
! out, MPI_Cart_shift), Fortran kinds (MPI_Type_match_size,
! MPI_Type_create_f90_real/integer), MPI_Get_library_version,
! MPI_Iprobe's flag and MPI_Testall, MPI_Sendrecv_replace, and
! MPI_Pack/MPI_Unpack with a position.  Any number of ranks.
program misc
  use mpi
  implicit none
  integer :: rank, size, ierr, errs, i, info, nkeys, cart, left, right, t, tsize, len
  integer :: dims(1), coords(1), reqs(2), ival, pos, packed_ints(2)
  integer :: status(MPI_STATUS_SIZE)
  logical :: flag, periods(1), got_periods(1)
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: version
  character(len=64) :: packbuf
  double precision :: dval
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'ferry_key  ', 'a value with blanks  ', ierr)
  call MPI_Info_get(info, 'ferry_key', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (.not. flag .or. value /= 'a value with blanks') then
     errs = errs + 1
     print *, 'info get: ', flag, '"', trim(value), '"'
  end if
  call MPI_Info_get(info, 'no_such_key', MPI_MAX_INFO_VAL, value, flag, ierr)
  if (flag) errs = errs + 1
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  call MPI_Info_get_nthkey(info, 0, key, ierr)
  if (nkeys /= 1 .or. key /= 'ferry_key') then
     errs = errs + 1
     print *, 'info keys: ', nkeys, '"', trim(key), '"'
  end if
  call MPI_Info_free(info, ierr)

  dims(1) = size
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_get(cart, 1, dims, got_periods, coords, ierr)
  if (.not. got_periods(1) .or. coords(1) /= rank) then
     errs = errs + 1
     print *, 'cart get: ', got_periods, coords
  end if
  call MPI_Cart_shift(cart, 0, 1, left, right, ierr)
  if (right /= mod(rank + 1, size) .or. left /= mod(rank + size - 1, size)) then
     errs = errs + 1
     print *, 'cart shift: ', left, right
  end if
  ival = rank
  call MPI_Sendrecv_replace(ival, 1, MPI_INTEGER, right, 3, left, 3, cart, status, ierr)
  if (ival /= left .or. status(MPI_SOURCE) /= left) then
     errs = errs + 1
     print *, 'sendrecv_replace: ', ival, status(MPI_SOURCE)
  end if
  call MPI_Comm_free(cart, ierr)

  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  if (tsize /= 4) errs = errs + 1
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t, ierr)
  call MPI_Type_size(t, tsize, ierr)
  if (tsize /= 8) then
     errs = errs + 1
     print *, 'f90 real of 15 digits: size ', tsize
  end if
  dval = rank + 0.5d0
  call MPI_Sendrecv_replace(dval, 1, t, right, 5, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (dval /= left + 0.5d0) then
     errs = errs + 1
     print *, 'f90 real sent: ', dval
  end if
  dval = rank
  call MPI_Allreduce(MPI_IN_PLACE, dval, 1, t, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (dval /= size * (size - 1) / 2) then
     errs = errs + 1
     print *, 'f90 real summed: ', dval
  end if

  call MPI_Get_library_version(version, len, ierr)
  if (len < 1 .or. index(version, 'Ferry') == 0 .and. index(version, 'MPI') == 0) then
     errs = errs + 1
     print *, 'library version: ', len
  end if

  ! Iprobe until the message is there, then Testall until both are done.
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(1), ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Iprobe(left, 4, MPI_COMM_WORLD, flag, status, ierr)
  end do
  if (status(MPI_TAG) /= 4) errs = errs + 1
  call MPI_Irecv(ival, 1, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(2), ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Testall(2, reqs, flag, MPI_STATUSES_IGNORE, ierr)
  end do
  if (ival /= left) errs = errs + 1

  ! Pack two INTEGERs and a DOUBLE PRECISION, unpack them.
  pos = 0
  packed_ints = (/ 11, 22 /)
  dval = 3.25d0
  call MPI_Pack(packed_ints, 2, MPI_INTEGER, packbuf, 64, pos, MPI_COMM_WORLD, ierr)
  call MPI_Pack(dval, 1, MPI_DOUBLE_PRECISION, packbuf, 64, pos, MPI_COMM_WORLD, ierr)
  packed_ints = 0
  dval = 0
  i = pos
  pos = 0
  call MPI_Unpack(packbuf, i, pos, packed_ints, 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Unpack(packbuf, i, pos, dval, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  if (packed_ints(2) /= 22 .or. dval /= 3.25d0 .or. pos /= 16) then
     errs = errs + 1
     print *, 'pack/unpack: ', packed_ints, dval, pos
  end if

  i = errs
  call MPI_Reduce(i, errs, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  call MPI_Finalize(ierr)
end program misc
