#!/usr/bin/env bash
# run.sh: failure behaviour of real MPI programs: aborts, crashes, fatal MPI errors and bad
# settings end the job quickly with a clear message naming the cause, never a hang.
#   test/errors/run.sh PREFIX    (PREFIX/bin/mpicc and PREFIX/bin/mpiexec)
set -u
prefix=${1:?usage: run.sh PREFIX}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0
mpiexec=$prefix/bin/mpiexec

for p in abort_rank1 segv_rank2 segv_then_abort fatal_truncate fatal_bad_rank before_init hello \
    unreachable_nb init_twice info_error_outside; do
    "$prefix/bin/mpicc" -o "$tmp/$p" "$here/$p.c" || { echo "FAIL build $p"; failed=$((failed + 1)); }
done

# check NAME WANT_RC ERR_REGEX MAX_SECONDS COMMAND...: exit code, stderr and time (regex - : no stderr).
check() {
    local name=$1 want=$2 re=$3 max=$4
    shift 4
    local t0=$SECONDS
    timeout -k 5 60 "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? secs=$((SECONDS - t0))
    if [ "$rc" != "$want" ]; then
        echo "FAIL $name: exit code $rc, expected $want; stderr: $(head -c 400 "$tmp/err")"
        failed=$((failed + 1))
    elif [ "$re" = "-" ] && [ -s "$tmp/err" ]; then
        echo "FAIL $name: expected no stderr, got: $(head -c 400 "$tmp/err")"
        failed=$((failed + 1))
    elif [ "$re" != "-" ] && ! grep -qE "$re" "$tmp/err"; then
        echo "FAIL $name: stderr does not match /$re/: $(head -c 400 "$tmp/err")"
        failed=$((failed + 1))
    elif [ "$secs" -gt "$max" ]; then
        echo "FAIL $name: took $secs s (at most $max expected)"
        failed=$((failed + 1))
    else
        echo "PASS $name"
        passed=$((passed + 1))
    fi
}

# mpiexec stopped while rank 2 dies (or exits with code 3: argument "exit") and rank 0 then
# aborts: on waking it must account the failure first (status 11 or 3, the first failure), not
# take the abort for the cause.
segv_then_abort() {
    rm -f "$tmp/go" "$tmp/ready"
    "$mpiexec" -n 4 "$tmp/segv_then_abort" "$tmp/go" "$tmp/ready" "$@" &
    local p=$! i
    for i in $(seq 1 500); do [ -e "$tmp/ready" ] && break; sleep 0.05; done
    kill -STOP "$p"
    touch "$tmp/go"
    sleep 2
    kill -CONT "$p"
    wait "$p"
}
export -f segv_then_abort
export tmp mpiexec
check segv_then_abort 11 'rank 2.*(signal 11|Segmentation)' 20 bash -c segv_then_abort
check exit_then_abort 3 'rank 2 \(pid [0-9]+\) exited with code 3' 20 bash -c 'segv_then_abort exit'

# stdout_has NAME LINE: the last check's stdout holds LINE (printed, not flushed, before the end).
stdout_has() {
    if grep -qxF "$2" "$tmp/out"; then
        echo "PASS $1"
        passed=$((passed + 1))
    else
        echo "FAIL $1: no '$2' on stdout: $(head -c 300 "$tmp/out")"
        failed=$((failed + 1))
    fi
}

check abort_exit_code 7 'rank 1.*MPI_Abort|MPI_Abort.*rank 1' 10 "$mpiexec" -n 4 "$tmp/abort_rank1"
stdout_has abort_keeps_output 'rank 1 printed this before MPI_Abort'
check segv_named 11 'rank 2.*(signal 11|Segmentation)' 10 "$mpiexec" -n 4 "$tmp/segv_rank2"
check fatal_truncate 1 'Fatal error in MPI_Recv: Message truncated: 400 bytes from rank 0 tag 3' 10 \
    "$mpiexec" -n 2 "$tmp/fatal_truncate"
check fatal_bad_rank 1 'Fatal error in MPI_Send: Invalid rank 99 \(communicator size 2\)' 10 \
    "$mpiexec" -n 2 "$tmp/fatal_bad_rank"
stdout_has fatal_error_keeps_output 'printed before the bad send'
check before_init 1 'MPI_Comm_rank called before MPI_Init' 5 "$tmp/before_init"
stdout_has before_init_keeps_output 'printed before the call'
check info_error_before_init 1 'pid [0-9]+ \(rank not known yet\): Fatal error in MPI_Info_get: Invalid info object' 10 \
    "$mpiexec" -n 2 "$tmp/info_error_outside"
check info_error_after_finalize 1 'rank 1: Fatal error in MPI_Info_get: Invalid info object' 10 \
    "$mpiexec" -n 2 "$tmp/info_error_outside" after
check init_twice 1 'Fatal error in MPI_Init: MPI_Init or MPI_Init_thread called a second time' 10 \
    "$mpiexec" -n 2 "$tmp/init_twice"
# (its first half: under MPI_ERRORS_RETURN the second call returned an error and MPI went on)
stdout_has init_twice_returns 'returned an error'
check bad_variable 1 'FERRY_RNDV_PROTOCOL="fast" is not one of auto\|read\|write\|pipeline' 10 \
    env FERRY_RNDV_PROTOCOL=fast "$mpiexec" -n 2 "$tmp/hello"
check bad_size 1 'FERRY_EAGER_LIMIT="12Q" is not a size' 10 \
    env FERRY_EAGER_LIMIT=12Q "$mpiexec" -n 2 "$tmp/hello"
check unknown_method 1 'method "ucx" is not built in \(available: self,shm' 10 \
    env FERRY_METHODS=ucx "$mpiexec" -n 2 "$tmp/hello"
check misspelt_variable 0 'unknown variable FERRY_EAGER_LIMT' 10 \
    env FERRY_EAGER_LIMT=5 "$mpiexec" -n 2 "$tmp/hello"
# A method list that leaves a peer unreachable is an error at the first send, not a hang.
check unreachable_peer 1 'no method reaches rank [01] \(methods in use: self' 10 \
    env FERRY_METHODS=self "$mpiexec" -n 2 "$tmp/hello"
# The same with nonblocking calls and errors returned: the receive posted before the failed send
# fails too (class 15, MPI_ERR_OTHER; the wait MPI_ERR_IN_STATUS, 17), never waits forever.
t0=$SECONDS
timeout -k 5 20 env FERRY_METHODS=self "$mpiexec" -n 2 "$tmp/unreachable_nb" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc != 124 ] && [ $((SECONDS - t0)) -le 10 ] &&
    [ "$(grep -cE '^rank [01]: send class (0|15), wait class 17, receive class 15$' "$tmp/out")" = 2 ]; then
    echo "PASS unreachable_peer_nonblocking"
    passed=$((passed + 1))
else
    echo "FAIL unreachable_peer_nonblocking: rc=$rc $((SECONDS - t0)) s; stdout: $(head -c 300 "$tmp/out"); stderr: $(head -c 300 "$tmp/err")"
    failed=$((failed + 1))
fi
# A singleton (no launcher at all) works.
check singleton 0 - 10 "$tmp/hello"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
