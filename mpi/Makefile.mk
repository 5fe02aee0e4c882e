# mpi/Makefile.mk: the MPI API layer and the mpicc wrapper.
libmpi_la_SOURCES += mpi/mpiimpl.h mpi/init.c mpi/comm.c mpi/comm_from_group.c mpi/contextid.c mpi/errhandler.c mpi/pt2pt.c \
	mpi/request.c mpi/persist.c mpi/bsend.c mpi/grequest.c mpi/coll.c mpi/coll_gather.c mpi/coll_reduce.c mpi/sched.c mpi/op_user.c \
	mpi/group.c mpi/intercomm.c mpi/attr.c mpi/info.c mpi/compat.c mpi/refused.c mpi/type.c \
	mpi/pack.c

bin_SCRIPTS += mpicc
CLEANFILES += mpicc
EXTRA_DIST += mpi/mpicc.in
mpicc: $(srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)sed -e 's|@CC[@]|$(CC)|g' -e 's|@includedir[@]|$(includedir)|g' \
	    -e 's|@libdir[@]|$(libdir)|g' -e 's|@LIBS[@]|$(LIBS)|g' \
	    $(srcdir)/mpi/mpicc.in > $@ && chmod +x $@
