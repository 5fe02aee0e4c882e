# bench/: MPI programs that also build against other MPI libraries
# (bench/run.sh builds latbw.c with each library's own mpicc).
EXTRA_DIST += bench/latbw.c bench/run.sh
noinst_PROGRAMS += bench/latbw
bench_latbw_SOURCES = bench/latbw.c
bench_latbw_LDADD = libmpi.la
