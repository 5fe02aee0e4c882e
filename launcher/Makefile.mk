# launcher/Makefile.mk: PMI-1 wire code and client (in libmpi), our mpiexec, and their tests.
libmpi_la_SOURCES += launcher/pmi_wire.c launcher/pmi_wire.h launcher/pmi_client.c launcher/pmi.h

bin_PROGRAMS += mpiexec
mpiexec_SOURCES = launcher/mpiexec.c launcher/pmi_wire.c launcher/pmi_wire.h

check_PROGRAMS += test/unit/pmi_wire_test test/launcher/pmi_hello
TESTS += test/unit/pmi_wire_test
test_unit_pmi_wire_test_SOURCES = test/unit/pmi_wire_test.c launcher/pmi_wire.c launcher/pmi_wire.h
# The PMI client test needs no MPI library, so it links the two sources itself.
test_launcher_pmi_hello_SOURCES = test/launcher/pmi_hello.c launcher/pmi_client.c \
	launcher/pmi_wire.c launcher/pmi.h launcher/pmi_wire.h
EXTRA_DIST += test/launcher/run.sh doc/pmi.md
