# test/Makefile.mk: unit tests of the device core (MPI programs live in test/mpi with a testlist).
check_PROGRAMS += test/unit/recvq_test test/unit/stub_method_test test/unit/config_test \
	test/unit/rcache_test test/unit/hmac_test test/unit/verbs_credit_test \
	test/unit/verbs_ring_test
TESTS += test/unit/recvq_test test/unit/stub_method_test test/unit/config_test \
	test/unit/rcache_test test/unit/hmac_test test/unit/verbs_credit_test \
	test/unit/verbs_ring_test
test_unit_recvq_test_SOURCES = test/unit/recvq_test.c
test_unit_recvq_test_LDADD = libmpi.la
test_unit_stub_method_test_SOURCES = test/unit/stub_method_test.c methods/stub/stub.c
test_unit_stub_method_test_LDADD = libmpi.la
test_unit_stub_method_test_CFLAGS = $(AM_CFLAGS)
test_unit_config_test_SOURCES = test/unit/config_test.c
test_unit_config_test_LDADD = libmpi.la
test_unit_hmac_test_SOURCES = test/unit/hmac_test.c
test_unit_hmac_test_LDADD = libmpi.la
EXTRA_DIST += test/mpi test/profiling test/install test/run-all.sh
# Every unit test under a time limit, also for a plain "make check" (test/unit/run.sh, which
# run-all.sh uses, runs them itself and asks for the list with "make print-tests").
UNIT_TEST_TIMEOUT = 300
LOG_COMPILER = timeout
AM_LOG_FLAGS = -k 5 $(UNIT_TEST_TIMEOUT)
print-tests:
	@echo $(TESTS)
test_unit_rcache_test_SOURCES = test/unit/rcache_test.c
test_unit_rcache_test_LDADD = libmpi.la
# The verbs method's credit accounting needs no device (nor libibverbs: the header is plain C).
test_unit_verbs_credit_test_SOURCES = test/unit/verbs_credit_test.c methods/verbs/verbs_credit.h
test_unit_verbs_credit_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/methods/verbs
# The ring channel's arithmetic and double mapping: plain C too.
test_unit_verbs_ring_test_SOURCES = test/unit/verbs_ring_test.c methods/verbs/verbs_ring.h \
	methods/verbs/verbs_ring_map.c
test_unit_verbs_ring_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/methods/verbs
# The chaos method test: an MPI program (run by test/chaos/run.sh under mpiexec).
check_PROGRAMS += test/chaos/chaos_traffic
test_chaos_chaos_traffic_SOURCES = test/chaos/chaos_traffic.c test/chaos/chaos_method.c \
	test/chaos/chaos.h
test_chaos_chaos_traffic_LDADD = libmpi.la
