# methods/shm/Makefile.mk: the shared-memory method (included from methods/Makefile.mk).
if FERRY_SHM
libmpi_la_SOURCES += \
	methods/shm/shm_impl.h \
	methods/shm/shm_queue.h \
	methods/shm/shm_ops.c \
	methods/shm/shm_init.c \
	methods/shm/shm_send.c \
	methods/shm/shm_progress.c \
	methods/shm/shm_cma.c \
	methods/shm/shm_liveness.c \
	methods/shm/shm_wait.c \
	methods/shm/shm_probe.c
endif
