#!/bin/bash
# run.sh: end-to-end checks of the tcp method and multi-host launching: loopback, 16 ranks on
# the cores there are, a port range, a killed rank, refused and unreachable connections, and
# jobs over two "hosts" made of network namespaces under our mpiexec and MPICH's Hydra.
#
# usage: test/tcp/run.sh [PREFIX]
#   PREFIX/bin/mpicc and PREFIX/bin/mpiexec are used (or $MPICC and $MPIEXEC if set).
# Prints "PASS name", "FAIL name: details" or "SKIP name: reason" per check, then
# "N passed, N failed, N skipped"; exits 1 if any check failed.  The namespace checks need
# root (ip netns add); without it they are reported as skipped.  Every namespace, link and
# address is made here, in a private subnet that exists only inside the namespaces, and is
# removed at the end, also on failure or interruption.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=${1:-}
MPICC=${MPICC:-${prefix:+$prefix/bin/}mpicc}
MPIEXEC=${MPIEXEC:-${prefix:+$prefix/bin/}mpiexec}
MPIEXEC=$(command -v "$MPIEXEC" || echo "$MPIEXEC")
NSHOST=$here/nshost

passed=0 failed=0 skipped=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tcp.XXXXXX")
OUT=$TMP/out
ERR=$TMP/err
NS_A= NS_B=

