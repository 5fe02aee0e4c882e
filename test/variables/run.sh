#!/usr/bin/env bash
# run.sh: each FERRY_ variable that the test list does not force by itself, set to a valid value
# and checked by its observable effect on a job with a known amount of traffic (traffic.c): the
# counters each rank writes to FERRY_STATS_FILE, and what FERRY_VERBOSE prints.
#   test/variables/run.sh PREFIX     (PREFIX/bin/mpicc and PREFIX/bin/mpiexec)
# Prints PASS/FAIL per check and "N passed, N failed, N skipped".
set -u
prefix=${1:?usage: run.sh PREFIX}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-vars.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0
mpiexec=$prefix/bin/mpiexec
prog=$tmp/traffic

if ! "$prefix/bin/mpicc" -O1 -o "$prog" "$here/traffic.c" "$here/../mpi/mtest.c" -I"$here/../mpi" \
    >"$tmp/build.log" 2>&1; then
    echo "FAIL build of traffic.c: $(tr '\n' '|' <"$tmp/build.log" | cut -c1-400)"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

# job ENV... -- COUNT SIZE [DELAY]: runs traffic on NP ranks (default 2) with the given
# environment; its stderr is in $tmp/err, its counters in $tmp/c.0, $tmp/c.1, ...; sets rc.
job() {
    local envs=()
    while [ "$1" != -- ]; do
        envs+=("$1")
        shift
    done
    shift
    rm -f "$tmp"/c.*
    timeout -k 5 120 env "${envs[@]}" FERRY_STATS_FILE="$tmp/c" "$mpiexec" -n "${NP:-2}" "$prog" "$@" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# counter, eq, gt, expect: test/counters.sh.
. "$here/../counters.sh"
lines() { grep -c -- "$1" "$tmp/err"; }

# FERRY_STATS_FILE: exact counts for 5 eager messages of 100 bytes and 3 of 1 MiB (the
# barrier of MPI_Finalize adds only empty eager messages); the receiver reads them (CMA).  An
# eager count one too many or too few is caught: 5 + the one barrier message of 2 ranks.
job -- 5 100
expect stats_eager_exact eval "eq 0 eager_bytes 500 && eq 0 eager_bytes_max 100 && eq 0 eager_sent 6"
job -- 3 1048576
expect stats_rendezvous_exact eval 'eq 0 rndv_sent 3 && eq 1 rndv_read 3 && eq 0 eager_bytes 0 && eq 1 rndv_sent 0'
# A path that cannot be written stops MPI_Init with a message naming the variable.
timeout -k 5 60 env FERRY_STATS_FILE=/nonexistent-dir/c "$mpiexec" -n 2 "$prog" 1 1 >"$tmp/out" 2>"$tmp/err"
rc_bad=$?
if [ $rc_bad != 0 ] && grep -q 'FERRY_STATS_FILE: cannot create /nonexistent-dir/c.[01]: No such file' "$tmp/err"; then
    echo "PASS stats_file_bad_path"
    passed=$((passed + 1))
else
    echo "FAIL stats_file_bad_path: rc=$rc_bad stderr: $(head -c 400 "$tmp/err")"
    failed=$((failed + 1))
fi

# FERRY_METHODS empty, every rank on one node: tcp is not started (no listener: FERRY_VERBOSE=2
# prints no "tcp listens" line) and each rank makes the 8 PMI requests of doc/pmi.md, rank 0 one
# more (the job's secret); named, tcp starts as before.
job FERRY_VERBOSE=2 PMI_DEBUG=1 -- 5 100
expect one_node_no_tcp_8_requests eval '[ "$(lines "tcp listens on port")" = 0 ] &&
    [ "$(lines "\] send: cmd=")" = 17 ] && [ "$(lines "\[pmi rank 1\] send: cmd=")" = 8 ]'
job FERRY_VERBOSE=2 FERRY_METHODS=shm,tcp -- 5 100
expect one_node_tcp_named_starts eval '[ "$(lines "tcp listens on port")" = 2 ]'

