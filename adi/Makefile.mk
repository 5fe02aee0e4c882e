# adi/Makefile.mk: the device core: requests, matching, protocols, configuration.
libmpi_la_SOURCES += adi/adi.h adi/adi_impl.h adi/am.h adi/comm.h adi/request.h adi/mpidi_config.h \
	adi/err.h adi/config.c adi/err.c adi/request.c adi/recvq.c adi/am.c adi/send.c \
	adi/recv.c adi/flow.c adi/rndv.c adi/rdma.c adi/peer.c adi/init.c adi/probe.c adi/stats.c adi/hmac.c \
	adi/hmac.h adi/job_key.c adi/module_open.c adi/module_open.h
