# methods/verbs/Makefile.mk: the verbs method over rdma-core (included from methods/Makefile.mk).
# All but its table's stub is a module (ferry_verbs.so) that links rdma-core, so that only
# processes that use verbs load it (verbs_load.c).
if FERRY_VERBS
libmpi_la_SOURCES += methods/verbs/verbs_load.c
pkglib_LTLIBRARIES += ferry_verbs.la
ferry_verbs_la_SOURCES = \
	methods/verbs/verbs_impl.h \
	methods/verbs/verbs_ops.c \
	methods/verbs/verbs_device.c \
	methods/verbs/verbs_probe.c \
	methods/verbs/verbs_init.c \
	methods/verbs/verbs_conn.c \
	methods/verbs/verbs_auth.c \
	methods/verbs/verbs_srq.c \
	methods/verbs/verbs_send.c \
	methods/verbs/verbs_rdma.c \
	methods/verbs/verbs_mr.c \
	methods/verbs/verbs_progress.c \
	methods/verbs/verbs_ring.h \
	methods/verbs/verbs_ring.c \
	methods/verbs/verbs_ring_map.c
# Left undefined: the core's symbols, found in the libmpi of the process that opens it.
ferry_verbs_la_LDFLAGS = -module -avoid-version -shared
ferry_verbs_la_LIBADD = $(VERBS_LIBS)
endif
