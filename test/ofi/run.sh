#!/usr/bin/env bash
# run.sh: the ofi method (libfabric) end to end, besides the test list (parts ofi-tcp and ofi-shm
# of test/run-all.sh): no provider (quiet, one verbose line), FI_PROVIDER="tcp;ofi_rxm" spelled
# out, a job mixing Ferry's shm (inside a node) with ofi (between nodes), a completion error
# with the provider's text, lost peers over the tcp and shm providers (and one that looks off the
# node, found by the keepalive probe while the survivor only waits or sends to it), a stranger's
# message, a crash's signal, MPI order past rxm's eager size, a stale shm region under a rank's
# pid, an idle wait with and without the CQ's wait descriptor; then a small list and a wait check over
# FI_PROVIDER="verbs;ofi_rxm" in the Soft-RoCE VM (test/ofi/vm.sh; OFI_VM_FULL=1
# runs verbs' subset list and a read variant instead; RXE_RUN names the runner, RXE_TIMEOUT
# bounds it).
#
#   test/ofi/run.sh PREFIX        (PREFIX: an installed Ferry inside the tree, for the VM)
#
# Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped"; every check is skipped, with
# the reason, when Ferry was built without libfabric.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=${1:-}
MPICC=${MPICC:-${prefix:+$prefix/bin/}mpicc}
MPIEXEC=${MPIEXEC:-${prefix:+$prefix/bin/}mpiexec}
INFO=${prefix:+$prefix/bin/}ferry_info

TMP=$(mktemp -d "${TMPDIR:-/tmp}/ferry-ofi.XXXXXX")
OUT=$TMP/out
ERR=$TMP/err
trap 'rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
. "$here/../checks.sh"

run() {
    local limit=$1 t0
    shift
    t0=$(date +%s)
    rm -f "$TMP"/stats.*
    timeout -k 5 "$limit" "$@" >"$OUT" 2>"$ERR"
    rc=$?
    secs=$(($(date +%s) - t0))
}
counter() { cat "$TMP"/stats.* 2>/dev/null | awk -v n="$1" '$1 == n { s += $2 } END { print s + 0 }'; }
# The shm regions (/dev/shm/<pid>:<uid>:<n>) of the ranks mpiexec reported killed or exited
# without finalizing, which libfabric's shm provider leaves behind: removed once those
# processes are gone (doc/methods/ofi.md "Shared memory regions left behind").
remove_dead_regions() {
    local pid
    for pid in $(sed -n 's/^mpiexec: rank [0-9]* (pid \([0-9]*\).*/\1/p' "$ERR" | sort -u); do
        kill -0 "$pid" 2>/dev/null || rm -f /dev/shm/"$pid":[0-9]*:[0-9]*
    done
}

checks="no_provider_quiet no_provider_verbose_one_line ofi_only_no_provider_fails
    tcp_rxm_spelled_out shm_and_ofi_two_nodes completion_error_reported peer_lost_tcp
    peer_lost_shm peer_lost_remote_tcp peer_lost_remote_tcp_closed send_to_lost_remote_tcp
    stranger_dropped crash_keeps_signal order_beyond_rxm_eager
    shm_stale_region_removed wait_fd_tcp wait_polled_shm"
if ! "$INFO" --parsable 2>/dev/null | grep -q '^method	ofi	'; then
    for c in $checks; do skip "$c" "Ferry was built without libfabric (configure: ofi method no)"; done
    summary
fi

for prog in tcp/tcp_exchange harden/peer_lost errors/hello errors/segv_rank2 ofi/ofi_stranger_victim; do
    # shellcheck disable=SC2086
    if ! $MPICC -O2 -Wall -o "$TMP/${prog#*/}" "$here/../$prog.c" >"$TMP/build.log" 2>&1; then
        fail "build_${prog#*/}" "$(show "$TMP/build.log")"
        summary
    fi
done
for prog in mpi/order_nonovertaking mpi/probe_iprobe variables/traffic; do
    if ! $MPICC -O1 -Wall -I"$here/../mpi" -o "$TMP/${prog#*/}" "$here/../$prog.c" \
        "$here/../mpi/mtest.c" >"$TMP/build.log" 2>&1; then
        fail "build_${prog#*/}" "$(show "$TMP/build.log")"
        summary
    fi
