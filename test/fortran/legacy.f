! legacy.f: fixed form with include 'mpif.h', MPI-1's address calls
! (removed in MPI-3.0, still in old programs): MPI_TYPE_STRUCT with
! INTEGER displacements, MPI_TYPE_EXTENT, MPI_TYPE_LB, MPI_TYPE_UB and
! MPI_TYPE_HVECTOR with an INTEGER stride; an INTEGER and a DOUBLE
! PRECISION at bytes 0 and 8 of a buffer, two of them 16 bytes apart.
! Two ranks or more.
      program legacy
      implicit none
      include 'mpif.h'
      integer rank, ierr, errs, st, two, ext, lb, ub
      integer blens(2), disps(2), types(2)
      integer ibuf(8)
      double precision dbuf(4)
      equivalence (ibuf, dbuf)
      errs = 0
      call MPI_INIT(ierr)
      call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
      blens(1) = 1
      blens(2) = 1
      disps(1) = 0
      disps(2) = 8
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      call MPI_TYPE_STRUCT(2, blens, disps, types, st, ierr)
      call MPI_TYPE_EXTENT(st, ext, ierr)
      call MPI_TYPE_LB(st, lb, ierr)
      call MPI_TYPE_UB(st, ub, ierr)
      if (ext .ne. 16 .or. lb .ne. 0 .or. ub .ne. 16) then
         errs = errs + 1
         print *, 'struct extent, lb, ub: ', ext, lb, ub
      end if
      call MPI_TYPE_HVECTOR(2, 1, 16, st, two, ierr)
      call MPI_TYPE_COMMIT(two, ierr)
      dbuf(2) = 0d0
      dbuf(4) = 0d0
      ibuf(1) = 0
      ibuf(5) = 0
      if (rank .eq. 0) then
         ibuf(1) = 7
         dbuf(2) = 2.5d0
         ibuf(5) = 8
         dbuf(4) = -1.5d0
      end if
      call MPI_BCAST(ibuf, 1, two, 0, MPI_COMM_WORLD, ierr)
      if (ibuf(1) .ne. 7 .or. dbuf(2) .ne. 2.5d0 .or.
     &    ibuf(5) .ne. 8 .or. dbuf(4) .ne. -1.5d0) then
         errs = errs + 1
         print *, 'hvector of structs: ', ibuf(1), dbuf(2), ibuf(5),
     &            dbuf(4)
      end if
      call MPI_TYPE_FREE(two, ierr)
      call MPI_TYPE_FREE(st, ierr)
      call MPI_ALLREDUCE(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print *, 'No Errors'
      call MPI_FINALIZE(ierr)
      end
