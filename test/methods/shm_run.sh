#!/bin/sh
# shm_run.sh: builds the standalone shm method test and runs its variants; prints PASS/FAIL/SKIP
# per variant and "N passed, N failed, N skipped".
#   test/methods/shm_run.sh [build-dir]     (from anywhere; SHM_RUN_SLOW=0 skips tsan/valgrind)
cd "$(dirname "$0")/../.." || exit 2
build=${1:-$(mktemp -d /tmp/shm_run.XXXXXX)}
mkdir -p "$build"
CC=${CC:-gcc}
CFLAGS="-std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -I include -I methods -I segment -I datatype -I adi"
SRC="test/methods/shm_pingpong.c methods/shm/shm_ops.c methods/shm/shm_init.c methods/shm/shm_send.c methods/shm/shm_progress.c methods/shm/shm_cma.c methods/shm/shm_liveness.c methods/shm/shm_wait.c methods/shm/shm_probe.c adi/probe.c"
passed=0
failed=0
skipped=0
log="$build/shm_run.log"
: >"$log"

if ! $CC $CFLAGS -Werror -o "$build/shm_pingpong" $SRC -lrt 2>>"$log"; then
    cat "$log"
    echo "build of shm_pingpong failed"
    echo "FAIL build of shm_pingpong"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

# run NAME ENV... -- ARGS...: runs one variant, counts it, shows its output on failure.
run() {
    name=$1
    shift
    envs=
    while [ "$1" != "--" ]; do envs="$envs $1"; shift; done
    shift
    out="$build/$name.out"
    start=$(date +%s)
    if env $envs timeout 600 "$@" >"$out" 2>&1 && grep -q "^ No Errors" "$out"; then
        passed=$((passed + 1))
        echo "PASS $name ($(($(date +%s) - start)) s)"
        grep -E "pingpong:|rdma:|init failed|paths:" "$out" | sed 's/^/     /'
    else
        failed=$((failed + 1))
        echo "FAIL $name"
        sed 's/^/     /' "$out" | tail -30
    fi
    cat "$out" >>"$log"
}

pp="$build/shm_pingpong"
run n2-bound              -- "$pp" -n 2 -b
run n2                    -- "$pp" -n 2 -p 20000
run n4                    -- "$pp" -n 4 -p 20000
run n8                    -- "$pp" -n 8 -p 20000
run n16                   -- "$pp" -n 16 -p 20000 -m 4000
run n16-tiny-pool-again   FERRY_SHM_NUM_CELLS=2 FERRY_SHM_CELL_SIZE=1024 -- "$pp" -n 16 -a -p 1000 -m 6000 -o 2000 -r 1
run n16-many-to-one-again FERRY_SHM_NUM_CELLS=4 -- "$pp" -n 16 -a -p 1000 -m 0 -o 2000 -r 0
# (A 64 KiB ring, which the flood fills, so messages go on to the 16 small cells and run out.)
run n4-small-cells        FERRY_SHM_RING_SIZE=65536 FERRY_SHM_CELL_SIZE=256 FERRY_SHM_NUM_CELLS=16 -- "$pp" -n 4 -a -p 1000 -m 8000 -o 2000 -r 1
run n2-cma-off            FERRY_SHM_CMA=0 -- "$pp" -n 2 -x -p 1000
run n2-cma-denied         -- "$pp" -n 2 -d -p 1000 -m 100 -o 100
# Shared reads (shm_cma.c, FERRY_SHM_CMA_SPLIT=-1: 128 KiB): rdma_get with a cookie, as the core
# calls it, cut in two chunks that the reader and its peer copy from both ends; every byte
# checked; 64 MiB and 1 MiB.
run n2-rdma-shared        FERRY_SHM_CMA_SPLIT=-1 -- "$pp" -n 2 -s -p 1000
run n2-rdma-shared-1m     FERRY_SHM_CMA_SPLIT=-1 -- "$pp" -n 2 -s -p 1000 -r 1
run n4-kill-one           -- "$pp" -n 4 -k 1
run n4-kill-all           -- "$pp" -n 4 -k 2
run n3-geometry-mismatch  -- "$pp" -n 3 -g
run n4-bad-cell-size      FERRY_SHM_CELL_SIZE=16 -- "$pp" -n 4 -e
run n4-bad-num-cells      FERRY_SHM_NUM_CELLS=0 -- "$pp" -n 4 -e
# The per-pair rings: a 1 KiB ring wraps around and fills up under a flood of small messages,
# which then go through cells and must still arrive in order (-w checks both happened, the
# flood checks the order and every byte); rings off; only empty payloads in rings; bad sizes.
run n2-ring-wrap-full     FERRY_SHM_RING_SIZE=1024 -- "$pp" -n 2 -w -p 2000 -m 20000 -o 0 -t 300 -r 0
run n16-ring-wrap-full    FERRY_SHM_RING_SIZE=1024 -- "$pp" -n 16 -w -p 1000 -m 3000 -o 500 -t 900 -r 0
# More than 2^16 messages from each rank to the other, through a small ring and cells both:
# a ring entry carries the low 16 bits of the pair's sequence number, which must wrap in step
# with the cells' 32 (FIFO is checked on every message).
run n2-seq16-wrap         FERRY_SHM_RING_SIZE=1024 -- "$pp" -n 2 -w -p 200 -m 150000 -o 0 -t 300 -r 0
run n4-rings-off          FERRY_SHM_RING_SIZE=0 -- "$pp" -n 4 -c -p 2000 -m 4000 -r 0
run n4-ring-max-0         FERRY_SHM_RING_MAX=0 -- "$pp" -n 4 -p 2000 -m 4000 -r 0
run n4-bad-ring-size      FERRY_SHM_RING_SIZE=3000 -- "$pp" -n 4 -e
# Rings whose pages fault in on first use (not populated at the join): the 1 KiB wrap and fill.
run n2-ring-no-prefault   FERRY_SHM_RING_PREFAULT=0 FERRY_SHM_RING_SIZE=1024 -- "$pp" -n 2 -w -p 2000 -m 20000 -o 0 -t 300 -r 0

