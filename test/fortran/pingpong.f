! pingpong.f: fixed form with include 'mpif.h'.  A ping-pong between
! ranks 0 and 1 whose statuses carry source, tag and count; a receive
! with MPI_ANY_SOURCE and MPI_ANY_TAG; MPI_STATUS_IGNORE; a message of
! 4 MiB (past every method's eager limit, so the rendezvous runs);
! MPI_Wtime and MPI_Wtick.  Two ranks or more (the others only wait).
      program pingpong
      implicit none
      include 'mpif.h'
      integer n
      parameter (n = 524288)
      integer rank, size, ierr, errs, i, cnt, peer
      integer status(MPI_STATUS_SIZE)
      integer ibuf(10)
      double precision big(n), t0, t1, tick
      errs = 0
      call MPI_Init(ierr)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
      call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
      if (size .lt. 2) then
         print *, 'pingpong needs 2 ranks'
         call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
      end if
      t0 = MPI_Wtime()
      tick = MPI_Wtick()
      if (tick .le. 0d0 .or. tick .gt. 1d0) then
         errs = errs + 1
         print *, 'MPI_Wtick gave ', tick
      end if
      if (rank .le. 1) then
         peer = 1 - rank
         do i = 1, 10
            ibuf(i) = rank * 100 + i
         end do
         if (rank .eq. 0) then
            call MPI_Send(ibuf, 10, MPI_INTEGER, 1, 7, MPI_COMM_WORLD,
     &                    ierr)
            call MPI_Recv(ibuf, 10, MPI_INTEGER, 1, 8, MPI_COMM_WORLD,
     &                    status, ierr)
         else
            call MPI_Recv(ibuf, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     &                    MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
            if (status(MPI_TAG) .ne. 7) then
               errs = errs + 1
               print *, 'tag ', status(MPI_TAG), ' want 7'
            end if
            do i = 1, 10
               ibuf(i) = ibuf(i) + 1000
            end do
            call MPI_Send(ibuf, 5, MPI_INTEGER, 0, 8, MPI_COMM_WORLD,
     &                    ierr)
         end if
         if (status(MPI_SOURCE) .ne. peer) then
            errs = errs + 1
            print *, 'source ', status(MPI_SOURCE), ' want ', peer
         end if
         call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
         if (rank .eq. 0 .and. cnt .ne. 5) then
            errs = errs + 1
            print *, 'count ', cnt, ' want 5'
         end if
         if (rank .eq. 0 .and. ibuf(5) .ne. 1005) then
            errs = errs + 1
            print *, 'ibuf(5) ', ibuf(5), ' want 1005'
         end if
!        The large message, both ways, with MPI_STATUS_IGNORE back.
         do i = 1, n
            big(i) = rank + i * 0.5d0
         end do
         if (rank .eq. 0) then
            call MPI_Send(big, n, MPI_DOUBLE_PRECISION, 1, 9,
     &                    MPI_COMM_WORLD, ierr)
            call MPI_Recv(big, n, MPI_DOUBLE_PRECISION, 1, 9,
     &                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
         else
            call MPI_Recv(big, n, MPI_DOUBLE_PRECISION, 0, 9,
     &                    MPI_COMM_WORLD, status, ierr)
            call MPI_Get_count(status, MPI_DOUBLE_PRECISION, cnt, ierr)
            if (cnt .ne. n) then
               errs = errs + 1
               print *, 'large count ', cnt, ' want ', n
            end if
            do i = 1, n
               big(i) = big(i) + 1d0
            end do
            call MPI_Send(big, n, MPI_DOUBLE_PRECISION, 0, 9,
     &                    MPI_COMM_WORLD, ierr)
         end if
         if (rank .eq. 0) then
            do i = 1, n
               if (big(i) .ne. 1d0 + i * 0.5d0) then
                  errs = errs + 1
                  print *, 'big(', i, ') = ', big(i)
                  exit
               end if
            end do
         end if
      end if
      t1 = MPI_Wtime()
      if (t1 .lt. t0) then
         errs = errs + 1
         print *, 'MPI_Wtime went back: ', t0, t1
      end if
      call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      if (rank .eq. 0 .and. errs .eq. 0) print *, 'No Errors'
      call MPI_Finalize(ierr)
      end
