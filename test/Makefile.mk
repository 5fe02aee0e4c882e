# test/Makefile.mk: unit tests of the device core (MPI programs live in test/mpi with a testlist).
check_PROGRAMS += test/unit/recvq_test test/unit/stub_method_test test/unit/config_test \
	test/unit/hmac_test
TESTS += test/unit/recvq_test test/unit/stub_method_test test/unit/config_test \
	test/unit/hmac_test
test_unit_recvq_test_SOURCES = test/unit/recvq_test.c
test_unit_recvq_test_LDADD = libmpi.la
test_unit_stub_method_test_SOURCES = test/unit/stub_method_test.c methods/stub/stub.c
test_unit_stub_method_test_LDADD = libmpi.la
test_unit_stub_method_test_CFLAGS = $(AM_CFLAGS)
test_unit_config_test_SOURCES = test/unit/config_test.c
test_unit_config_test_LDADD = libmpi.la
test_unit_hmac_test_SOURCES = test/unit/hmac_test.c
test_unit_hmac_test_LDADD = libmpi.la
EXTRA_DIST += test/mpi test/profiling test/run-all.sh
# Every unit test under a time limit, also for a plain "make check" (test/unit/run.sh, which
# run-all.sh uses, runs them itself and asks for the list with "make print-tests").
UNIT_TEST_TIMEOUT = 300
LOG_COMPILER = timeout
AM_LOG_FLAGS = -k 5 $(UNIT_TEST_TIMEOUT)
print-tests:
	@echo $(TESTS)
