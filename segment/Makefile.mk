# segment/Makefile.mk: the dataloop format and the segment engine (byte-range pack/unpack, iovec).
libmpi_la_SOURCES += segment/segment.h segment/segment.c segment/dataloop.h
