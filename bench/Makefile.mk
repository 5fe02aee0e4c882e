# bench/: MPI programs that also build against other MPI libraries
# (bench/run.sh builds latbw.c with each library's own mpicc).
EXTRA_DIST += bench/latbw.c bench/run.sh bench/floor.c
noinst_PROGRAMS += bench/latbw
bench_latbw_SOURCES = bench/latbw.c
bench_latbw_LDADD = libmpi.la
# floor.c: two processes ping-pong a flag in shared memory (no MPI): shm latency's floor.
noinst_PROGRAMS += bench/floor
bench_floor_SOURCES = bench/floor.c
# pack_bench.c: MPI_Pack/Unpack throughput of common shapes (bench/pack_run.sh compares libraries).
EXTRA_DIST += bench/pack_bench.c bench/pack_run.sh
noinst_PROGRAMS += bench/pack_bench
bench_pack_bench_SOURCES = bench/pack_bench.c
bench_pack_bench_LDADD = libmpi.la
# flood.c: matching under a flood of unexpected messages (bench/flood_run.sh compares libraries).
EXTRA_DIST += bench/flood.c bench/flood_run.sh
noinst_PROGRAMS += bench/flood
bench_flood_SOURCES = bench/flood.c
bench_flood_LDADD = libmpi.la
# startup_empty.c: MPI_Init + MPI_Finalize, timed by bench/startup.sh under several launchers.
EXTRA_DIST += bench/startup_empty.c bench/startup.sh
# msgrate.c: windowed message rate of N-1 senders to one receiver (bench/verbs.sh: sr against ring).
EXTRA_DIST += bench/msgrate.c
noinst_PROGRAMS += bench/msgrate
bench_msgrate_SOURCES = bench/msgrate.c
bench_msgrate_LDADD = libmpi.la
# coll.c: a small blocking MPI_Allreduce and MPI_Barrier per call (bench/coll_run.sh compares
# libraries, and a second Ferry as "base").
EXTRA_DIST += bench/coll.c bench/coll_run.sh
noinst_PROGRAMS += bench/coll
bench_coll_SOURCES = bench/coll.c
bench_coll_LDADD = libmpi.la
# knob_ab.c: an A/B of an experimental knob inside one run (blocks alternate between its values).
EXTRA_DIST += bench/knob_ab.c
noinst_PROGRAMS += bench/knob_ab
bench_knob_ab_SOURCES = bench/knob_ab.c
bench_knob_ab_LDADD = libmpi.la
# idle_probe.c: the idle poll's cost when every local peer has sent once (counted with callgrind;
# doc/methods/shm.md, "Hot and cold rings").
EXTRA_DIST += bench/idle_probe.c
noinst_PROGRAMS += bench/idle_probe
bench_idle_probe_SOURCES = bench/idle_probe.c
bench_idle_probe_LDADD = libmpi.la
