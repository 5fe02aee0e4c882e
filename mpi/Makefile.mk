# mpi/Makefile.mk: the MPI API layer and the mpicc wrapper.
libmpi_la_SOURCES += mpi/mpiimpl.h mpi/init.c mpi/comm.c mpi/comm_from_group.c mpi/contextid.c mpi/errhandler.c mpi/pt2pt.c \
	mpi/request.c mpi/persist.c mpi/part.c mpi/bsend.c mpi/grequest.c mpi/coll.c mpi/coll_gather.c mpi/coll_reduce.c mpi/sched.c mpi/op_user.c \
	mpi/group.c mpi/intercomm.c mpi/attr.c mpi/info.c mpi/compat.c mpi/topo.c mpi/coll_neighbor.c mpi/refused.c mpi/type.c \
	mpi/pack.c mpi/thread.c mpi/session.c mpi/f_sentinels.c \
	mpi/mpit.h mpi/mpit.c mpi/mpit_pvar.c mpi/mpit_event.c

bin_SCRIPTS += mpicc mpicxx
CLEANFILES += mpicc mpicxx
EXTRA_DIST += mpi/mpicc.in
# One template for every wrapper: the name, the language, the compiler, the variable and the
# option that override it, the libraries a link adds and what -showme:version calls the bindings.
wrapper_edit = sed -e 's|@includedir[@]|$(includedir)|g' -e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@VERSION[@]|$(VERSION)|g'
wrapper_c_libs = -e 's|@LIBS[@]|-lmpi|g' -e 's|@LIBNAMES[@]|mpi|g' -e 's|@BINDINGS[@]|C bindings|g' \
	-e 's|@LANGFLAGS[@]||g'
mpicc: $(srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(wrapper_edit) $(wrapper_c_libs) -e 's|@NAME[@]|mpicc|g' -e 's|@LANG[@]|C|g' \
	    -e 's|@CC[@]|$(CC)|g' -e 's|@ENVVAR[@]|FERRY_CC|g' -e 's|@CCOPT[@]|cc|g' \
	    $(srcdir)/mpi/mpicc.in > $@ && chmod +x $@
mpicxx: $(srcdir)/mpi/mpicc.in Makefile
	$(AM_V_GEN)$(wrapper_edit) $(wrapper_c_libs) -e 's|@NAME[@]|mpicxx|g' -e 's|@LANG[@]|C++|g' \
	    -e 's|@CC[@]|$(WRAPPER_CXX)|g' -e 's|@ENVVAR[@]|FERRY_CXX|g' -e 's|@CCOPT[@]|cxx|g' \
	    $(srcdir)/mpi/mpicc.in > $@ && chmod +x $@

# The names users type besides ours: mpic++ (MPICH, Open MPI) and mpirun, and mpifort's
# (mpi/fortran/Makefile.mk).
install-exec-hook: install-wrapper-links
install-wrapper-links:
	cd $(DESTDIR)$(bindir) && rm -f mpic++ mpirun && $(LN_S) mpicxx mpic++ && $(LN_S) mpiexec mpirun
	cd $(DESTDIR)$(bindir) && for l in $(fortran_wrapper_links); do \
	    rm -f $$l && $(LN_S) mpifort $$l || exit 1; done
uninstall-hook: uninstall-wrapper-links
uninstall-wrapper-links:
	rm -f $(DESTDIR)$(bindir)/mpic++ $(DESTDIR)$(bindir)/mpirun
	for l in $(fortran_wrapper_links); do rm -f $(DESTDIR)$(bindir)/$$l; done
.PHONY: install-wrapper-links uninstall-wrapper-links
