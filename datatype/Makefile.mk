# datatype/Makefile.mk: datatype objects (predefined and derived), commit to dataloops,
# external32, and the reduction kernels.
libmpi_la_SOURCES += datatype/datatype.h datatype/builtin.c datatype/type_create.c \
	datatype/type_array.c datatype/dataloop_build.c datatype/typemap.c datatype/external32.c \
	datatype/op.c datatype/op.h
check_PROGRAMS += test/unit/op_test
TESTS += test/unit/op_test
test_unit_op_test_SOURCES = test/unit/op_test.c datatype/op.c
test_unit_op_test_CFLAGS = $(AM_CFLAGS)
check_PROGRAMS += test/unit/dtype_random
TESTS += test/unit/dtype_random
test_unit_dtype_random_SOURCES = test/unit/dtype_random.c test/mpi/type_gen.h
test_unit_dtype_random_LDADD = libmpi.la
check_PROGRAMS += test/unit/dtype_dataloop
TESTS += test/unit/dtype_dataloop
test_unit_dtype_dataloop_SOURCES = test/unit/dtype_dataloop.c
test_unit_dtype_dataloop_LDADD = libmpi.la
