# mpi/fortran/Makefile.mk: the Fortran bindings (libmpifort), mpif.h, the mpi and mpi_f08
# modules and the mpifort wrapper; built when configure found a working Fortran compiler
# (FERRY_FORTRAN).  The bindings are C, and the mpi_f08 module's procedures Fortran calling them:
# a library of their own, as MPICH's libmpifort, so that C programs do not load them and libmpi
# does not change with the Fortran compiler.
fortran_wrapper_links =
EXTRA_DIST += maint/fortran-bindings mpi/fortran/mpi_mod.f90 include/mpif.h
if FERRY_FORTRAN
lib_LTLIBRARIES += libmpifort.la
libmpifort_la_SOURCES = mpi/fortran/fortran.h mpi/fortran/fbind.c mpi/fortran/fbind_gen.c \
	mpi/fortran/mpi_f08.f90
libmpifort_la_CFLAGS = $(WARN_CFLAGS)
# -cpp: the module's MPI_SIZEOF specifics for kinds some targets lack are guarded.
libmpifort_la_FCFLAGS = -cpp
libmpifort_la_LDFLAGS = -version-info 0:0:0
libmpifort_la_LIBADD = libmpi.la
include_HEADERS += include/mpif.h
# The mpi module: mpif.h's declarations compiled by the Fortran compiler into mpi.mod.  It takes
# TYPE(MPI_Status) from mpi_f08.mod (both are installed).
fmoddir = $(includedir)
fmod_DATA = mpi.mod mpi_f08.mod
CLEANFILES += mpi.mod mpi_mod.o mpi_f08.mod
mpi.mod: $(srcdir)/mpi/fortran/mpi_mod.f90 $(srcdir)/include/mpif.h mpi_f08.mod
	$(AM_V_GEN)$(FC) $(FCFLAGS) -cpp -I$(srcdir)/include -c -o mpi_mod.o $(srcdir)/mpi/fortran/mpi_mod.f90
# The mpi_f08 module: written (in the build directory) when libmpifort's object of it is compiled.
mpi_f08.mod: mpi/fortran/libmpifort_la-mpi_f08.lo
	@test -f $@ || { rm -f $<; $(MAKE) $(AM_MAKEFLAGS) $<; }

bin_SCRIPTS += mpifort
CLEANFILES += mpifort
mpifort: $(srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(wrapper_edit) -e 's|@LIBS[@]|-lmpifort -lmpi|g' -e 's|@LIBNAMES[@]|mpifort mpi|g' \
	    -e 's|@BINDINGS[@]|Fortran bindings: mpif.h, use mpi and use mpi_f08|g' -e 's|@NAME[@]|mpifort|g' \
	    -e 's|@LANG[@]|Fortran|g' -e 's|@CC[@]|$(FC)|g' -e 's|@ENVVAR[@]|FERRY_FC|g' \
	    -e 's|@CCOPT[@]|fc|g' -e 's|@LANGFLAGS[@]|$(WRAPPER_FCFLAGS)|g' \
	    $(srcdir)/mpi/mpicc.in > $@ && chmod +x $@

# mpif77 and mpif90, the older names (MPICH, Open MPI): made by mpi/Makefile.mk's hook.
fortran_wrapper_links += mpif77 mpif90
endif