# FERRY_VERBOSE: 1 prints the counters at finalize, 2 also tcp's connections, 3 also one line
# per rendezvous; a lower level prints none of the higher level's lines.
job FERRY_VERBOSE=1 FERRY_METHODS=tcp FERRY_TCP_IF=lo -- 2 1048576
expect verbose_1 eval '[ "$(lines "rank 0: eager [0-9]*, rendezvous 2 (read 0, write 0, pipeline 0,")" = 1 ] &&
    [ "$(lines "rank 1: eager [0-9]*, rendezvous 0 (read 0, write 0, pipeline 2,")" = 1 ] &&
    [ "$(lines "tcp_recv_in_place")" = 2 ] && [ "$(lines "tcp listens on port")" = 0 ] &&
    [ "$(lines "rendezvous of")" = 0 ]'
job FERRY_VERBOSE=2 FERRY_METHODS=tcp FERRY_TCP_IF=lo -- 2 1048576
expect verbose_2 eval '[ "$(lines "tcp listens on port")" = 2 ] && [ "$(lines "rendezvous of")" = 0 ]'
job FERRY_VERBOSE=3 FERRY_METHODS=tcp FERRY_TCP_IF=lo -- 2 1048576
expect verbose_3 eval '[ "$(lines "tcp listens on port")" = 2 ] &&
    [ "$(lines "rank 1: rendezvous of 1048576 bytes from rank 0: pipeline$")" = 2 ]'
job FERRY_VERBOSE=3 FERRY_RNDV_PROTOCOL=write -- 2 1048576
expect verbose_3_shm_write eval '[ "$(lines "rank 1: rendezvous of 1048576 bytes from rank 0: write$")" = 2 ] && eq 1 rndv_write 2'

# FERRY_TCP_EAGER_LIMIT: 2000-byte messages go eagerly under tcp's default (64 KiB), by
# rendezvous under a 1 KiB limit; 512 KiB ones eagerly under a 1 MiB limit.
job FERRY_METHODS=tcp FERRY_TCP_IF=lo -- 4 2000
expect tcp_eager_limit_default eval 'eq 0 eager_bytes 8000 && eq 0 rndv_sent 0'
job FERRY_METHODS=tcp FERRY_TCP_IF=lo FERRY_TCP_EAGER_LIMIT=1K -- 4 2000
expect tcp_eager_limit_1k eval 'eq 0 eager_bytes 0 && eq 0 rndv_sent 4'
job FERRY_METHODS=tcp FERRY_TCP_IF=lo FERRY_TCP_EAGER_LIMIT=1M -- 4 524288
expect tcp_eager_limit_1m eval 'eq 0 eager_bytes 2097152 && eq 0 rndv_sent 0'

# FERRY_SHM_CELL_SIZE under an MPI program: 100000-byte messages go by rendezvous with the
# default 64 KiB cells, eagerly with 128 KiB ones (and an eager limit that lets them).
job -- 4 100000
expect shm_cell_size_default eval 'eq 0 rndv_sent 4 && eq 0 eager_bytes 0'
job FERRY_SHM_CELL_SIZE=128K FERRY_SHM_EAGER_LIMIT=1M -- 4 100000
expect shm_cell_size_128k eval 'eq 0 rndv_sent 0 && eq 0 eager_bytes 400000'
# FERRY_SHM_EAGER_LIMIT: by default (CMA on, 2 ranks on at least 2 CPUs) 8 KiB goes eagerly and
# 16 KiB by a rendezvous read; without CMA, or with a larger limit, 16 KiB goes eagerly; a cell's
# payload caps the limit.
job -- 4 8192
expect shm_eager_limit_default_8k eval 'eq 0 eager_bytes 32768 && eq 0 rndv_sent 0'
job -- 4 16384
expect shm_eager_limit_default_16k eval 'eq 0 eager_bytes 0 && eq 0 rndv_sent 4'
job FERRY_SHM_CMA=0 -- 4 16384
expect shm_eager_limit_no_cma eval 'eq 0 eager_bytes 65536 && eq 0 rndv_sent 0'
job FERRY_SHM_EAGER_LIMIT=32K -- 4 16384
expect shm_eager_limit_32k eval 'eq 0 eager_bytes 65536 && eq 0 rndv_sent 0'
job FERRY_SHM_EAGER_LIMIT=1M -- 4 100000
expect shm_eager_limit_capped eval 'eq 0 eager_bytes 0 && eq 0 rndv_sent 4'

# FERRY_POLL_SPINS: rank 1 waits about 0.3 s in MPI_Recv.  With 0 spins every idle poll of the
# wait yields the CPU; with 2^31-1 spins none does in that time.
job FERRY_POLL_SPINS=0 -- 1 8 0.3
expect poll_spins_0 gt 1 progress_yields 0
job FERRY_POLL_SPINS=2147483647 -- 1 8 0.3
expect poll_spins_max eval 'eq 1 progress_yields 0 && eq 0 progress_yields 0'

# The doorbell of an oversubscribed node (progress/progress.c, methods/shm/shm_wait.c): with
# one rank more than the CPUs, rank 1 waits about 0.3 s in MPI_Recv and the last rank as long in
# MPI_Finalize's barrier: both sleep on shm's doorbell (after 16 yields) and are woken by the
# message.  Without oversubscription no wait sleeps.
ncpu=$(getconf _NPROCESSORS_ONLN)
NP=$((ncpu + 1)) job -- 1 8 0.3
expect doorbell_oversubscribed eval "gt 1 progress_sleeps 0 && gt $ncpu progress_sleeps 0"
if [ "$ncpu" -ge 2 ]; then
    job -- 1 8 0.3
    expect doorbell_not_oversubscribed eval 'eq 1 progress_sleeps 0 && eq 0 progress_sleeps 0'
else
    echo "SKIP doorbell_not_oversubscribed: one CPU, 2 ranks are oversubscribed"
    skipped=$((skipped + 1))
fi

# Hot and cold rings (methods/shm/shm_progress.c): with 8 ranks every rank polls 7 rings; those
# quiet while rank 0 makes 20,000 empty probes turn cold, and warm again when their messages come
# (the program checks that every message came, in order).  With 4 ranks (3 rings, at most
# MPIDI_SHM_HOT_ALL) every ring stays hot.
if "$prefix/bin/mpicc" -O1 -o "$tmp/cold_rings" "$here/../mpi/cold_rings.c" "$here/../mpi/mtest.c" \
    -I"$here/../mpi" >"$tmp/build.log" 2>&1; then
    prog_saved=$prog
    prog=$tmp/cold_rings
    NP=8 job --
    expect shm_rings_cool_and_warm eval 'gt 0 shm_ring_cooled 0 && gt 0 shm_ring_warmed 0'
    NP=4 job --
    expect shm_rings_all_hot_4_ranks eval 'eq 0 shm_ring_cooled 0 && eq 0 shm_ring_warmed 0'
    prog=$prog_saved
else
    echo "FAIL build of cold_rings.c: $(tr '\n' '|' <"$tmp/build.log" | cut -c1-400)"
    failed=$((failed + 1))
fi

# Where the host permits cross-memory attach between sibling processes (an independent probe:
# two children of one parent, one reading the other), a forced read must read, none refused:
# so a read variant that reports SKIP on this host would be a bug, not the host.
cat >"$tmp/cmaprobe.c" <<'EOF2'
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
static volatile char secret[64] = "cma probe";
int main(void)
{
    int fd[2];
    if (pipe(fd))
        return 2;
    pid_t holder = fork();
    if (holder == 0) {
        pause(); /* keeps secret alive until killed */
        return 0;
    }
    pid_t reader = fork();
    if (reader == 0) {
        char buf[64] = "";
        struct iovec l = {buf, sizeof buf}, r = {(void *)secret, sizeof secret};
        return process_vm_readv(holder, &l, 1, &r, 1, 0) == sizeof buf ? 0 : 1;
    }
    int st = 0;
    waitpid(reader, &st, 0);
    kill(holder, SIGKILL);
    waitpid(holder, NULL, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}
EOF2
if cc -o "$tmp/cmaprobe" "$tmp/cmaprobe.c" 2>"$tmp/err" && "$tmp/cmaprobe"; then
    job FERRY_RNDV_PROTOCOL=read -- 3 1048576
    expect cma_permitted_reads eval 'eq 1 shm_rndv_read 3 && eq 1 shm_rndv_refused 0'
else
    echo "SKIP cma_permitted_reads: this host refuses process_vm_readv between siblings"
    skipped=$((skipped + 1))
fi

# A host that refuses cross-memory attach (simulated: process_vm_readv/writev fail with EPERM,
# as under a restrictive ptrace_scope): each forced read falls back to the pipeline, counted as
# refused, and the read variant of test/variants reports SKIP, not a pass.
cat >"$tmp/nocma.c" <<'EOF2'
#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>
ssize_t process_vm_readv(pid_t p, const struct iovec *l, unsigned long nl,
                         const struct iovec *r, unsigned long nr, unsigned long f)
{
    errno = EPERM;
    return -1;
}
ssize_t process_vm_writev(pid_t p, const struct iovec *l, unsigned long nl,
                          const struct iovec *r, unsigned long nr, unsigned long f)
{
    errno = EPERM;
    return -1;
}
EOF2
if cc -shared -fPIC -o "$tmp/nocma.so" "$tmp/nocma.c" 2>"$tmp/err"; then
    job LD_PRELOAD="$tmp/nocma.so" FERRY_RNDV_PROTOCOL=read -- 3 1048576
    expect cma_refused_counted eval 'eq 1 shm_rndv_refused 3 && eq 1 shm_rndv_fallback 3 &&
        eq 1 shm_rndv_pipeline 3 && eq 1 shm_rndv_read 0'
    echo "sendrecv_sizes 2 variants" >"$tmp/list"
    grep '^FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read ' "$here/../variants" >"$tmp/variants"
    LD_PRELOAD="$tmp/nocma.so" MPICC="$prefix/bin/mpicc" MPIEXEC="$mpiexec" TESTDIR="$tmp/rt" \
        VARIANTS_FILE="$tmp/variants" timeout -k 5 300 "$here/../mpi/runtests" -list "$tmp/list" \
        -variants >"$tmp/out" 2>&1
    if grep -q '^SKIP sendrecv_sizes(np=2 FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read)' "$tmp/out" &&
        grep -q '^SKIP variant-ran(FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read)' "$tmp/out" &&
        [ "$(tail -n 1 "$tmp/out")" = "2 passed, 0 failed, 2 skipped" ]; then
        echo "PASS cma_refused_read_variant_skips"
        passed=$((passed + 1))
    else
        echo "FAIL cma_refused_read_variant_skips: $(tr '\n' '|' <"$tmp/out" | cut -c1-800)"
        failed=$((failed + 1))
    fi
else
    echo "SKIP cma_refused: cc cannot build a shared object: $(head -c 200 "$tmp/err")"
    skipped=$((skipped + 1))
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
