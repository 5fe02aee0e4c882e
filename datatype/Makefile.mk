# datatype/Makefile.mk: datatype objects and the reduction kernels.
libmpi_la_SOURCES += datatype/datatype.h datatype/builtin.c datatype/op.c datatype/op.h
check_PROGRAMS += test/unit/op_test
TESTS += test/unit/op_test
test_unit_op_test_SOURCES = test/unit/op_test.c datatype/op.c
test_unit_op_test_CFLAGS = $(AM_CFLAGS)
