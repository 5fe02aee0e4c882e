# methods/util/Makefile.mk: code several methods share (registration cache, memory hooks).
libmpi_la_SOURCES += methods/util/rcache.h methods/util/rcache.c methods/util/memhooks.c
