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

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ferry-harden.XXXXXX")
OUT=$TMP/out
ERR=$TMP/err
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
. "$here/../checks.sh"

# run SECONDS CMD...: stdout/stderr to $OUT/$ERR; sets rc, secs (wall time) and pid (of CMD,
# which is what mpiexec names its job after: kvs_<pid>_<time>).
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

for prog in peer_lost fd_exhaust hello tcp_victim linger all_pairs; do
    src=$here/$prog.c
    [ $prog = hello ] && src=$here/../errors/hello.c
    # MPICC may carry flags (e.g. sanitizers): split it into words.
    if ! $MPICC -O2 -Wall -o "$TMP/$prog" "$src" >"$TMP/build.log" 2>&1; then
        fail "build_$prog" "$(show "$TMP/build.log")"
        echo "$passed passed, $failed failed, $skipped skipped"
        exit 1
    fi
done
# The attacker's tool is no MPI program: plain cc, with the HMAC code to compute MACs.
if ! ${CC:-cc} -O2 -Wall -I"$here/../../adi" -o "$TMP/stranger" "$here/stranger.c" \
    "$here/../../adi/hmac.c" >"$TMP/build.log" 2>&1; then
    fail build_stranger "$(show "$TMP/build.log")"
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi
STRANGER=$TMP/stranger
# wait_for FILE SECONDS: until FILE exists (and is not empty).
wait_for() {
    local i
    for ((i = 0; i < $2 * 20; i++)); do
        [ -s "$1" ] && return 0
        sleep 0.05
    done
    return 1
}

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
# Every rank fails in tcp's init, after shm has made the node's segment.  FERRY_METHODS names
# tcp: a job all on one node does not start it otherwise (doc/method-api.md, OFF_NODE).
startup_case startup_bad_tcp_if_all env FERRY_METHODS=shm,tcp FERRY_TCP_IF=nonexistent0 \
    "$MPIEXEC" -n 4 "$TMP/hello"
# One rank fails while the others go on (and are killed by mpiexec at any point of theirs).
for r in 0 1 3; do
    startup_case "startup_bad_tcp_if_rank$r" "$MPIEXEC" -n 4 env FERRY_METHODS=shm,tcp \
        FAIL_RANK=$r FAIL_ENV=FERRY_TCP_IF=nonexistent0 "$TMP/failone" "$TMP/hello"
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
    startup_case startup_port_in_use env FERRY_METHODS=shm,tcp FERRY_TCP_PORT_MIN="$port" \
        FERRY_TCP_PORT_MAX="$port" \
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

# ---- a stranger on the network against tcp (doc/security.md) ----
# The victim job runs in the background; rank 0 publishes what a stranger can learn (its port,
# the kvsname) in $TMP/info; the stranger attacks; then $TMP/info.done lets the job go on.
export FERRY_METHODS=tcp FERRY_TCP_IF=lo
victim() { # MODE: starts the victim job
    rm -f "$TMP/info" "$TMP/info.done"
    VICTIM_INFO=$TMP/info MPIEXEC_TIMEOUT=60 FERRY_TCP_CONNECT_TIMEOUT=1000 \
        "$MPIEXEC" -n 2 "$TMP/tcp_victim" "$1" >"$OUT" 2>"$ERR" &
    vpid=$!
    wait_for "$TMP/info" 30
}
victim_end() { # sets rc
    touch "$TMP/info.done"
    wait $vpid
    rc=$?
}
t0=$SECONDS
if victim guard; then
    "$STRANGER" tcp "$TMP/info" 1 0 2 noauth >"$TMP/s1" 2>&1
    s1=$?
    "$STRANGER" tcp "$TMP/info" 1 0 2 wrongjob >"$TMP/s2" 2>&1
    s2=$?
    "$STRANGER" tcp "$TMP/info" 1 0 2 silent 100 >"$TMP/s3" 2>&1
    s3=$?
    victim_end
    secs=$((SECONDS - t0))
    for c in "1 tcp_forged_hello_without_secret" "2 tcp_refusal_tells_nothing" \
        "3 tcp_silent_connections_closed"; do
        set -- $c
        eval "sr=\$s$1"
        if [ "$sr" = 0 ] && no_errors; then
            pass "$2"
        else
            fail "$2" "stranger said '$(show "$TMP/s$1")' (exit $sr); victim: $(details)"
        fi
    done
else
    victim_end
    fail tcp_forged_hello_without_secret "the victim did not start: $(details)"
