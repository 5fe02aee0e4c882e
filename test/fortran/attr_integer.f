! attr_integer.f: fixed form with mpif.h.  MPI-1's attribute calls with
! INTEGER values (deprecated, not removed): MPI_KEYVAL_CREATE with the
! predefined MPI_DUP_FN, MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN and with
! callbacks written in Fortran (INTEGER extra state and values),
! MPI_ATTR_PUT, _GET, _DELETE, MPI_KEYVAL_FREE, MPI_ATTR_GET of
! MPI_TAG_UB; and the MPI-3.0 LOGICAL constants and MPI-1 combiners
! that mpif.h must define.  Any number of ranks.
      subroutine icopy(oldcomm, keyval, extra, valin, valout, flag,
     &                 ierr)
      implicit none
      include 'mpif.h'
      integer oldcomm, keyval, extra, valin, valout, ierr
      logical flag
      integer ncopy, ndel
      common /icount/ ncopy, ndel
      ncopy = ncopy + 1
      valout = valin + extra
      flag = .true.
      ierr = MPI_SUCCESS
      end

      subroutine idelete(comm, keyval, val, extra, ierr)
      implicit none
      include 'mpif.h'
      integer comm, keyval, val, extra, ierr
      integer ncopy, ndel
      common /icount/ ncopy, ndel
      ndel = ndel + 1
      ierr = MPI_SUCCESS
      end

      program attrint
      implicit none
      include 'mpif.h'
      integer ierr, errs, rank, kdup, knull, kmine, dup, ival, extra
      logical flag
      integer ncopy, ndel
      common /icount/ ncopy, ndel
      external icopy, idelete
      errs = 0
      ncopy = 0
      ndel = 0
      call mpi_init(ierr)
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      extra = 0
      call mpi_keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, kdup,
     &     extra, ierr)
      call mpi_keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN,
     &     knull, extra, ierr)
      extra = 5
      call mpi_keyval_create(icopy, idelete, kmine, extra, ierr)
      if (ierr .ne. MPI_SUCCESS) then
         errs = errs + 1
         print *, 'mpi_keyval_create: ierr ', ierr
      end if
      call mpi_attr_put(MPI_COMM_WORLD, kdup, -7 - rank, ierr)
      call mpi_attr_put(MPI_COMM_WORLD, knull, 11, ierr)
      call mpi_attr_put(MPI_COMM_WORLD, kmine, 100, ierr)
      ival = 0
      call mpi_attr_get(MPI_COMM_WORLD, kdup, ival, flag, ierr)
      if (.not. flag .or. ival .ne. -7 - rank) then
         errs = errs + 1
         print *, 'mpi_attr_get: ', flag, ival
      end if
      call mpi_comm_dup(MPI_COMM_WORLD, dup, ierr)
      call mpi_attr_get(dup, kdup, ival, flag, ierr)
      if (.not. flag .or. ival .ne. -7 - rank) then
         errs = errs + 1
         print *, 'MPI_DUP_FN: ', flag, ival
      end if
      call mpi_attr_get(dup, knull, ival, flag, ierr)
      if (flag) then
         errs = errs + 1
         print *, 'MPI_NULL_COPY_FN copied ', ival
      end if
      call mpi_attr_get(dup, kmine, ival, flag, ierr)
      if (.not. flag .or. ival .ne. 105 .or. ncopy .ne. 1) then
         errs = errs + 1
         print *, 'own INTEGER copy: ', flag, ival, ncopy
      end if
      call mpi_attr_delete(MPI_COMM_WORLD, kmine, ierr)
      call mpi_comm_free(dup, ierr)
      if (ndel .ne. 2) then
         errs = errs + 1
         print *, 'own INTEGER delete: ', ndel, ' calls, not 2'
      end if
      call mpi_attr_get(MPI_COMM_WORLD, kmine, ival, flag, ierr)
      if (flag) then
         errs = errs + 1
         print *, 'deleted attribute found: ', ival
      end if
      call mpi_attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
      if (.not. flag .or. ival .lt. 32767) then
         errs = errs + 1
         print *, 'MPI_TAG_UB: ', flag, ival
      end if
      call mpi_keyval_free(kdup, ierr)
      call mpi_keyval_free(knull, ierr)
      call mpi_keyval_free(kmine, ierr)
      if (kmine .ne. MPI_KEYVAL_INVALID .or. ierr .ne. 0) then
         errs = errs + 1
         print *, 'mpi_keyval_free: ', kmine, ierr
      end if
      if (MPI_SUBARRAYS_SUPPORTED .or.
     &    MPI_ASYNC_PROTECTS_NONBLOCKING) then
         errs = errs + 1
         print *, 'MPI_SUBARRAYS_SUPPORTED or _ASYNC_: not .FALSE.'
      end if
      if (MPI_COMBINER_HVECTOR_INTEGER .eq. MPI_COMBINER_HVECTOR .or.
     &    MPI_COMBINER_HINDEXED_INTEGER .eq. MPI_COMBINER_HINDEXED .or.
     &    MPI_COMBINER_STRUCT_INTEGER .eq. MPI_COMBINER_STRUCT) then
         errs = errs + 1
         print *, 'an MPI-1 combiner equals its MPI-2 one'
      end if
      call mpi_allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print *, ' No Errors'
      if (errs .ne. 0) print *, ' Found ', errs, ' errors'
      call mpi_finalize(ierr)
      end
