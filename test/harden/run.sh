#!/bin/bash
# run.sh: hardening checks on this host (loopback only): failed start-ups leave nothing in
# /dev/shm, survivors of a dead rank get errors instead of hanging (shm and tcp), descriptor
# exhaustion gives an MPI error on the operation that hit it, and the attacks of
# doc/security.md fail: forged tcp handshakes, forged and silent PMI_PORT connections, a rank
# that stops reading its PMI replies.
#
# usage: test/harden/run.sh [PREFIX]
#   PREFIX/bin/mpicc and PREFIX/bin/mpiexec are used (or $MPICC and $MPIEXEC if set).
# Prints "PASS name", "FAIL name: details" or "SKIP name: reason" per check, then
# "N passed, N failed, N skipped"; exits 1 if any check failed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=${1:-}
MPICC=${MPICC:-${prefix:+$prefix/bin/}mpicc}
MPIEXEC=${MPIEXEC:-${prefix:+$prefix/bin/}mpiexec}
MPIEXEC=$(command -v "$MPIEXEC" || echo "$MPIEXEC")

passed=0 failed=0 skipped=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ferry-harden.XXXXXX")
OUT=$TMP/out
ERR=$TMP/err
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

pass() { echo "PASS $1 (${secs}s)"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
show() { tr '\n' '|' <"$1" | cut -c1-600; }
# run SECONDS CMD...: stdout/stderr to $OUT/$ERR; sets rc, secs (wall time) and pid (of CMD,
# which is what mpiexec names its job after: kvs_<pid>_<time>).
secs=0
run() {
    local limit=$1 t0
    shift
    t0=$(date +%s.%N)
    timeout -k 5 "$limit" "$@" >"$OUT" 2>"$ERR" &
    pid=$!
    wait $pid
    rc=$?
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
}
no_errors() { [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; }
details() { echo "rc=$rc ${secs}s stdout='$(show "$OUT")' stderr='$(show "$ERR")'"; }

for prog in peer_lost fd_exhaust hello; do
    src=$here/$prog.c
    [ $prog = hello ] && src=$here/../errors/hello.c
    # MPICC may carry flags (e.g. sanitizers): split it into words.
    if ! $MPICC -O2 -Wall -o "$TMP/$prog" "$src" >"$TMP/build.log" 2>&1; then
        fail "build_$prog" "$(show "$TMP/build.log")"
        echo "$passed passed, $failed failed, $skipped skipped"
        exit 1
    fi
done

# ---- a failed start-up leaves no shared memory behind ----
# mpiexec runs in the background, not under `timeout` (MPIEXEC_TIMEOUT bounds it), so $! is
# its pid, which names the job's segments: /dev/shm/ferry-shm-kvs_<pid>_<time>-...  Other
# jobs on the machine may come and go in /dev/shm meanwhile; only this job's names count.
leftover() { ls /dev/shm 2>/dev/null | grep -F "ferry-shm-kvs_${1}_" ; }
startup_case() {
    local name=$1
    shift
    local t0=$(date +%s.%N)
    MPIEXEC_TIMEOUT=60 "$@" >"$OUT" 2>"$ERR" &
    pid=$!
    wait $pid
    rc=$?
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
    local left
    left=$(leftover $pid)
    if [ $rc = 0 ]; then
        fail "$name" "the start-up should have failed; $(details)"
    elif [ -n "$left" ]; then
        fail "$name" "left /dev/shm/$left behind; $(details)"
        rm -f "/dev/shm/$left"
    elif ! grep -q "Fatal error in MPI_Init" "$ERR"; then
        fail "$name" "no MPI_Init error message; $(details)"
    else
        pass "$name"
    fi
}
cat >"$TMP/failone" <<'EOF'
#!/bin/sh
# Rank $FAIL_RANK gets what makes its start-up fail; the others start normally.
[ "$PMI_RANK" = "$FAIL_RANK" ] && export $FAIL_ENV
exec "$@"
EOF
chmod +x "$TMP/failone"
# Every rank fails in tcp's init, after shm has made the node's segment.
startup_case startup_bad_tcp_if_all env FERRY_TCP_IF=nonexistent0 "$MPIEXEC" -n 4 "$TMP/hello"
# One rank fails while the others go on (and are killed by mpiexec at any point of theirs).
for r in 0 1 3; do
    startup_case "startup_bad_tcp_if_rank$r" "$MPIEXEC" -n 4 env FAIL_RANK=$r \
        FAIL_ENV=FERRY_TCP_IF=nonexistent0 "$TMP/failone" "$TMP/hello"
done
# A port range that is in use: every rank finds its one port taken, after 3 rounds.
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("0.0.0.0", 0)); s.listen(1)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
time.sleep(60)' "$TMP/port" &
holder=$!
for _ in $(seq 50); do [ -s "$TMP/port" ] && break; sleep 0.1; done
if [ -s "$TMP/port" ]; then
    port=$(cat "$TMP/port")
    startup_case startup_port_in_use env FERRY_TCP_PORT_MIN="$port" FERRY_TCP_PORT_MAX="$port" \
        "$MPIEXEC" -n 2 "$TMP/hello"
else
    skip startup_port_in_use "could not hold a port with python3"
fi
kill $holder 2>/dev/null
wait $holder 2>/dev/null
# One rank with another shm geometry than local rank 0: it fails in shm's own init, after
# rank 0 made the segment and the others mapped it.
startup_case startup_other_shm_cells_rank2 "$MPIEXEC" -n 4 env FAIL_RANK=2 \
    FAIL_ENV=FERRY_SHM_NUM_CELLS=8 "$TMP/failone" "$TMP/hello"
# A bad value on one rank: its start-up fails before any PMI traffic, the others' in a barrier.
startup_case startup_bad_shm_cells_rank1 "$MPIEXEC" -n 4 env FAIL_RANK=1 \
    FAIL_ENV=FERRY_SHM_NUM_CELLS=3 "$TMP/failone" "$TMP/hello"

# ---- survivors of a dead rank ----
for m in shm tcp; do
    run 60 env FERRY_METHODS=$m FERRY_TCP_IF=lo "$MPIEXEC" -disable-auto-cleanup -n 2 \
        "$TMP/peer_lost"
    if grep -q '^ No Errors$' "$OUT" && [ "$(grep -c 'failed after' "$OUT")" = 5 ]; then
        pass "peer_lost_$m"
    else
        fail "peer_lost_$m" "$(details)"
    fi
done

# ---- out of descriptors ----
run 60 sh -c "ulimit -n 128 && FERRY_METHODS=tcp FERRY_TCP_IF=lo exec '$MPIEXEC' -n 2 '$TMP/fd_exhaust' send"
if no_errors && grep -q 'Too many open files' "$OUT"; then
    pass fd_exhaust_send
else
    fail fd_exhaust_send "$(details)"
fi
run 60 sh -c "ulimit -n 128 && FERRY_VERBOSE=1 FERRY_METHODS=tcp FERRY_TCP_IF=lo exec '$MPIEXEC' -n 2 '$TMP/fd_exhaust' accept"
pauses=$(grep -c 'not accepting for' "$ERR")
# 1.5 s of pauses of 100, 200, 400, 800 ms: a handful, never a spin.
if no_errors && [ "$pauses" -ge 1 ] && [ "$pauses" -le 8 ]; then
    pass fd_exhaust_accept
else
    fail fd_exhaust_accept "$pauses pauses; $(details)"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
