# launcher/Makefile.mk: PMI-1 wire code and client (in libmpi), our mpiexec, and their tests.
libmpi_la_SOURCES += launcher/pmi_wire.c launcher/pmi_wire.h launcher/pmi_mapping.c \
	launcher/pmi_client.c launcher/pmi.h
if FERRY_PMIX
# The PMIx back end alone sees libpmix's headers, in a module that the library opens only
# when a PMIx server started the process (pmi_pmix_load.c says why).
libmpi_la_SOURCES += launcher/pmi_pmix_load.c launcher/pmi_pmix.h
pkglib_LTLIBRARIES += ferry_pmix.la
ferry_pmix_la_SOURCES = launcher/pmi_pmix.c launcher/pmi_pmix.h
ferry_pmix_la_CPPFLAGS = $(AM_CPPFLAGS) $(PMIX_CFLAGS)
ferry_pmix_la_LDFLAGS = -module -avoid-version -shared
ferry_pmix_la_LIBADD = $(PMIX_LIBS)
endif

bin_PROGRAMS += mpiexec
mpiexec_SOURCES = launcher/mpiexec.c launcher/mpiexec.h launcher/mpiexec_args.c \
	launcher/mpiexec_kvs.c launcher/mpiexec_pmi.c launcher/mpiexec_port.c \
	launcher/mpiexec_output.c launcher/mpiexec_spawn.c launcher/mpiexec_remote.c \
	launcher/mpiexec_bind.c launcher/mpiexec_exit.c launcher/mpiexec_auth.c \
	launcher/mpiexec_hosts.c launcher/mpiexec_hosts.h launcher/pmi_wire.c launcher/pmi_wire.h
# Per-target flags give these programs their own objects: automake refuses
# to build pmi_wire.c both as a libtool object (libmpi) and a plain one.
mpiexec_CFLAGS = $(AM_CFLAGS)

check_PROGRAMS += test/unit/pmi_wire_test test/unit/pmi_mapping_test test/launcher/pmi_hello
TESTS += test/unit/pmi_wire_test test/unit/pmi_mapping_test
test_unit_pmi_wire_test_SOURCES = test/unit/pmi_wire_test.c launcher/pmi_wire.c launcher/pmi_wire.h
test_unit_pmi_wire_test_CFLAGS = $(AM_CFLAGS)
test_unit_pmi_mapping_test_SOURCES = test/unit/pmi_mapping_test.c launcher/pmi_mapping.c \
	launcher/pmi_wire.c launcher/pmi_wire.h launcher/mpiexec_hosts.c launcher/mpiexec_hosts.h
test_unit_pmi_mapping_test_CFLAGS = $(AM_CFLAGS)
# The PMI client test needs no MPI library, so it links the client sources itself.
test_launcher_pmi_hello_SOURCES = test/launcher/pmi_hello.c launcher/pmi_client.c \
	launcher/pmi_wire.c launcher/pmi_mapping.c launcher/pmi.h launcher/pmi_wire.h
test_launcher_pmi_hello_CFLAGS = $(AM_CFLAGS)
if FERRY_PMIX
test_launcher_pmi_hello_SOURCES += launcher/pmi_pmix_load.c adi/module_open.c adi/module_open.h
endif
EXTRA_DIST += test/launcher/run.sh

# The launcher checks fork jobs and time kills (about a minute), so they run on
# request rather than in every make check.
check-launcher: mpiexec$(EXEEXT) test/launcher/pmi_hello$(EXEEXT)
	$(SHELL) $(srcdir)/test/launcher/run.sh ./mpiexec$(EXEEXT) test/launcher/pmi_hello$(EXEEXT)
.PHONY: check-launcher