done
if ! ${CC:-cc} -O2 -Wall -o "$TMP/ofi_stranger" "$here/ofi_stranger.c" -lfabric \
    >"$TMP/build.log" 2>&1; then
    fail build_ofi_stranger "$(show "$TMP/build.log")"
    summary
fi
EXCHANGE=$TMP/tcp_exchange

# ---- no usable provider: ofi reaches nobody, says nothing, the job runs on shm ----
run 120 env FI_PROVIDER=nosuch FERRY_METHODS=shm,ofi "$MPIEXEC" -n 2 "$EXCHANGE" 1
if no_errors && [ ! -s "$ERR" ]; then
    pass no_provider_quiet
else
    fail no_provider_quiet "$(details)"
fi
run 120 env FI_PROVIDER=nosuch FERRY_METHODS=shm,ofi FERRY_VERBOSE=1 "$MPIEXEC" -n 2 "$EXCHANGE" 1
n=$(grep -c 'ofi unavailable: fi_getinfo found no provider .*(FI_PROVIDER=nosuch): No data available' "$ERR")
if no_errors && [ "$n" = 2 ] && ! grep -q 'by ofi' "$ERR"; then
    pass no_provider_verbose_one_line
else
    fail no_provider_verbose_one_line "$n lines; $(details)"
fi
# ofi alone without a provider: no method reaches the peer, a clear error, no hang.  (A
# barrier: tcp_exchange's MPI_Waitall over receives from and sends to a peer that nothing
# reaches hangs, on every method: doc/methods/ofi.md.)
run 120 env FI_PROVIDER=nosuch FERRY_METHODS=ofi "$MPIEXEC" -n 2 "$TMP/hello"
if [ $rc != 0 ] && [ $rc != 124 ] && grep -q 'no method reaches rank [01] (methods in use: self,ofi' "$ERR"; then
    pass ofi_only_no_provider_fails
else
    fail ofi_only_no_provider_fails "$(details)"
fi

# ---- the provider named as libfabric lists it ----
run 240 env FI_PROVIDER="tcp;ofi_rxm" FERRY_METHODS=ofi FERRY_VERBOSE=1 \
    FERRY_STATS_FILE="$TMP/stats" "$MPIEXEC" -n 4 "$EXCHANGE" 1
if no_errors && grep -q 'rank 0: ofi on tcp;ofi_rxm' "$ERR" &&
    grep -q 'rank 3 reaches rank 0 by ofi' "$ERR" && [ "$(counter ofi_rndv_read)" -gt 0 ] &&
    [ "$(counter ofi_injects)" -gt 0 ] && [ "$(counter ofi_sends)" -gt 0 ]; then
    pass tcp_rxm_spelled_out
else
    fail tcp_rxm_spelled_out "$(details)"
fi

# ---- Ferry's shm inside a node, ofi between nodes, one job ----
# fakehost runs each rank here under another host name, so mpiexec's node map puts ranks 0,1
# on one node and 2,3 on the other; every rank exchanges with every other, wildcards included.
run 300 env FERRY_METHODS=shm,ofi FI_PROVIDER=tcp FERRY_VERBOSE=1 FERRY_STATS_FILE="$TMP/stats" \
    "$MPIEXEC" -hosts nodeA,nodeB -ppn 2 -launcher ssh -launcher-exec "$here/../verbs/fakehost" \
    "$EXCHANGE" 1
if no_errors && grep -q 'rank 0 reaches rank 1 by shm' "$ERR" &&
    grep -q 'rank 0 reaches rank 2 by ofi' "$ERR" && grep -q 'rank 3 reaches rank 1 by ofi' "$ERR" &&
    [ "$(counter shm_eager_sent)" -gt 0 ] && [ "$(counter ofi_eager_sent)" -gt 0 ] &&
    [ "$(counter ofi_rndv_read)" -gt 0 ]; then
    pass shm_and_ofi_two_nodes
else
    fail shm_and_ofi_two_nodes "$(details)"
fi

# ---- a completion error: fi_cq_readerr's error, the provider's text, peer and operation ----
run 120 env FERRY_METHODS=ofi FI_PROVIDER=tcp FERRY_EAGER_LIMIT=0 FERRY_OFI_FAULT=rkey \
    "$MPIEXEC" -n 2 "$EXCHANGE" 1
