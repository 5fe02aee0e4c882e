# methods/ofi/Makefile.mk: the ofi method over libfabric (included from methods/Makefile.mk).
# libfabric is not linked: ofi_dl.c opens it when a job asks for ofi (and says why).
if FERRY_OFI
libmpi_la_SOURCES += \
	methods/ofi/ofi_impl.h \
	methods/ofi/ofi_ops.c \
	methods/ofi/ofi_dl.c \
	methods/ofi/ofi_info.c \
	methods/ofi/ofi_probe.c \
	methods/ofi/ofi_init.c \
	methods/ofi/ofi_conn.c \
	methods/ofi/ofi_send.c \
	methods/ofi/ofi_recv.c \
	methods/ofi/ofi_rdma.c \
	methods/ofi/ofi_mr.c \
	methods/ofi/ofi_progress.c
endif
