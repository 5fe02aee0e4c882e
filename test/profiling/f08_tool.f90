! f08_tool.f90: a profiling tool for Fortran programs, as tools are written for "use mpi" and
! mpif.h: an external subroutine MPI_SEND (the symbol mpi_send_, which replaces the library's
! weak one) counting the calls and passing them on through PMPI_SEND.  The program is a
! "use mpi_f08" one: its MPI_Send calls must reach the tool (MPI_Send_f08 calls mpi_send_), its
! PMPI_Send calls must not (PMPI_Send_f08 calls pmpi_send_).  Rank 0 sends 3 messages to rank 1
! with MPI_Send and 2 with PMPI_Send; rank 0 prints "No Errors" when the tool saw exactly 3, and
! exactly one of its two Pcontrol calls (MPI_Pcontrol, not PMPI_Pcontrol: the tool's own call).
subroutine mpi_send(buf, count, datatype, dest, tag, comm, ierr)
  implicit none
  integer :: buf(*), count, datatype, dest, tag, comm, ierr, ncalls
  common /f08_tool_calls/ ncalls
  ncalls = ncalls + 1
  call pmpi_send(buf, count, datatype, dest, tag, comm, ierr)
end subroutine mpi_send

subroutine mpi_pcontrol(level)
  implicit none
  integer :: level, npcontrol
  common /f08_tool_pcontrol/ npcontrol
  npcontrol = npcontrol + 1
  call pmpi_pcontrol(level)
end subroutine mpi_pcontrol

program f08_tool
  use mpi_f08
  implicit none
  integer :: rank, x(1), i, ncalls, npcontrol
  common /f08_tool_calls/ ncalls
  common /f08_tool_pcontrol/ npcontrol
  ncalls = 0
  npcontrol = 0
  x = 7
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  if (rank == 0) then
     do i = 1, 3
        call MPI_Send(x, 1, MPI_INTEGER, 1, i, MPI_COMM_WORLD)
     end do
     do i = 4, 5
        call PMPI_Send(x, 1, MPI_INTEGER, 1, i, MPI_COMM_WORLD)
     end do
     call MPI_Pcontrol(1)
     call PMPI_Pcontrol(0)
     if (ncalls == 3 .and. npcontrol == 1) then
        print *, 'No Errors'
     else
        print *, 'the tool saw ', ncalls, ' MPI_Send calls (expected 3) and ', npcontrol, &
             ' MPI_Pcontrol calls (expected 1)'
     end if
  else if (rank == 1) then
     do i = 1, 5
        call MPI_Recv(x, 1, MPI_INTEGER, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
     end do
  end if
  call MPI_Finalize()
end program f08_tool
