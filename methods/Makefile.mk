# methods/Makefile.mk: the method table, the always-present self method, and each method's fragment.
libmpi_la_SOURCES += methods/method.h methods/methods.c methods/module.h methods/module.c \
	methods/self/self.c
if FERRY_STUB
libmpi_la_SOURCES += methods/stub/stub.c
endif
include methods/util/Makefile.mk
include methods/shm/Makefile.mk
include methods/tcp/Makefile.mk
include methods/verbs/Makefile.mk
include methods/ofi/Makefile.mk