fi
t0=$SECONDS
if victim control; then
    "$STRANGER" tcp "$TMP/info" 1 0 2 withkey >"$TMP/s1" 2>&1
    s1=$?
    victim_end
    secs=$((SECONDS - t0))
    # (The job itself ends in a kill: rank 0's "rank 1" was the stranger, so there is no
    # MPI_Finalize to reach.)
    if [ $s1 = 0 ] && grep -q "delivered 'forged' as rank 1" "$OUT"; then
        pass tcp_forged_hello_with_secret_control
    else
        fail tcp_forged_hello_with_secret_control "stranger said '$(show "$TMP/s1")'; victim: $(details)"
    fi
else
    victim_end
    fail tcp_forged_hello_with_secret_control "the victim did not start: $(details)"
fi
unset FERRY_METHODS FERRY_TCP_IF

# ---- a stranger against mpiexec's PMI_PORT (remote ranks through a fake launcher) ----
# slowexec HOST CMD...: exec style; writes the PMI_PORT it passes on to $PORTFILE (a stranger
# can find the port by scanning; it never sees the PMI_ID token), waits $DELAY s, then runs.
cat >"$TMP/slowexec" <<'EOF'
#!/bin/sh
shift
for a in "$@"; do case $a in PMI_PORT=*) echo "${a#PMI_PORT=}" >"$PORTFILE.tmp" && mv "$PORTFILE.tmp" "$PORTFILE" ;; esac; done
sleep "$DELAY"
exec "$@"
EOF
chmod +x "$TMP/slowexec"
remote_job() { # DELAY PROGRAM ARGS...: a job with rank 1 "remote", in the background
    local delay=$1
    shift
    rm -f "$TMP/port"
    PORTFILE=$TMP/port DELAY=$delay MPIEXEC_TIMEOUT=60 "$MPIEXEC" -v -hosts localhost,hb \
        -localhost 127.0.0.1 -launcher-exec "$TMP/slowexec" -n 2 "$@" >"$OUT" 2>"$ERR" &
    jpid=$!
    wait_for "$TMP/port" 30
}
t0=$SECONDS
if remote_job 2 "$TMP/hello"; then
    pmiport=$(cat "$TMP/port")
    # Bound to 127.0.0.1 only: another local address of the host does not answer.
    "$STRANGER" pmi "127.0.0.2:${pmiport##*:}" refused >"$TMP/s1" 2>&1
    s1=$?
    "$STRANGER" pmi "$pmiport" initack 1 >"$TMP/s2" 2>&1
    s2=$?
    "$STRANGER" pmi "$pmiport" initack 1:0123456789abcdef0123456789abcdef >"$TMP/s3" 2>&1
    s3=$?
    wait $jpid
    rc=$?
    secs=$((SECONDS - t0))
    if [ $s1 = 0 ]; then pass pmi_port_bound_to_one_address; else
        fail pmi_port_bound_to_one_address "$(show "$TMP/s1")"; fi
    if [ $s2 = 0 ] && [ $s3 = 0 ] && no_errors &&
        [ "$(grep -c "closed a PMI connection from 127.0.0.1:[0-9]*: its pmiid is not" "$ERR")" = 2 ]; then
        pass pmi_forged_initack
    else
        fail pmi_forged_initack "stranger said '$(show "$TMP/s2")' '$(show "$TMP/s3")'; job: $(details)"
    fi
else
    wait $jpid
    fail pmi_forged_initack "no PMI_PORT: $(details)"
fi
# A dozen silent connections (more than the pending slots) before the real rank connects:
# each is closed, the oldest when the slots are full, the others after MPIEXEC_PORT_TIMEOUT,
# with a message; the real rank gets in all the same.
t0=$SECONDS
if MPIEXEC_PORT_TIMEOUT=1 remote_job 2 "$TMP/hello"; then
    "$STRANGER" pmi "$(cat "$TMP/port")" silent 12 4 >"$TMP/s1" 2>&1
    s1=$?
    wait $jpid
    rc=$?
    secs=$((SECONDS - t0))
    if [ $s1 = 0 ] && no_errors && grep -q "did not identify itself within MPIEXEC_PORT_TIMEOUT=1 s" "$ERR" &&
        grep -q "too many connections that did not identify themselves" "$ERR"; then
        pass pmi_silent_connections
    else
        fail pmi_silent_connections "stranger said '$(show "$TMP/s1")'; job: $(details)"
    fi
else
    wait $jpid
    fail pmi_silent_connections "no PMI_PORT: $(details)"
