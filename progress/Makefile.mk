# progress/Makefile.mk: the communication agent.
libmpi_la_SOURCES += progress/progress.c
