# methods/tcp/Makefile.mk: the TCP sockets method (included from methods/Makefile.mk).
if FERRY_TCP
libmpi_la_SOURCES += \
	methods/tcp/tcp_impl.h \
	methods/tcp/tcp_ops.c \
	methods/tcp/tcp_addr.c \
	methods/tcp/tcp_init.c \
	methods/tcp/tcp_conn.c \
	methods/tcp/tcp_hs.c \
	methods/tcp/tcp_send.c \
	methods/tcp/tcp_recv.c \
	methods/tcp/tcp_progress.c \
	methods/tcp/tcp_probe.c
endif