fi
# Once every remote rank is in, the port is closed.
t0=$SECONDS
if remote_job 0 "$TMP/linger" 3; then
    s1=1
    for _ in $(seq 40); do grep -q "PMI_PORT closed" "$ERR" && s1=0 && break; sleep 0.05; done
    # While the job still runs (it lingers 3 s), nobody can connect any more.
    [ $s1 = 0 ] && { "$STRANGER" pmi "$(cat "$TMP/port")" refused >"$TMP/s1" 2>&1; s1=$?; }
    wait $jpid
    rc=$?
    secs=$((SECONDS - t0))
    if [ $s1 = 0 ] && no_errors; then pass pmi_port_closed_when_all_in; else
        fail pmi_port_closed_when_all_in "stranger said '$(show "$TMP/s1")'; job: $(details)"; fi
else
    wait $jpid
    fail pmi_port_closed_when_all_in "no PMI_PORT: $(details)"
fi

# ---- a rank that does not read its PMI replies ----
cat >"$TMP/pick" <<'EOF'
#!/bin/sh
# Rank 0 runs the flooder, rank 1 prints a line every 0.1 s.
if [ "$PMI_RANK" = 0 ]; then exec "$STRANGER" pmiflood "$MODE"; fi
i=0; while [ $i -lt 300 ]; do echo "tick $i"; i=$((i + 1)); sleep 0.1; done
EOF
chmod +x "$TMP/pick"
run 30 env STRANGER="$STRANGER" MODE=flood "$MPIEXEC" -n 2 "$TMP/pick"
if [ $rc != 0 ] && [ $rc != 124 ] &&
    grep -q "rank 0 (pid [0-9]*) does not read its PMI replies .* killing the job" "$ERR"; then
    pass pmi_nonreading_rank_ends_job
else
    fail pmi_nonreading_rank_ends_job "$(details)"
fi
# Replies that fill the socket (where the old mpiexec blocked) and wait in mpiexec's queue: the
# other rank's output still flows, and MPIEXEC_TIMEOUT fires on time.
run 30 env STRANGER="$STRANGER" MODE=fill MPIEXEC_TIMEOUT=3 "$MPIEXEC" -n 2 "$TMP/pick"
ticks=$(grep -c '^tick' "$OUT")
# (3 s of ticks every 0.1 s: 30 on a quiet machine; a loaded one may lose some.  The old mpiexec,
# blocked in its write, let the outer 30 s limit kill it.)
if [ $rc = 124 ] && [ "$ticks" -ge 5 ] && [ "$(echo "$secs < 12" | bc)" = 1 ] &&
    grep -q "waiting without reading" "$ERR"; then
    pass pmi_nonreading_rank_timeout_on_time
else
    fail pmi_nonreading_rank_timeout_on_time "$ticks ticks; $(details)"
fi

# ---- a small /dev/shm (a container's) ----
# The node's segment is sized to fit it (fewer cells, smaller rings) and its pages reserved at
# start-up, so 16 ranks whose traffic touches the whole segment run in 16 MiB (before: SIGBUS
# at the first page tmpfs could not give), and a /dev/shm too small even so is an MPI_Init error
# that names the sizes.  Needs a mount namespace of our own (root).
if [ "$(id -u)" = 0 ] &&
    unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' >/dev/null 2>&1; then
    run 120 unshare -m sh -c 'mount -t tmpfs -o size=16m tmpfs /dev/shm &&
        exec env FERRY_SHM_CMA=0 "$0" -n 16 "$1"' "$MPIEXEC" "$TMP/all_pairs"
    if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; then
        pass small_dev_shm_fits
    else
        fail small_dev_shm_fits "$(details)"
    fi
    run 60 unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$0" -n 16 "$1"' \
        "$MPIEXEC" "$TMP/all_pairs"
    if [ $rc != 0 ] && [ $rc != 124 ] && ! grep -q 'Bus error' "$ERR" &&
        grep -q 'Fatal error in MPI_Init: shm: the segment of 16 ranks on this node needs [0-9.]* MiB in /dev/shm .* but only 1.0 MiB are free' "$ERR"; then
        pass small_dev_shm_error
    else
        fail small_dev_shm_error "$(details)"
    fi
else
    skip small_dev_shm_fits "needs root, unshare -m and mount (a /dev/shm of our own)"
    skip small_dev_shm_error "needs root, unshare -m and mount (a /dev/shm of our own)"
fi

summary
