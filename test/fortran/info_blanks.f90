! info_blanks.f90: free form with "use mpi".  The info calls' Fortran
! rules (MPI-4.1 sec. 10 and 19.3): keys and values lose leading and
! trailing blanks; MPI_INFO_GET leaves VALUE alone when the key is absent;
! MPI_INFO_GET_STRING's BUFLEN counts characters, no terminator (in: how
! many to write, out: the value's length), the value comes cut at BUFLEN
! and blank-padded, VALUE is left alone for an absent key or BUFLEN 0;
! MPI_INFO_GET_VALUELEN, _GET_NTHKEY, _DELETE with blanks around the key;
! MPI_INFO_CREATE_ENV(INFO, IERROR).  Any number of ranks.
program info_blanks
  use mpi
  implicit none
  integer :: info, env, ierr, errs, rank, buflen, vlen, nkeys
  logical :: flag
  character(len=MPI_MAX_INFO_VAL) :: val
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=4) :: short
  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, '  lead', ' v1 ', ierr)
  call MPI_Info_get(info, 'lead', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (.not. flag .or. val /= 'v1') then
     errs = errs + 1
     print *, 'key " lead" value " v1 ": found ', flag, ' [', trim(val), ']'
  end if
  call MPI_Info_get_valuelen(info, ' lead  ', vlen, flag, ierr)
  if (.not. flag .or. vlen /= 2) then
     errs = errs + 1
     print *, 'MPI_INFO_GET_VALUELEN(" lead  "): ', flag, vlen
  end if
  call MPI_Info_get_nthkey(info, 0, key, ierr)
  if (key /= 'lead') then
     errs = errs + 1
     print *, 'MPI_INFO_GET_NTHKEY: [', trim(key), ']'
  end if
  val = 'canary'
  call MPI_Info_get(info, 'nokey', MPI_MAX_INFO_VAL, val, flag, ierr)
  if (flag .or. val /= 'canary') then
     errs = errs + 1
     print *, 'MPI_INFO_GET of an absent key: ', flag, ' [', trim(val), ']'
  end if

  call MPI_Info_set(info, 'abc', '123456', ierr)
  buflen = 0
  val = 'canary'
  call MPI_Info_get_string(info, ' abc ', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 6 .or. val /= 'canary') then
     errs = errs + 1
     print *, 'MPI_INFO_GET_STRING, BUFLEN 0: ', flag, buflen, ' [', trim(val), ']'
  end if
  buflen = 10
  val = 'canary'
  call MPI_Info_get_string(info, 'nokey', buflen, val, flag, ierr)
  if (flag .or. val /= 'canary') then
     errs = errs + 1
     print *, 'MPI_INFO_GET_STRING of an absent key: ', flag, ' [', trim(val), ']'
  end if
  buflen = 2
  val = 'canary'
  call MPI_Info_get_string(info, 'abc', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 6 .or. val /= '12') then
     errs = errs + 1
     print *, 'MPI_INFO_GET_STRING, BUFLEN 2: ', flag, buflen, ' [', trim(val), ']'
  end if
  buflen = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(info, 'abc', buflen, short, flag, ierr)
  if (.not. flag .or. buflen /= 6 .or. short /= '1234') then
     errs = errs + 1
     print *, 'MPI_INFO_GET_STRING into 4 characters: ', flag, buflen, ' [', short, ']'
  end if
  buflen = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(info, 'abc', buflen, val, flag, ierr)
  if (.not. flag .or. buflen /= 6 .or. val /= '123456') then
     errs = errs + 1
     print *, 'MPI_INFO_GET_STRING: ', flag, buflen, ' [', trim(val), ']'
  end if

  call MPI_Info_delete(info, ' abc', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  if (ierr /= MPI_SUCCESS .or. nkeys /= 1) then
     errs = errs + 1
     print *, 'MPI_INFO_DELETE(" abc"): ierr ', ierr, ' keys left ', nkeys
  end if
  call MPI_Info_free(info, ierr)

  call MPI_Info_create_env(env, ierr)
  if (ierr /= MPI_SUCCESS .or. env == MPI_INFO_NULL) then
     errs = errs + 1
     print *, 'MPI_INFO_CREATE_ENV: ierr ', ierr
  else
     call MPI_Info_free(env, ierr)
  end if
  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print *, 'No Errors'
  if (errs /= 0) print *, 'Found ', errs, ' errors'
  call MPI_Finalize(ierr)
end program info_blanks
