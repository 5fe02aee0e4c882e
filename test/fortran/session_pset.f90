! session_pset.f90: free form with "use mpi".  MPI_SESSION_GET_NTH_PSET's
! Fortran rules (MPI-4.1 sec. 11.3.2, as MPI_INFO_GET_STRING's BUFLEN):
! PSET_LEN counts characters, no terminator (in: how many to write, out:
! the name's length); PSET_LEN 0 leaves PSET_NAME as it is, even one with
! no storage (an unallocated deferred-length name, as Open MPI's public
! tests do before allocating it); the name comes cut at PSET_LEN and
! blank-padded.  A name so learned makes a group and a communicator.
! Any number of ranks; the session is the only model (no MPI_INIT).
program session_pset
  use mpi
  implicit none
  integer :: session, ierr, errs, npsets, i, plen, group, comm, gsize, rank, tot
  character(len=:), allocatable :: name
  character(len=20) :: fixed
  character(len=4) :: short
  logical :: seen_world
  errs = 0
  seen_world = .false.
  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, session, ierr)
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, npsets, ierr)
  do i = 0, npsets - 1
     plen = 0
     ! name is not allocated: with PSET_LEN 0 the call must not touch it
     call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, name, ierr)
     if (ierr /= MPI_SUCCESS .or. plen < 1 .or. plen > MPI_MAX_PSET_NAME_LEN) then
        errs = errs + 1
        print *, 'pset', i, ' length query: ierr', ierr, ' pset_len', plen
        cycle
     end if
     allocate(character(len=plen) :: name)
     call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, name, ierr)
     if (len_trim(name) /= plen .or. len(name) /= plen) then
        errs = errs + 1
        print *, 'pset', i, ' [', name, '] has', len_trim(name), ' characters, pset_len', plen
     end if
     if (name == 'mpi://WORLD') seen_world = .true.
     ! PSET_LEN 0 leaves a name with storage as it is too
     fixed = 'untouched'
     plen = 0
     call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, fixed, ierr)
     if (fixed /= 'untouched' .or. plen /= len(name)) then
        errs = errs + 1
        print *, 'pset', i, ' pset_len 0 wrote [', trim(fixed), '] or gave', plen
     end if
     ! cut at PSET_LEN (3), then blank-padded to the variable's length
     short = 'xxxx'
     plen = 3
     call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, i, plen, short, ierr)
     if (short /= name(1:3) .or. plen /= len(name)) then
        errs = errs + 1
        print *, 'pset', i, ' pset_len 3 gave [', short, '] and', plen
     end if
     deallocate(name)
  end do
  if (.not. seen_world) then
     errs = errs + 1
     print *, 'no process set is named mpi://WORLD'
  end if
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group, ierr)
  call MPI_Comm_create_from_group(group, 'session_pset', MPI_INFO_NULL, &
       MPI_ERRORS_RETURN, comm, ierr)
  call MPI_Group_size(group, gsize, ierr)
  call MPI_Comm_rank(comm, rank, ierr)
  call MPI_Allreduce(errs, tot, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (rank == 0 .and. tot == 0) print *, 'No Errors'
  call MPI_Comm_free(comm, ierr)
  call MPI_Group_free(group, ierr)
  call MPI_Session_finalize(session, ierr)
end program session_pset
