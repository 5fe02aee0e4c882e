# tools/Makefile.mk: ferry_info, which says what this Ferry was built with and can use here.
bin_PROGRAMS += ferry_info
ferry_info_SOURCES = tools/ferry_info.c
ferry_info_LDADD = libmpi.la
# ferry_info's report, and doc/tuning.md's table against the registry it prints.
TESTS += test/tools/ferry_info_test.sh
EXTRA_DIST += test/tools/ferry_info_test.sh