cleanup() {
    local ns pid
    for ns in $NS_A $NS_B; do
        # Processes of ours still in the namespace (a test that went wrong) keep it alive.
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill -9 "$pid" 2>/dev/null
        done
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass() { echo "PASS $1 (${secs}s)"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
show() { tr '\n' '|' <"$1" | cut -c1-400; }
# run SECONDS CMD...: stdout/stderr to $OUT/$ERR; sets rc and secs (wall time).
secs=0
run() {
    local limit=$1 t0
    shift
    t0=$(date +%s.%N)
    timeout -k 5 "$limit" "$@" >"$OUT" 2>"$ERR"
    rc=$?
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
}
within() { [ "$(echo "$secs < $1" | bc)" = 1 ]; }
no_errors() { [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; }
details() { echo "rc=$rc ${secs}s stdout='$(show "$OUT")' stderr='$(show "$ERR")'"; }

for prog in tcp_exchange tcp_kill tcp_vanish traffic pingpong_stream; do
    src=$here/$prog.c
    [ $prog = traffic ] && src="$here/../variables/traffic.c $here/../mpi/mtest.c -I$here/../mpi"
    [ $prog = pingpong_stream ] && src="$here/../mpi/$prog.c $here/../mpi/mtest.c -I$here/../mpi"
    # MPICC may carry flags (e.g. sanitizers): split it into words.
    # shellcheck disable=SC2086
    if ! $MPICC -O2 -Wall -o "$TMP/$prog" $src >"$TMP/build.log" 2>&1; then
        fail "build_$prog" "$(show "$TMP/build.log")"
        echo "$passed passed, $failed failed, $skipped skipped"
        exit 1
    fi
done
EXCHANGE=$TMP/tcp_exchange
KILL=$TMP/tcp_kill
VANISH=$TMP/tcp_vanish
TRAFFIC=$TMP/traffic
PINGPONG=$TMP/pingpong_stream

# ---- one host, loopback only ----
# FERRY_TCP_IF=lo keeps every connection on loopback, also the failed attempts.
export FERRY_METHODS=tcp FERRY_TCP_IF=lo

run 120 "$MPIEXEC" -n 2 "$EXCHANGE" 3
if no_errors; then pass loopback_n2; else fail loopback_n2 "$(details)"; fi

run 120 "$MPIEXEC" -n 4 -genv FERRY_EAGER_LIMIT 0 -genv FERRY_PIPELINE_CHUNK 5000 "$EXCHANGE" 1
if no_errors; then pass loopback_n4_all_rendezvous; else fail loopback_n4_all_rendezvous "$(details)"; fi

# 4 KiB socket buffers: every frame is cut by partial reads and writes.  (Up to 70000 bytes:
# with windows this small the kernel sends large transfers on its persist timer, slowly.)
run 120 "$MPIEXEC" -n 3 -genv FERRY_TCP_SNDBUF 4096 -genv FERRY_TCP_RCVBUF 4096 "$EXCHANGE" 1 70000
if no_errors; then pass loopback_tiny_socket_buffers; else fail loopback_tiny_socket_buffers "$(details)"; fi

# Pairs of ranks connect to each other at the same moment.  Whichever of the two first reads
# the other's handshake finds its own attempt in flight; both keep the connection the lower
# rank made.
simul_pair() { # LOW HIGH
    grep -Eq "rank $1: tcp simultaneous connect with rank $2: ours wins|rank $2: tcp simultaneous connect with rank $1: theirs wins" "$ERR" &&
        grep -q "rank $2: tcp connection to rank $1 up (it connected to us;" "$ERR" &&
        grep -q "rank $1: tcp connection to rank $2 up (we connected to " "$ERR"
}
run 60 "$MPIEXEC" -n 4 -genv TCP_EXCHANGE_SIMUL 1 -genv FERRY_VERBOSE 2 "$EXCHANGE" 1 1000
if no_errors && simul_pair 0 1 && simul_pair 2 3; then
    pass simultaneous_connect
else
    fail simultaneous_connect "$(details)"
fi

# FERRY_TCP_CONGESTION: reno between ranks of one node (auto), the system's when asked, a name
# the kernel does not have stops MPI_Init.  Each side reports what its socket has.
cc_both() { # ALGORITHM
    grep -q "rank 0: tcp connection to rank 1 up (we connected to .*; congestion control $1)" "$ERR" &&
        grep -q "rank 1: tcp connection to rank 0 up (it connected to us; congestion control $1)" "$ERR"
}
run 60 "$MPIEXEC" -n 2 -genv FERRY_VERBOSE 2 "$EXCHANGE" 1 70000
if no_errors && cc_both reno; then pass congestion_same_node_reno; else fail congestion_same_node_reno "$(details)"; fi
system_cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
run 60 "$MPIEXEC" -n 2 -genv FERRY_VERBOSE 2 -genv FERRY_TCP_CONGESTION system "$EXCHANGE" 1 70000
if no_errors && cc_both "$system_cc"; then pass congestion_system; else fail congestion_system "$(details)"; fi
run 30 "$MPIEXEC" -n 2 -genv FERRY_TCP_CONGESTION nosuchcc "$EXCHANGE" 1
if [ $rc != 0 ] && grep -q 'FERRY_TCP_CONGESTION=nosuchcc: the kernel refuses it: .* of which every user may pick .*reno' "$ERR"; then
    pass congestion_unknown_refused
else
    fail congestion_unknown_refused "$(details)"
fi

# The DATA a pipeline CTS asks for has its frame header read alone: each 1 MiB payload goes
# into the user's buffer with at most the 64 bytes after its header through the staging buffer
# (without the hint, the first read put up to 64 KiB there, copied again).
run 60 "$MPIEXEC" -n 2 -genv FERRY_STATS_FILE "$TMP/stats" "$TRAFFIC" 20 1048576
inplace=$(sed -n 's/^tcp_recv_in_place //p' "$TMP/stats.1" 2>/dev/null)
staged=$(sed -n 's/^tcp_recv_staged //p' "$TMP/stats.1" 2>/dev/null)
if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT" && [ "${inplace:-0}" = 20 ] && [ "${staged:-99999}" -le $((20 * 64)) ]; then
    pass data_header_read_alone
else
    fail data_header_read_alone "in place ${inplace:-?}, staged ${staged:-?} bytes; $(details)"
fi

# One peer at a time: its socket is read directly (the hot peer), not found through epoll_wait
# first (doc/methods/tcp.md, "The hot peer").  Over pingpong_stream (ping-pongs, then windows
# of 64 each way) each rank must find most of the frames its peer sent (the peer's
# tcp_eager_sent: every message is eager here) by those reads (tcp_recv_hot): 93-96% on an idle
# machine, at least half wanted; 0 without the hot peer.
run 120 "$MPIEXEC" -n 2 -genv FERRY_STATS_FILE "$TMP/stats" "$PINGPONG"
hot_ok=1 hot_msg=
for r in 0 1; do
    hot=$(sed -n 's/^tcp_recv_hot //p' "$TMP/stats.$r" 2>/dev/null)
    sent=$(sed -n 's/^tcp_eager_sent //p' "$TMP/stats.$((1 - r))" 2>/dev/null)
    hot_msg="$hot_msg rank $r: ${hot:-?} of ${sent:-?};"
    if [ -z "$hot" ] || [ -z "$sent" ] || [ "$sent" -lt 1000 ] || [ $((2 * hot)) -lt "$sent" ] ||
        [ "$hot" -gt "$sent" ]; then
        hot_ok=0
    fi
done
if no_errors && [ $hot_ok = 1 ]; then
    pass hot_peer_read_directly
else
    fail hot_peer_read_directly "tcp_recv_hot of the frames sent:$hot_msg $(details)"
fi

# More ranks than cores: every rank talks to every other one over its own connection.
run 300 "$MPIEXEC" -n 16 "$EXCHANGE" 1
if no_errors; then pass oversubscribed_n16; else fail oversubscribed_n16 "$(details)"; fi

# A port range: 4 ranks fit in 4 ports; 2 ranks in 1 port cannot both listen.
port=$((20000 + RANDOM % 20000))
run 60 env FERRY_TCP_PORT_MIN=$port FERRY_TCP_PORT_MAX=$((port + 3)) "$MPIEXEC" -n 4 "$EXCHANGE" 1
if no_errors; then pass port_range_fits; else fail port_range_fits "$(details)"; fi
run 60 env FERRY_TCP_PORT_MIN=$port FERRY_TCP_PORT_MAX=$port "$MPIEXEC" -n 2 "$EXCHANGE" 1
if [ $rc != 0 ] && grep -q "found no free port in FERRY_TCP_PORT_MIN..MAX = $port..$port" "$ERR" &&
    grep -q 'Address already in use (errno 98)' "$ERR" && within 10; then
    pass port_in_use
else
    fail port_in_use "$(details)"
fi

run 30 env FERRY_TCP_IF=nosuch0 "$MPIEXEC" -n 2 "$EXCHANGE" 1
if [ $rc != 0 ] && grep -q 'FERRY_TCP_IF="nosuch0" matches no address of this host' "$ERR"; then
    pass tcp_if_matches_nothing
else
    fail tcp_if_matches_nothing "$(details)"
fi

# ---- a rank that dies ----
# Errors returned: every survivor gets MPI_ERR_OTHER naming the dead rank, within seconds.
check_survivors() { # NAME PATTERN
    local n
    n=$(grep -c "error from rank 3 after .*(MPI_ERR_OTHER): .*$2" "$OUT")
    if [ "$n" = 3 ] && within 10; then pass "$1"; else fail "$1" "$n of 3 survivors saw it; $(details)"; fi
}
run 60 env TCP_KILL_ERRORS=return "$MPIEXEC" -disable-auto-cleanup -n 4 "$KILL" kill
check_survivors killed_rank_errors_returned 'lost its connection to rank 3: .*\(EOF\|errno\)'
# The default handler ends the job with the message.
run 60 "$MPIEXEC" -disable-auto-cleanup -n 4 "$KILL" kill
if [ $rc != 0 ] && grep -q 'Fatal error in MPI_Sendrecv: tcp: rank [0-2] lost its connection to rank 3' "$ERR" &&
    within 10; then
    pass killed_rank_fatal_handler
else
    fail killed_rank_fatal_handler "$(details)"
fi
# And by default mpiexec ends the job itself when a rank dies.  A survivor may see the lost
# connection and abort with tcp's message before mpiexec reaps the dead rank: then that abort
# ends the job (its code wins, 1 not 9), and mpiexec still names the dead rank, its death
# being no SIGTERM or SIGKILL of its own ("while the job was ending").
run 60 "$MPIEXEC" -n 4 "$KILL" kill
if [ $rc != 0 ] && within 10 &&
    grep -q -e 'mpiexec: rank 3 (pid [0-9]*) killed by signal 9 (Killed)\(; killing the job\| while the job was ending\)$' "$ERR"; then
    pass killed_rank_job_ends
else
    fail killed_rank_job_ends "$(details)"
fi
# A peer that is gone before the first connection: refused, retried, reported.
run 60 env TCP_KILL_ERRORS=return "$MPIEXEC" -disable-auto-cleanup -n 4 "$KILL" exit
check_survivors refused_connection 'cannot connect to rank 3 after 5 attempts.*Connection refused (errno 111)'

# ---- two hosts made of network namespaces ----
unset FERRY_METHODS FERRY_TCP_IF
ns_setup() {
    local id=$$
    NS_A=ferry-tcp-$id-a
    NS_B=ferry-tcp-$id-b
    ip netns add "$NS_A" 2>"$TMP/ns.err" || { NS_A= NS_B=; return 1; }
    ip netns add "$NS_B" 2>>"$TMP/ns.err" || return 1
    ip link add "fta$id" type veth peer name "ftb$id" 2>>"$TMP/ns.err" || return 1
    ip link set "fta$id" netns "$NS_A" && ip link set "ftb$id" netns "$NS_B" || return 1
    # The hosts' subnet (IPv4 and IPv6) exists only on this veth pair.
    ip -n "$NS_A" addr add 10.201.0.1/24 dev "fta$id" &&
        ip -n "$NS_B" addr add 10.201.0.2/24 dev "ftb$id" &&
        ip -n "$NS_A" addr add fd77:201::1/64 dev "fta$id" nodad &&
        ip -n "$NS_B" addr add fd77:201::2/64 dev "ftb$id" nodad || return 1
    # Addresses no route leads to from the other namespace (for the unreachable check).
    ip -n "$NS_A" addr add 10.202.1.1/32 dev lo && ip -n "$NS_B" addr add 10.202.2.1/32 dev lo ||
        return 1
    # An address of host B that host A's packets to vanish on the way (for the connect
    # timeout): A routes 10.203.0.0/24 into a veth whose other end is down, with a fixed
    # neighbour entry so no ARP failure ends the wait first.
    ip -n "$NS_A" link add "ftc$id" type veth peer name "ftd$id" 2>>"$TMP/ns.err" &&
        ip -n "$NS_A" link set "ftc$id" up && ip -n "$NS_A" addr add 10.203.1.1/32 dev lo &&
        ip -n "$NS_A" route add 10.203.0.0/24 dev "ftc$id" &&
        ip -n "$NS_A" neigh add 10.203.0.2 lladdr 02:00:00:00:00:01 dev "ftc$id" nud permanent &&
        ip -n "$NS_B" addr add 10.203.0.2/32 dev lo || return 1
    ip -n "$NS_A" link set lo up && ip -n "$NS_B" link set lo up &&
        ip -n "$NS_A" link set "fta$id" up && ip -n "$NS_B" link set "ftb$id" up
}

if ! ns_setup; then
    why="cannot create network namespaces ($(show "$TMP/ns.err")); needs root and ip netns"
    for c in ours_exec_tcp ours_ssh_shm_and_tcp ours_ipv6 ours_killed_remote_rank \
        ours_unreachable ours_connect_timeout ours_connect_timeout_long \
        ours_vanished_host_keepalive hydra_launcher_exec hydra_bootstrap_exec; do
        skip "$c" "$why"
    done
else
    NSRUN=(ip netns exec "$NS_A") # the launcher runs on host A
    # 4 ranks on 2 hosts, tcp everywhere; `ip netns exec` starts the ranks (exec style).
    # The namespaces share a host name, so peers on the other host look local and tcp first
    # tries their loopback address, which reaches the wrong namespace: refused or another
    # process (whose handshake says so), then the veth address.
    run 120 "${NSRUN[@]}" env FERRY_METHODS=tcp FERRY_VERBOSE=2 "$MPIEXEC" -hosts "$NS_A:2,$NS_B:2" \
        -launcher-exec "ip netns exec" "$EXCHANGE" 1
    if no_errors && grep -q 'rank 0: tcp connection to rank 2 up' "$ERR"; then
        pass ours_exec_tcp
    else
        fail ours_exec_tcp "$(details)"
    fi

    # The same with nshost (ssh style, and each namespace gets its own host name): ranks on
    # one host use shm, across hosts tcp.
    check_mix() { # NAME
        if no_errors && grep -q 'rank 0 reaches rank 1 by shm' "$ERR" &&
            grep -q 'rank 0 reaches rank 2 by tcp' "$ERR" &&
            grep -q 'rank 3 reaches rank 1 by tcp' "$ERR" &&
            grep -q 'rank 3 reaches rank 2 by shm' "$ERR"; then
            pass "$1"
        else
            fail "$1" "$(details)"
        fi
    }
    run 120 "${NSRUN[@]}" env FERRY_VERBOSE=1 "$MPIEXEC" -hosts "$NS_A,$NS_B" -ppn 2 \
        -launcher ssh -launcher-exec "$NSHOST" "$EXCHANGE" 1
    check_mix ours_ssh_shm_and_tcp

    run 120 "${NSRUN[@]}" env FERRY_METHODS=tcp FERRY_TCP_IF=fd77:201::/64 FERRY_VERBOSE=2 "$MPIEXEC" \
        -hosts "$NS_A,$NS_B" -launcher-exec "$NSHOST" "$EXCHANGE" 1
    # Ranks of different hosts keep the system's congestion control (FERRY_TCP_CONGESTION=auto).
    ns_cc=$("${NSRUN[@]}" cat /proc/sys/net/ipv4/tcp_congestion_control)
    if no_errors && grep -q "tcp connection to rank 1 up (we connected to \[fd77:201::2\]:[0-9]*; congestion control $ns_cc)" "$ERR"; then
        pass ours_ipv6
    else
        fail ours_ipv6 "$(details)"
    fi

    # The victim (rank 3) is on the other host than rank 0.
    run 60 "${NSRUN[@]}" env FERRY_METHODS=tcp TCP_KILL_ERRORS=return "$MPIEXEC" -disable-auto-cleanup \
        -hosts "$NS_A,$NS_B" -ppn 2 -launcher-exec "$NSHOST" "$KILL" kill
    check_survivors ours_killed_remote_rank 'lost its connection to rank 3: .*\(EOF\|errno\)'

    # Each rank publishes only an address the other host has no route to.
    run 60 "${NSRUN[@]}" env FERRY_METHODS=tcp FERRY_TCP_IF=10.202.0.0/16 FERRY_TCP_CONNECT_RETRIES=2 \
        "$MPIEXEC" -hosts "$NS_A,$NS_B" -launcher-exec "$NSHOST" "$EXCHANGE" 1
    if [ $rc != 0 ] && grep -q 'cannot connect to rank [01] after 3 attempts over 1 address; last: 10.202.[12].1:[0-9]*: Network is unreachable (errno 101)' "$ERR" &&
        within 15; then
        pass ours_unreachable
    else
        fail ours_unreachable "$(details)"
    fi

    # FERRY_TCP_CONNECT_TIMEOUT: rank 0 (host A) sends to rank 1 (host B), whose only address
    # A's packets never reach; rank 1 only receives, so it never connects.  Each attempt ends
    # after the timeout: 2 attempts of 300 ms end the job within seconds, 1 of 3000 ms lasts
    # at least 3 s.
    timeout_msg() { # MS ATTEMPTS
        grep -q "cannot connect to rank 1 after $2 attempts\? over 1 address; last: 10.203.0.2:[0-9]*: no answer within FERRY_TCP_CONNECT_TIMEOUT=$1 ms" "$ERR"
    }
    run 60 "${NSRUN[@]}" env FERRY_METHODS=tcp FERRY_TCP_IF=10.203.0.0/16 FERRY_TCP_CONNECT_TIMEOUT=300 \
        FERRY_TCP_CONNECT_RETRIES=1 "$MPIEXEC" -hosts "$NS_A,$NS_B" -launcher-exec "$NSHOST" \
        "$TRAFFIC" 1 8
    if [ $rc != 0 ] && timeout_msg 300 2 && within 20; then
        pass ours_connect_timeout
    else
        fail ours_connect_timeout "$(details)"
    fi
    run 60 "${NSRUN[@]}" env FERRY_METHODS=tcp FERRY_TCP_IF=10.203.0.0/16 FERRY_TCP_CONNECT_TIMEOUT=3000 \
        FERRY_TCP_CONNECT_RETRIES=0 "$MPIEXEC" -hosts "$NS_A,$NS_B" -launcher-exec "$NSHOST" \
        "$TRAFFIC" 1 8
    if [ $rc != 0 ] && timeout_msg 3000 1 && ! within 3; then
        pass ours_connect_timeout_long
    else
        fail ours_connect_timeout_long "$(details)"
    fi

    # Host B vanishes (its link goes down; nothing is closed): rank 0, waiting for rank 1,
    # must get an error from the unanswered keepalive probes within about
    # FERRY_TCP_KEEPALIVE=3 seconds (1 s idle, 4 probes 1 s apart: ~5 s), not hang.
    rm -f "$TMP/vanish_ready"
    t0=$(date +%s.%N)
    "${NSRUN[@]}" env FERRY_METHODS=tcp FERRY_TCP_KEEPALIVE=3 VANISH_READY="$TMP/vanish_ready" \
        MPIEXEC_TIMEOUT=60 "$MPIEXEC" -disable-auto-cleanup -hosts "$NS_A,$NS_B" \
        -launcher-exec "ip netns exec" "$VANISH" 12 >"$OUT" 2>"$ERR" &
    vpid=$!
    for _ in $(seq 300); do [ -e "$TMP/vanish_ready" ] && break; sleep 0.1; done
    ip -n "$NS_B" link set "ftb$$" down
    wait $vpid
    rc=$?
    ip -n "$NS_B" link set "ftb$$" up
    secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)")
    got=$(sed -n 's/^tcp_vanish: after \([0-9.]*\) s: .*/\1/p' "$OUT")
    if grep -q '^ No Errors$' "$OUT" && grep -q 'Connection timed out.*FERRY_TCP_KEEPALIVE' "$OUT" &&
        [ -n "$got" ] && [ "$(echo "$got < 15" | bc)" = 1 ]; then
        pass ours_vanished_host_keepalive
    else
        fail ours_vanished_host_keepalive "$(details)"
    fi

    if command -v mpiexec.hydra >/dev/null 2>&1; then
        # Hydra's ssh launcher runs its proxy through nshost; the proxies reach mpiexec.hydra
        # on host A's veth address.
        run 120 "${NSRUN[@]}" env FERRY_VERBOSE=1 mpiexec.hydra -hosts "$NS_A,$NS_B" \
            -ppn 2 -launcher ssh -launcher-exec "$NSHOST" -localhost 10.201.0.1 "$EXCHANGE" 1
        check_mix hydra_launcher_exec
        run 120 "${NSRUN[@]}" env FERRY_METHODS=tcp mpiexec.hydra -hosts "$NS_A:2,$NS_B:2" -n 4 \
            -bootstrap ssh -bootstrap-exec "$NSHOST" -localhost 10.201.0.1 "$EXCHANGE" 1
        if no_errors; then pass hydra_bootstrap_exec; else fail hydra_bootstrap_exec "$(details)"; fi
    else
        skip hydra_launcher_exec "mpiexec.hydra not installed"
        skip hydra_bootstrap_exec "mpiexec.hydra not installed"
    fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
