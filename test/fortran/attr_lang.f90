! attr_lang.f90: free form with "use mpi".  Attributes across languages
! (MPI-4.1 sec. 19.3.7), C's calls reached through BIND(C) (Ferry's
! handles are the same numbers in C and Fortran): a value set with
! MPI_COMM_SET_ATTR (or MPI_TYPE_SET_ATTR) is read by C's get as a
! pointer to an MPI_Aint holding it, also on a copy made by
! MPI_COMM_DUP_FN; one set with MPI_ATTR_PUT as a pointer to an int; a
! pointer set by C is read by MPI_COMM_GET_ATTR as the address and by
! MPI_ATTR_GET as its low 32 bits.  Any number of ranks.
program attr_lang
  use mpi
  use, intrinsic :: iso_c_binding
  implicit none
  interface
     integer(c_int) function c_comm_get_attr(comm, keyval, val, flag) &
          bind(C, name='MPI_Comm_get_attr')
       import :: c_int, c_ptr
       integer(c_int), value :: comm, keyval
       type(c_ptr) :: val
       integer(c_int) :: flag
     end function c_comm_get_attr
     integer(c_int) function c_type_get_attr(datatype, keyval, val, flag) &
          bind(C, name='MPI_Type_get_attr')
       import :: c_int, c_ptr
       integer(c_int), value :: datatype, keyval
       type(c_ptr) :: val
       integer(c_int) :: flag
     end function c_type_get_attr
     integer(c_int) function c_comm_set_attr(comm, keyval, val) &
          bind(C, name='MPI_Comm_set_attr')
       import :: c_int, c_ptr
       integer(c_int), value :: comm, keyval
       type(c_ptr), value :: val
     end function c_comm_set_attr
  end interface
  integer(kind=MPI_ADDRESS_KIND), pointer :: paint
  integer(c_int), pointer :: pint
  integer(c_int), target :: cval
  integer(c_int) :: rc, cflag
  integer(kind=MPI_ADDRESS_KIND) :: val, extra, big
  integer :: rank, ierr, errs, key, tkey, dup, ival
  logical :: flag
  type(c_ptr) :: p
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  extra = 0
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, extra, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, extra, ierr)

  ! Fortran's address-sized value: C gets a pointer to it.
  big = 2_MPI_ADDRESS_KIND**40 + 5555 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, big, ierr)
  rc = c_comm_get_attr(MPI_COMM_WORLD, key, p, cflag)
  if (rc /= MPI_SUCCESS .or. cflag == 0) then
     errs = errs + 1
     print *, 'C get of a Fortran value: rc ', rc, ' flag ', cflag
  else
     call c_f_pointer(p, paint)
     if (paint /= big) then
        errs = errs + 1
        print *, 'C get of MPI_COMM_SET_ATTR''s ', big, ': *value ', paint
     end if
  end if
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  rc = c_comm_get_attr(dup, key, p, cflag)
  if (rc /= MPI_SUCCESS .or. cflag == 0) then
     errs = errs + 1
     print *, 'C get on the dup: rc ', rc, ' flag ', cflag
  else
     call c_f_pointer(p, paint)
     if (paint /= big) then
        errs = errs + 1
        print *, 'C get on the dup of ', big, ': *value ', paint
     end if
  end if
  call MPI_Comm_free(dup, ierr)
  val = -3
  call MPI_Type_set_attr(MPI_INTEGER, tkey, val, ierr)
  rc = c_type_get_attr(MPI_INTEGER, tkey, p, cflag)
  if (rc /= MPI_SUCCESS .or. cflag == 0) then
     errs = errs + 1
     print *, 'C type get: rc ', rc, ' flag ', cflag
  else
     call c_f_pointer(p, paint)
     if (paint /= -3) then
        errs = errs + 1
        print *, 'C get of MPI_TYPE_SET_ATTR''s -3: *value ', paint
     end if
  end if
  call MPI_Type_delete_attr(MPI_INTEGER, tkey, ierr)

  ! MPI-1's INTEGER: C gets a pointer to an int; Fortran's address-sized
  ! get, the value sign-extended.
  call MPI_Attr_put(MPI_COMM_WORLD, key, -42, ierr)
  rc = c_comm_get_attr(MPI_COMM_WORLD, key, p, cflag)
  if (rc /= MPI_SUCCESS .or. cflag == 0) then
     errs = errs + 1
     print *, 'C get of an INTEGER value: rc ', rc, ' flag ', cflag
  else
     call c_f_pointer(p, pint)
     if (pint /= -42) then
        errs = errs + 1
        print *, 'C get of MPI_ATTR_PUT''s -42: *value ', pint
     end if
  end if
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  if (.not. flag .or. val /= -42) then
     errs = errs + 1
     print *, 'MPI_COMM_GET_ATTR of MPI_ATTR_PUT''s -42: ', flag, val
  end if

  ! C's pointer: Fortran gets the address.
  rc = c_comm_set_attr(MPI_COMM_WORLD, key, c_loc(cval))
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  if (.not. flag .or. val /= transfer(c_loc(cval), val)) then
     errs = errs + 1
     print *, 'MPI_COMM_GET_ATTR of a C pointer: ', flag, val
  end if
  call MPI_Attr_get(MPI_COMM_WORLD, key, ival, flag, ierr)
  if (.not. flag .or. ibits(int(ival, MPI_ADDRESS_KIND), 0, 32) /= ibits(val, 0, 32)) then
     errs = errs + 1
     print *, 'MPI_ATTR_GET of a C pointer: ', flag, ival, ' address ', val
  end if
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Type_free_keyval(tkey, ierr)
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  if (errs /= 0) print *, 'Found ', errs, ' errors'
  call MPI_Finalize(ierr)
end program attr_lang
