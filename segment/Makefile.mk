# segment/Makefile.mk: byte-range pack/unpack.
libmpi_la_SOURCES += segment/segment.h segment/segment.c
