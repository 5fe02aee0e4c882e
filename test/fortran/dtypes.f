! dtypes.f: fixed form with include 'mpif.h'.  A column of a matrix
! sent as MPI_Type_vector; a struct of an INTEGER, a DOUBLE PRECISION
! and a LOGICAL described by MPI_Get_address and
! MPI_Type_create_struct with absolute addresses and sent from
! MPI_BOTTOM; MPI_Type_size, MPI_Type_get_extent and
! MPI_Type_get_envelope of it.  Two ranks or more.
      program dtypes
      implicit none
      include 'mpif.h'
      integer rank, size, ierr, errs, i, j, col, st, tsize
      integer ni, na, nd, comb
      integer a(4, 5)
      integer blens(3), types(3)
      integer (kind=MPI_ADDRESS_KIND) disps(3), lb, extent
      integer ival
      double precision dval
      logical lval
      integer status(MPI_STATUS_SIZE)
      errs = 0
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)

!     Row 2 of a 4x5 matrix: 5 elements with a stride of 4.
      call MPI_Type_vector(5, 1, 4, MPI_INTEGER, col, ierr)
      call MPI_Type_commit(col, ierr)
      do j = 1, 5
         do i = 1, 4
            a(i, j) = 0
            if (rank .eq. 0) a(i, j) = 10 * i + j
         end do
      end do
      if (rank .eq. 0) then
         call MPI_Send(a(2, 1), 1, col, 1, 1, MPI_COMM_WORLD, ierr)
      else if (rank .eq. 1) then
         call MPI_Recv(a(3, 1), 1, col, 0, 1, MPI_COMM_WORLD,
     &                 status, ierr)
         do j = 1, 5
            if (a(3, j) .ne. 20 + j .or. a(2, j) .ne. 0) then
               errs = errs + 1
               print *, 'vector: a(3,', j, ') = ', a(3, j)
            end if
         end do
      end if
      call MPI_Type_free(col, ierr)

!     The struct, by absolute addresses.
      ival = 0
      dval = 0d0
      lval = .false.
      if (rank .eq. 0) then
         ival = 42
         dval = 2.5d0
         lval = .true.
      end if
      call MPI_Get_address(ival, disps(1), ierr)
      call MPI_Get_address(dval, disps(2), ierr)
      call MPI_Get_address(lval, disps(3), ierr)
      blens(1) = 1
      blens(2) = 1
      blens(3) = 1
      types(1) = MPI_INTEGER
      types(2) = MPI_DOUBLE_PRECISION
      types(3) = MPI_LOGICAL
      call MPI_Type_create_struct(3, blens, disps, types, st, ierr)
      call MPI_Type_commit(st, ierr)
      call MPI_Type_size(st, tsize, ierr)
      if (tsize .ne. 16) then
         errs = errs + 1
         print *, 'struct size ', tsize, ' want 16'
      end if
      call MPI_Type_get_envelope(st, ni, na, nd, comb, ierr)
      if (comb .ne. MPI_COMBINER_STRUCT .or. ni .ne. 4 .or.
     &    na .ne. 3 .or. nd .ne. 3) then
         errs = errs + 1
         print *, 'envelope ', ni, na, nd, comb
      end if
      call MPI_Type_get_extent(MPI_DOUBLE_PRECISION, lb, extent, ierr)
      if (lb .ne. 0 .or. extent .ne. 8) then
         errs = errs + 1
         print *, 'extent of DOUBLE PRECISION ', lb, extent
      end if
      call MPI_Bcast(MPI_BOTTOM, 1, st, 0, MPI_COMM_WORLD, ierr)
      if (ival .ne. 42 .or. dval .ne. 2.5d0 .or. .not. lval) then
         errs = errs + 1
         print *, 'struct from MPI_BOTTOM: ', ival, dval, lval
      end if
      call MPI_Type_free(st, ierr)
      if (st .ne. MPI_DATATYPE_NULL) errs = errs + 1

      call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print *, 'No Errors'
      call MPI_Finalize(ierr)
      end