if [ $rc != 0 ] && [ $rc != 124 ] &&
    grep -q 'ofi: fi_read from rank [01] on tcp;ofi_rxm failed: .*(provider: ' "$ERR"; then
    pass completion_error_reported
else
    fail completion_error_reported "$(details)"
fi

# ---- a rank dies: the survivor's receives fail naming it, no hang (test/harden/peer_lost.c) ----
for p in tcp shm; do
    run 120 env FERRY_METHODS=ofi FI_PROVIDER=$p "$MPIEXEC" -disable-auto-cleanup -n 2 \
        "$TMP/peer_lost"
    remove_dead_regions
    if grep -q '^ No Errors$' "$OUT" && [ "$(grep -c 'failed after' "$OUT")" = 5 ]; then
        pass "peer_lost_$p"
    else
        fail "peer_lost_$p" "$(details)"
    fi
done

# ---- a peer off this node dies while the survivor only waits in MPI_Recv for it: found by the
# keepalive probe (doc/methods/ofi.md "Errors").  FERRY_OFI_LIVENESS_MS=0 turns the pidfd watch
# off, so rank 1 is to rank 0 what a peer on another node is; with FERRY_OFI_KEEPALIVE_MS=0 too
# rank 0 waits until the timeout.  The first probe goes out about when rank 1 dies: it fails on
# the broken connection, or, if rxm has closed that already, is refused until the third round
# (the next check forces that path). ----
run 90 env FERRY_METHODS=ofi FI_PROVIDER=tcp FERRY_OFI_LIVENESS_MS=0 "$MPIEXEC" \
    -disable-auto-cleanup -n 2 "$TMP/peer_lost" silent
if [ "$rc" != 124 ] && grep -q '^ No Errors$' "$OUT" && [ "$(grep -c 'failed after' "$OUT")" = 2 ] &&
    grep -q 'keepalive probe' "$OUT"; then
    pass peer_lost_remote_tcp
    sed -n 's/^peer_lost: \(MPI_Recv(1) blocked before the death failed after [0-9.]* s\).*/    \1/p' "$OUT"
else
    fail peer_lost_remote_tcp "$(details)"
fi
# The same with probes every 3 s: rxm has closed the connection when the first goes out, so each
# send only starts a connection the dead peer refuses (-FI_EAGAIN, no error ever); the third
# refused round loses the peer (a hang in 1 run of 10 before that rule).
run 90 env FERRY_METHODS=ofi FI_PROVIDER=tcp FERRY_OFI_LIVENESS_MS=0 FERRY_OFI_KEEPALIVE_MS=3000 \
    "$MPIEXEC" -disable-auto-cleanup -n 2 "$TMP/peer_lost" silent
if [ "$rc" != 124 ] && grep -q '^ No Errors$' "$OUT" && [ "$(grep -c 'failed after' "$OUT")" = 2 ] &&
    grep -q 'keepalive probe .*refused (-FI_EAGAIN) 3 rounds in a row' "$OUT"; then
    pass peer_lost_remote_tcp_closed
else
    fail peer_lost_remote_tcp_closed "$(details)"
fi
# A send to that peer, once rxm has closed the connection: the provider refuses it for ever, the
# core keeps it parked, and the refused probes end it with an error (main before c50dd5c waited
# until killed).
run 90 env FERRY_METHODS=ofi FI_PROVIDER=tcp FERRY_OFI_LIVENESS_MS=0 FERRY_OFI_KEEPALIVE_MS=3000 \
    "$MPIEXEC" -disable-auto-cleanup -n 2 "$TMP/peer_lost" send
if [ "$rc" != 124 ] && grep -q '^ No Errors$' "$OUT" &&
    grep -q '^peer_lost: MPI_Send(1) after the death failed after .*refused (-FI_EAGAIN)' "$OUT"; then
    pass send_to_lost_remote_tcp
else
    fail send_to_lost_remote_tcp "$(details)"
fi

