#!/usr/bin/env bash
# vm.sh: the verbs method on a real (software) RDMA device, run inside the Soft-RoCE VM by
# test/verbs/run.sh: the device, the MPI subset list with its variants over FERRY_METHODS=verbs,
# verbs chosen by itself between two "hosts" with shm inside each, a rank killed mid-transfer, a
# completion error, ranks that differ in FERRY_VERBS_EAGER or FERRY_RING_SIZE, bad device
# variables, and a port that goes down.
#
# usage (in the VM, from the top of the tree): test/verbs/vm.sh PREFIX
# VERBS_QUICK=1 runs the list without its variants.
# Prints "PASS name", "FAIL name: details" or "SKIP name: reason" per check, the runtests lines
# of the list, then "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=${1:?usage: vm.sh PREFIX}
MPICC=$prefix/bin/mpicc
MPIEXEC=$prefix/bin/mpiexec
work=$top/_build/verbs-vm # the VM writes back only under the current directory
mkdir -p "$work"
OUT=$work/out ERR=$work/err

passed=0 failed=0 skipped=0
pass() { echo "PASS $1 (${secs}s)"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
show() { tr '\n' '|' <"$1" | cut -c1-600; }
secs=0
run() { # SECONDS CMD...: stdout/stderr to $OUT/$ERR; sets rc and secs
    local limit=$1 t0=$SECONDS
    shift
    timeout -k 5 "$limit" "$@" >"$OUT" 2>"$ERR"
    rc=$?
    secs=$((SECONDS - t0))
}
no_errors() { [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; }
details() { echo "rc=$rc ${secs}s stdout='$(show "$OUT")' stderr='$(show "$ERR")'"; }
# counter NAME: the sum over the ranks' FERRY_STATS_FILE of one run.
counter() { cat "$work"/stats.* 2>/dev/null | awk -v n="$1" '$1 == n { s += $2 } END { print s + 0 }'; }
summary() {
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
    exit
}

# ---- the device ----
if ibv_devinfo -d rxe0 2>&1 | grep -q 'PORT_ACTIVE'; then
    secs=0
    pass rxe0_port_active
else
    fail rxe0_port_active "$(ibv_devinfo 2>&1 | tr '\n' '|' | cut -c1-300)"
    summary
fi

# Programs are built on the host by run.sh (a compiler under emulation is slow).
for prog in sendrecv_allpairs sendrecv_sizes tcp_kill verbs_hold verbs_fault verbs_stranger; do
    if [ ! -x "$work/$prog" ]; then
        fail "built_$prog" "$work/$prog is missing (test/verbs/run.sh builds it before the VM)"
        summary
    fi
done

# ---- the MPI subset over verbs, defaults then the variants ----
variants=-variants
[ "${VERBS_QUICK:-0}" = 1 ] && variants=
# run_list NAME LIST VARIANTS: runtests over FERRY_METHODS=verbs, its counts added to ours.
run_list() {
    local name=$1 log=$work/$1.log line p f s
    FERRY_METHODS=verbs MPICC=$MPICC MPIEXEC=$MPIEXEC TESTDIR=$work/list REUSE_BUILT=1 \
        TIMEOUT=240 VARIANTS_FILE=$3 bash "$top/test/mpi/runtests" -list "$2" $variants \
        >"$log" 2>&1
    grep -E '^(PASS|FAIL|SKIP)' "$log"
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        fail "$name" "no summary from runtests: $(tail -n 5 "$log" | tr '\n' '|')"
    else
        read -r p _ f _ s _ <<<"$(sed -E 's/,//g' <<<"$line")"
        passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
        # runtests printed a FAIL line for each failure already; a count without lines is one more
        [ "$(grep -c '^FAIL' "$log")" -ge "$f" ] || fail "$name" "counts disagree: $line"
    fi
}
run_list verbs_list "$here/testlist" "$here/variants"
# The ring channel (FERRY_VERBS_EAGER=ring): its own small list and variants.
run_list verbs_ring_list "$here/ring-testlist" "$here/ring-variants"

# ---- two hosts, no configuration: shm inside each, verbs between them ----
# fakehost runs the rank here under another host name, so mpiexec's node map (from -hosts)
# puts ranks 0,1 on one node and 2,3 on the other.
rm -f "$work"/stats.*
run 240 env FERRY_VERBOSE=1 FERRY_STATS_FILE="$work/stats" "$MPIEXEC" -hosts nodeA,nodeB -ppn 2 \
    -launcher ssh -launcher-exec "$here/fakehost" -localhost 10.200.0.1 \
    "$work/sendrecv_allpairs"
if no_errors && grep -q 'rank 0 reaches rank 1 by shm' "$ERR" &&
    grep -q 'rank 0 reaches rank 2 by verbs' "$ERR" && grep -q 'rank 3 reaches rank 1 by verbs' "$ERR" &&
    [ "$(counter shm_eager_sent)" -gt 0 ] && [ "$(counter verbs_eager_sent)" -gt 0 ] &&
    [ "$(counter tcp_eager_sent)" = 0 ]; then
    pass two_hosts_shm_and_verbs
else
    fail two_hosts_shm_and_verbs "$(details)"
fi
# The same with FERRY_METHODS=shm,verbs, every message by rendezvous read.
rm -f "$work"/stats.*
run 240 env FERRY_METHODS=shm,verbs FERRY_EAGER_LIMIT=0 FERRY_STATS_FILE="$work/stats" "$MPIEXEC" \
    -hosts nodeA,nodeB -ppn 2 -launcher ssh -launcher-exec "$here/fakehost" -localhost 10.200.0.1 \
    "$work/sendrecv_allpairs"
if no_errors && [ "$(counter shm_rndv_read)" -gt 0 ] && [ "$(counter verbs_rndv_read)" -gt 0 ]; then
    pass two_hosts_methods_shm_verbs_read
else
    fail two_hosts_methods_shm_verbs_read "shm_rndv_read $(counter shm_rndv_read) verbs_rndv_read $(counter verbs_rndv_read); $(details)"
fi

# ---- strangers at a rank's rdma_cm listener (doc/security.md): refused, told nothing, and
# the job goes on ----
rm -f "$work/stop" "$work"/stats.*
FERRY_METHODS=verbs FERRY_VERBOSE=1 FERRY_STATS_FILE="$work/stats" timeout -k 5 120 "$MPIEXEC" -n 2 \
    "$work/verbs_hold" "$work/stop" >"$OUT" 2>"$ERR" &
job=$!
port=
for _ in $(seq 1 300); do
    port=$(sed -n 's/.*rank 1: verbs on .* listening on [0-9.]* port \([0-9]*\);.*/\1/p' "$ERR")
    [ -n "$port" ] && break
    sleep 0.2
done
t0=$SECONDS
"$work/verbs_stranger" 10.200.0.1 "${port:-0}" >"$work/stranger.out" 2>&1
src=$?
touch "$work/stop"
wait $job
rc=$?
secs=$((SECONDS - t0))
if [ -n "$port" ] && [ $src = 0 ] && no_errors &&
    [ "$(grep -c "rank 1: verbs refused a connection request without the job's proof" "$ERR")" = 3 ] &&
    [ "$(counter verbs_strangers)" = 3 ]; then
    pass strangers_refused
else
    fail strangers_refused "port '$port' stranger rc=$src '$(show "$work/stranger.out")' strangers $(counter verbs_strangers); $(details)"
fi

# ---- a rank killed in the middle of traffic: errors naming it, or the job ends; no hang ----
run 120 env FERRY_METHODS=verbs TCP_KILL_ERRORS=return "$MPIEXEC" -disable-auto-cleanup -n 4 \
    "$work/tcp_kill" kill
n=$(grep -c 'error from rank 3 after .*(MPI_ERR_OTHER): verbs: rank [0-2]: connection to rank 3 lost' "$OUT")
if [ "$n" = 3 ]; then
    pass killed_rank_errors_returned
else
    fail killed_rank_errors_returned "$n of 3 survivors saw it; $(details)"
fi
# (A survivor may abort with verbs' message before mpiexec's SIGTERM reaches it: then its code
# wins, 1 not 9.)
run 120 env FERRY_METHODS=verbs "$MPIEXEC" -n 4 "$work/tcp_kill" kill
if [ $rc != 0 ] && [ $rc != 124 ] &&
    grep -q 'rank 3 (pid [0-9]*) killed by signal 9\|Fatal error in MPI_Sendrecv: verbs: rank [0-2]: connection to rank 3 lost' "$ERR"; then
    pass killed_rank_job_ends
else
    fail killed_rank_job_ends "$(details)"
fi

# fault_job FAULT: verbs_fault (rank 0 sends one rendezvous message to rank 1) with
# FERRY_VERBS_FAULT=FAULT, errors returned.  lost_both WHY: rank 1's error says its connection
# to rank 0 was lost for WHY, and rank 0's that its connection went (the faulty queue pair takes
# the peer's down with it, so rank 0 may learn no more than that).
fault_job() {
    run 120 env FERRY_METHODS=verbs FERRY_EAGER_LIMIT=0 FERRY_VERBS_FAULT="$1" "$MPIEXEC" \
        -disable-auto-cleanup -n 2 "$work/verbs_fault"
}
lost_both() {
    [ $rc != 124 ] &&
        grep -q "^rank 1: error: .*connection to rank 0 lost: $1" "$OUT" &&
        grep -q '^rank 0: error: .*connection to rank 1 lost' "$OUT"
}

# ---- a completion error: reported with ibv_wc_status_str, the peer and the operation ----
# Errors are returned, so neither rank's abort cuts the other's message short.
fault_job rkey
if lost_both 'RDMA read failed: remote access error'; then
    pass completion_error_reported
else
    fail completion_error_reported "$(details)"
fi

# ---- a fatal queue pair event (FERRY_VERBS_FAULT=qp_fatal: rxe raises none a test can provoke,
# so rank 1's first connection is moved to the error state and handed the event): the
# connection fails with the event's text ----
fault_job qp_fatal
if lost_both 'queue pair error: local work queue catastrophic error'; then
    pass qp_fatal_event_reported
else
    fail qp_fatal_event_reported "$(details)"
fi

# ---- a peer that never answers (stopped right after MPI_Init: the kernel's rdma_cm keeps the
# request pending with an MRA): FERRY_VERBS_CONNECT_TIMEOUT ends the attempts and the send
# returns an error naming it; without the variable this job waits until the limit ----
run 90 env FERRY_METHODS=verbs FERRY_VERBS_CONNECT_TIMEOUT=1000 "$MPIEXEC" -n 2 \
    "$work/verbs_fault" stop
if [ $rc != 0 ] && [ $rc != 124 ] &&
    grep -q '^rank 0: error: .*rank 1.*no answer within FERRY_VERBS_CONNECT_TIMEOUT' "$OUT"; then
    pass connect_timeout_stopped_peer
else
    fail connect_timeout_stopped_peer "$(details)"
fi

# ---- ranks that differ in FERRY_VERBS_EAGER or in the ring's size: the connection is refused
# at both ends, each naming the variable and both values (the handshake carries them) ----
# verbs_fault without a fault: rank 0 sends to rank 1 (rank 0 connects), errors are returned.
# mixed_job PROTO0 SIZE0 PROTO1 SIZE1: rank 0 and rank 1 with these FERRY_VERBS_EAGER and
# FERRY_RING_SIZE.
mixed_job() {
    run 120 env FERRY_METHODS=verbs "$MPIEXEC" -disable-auto-cleanup \
        -n 1 -env FERRY_VERBS_EAGER "$1" -env FERRY_RING_SIZE "$2" "$work/verbs_fault" : \
        -n 1 -env FERRY_VERBS_EAGER "$3" -env FERRY_RING_SIZE "$4" "$work/verbs_fault"
}
# refused_both VAR HERE0 THERE0: both ranks' errors name VAR with their own value and the peer's.
refused_both() {
    [ $rc != 124 ] &&
        grep -q "^rank 0: error: .*connection to rank 1 lost: refused: $1 is $2 here and $3 at rank 1" "$OUT" &&
        grep -q "^rank 1: error: .*connection to rank 0 lost: refused: $1 is $3 here and $2 at rank 0" "$OUT"
}
mixed_job sr 128K ring 128K
if refused_both FERRY_VERBS_EAGER sr ring; then
    mixed_job ring 128K sr 128K
    if refused_both FERRY_VERBS_EAGER ring sr; then
        pass eager_mixed_refused
    else
        fail eager_mixed_refused "ring connecting to sr: $(details)"
    fi
else
    fail eager_mixed_refused "sr connecting to ring: $(details)"
fi
mixed_job ring 64K ring 128K
if refused_both FERRY_RING_SIZE 65536 131072; then
    pass ring_size_mixed_refused
else
    fail ring_size_mixed_refused "$(details)"
fi

# ---- variables that name what is not there stop MPI_Init with a message ----
run 60 env FERRY_METHODS=verbs FERRY_VERBS_DEVICE=nosuch0 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
if [ $rc != 0 ] && grep -q 'FERRY_VERBS_DEVICE="nosuch0".*cannot be used: no RDMA device' "$ERR"; then
    pass device_variable_wrong
else
    fail device_variable_wrong "$(details)"
fi
run 60 env FERRY_METHODS=verbs FERRY_VERBS_DEVICE=rxe0:2 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
if [ $rc != 0 ] && grep -q 'FERRY_VERBS_DEVICE="rxe0:2"' "$ERR"; then
    pass device_port_wrong
else
    fail device_port_wrong "$(details)"
fi

# ---- FERRY_VERBS_GID_INDEX: the index verbs picks by itself works when named; an empty one
# stops MPI_Init with a message ----
run 60 env FERRY_METHODS=verbs FERRY_VERBOSE=1 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
gid=$(sed -n 's/.*rank 0: verbs on rxe0 port 1 GID \([0-9]*\) .*/\1/p' "$ERR" | head -n 1)
run 60 env FERRY_METHODS=verbs FERRY_VERBOSE=1 FERRY_VERBS_GID_INDEX="${gid:-0}" "$MPIEXEC" -n 2 \
    "$work/sendrecv_allpairs"
if [ -n "$gid" ] && no_errors && [ "$(grep -c "verbs on rxe0 port 1 GID $gid " "$ERR")" = 2 ]; then
    pass gid_index_named
else
    fail gid_index_named "GID '$gid'; $(details)"
fi
# rxe's table has 1024 entries; the first few hold the link-local and the IPv4 GIDs.
run 60 env FERRY_METHODS=verbs FERRY_VERBS_GID_INDEX=1000 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
if [ $rc != 0 ] && [ $rc != 124 ] &&
    grep -q 'FERRY_VERBS_GID_INDEX=1000 cannot be used: the GID at FERRY_VERBS_GID_INDEX is empty' "$ERR"; then
    pass gid_index_empty
else
    fail gid_index_empty "$(details)"
fi

# ---- the port goes down in the middle of a job: the work in flight fails, the error names
# the port, the job ends; no hang.  (Last but one: on Debian 12's kernel, rdma_cm connects
# no longer complete in this VM after it, rping's included.) ----
rm -f "$work/stop"
FERRY_METHODS=verbs FERRY_VERBOSE=2 timeout -k 5 150 "$MPIEXEC" -n 2 "$work/verbs_hold" \
    "$work/stop" >"$OUT" 2>"$ERR" &
job=$!
for _ in $(seq 1 600); do # until the ranks talk over verbs
    [ "$(grep -c 'verbs connection \(to\|from\) rank [01] up' "$ERR")" = 2 ] && break
    sleep 0.2
done
sleep 1
t0=$SECONDS
if ip link set rxenet0 down 2>>"$ERR"; then
    wait $job
    rc=$?
    secs=$((SECONDS - t0))
    ip link set rxenet0 up
    # The rank that fails first may be the one told of the other's disconnect: the port shows
    # in the other's line (FERRY_VERBOSE=2 prints every lost connection) or its async event.
    if [ $rc != 0 ] && [ $rc != 124 ] &&
        grep -q 'Fatal error in MPI_[A-Za-z]*: verbs: .*connection to rank [01]' "$ERR" &&
        grep -q 'connection to rank [01] lost: .*; device rxe0 port 1 is down\|verbs device rxe0: port error' "$ERR"; then
        pass port_down_in_job_ends_it
    else
        fail port_down_in_job_ends_it "rc=$rc ${secs}s $(grep -v 'verbs_sends\|eager\| up \|connecting\|listening' "$ERR" | tr '\n' '|' | cut -c1-600)"
    fi
    # The port is back.  On this kernel rdma_cm's requests now go unanswered (if a kernel
    # answers them, the job just runs): either way a new job with FERRY_VERBS_CONNECT_TIMEOUT
    # ends within its 5 attempts, without waiting for rdma_cm's own retries (about 100 s each).
    for _ in $(seq 1 50); do
        ibv_devinfo -d rxe0 | grep -q 'PORT_ACTIVE' && break
        sleep 0.2
    done
    run 120 env FERRY_METHODS=verbs FERRY_VERBS_CONNECT_TIMEOUT=2000 "$MPIEXEC" -n 2 \
        "$work/sendrecv_allpairs"
    if no_errors; then
        echo "(port_back_no_hang: the job ran over verbs)"
        pass port_back_no_hang
    elif [ $rc != 0 ] && [ $rc != 124 ] &&
        grep -q 'Fatal error in MPI_[A-Za-z]*: verbs: .*connection to rank [01]' "$ERR"; then
        # (the rank whose attempts ran out says "no answer within FERRY_VERBS_CONNECT_TIMEOUT
        # (status 110) after 5 attempts"; the other's abort may come first)
        pass port_back_no_hang
    else
        fail port_back_no_hang "$(details)"
    fi
else
    touch "$work/stop"
    wait $job
    skip port_down_in_job_ends_it "cannot take rxenet0 down here: $(show "$ERR")"
    skip port_back_no_hang "as port_down_in_job_ends_it"
fi

# ---- the port goes down: verbs unreachable, the job runs on the other methods, quietly ----
# (last: it takes the device away)
if ip link set rxenet0 down 2>"$ERR" && sleep 2 && ibv_devinfo -d rxe0 | grep -q 'PORT_DOWN'; then
    run 120 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
    if no_errors && [ ! -s "$ERR" ]; then
        pass port_down_quiet
    else
        fail port_down_quiet "$(details)"
    fi
    run 120 env FERRY_VERBOSE=1 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
    if no_errors && [ "$(grep -c 'verbs unavailable: the port is not active' "$ERR")" = 2 ] &&
        grep -q 'rank 0 reaches rank 1 by shm' "$ERR"; then
        pass port_down_one_line_verbose
    else
        fail port_down_one_line_verbose "$(details)"
    fi
    ip link set rxenet0 up
else
    skip port_down_quiet "cannot take rxenet0 down here: $(show "$ERR")"
    skip port_down_one_line_verbose "as port_down_quiet"
fi
summary
