! mpi_mod.f90: the module of "use mpi": the declarations of mpif.h, no
! explicit interfaces (doc/api.md, "Fortran").  Built by the Fortran
! compiler configure found; mpi.mod is installed beside mpif.h.
module mpi
  implicit none
  include 'mpif.h'
end module mpi