# ---- a stranger's message (no token) is dropped and counted; the job's traffic goes on ----
# The victim job prints rank 0's endpoint name; the stranger (a plain libfabric program, not
# a rank) sends it messages claiming to come from rank 1, with a wrong token and with none.
victim_err=$TMP/victim.err
: >"$victim_err"
env FERRY_METHODS=ofi FI_PROVIDER=tcp FERRY_STATS_FILE="$TMP/vstats" OFI_VICTIM_READY="$TMP/ready" \
    OFI_VICTIM_GO="$TMP/go" timeout -k 5 120 "$MPIEXEC" -n 2 "$TMP/ofi_stranger_victim" \
    >"$OUT" 2>"$victim_err" &
victim=$!
for _ in $(seq 600); do [ -s "$TMP/ready" ] && break; sleep 0.1; done
FI_PROVIDER=tcp timeout 30 "$TMP/ofi_stranger" "$(cat "$TMP/ready" 2>/dev/null)" >"$TMP/stranger.out" 2>&1
srv=$?
touch "$TMP/go"
wait $victim
rc=$?
strangers=$(cat "$TMP"/vstats.* 2>/dev/null | awk '$1 == "ofi_strangers" { s += $2 } END { print s + 0 }')
if [ $srv = 0 ] && [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT" && [ "$strangers" -ge 3 ]; then
    secs=0 pass stranger_dropped
else
    fail stranger_dropped "stranger rc=$srv '$(show "$TMP/stranger.out")' victim rc=$rc strangers=$strangers stdout='$(show "$OUT")' stderr='$(show "$victim_err")'"
fi

# ---- a rank that crashes while ofi is in use dies by its signal (mpiexec says which) ----
# libfabric's libinfinipath replaces the handlers of SIGSEGV, SIGTERM ... with one that writes a
# .btr file and exits 1; the method restores them after opening libfabric (ofi_dl.c).
mkdir -p "$TMP/crash"
run 120 env -C "$TMP/crash" FERRY_METHODS=ofi FI_PROVIDER=shm "$MPIEXEC" -n 4 "$TMP/segv_rank2"
remove_dead_regions
if [ $rc = 11 ] && grep -q 'rank 2 .*killed by signal 11' "$ERR" &&
    [ -z "$(ls "$TMP/crash")" ]; then
    pass crash_keeps_signal
else
    fail crash_keeps_signal "files left: '$(ls "$TMP/crash" | tr '\n' ' ')' $(details)"
fi

# ---- MPI order over rxm past its own eager size ----
# With FI_OFI_RXM_BUFFER_SIZE below FERRY_OFI_BUF_SIZE, rxm sends Ferry's 4-32 KiB messages by
# its own rendezvous and completes later small ones first; the method must hand them to the
# core in sending order (its sequence numbers), so MPI's order holds, and ofi_held shows that
# messages did arrive early.  Without them the core stops the job ("the method broke MPI
# ordering").
order_env=(FERRY_METHODS=ofi FI_PROVIDER=tcp FI_OFI_RXM_BUFFER_SIZE=4096 FERRY_OFI_BUF_SIZE=32768)
run 300 env "${order_env[@]}" FERRY_STATS_FILE="$TMP/stats" "$MPIEXEC" -n 2 \
    "$TMP/order_nonovertaking" dense
held=$(counter ofi_held) held_max=$(counter ofi_held_max)
if no_errors && run 300 env "${order_env[@]}" FERRY_STATS_FILE="$TMP/stats" "$MPIEXEC" -n 2 \
    "$TMP/probe_iprobe" && no_errors && [ "$held" -gt 0 ]; then
    pass order_beyond_rxm_eager
    echo "     (order_nonovertaking dense: ofi_held=$held ofi_held_max=$held_max)"
else
    fail order_beyond_rxm_eager "ofi_held=$held; $(details)"
fi

# ---- a shm region left by a killed process whose pid a rank now has ----
# The wrapper leaves /dev/shm/<its pid>:<uid>:0 as a killed rank would have, then execs the
# rank under the same pid: libfabric's fi_enable would fail with EBUSY on that name, so the
# method removes it first (and counts it).
cat >"$TMP/stale.sh" <<'EOF2'
#!/bin/sh
truncate -s 16M "/dev/shm/$$:$(id -u):0" && exec "$@"
EOF2
chmod +x "$TMP/stale.sh"
run 120 env FERRY_METHODS=ofi FI_PROVIDER=shm FERRY_VERBOSE=1 FERRY_STATS_FILE="$TMP/stats" \
    "$MPIEXEC" -n 2 "$TMP/stale.sh" "$TMP/hello"
n=$(grep -c 'ofi: removed /dev/shm/[0-9]*:[0-9]*:0, a shm region a killed process' "$ERR")
if no_errors && [ "$n" = 2 ] && [ "$(counter ofi_shm_stale_removed)" = 2 ]; then
    pass shm_stale_region_removed
else
    fail shm_stale_region_removed "$n lines; $(details)"
fi

# ---- an idle wait sleeps on the CQ's descriptor where the provider has one ----
# Rank 1 waits about 1 s in MPI_Recv (eager then rendezvous messages follow) with no spinning:
# over tcp;ofi_rxm (FI_WAIT_FD) it sleeps in the descriptor (ofi_wait_sleeps), over shm
# (libfabric 1.17's shm has no wait object) it is polled; both complete, no hang.
for p in tcp shm; do
    run 120 env FERRY_METHODS=ofi FI_PROVIDER=$p FERRY_POLL_SPINS=0 FERRY_VERBOSE=1 \
        FERRY_STATS_FILE="$TMP/stats" "$MPIEXEC" -n 2 "$TMP/traffic" 4 100000 1
    sleeps=$(counter ofi_wait_sleeps) yields=$(counter progress_yields)
    if [ $p = tcp ]; then
        name=wait_fd_tcp want='wait fd yes'
        ok=$([ "$sleeps" -gt 0 ] && echo 1)
    else
        name=wait_polled_shm want='wait fd no (polled)'
        ok=$([ "$sleeps" = 0 ] && [ "$yields" -gt 0 ] && echo 1)
    fi
    if no_errors && [ "$(grep -c "rank [01]: ofi on .*, $want" "$ERR")" = 2 ] && [ "$ok" = 1 ]; then
        pass $name
    else
        fail $name "ofi_wait_sleeps=$sleeps progress_yields=$yields; $(details)"
    fi
done

# ---- verbs;ofi_rxm on Soft-RoCE, in the rxe-run VM (test/ofi/vm.sh) ----
# The list's programs are built here (a compiler under emulation is slow) and reused there.
top=$(cd "$here/../.." && pwd)
rxe=${RXE_RUN:-}
for c in "$top/../shared/tools/rxe-run" /work/shared/tools/rxe-run; do
    [ -z "$rxe" ] && [ -x "$c" ] && rxe=$c
done
pfx=$(cd "$prefix" 2>/dev/null && pwd)
if [ -z "$rxe" ] || [ ! -x "$rxe" ]; then
    skip ofi_verbs_vm "no Soft-RoCE VM runner (rxe-run; set RXE_RUN)"
elif [ -z "$pfx" ] || [ "${pfx#"$top"/}" = "$pfx" ]; then
    skip ofi_verbs_vm "PREFIX $prefix is outside the tree $top, which is all the VM can see"
else
    vmwork=$top/_build/ofi-vm
    mkdir -p "$vmwork/list"
    vmlist=$top/test/ofi/vm-testlist
    [ "${OFI_VM_FULL:-0}" = 1 ] && vmlist=$top/test/verbs/testlist
    for prog in $(sed -e 's/#.*//' "$vmlist" | awk 'NF { print $1 }' | sort -u); do
        "$MPICC" -O1 -g -I"$top/test/mpi" -o "$vmwork/list/$prog" "$top/test/mpi/$prog.c" \
            "$top/test/mpi/mtest.c" >"$TMP/build.log" 2>&1 ||
            { fail "build_vm_$prog" "$(show "$TMP/build.log")"; summary; }
    done
    t0=$(date +%s)
    . "$top/test/vm_part.sh"
    vm_part ofi_verbs_vm "${RXE_TIMEOUT:-1500}" "$vmwork/vm.log" env OFI_VM_FULL="${OFI_VM_FULL:-0}" \
        bash test/ofi/vm.sh "$pfx"
    echo "(the VM part took $(($(date +%s) - t0)) s; its log: $vmwork/vm.log)"
fi

summary