if [ "${SHM_RUN_SLOW:-1}" != 0 ]; then
    # ThreadSanitizer sees only one process's accesses, but it still checks the atomics' use and
    # catches plain bugs.  Skipped only when this compiler cannot build it or its runtime cannot
    # start here (a FATAL before any report); a race report is a failure.
    if $CC $CFLAGS -g -fsanitize=thread -o "$build/shm_pingpong_tsan" $SRC -lrt 2>>"$log"; then
        tsan_out="$build/tsan-probe.out"
        "$build/shm_pingpong_tsan" -n 2 -p 10 -m 10 -o 10 -r 1 >"$tsan_out" 2>&1
        if grep -q "FATAL: ThreadSanitizer" "$tsan_out" && ! grep -q "WARNING: ThreadSanitizer" "$tsan_out"; then
            echo "SKIP tsan-n4: the ThreadSanitizer runtime cannot start here: $(grep -m 1 FATAL "$tsan_out")"
            skipped=$((skipped + 1))
        else
            run tsan-n4 TSAN_OPTIONS=halt_on_error=1:exitcode=66 -- "$build/shm_pingpong_tsan" -n 4 -p 2000 -m 1000 -o 500 -r 8
        fi
    else
        echo "SKIP tsan-n4: $CC cannot build with -fsanitize=thread"
        skipped=$((skipped + 1))
    fi
    if command -v valgrind >/dev/null 2>&1; then
        $CC $CFLAGS -g -o "$build/shm_pingpong_g" $SRC -lrt 2>>"$log"
        run valgrind-n2 -- valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
            "$build/shm_pingpong_g" -n 2 -p 200 -m 200 -o 100 -r 4
    else
        echo "SKIP valgrind-n2: valgrind not installed"
        skipped=$((skipped + 1))
    fi
fi

# Reference latency from another MPI on this machine, informational only.
if command -v mpicc.mpich >/dev/null 2>&1 && command -v mpiexec.mpich >/dev/null 2>&1; then
    if mpicc.mpich -O2 -o "$build/mpi_pp" test/methods/shm_mpi_pingpong.c 2>>"$log"; then
        echo "reference (MPICH, bound): $(timeout 120 mpiexec.mpich -bind-to core -n 2 "$build/mpi_pp" 2>&1 | tail -1)"
    fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
