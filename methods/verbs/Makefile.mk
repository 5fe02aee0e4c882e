# methods/verbs/Makefile.mk: the verbs method over rdma-core (included from methods/Makefile.mk).
if FERRY_VERBS
libmpi_la_SOURCES += \
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
libmpi_la_LIBADD += $(VERBS_LIBS)
endif
