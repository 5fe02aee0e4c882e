! f08_comm.f90: "use mpi_f08", handles and the rest.  Handle comparison (== and /=)
! and constants; MPI_Comm_dup, MPI_Comm_split, groups and MPI_Comm_create; derived
! datatypes (vector, contiguous, resized, and a struct of absolute addresses sent from
! MPI_BOTTOM) through MPI_Sendrecv on MPI_COMM_SELF; strings (communicator names,
! processor name, error strings, info keys and values); MPI_Wtime and MPI_Wtick;
! MPI_Aint_add and MPI_Aint_diff; MPI_Sizeof; a PMPI_ name; ierror omitted and present,
! and with MPI_ERRORS_RETURN an error code coming back.  Two or more ranks.
program f08_comm
  use mpi_f08
  implicit none
  integer :: rank, nprocs, errs, total, i, result, newrank, newsize, expect_rank, expect_size
  integer :: ierr, cls, reslen, sz, nkeys, valuelen, ranks1(1), ranks2(1)
  type(MPI_Comm) :: dup, split, comm0
  type(MPI_Group) :: world_group, group0
  type(MPI_Datatype) :: vec, contig, resized, struct
  type(MPI_Info) :: info
  integer :: src(6), dst(6), blocklens(2)
  double precision :: t0, t1
  ! Reached through MPI_BOTTOM: the compiler must not keep them in registers.
  integer, volatile :: ival
  double precision, volatile :: dval
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, disps(2)
  type(MPI_Datatype) :: types(2)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  character(len=MPI_MAX_ERROR_STRING) :: estring
  character(len=MPI_MAX_INFO_KEY) :: key
  character(len=20) :: value
  logical :: flag
  errs = 0
  call MPI_Init(ierr)
  if (ierr /= MPI_SUCCESS) then
     errs = errs + 1
     print *, 'MPI_Init ierror ', ierr
  end if
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! The profiling names reach the same calls.
  call PMPI_Comm_rank(MPI_COMM_WORLD, i, ierr)
  if (i /= rank .or. ierr /= MPI_SUCCESS) then
     errs = errs + 1
     print *, 'PMPI_Comm_rank: ', i, ierr
  end if

  ! Handles and constants.
  if (MPI_COMM_WORLD == MPI_COMM_SELF .or. .not. (MPI_COMM_WORLD /= MPI_COMM_NULL)) then
     errs = errs + 1
     print *, 'predefined communicators compare wrong'
  end if
  if (MPI_INTEGER == MPI_REAL .or. MPI_SUM == MPI_MAX .or. MPI_GROUP_EMPTY == MPI_GROUP_NULL &
       .or. MPI_ERRORS_RETURN == MPI_ERRORS_ARE_FATAL .or. MPI_INFO_NULL /= MPI_INFO_NULL) then
     errs = errs + 1
     print *, 'predefined handles compare wrong'
  end if
  call MPI_Type_size(MPI_DOUBLE_PRECISION, sz)
  if (sz /= 8) then
     errs = errs + 1
     print *, 'MPI_Type_size(MPI_DOUBLE_PRECISION) ', sz
  end if
  call MPI_Sizeof(dval, sz)
  if (sz /= 8) then
     errs = errs + 1
     print *, 'MPI_Sizeof(double precision) ', sz
  end if
  call MPI_Sizeof(src, sz, ierr)
  if (sz /= 4 .or. ierr /= MPI_SUCCESS) then
     errs = errs + 1
     print *, 'MPI_Sizeof(integer array) ', sz, ierr
  end if
  t0 = MPI_Wtime()
  t1 = MPI_Wtime()
  if (t1 < t0 .or. MPI_Wtick() <= 0) then
     errs = errs + 1
     print *, 'MPI_Wtime ', t0, t1, ' MPI_Wtick ', MPI_Wtick()
  end if

  ! Dup, compare, names.
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  if (dup == MPI_COMM_WORLD .or. dup == MPI_COMM_NULL) then
     errs = errs + 1
     print *, 'MPI_Comm_dup gave ', dup%MPI_VAL
  end if
  call MPI_Comm_compare(dup, MPI_COMM_WORLD, result)
  if (result /= MPI_CONGRUENT) then
     errs = errs + 1
     print *, 'MPI_Comm_compare ', result
  end if
  call MPI_Comm_set_name(dup, 'f08 duplicate')
  name = 'x'
  call MPI_Comm_get_name(dup, name, reslen)
  if (name /= 'f08 duplicate' .or. reslen /= 13) then
     errs = errs + 1
     print *, 'MPI_Comm_get_name: "', trim(name), '" ', reslen
  end if
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, reslen)
  if (name /= 'MPI_COMM_WORLD' .or. reslen /= 14) then
     errs = errs + 1
     print *, 'MPI_COMM_WORLD''s name: "', trim(name), '" ', reslen
  end if
  call MPI_Get_processor_name(pname, reslen)
  if (reslen < 1 .or. reslen > MPI_MAX_PROCESSOR_NAME .or. len_trim(pname) /= reslen) then
     errs = errs + 1
     print *, 'MPI_Get_processor_name: "', trim(pname), '" ', reslen
  end if
  call MPI_Error_string(MPI_ERR_COMM, estring, reslen)
  if (reslen < 1 .or. len_trim(estring) /= reslen) then
     errs = errs + 1
     print *, 'MPI_Error_string: "', trim(estring), '" ', reslen
  end if
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) then
     errs = errs + 1
     print *, 'MPI_Comm_free left ', dup%MPI_VAL
  end if

  ! Split: even and odd ranks, in reverse order.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, split)
  call MPI_Comm_size(split, newsize)
  call MPI_Comm_rank(split, newrank)
  expect_size = 0
  expect_rank = 0
  do i = 0, nprocs - 1
     if (mod(i, 2) == mod(rank, 2)) then
        expect_size = expect_size + 1
        if (i > rank) expect_rank = expect_rank + 1
     end if
  end do
  if (newsize /= expect_size .or. newrank /= expect_rank) then
     errs = errs + 1
     print *, 'MPI_Comm_split: size ', newsize, ' rank ', newrank, ' expected ', &
          expect_size, expect_rank
  end if
  call MPI_Comm_free(split)

  ! Groups: rank 0 alone.
  call MPI_Comm_group(MPI_COMM_WORLD, world_group)
  ranks1(1) = 0
  call MPI_Group_incl(world_group, 1, ranks1, group0)
  call MPI_Group_size(group0, sz)
  ranks1(1) = 0
  call MPI_Group_translate_ranks(group0, 1, ranks1, world_group, ranks2)
  if (sz /= 1 .or. ranks2(1) /= 0) then
     errs = errs + 1
     print *, 'group of rank 0: size ', sz, ' translated ', ranks2(1)
  end if
  call MPI_Group_compare(world_group, group0, result)
  if (result /= MPI_UNEQUAL) then
     errs = errs + 1
     print *, 'MPI_Group_compare ', result
  end if
  call MPI_Comm_create(MPI_COMM_WORLD, group0, comm0)
  if ((rank == 0) .neqv. (comm0 /= MPI_COMM_NULL)) then
     errs = errs + 1
     print *, 'MPI_Comm_create on rank ', rank, ' gave ', comm0%MPI_VAL
  end if
  if (comm0 /= MPI_COMM_NULL) call MPI_Comm_free(comm0)
  call MPI_Group_free(group0)
  call MPI_Group_free(world_group)
  if (group0 /= MPI_GROUP_NULL .or. world_group /= MPI_GROUP_NULL) then
     errs = errs + 1
     print *, 'MPI_Group_free left a group'
  end if

  ! Datatypes.
  src = [(i, i = 1, 6)]
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)
  call MPI_Type_commit(vec)
  dst = 0
  call MPI_Sendrecv(src, 1, vec, 0, 0, dst, 3, MPI_INTEGER, 0, 0, MPI_COMM_SELF, &
       MPI_STATUS_IGNORE)
  if (any(dst /= [1, 3, 5, 0, 0, 0])) then
     errs = errs + 1
     print *, 'vector: ', dst
  end if
  call MPI_Type_get_extent(vec, lb, extent)
  if (lb /= 0 .or. extent /= 20) then
     errs = errs + 1
     print *, 'vector extent: ', lb, extent
  end if
  call MPI_Type_create_resized(vec, 0_MPI_ADDRESS_KIND, 4_MPI_ADDRESS_KIND, resized)
  call MPI_Type_contiguous(2, resized, contig)
  call MPI_Type_commit(contig)
  dst = 0
  call MPI_Sendrecv(src, 1, contig, 0, 1, dst, 6, MPI_INTEGER, 0, 1, MPI_COMM_SELF, &
       MPI_STATUS_IGNORE)
  if (any(dst /= [1, 3, 5, 2, 4, 6])) then
     errs = errs + 1
     print *, 'contiguous of resized vector: ', dst
  end if
  call MPI_Type_free(contig)
  call MPI_Type_free(resized)
  call MPI_Type_free(vec)
  if (vec /= MPI_DATATYPE_NULL) then
     errs = errs + 1
     print *, 'MPI_Type_free left ', vec%MPI_VAL
  end if
  ival = 17
  dval = 2.25d0
  call MPI_Get_address(ival, disps(1))
  call MPI_Get_address(dval, disps(2))
  blocklens = 1
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION]
  if (MPI_Aint_diff(disps(2), disps(1)) /= disps(2) - disps(1) .or. &
       MPI_Aint_add(disps(1), disps(2) - disps(1)) /= disps(2)) then
     errs = errs + 1
     print *, 'MPI_Aint_diff, MPI_Aint_add: ', MPI_Aint_diff(disps(2), disps(1)), &
          MPI_Aint_add(disps(1), disps(2) - disps(1)), ' addresses ', disps
  end if
  call MPI_Type_create_struct(2, blocklens, disps, types, struct)
  call MPI_Type_commit(struct)
  call MPI_Type_size(struct, sz)
  if (sz /= 12) then
     errs = errs + 1
     print *, 'struct size ', sz
  end if
  src = 0
  call MPI_Sendrecv(MPI_BOTTOM, 1, struct, 0, 2, src, 12, MPI_BYTE, 0, 2, MPI_COMM_SELF, &
       MPI_STATUS_IGNORE)
  ival = 0
  dval = 0
  call MPI_Sendrecv(src, 12, MPI_BYTE, 0, 3, MPI_BOTTOM, 1, struct, 0, 3, MPI_COMM_SELF, &
       MPI_STATUS_IGNORE)
  if (ival /= 17 .or. dval /= 2.25d0) then
     errs = errs + 1
     print *, 'struct from MPI_BOTTOM and back: ', ival, dval
  end if
  call MPI_Type_free(struct)

  ! Info.
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'color', 'blue')
  call MPI_Info_set(info, 'size', '42')
  call MPI_Info_get_nkeys(info, nkeys)
  call MPI_Info_get_nthkey(info, 1, key)
  call MPI_Info_get_valuelen(info, 'color', valuelen, flag)
  if (nkeys /= 2 .or. key /= 'size' .or. .not. flag .or. valuelen /= 4) then
     errs = errs + 1
     print *, 'info: ', nkeys, ' "', trim(key), '" ', flag, valuelen
  end if
  value = 'x'
  call MPI_Info_get(info, 'color', len(value), value, flag)
  if (.not. flag .or. value /= 'blue') then
     errs = errs + 1
     print *, 'MPI_Info_get: ', flag, ' "', trim(value), '"'
  end if
  call MPI_Info_get(info, 'shape', len(value), value, flag)
  if (flag) then
     errs = errs + 1
     print *, 'MPI_Info_get found a key not set'
  end if
  call MPI_Info_free(info)
  if (info /= MPI_INFO_NULL) then
     errs = errs + 1
     print *, 'MPI_Info_free left ', info%MPI_VAL
  end if

  ! Errors: ierror present and absent, MPI_ERRORS_RETURN.
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) then
     errs = errs + 1
     print *, 'MPI_Barrier ierror ', ierr
  end if
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  ierr = MPI_SUCCESS
  call MPI_Send(src, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (ierr == MPI_SUCCESS .or. cls /= MPI_ERR_RANK) then
     errs = errs + 1
     print *, 'send to rank ', nprocs, ': ierror ', ierr, ' class ', cls
  end if
  ierr = MPI_SUCCESS
  call MPI_Comm_rank(MPI_COMM_NULL, i, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_COMM) then
     errs = errs + 1
     print *, 'MPI_Comm_rank(MPI_COMM_NULL): class ', cls
  end if
  ! Without ierror the error is only returned: the program goes on.
  call MPI_Send(src, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  call MPI_Allreduce(errs, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a)', ' No Errors'
  call MPI_Finalize()
end program f08_comm
