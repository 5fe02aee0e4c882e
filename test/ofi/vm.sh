#!/usr/bin/env bash
# vm.sh: the ofi method over libfabric's verbs provider (FI_PROVIDER="verbs;ofi_rxm") on the
# Soft-RoCE device rxe0, inside the rxe-run VM (test/ofi/run.sh starts it): the small list
# test/ofi/vm-testlist over FERRY_METHODS=ofi; with OFI_VM_FULL=1 verbs' subset list
# (test/verbs/testlist) instead, and its marked lines again with every message by rendezvous
# read (fi_read over RDMA READ).  FI_UNIVERSE_SIZE=16: rxm sizes its CQs by it, and rxe's CQ
# limit does not fit the default.
#
# usage (in the VM, from the top of the tree): test/ofi/vm.sh PREFIX
# Prints the runtests lines and one summary.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=${1:?usage: vm.sh PREFIX}
work=$top/_build/ofi-vm # the VM writes back only under the current directory
# FI_OFI_RXM_USE_SRX is left to Ferry, which sets it to 1 here (rxm's receive buffers on one
# shared receive context): with rxm's default (one receive queue per connection) libfabric 1.17
# crashes now and then when a peer closes while its last messages are still being handled
# (doc/methods/ofi.md "A crash inside rxm at finalize"); the wait check below sees Ferry's line.
unset FI_OFI_RXM_USE_SRX
export FERRY_METHODS=ofi FI_PROVIDER="verbs;ofi_rxm" FI_UNIVERSE_SIZE=16
passed=0 failed=0 skipped=0

if ! fi_info -p "verbs;ofi_rxm" -t FI_EP_RDM >"$work/fi_info.log" 2>&1; then
    echo "FAIL verbs_rxm_provider: fi_info finds no verbs;ofi_rxm: $(head -c 300 "$work/fi_info.log")"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
echo "PASS verbs_rxm_provider"
passed=1

# list LOG VARIANTS-ARGS...: runs the list, adds its counts
list() {
    local log=$1
    shift
    MPICC=$prefix/bin/mpicc MPIEXEC=$prefix/bin/mpiexec TESTDIR=$work/list REUSE_BUILT=1 \
        TIMEOUT=240 bash "$top/test/mpi/runtests" -list "$vmlist" "$@" \
        >"$log" 2>&1
    grep -E '^(PASS|FAIL|SKIP)' "$log"
    local line p f s
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "FAIL ofi_verbs_list: no summary from runtests: $(tail -n 5 "$log" | tr '\n' '|')"
        failed=$((failed + 1))
        return
    fi
    read -r p _ f _ s _ <<<"$(sed -E 's/,//g' <<<"$line")"
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
}
printf '%s\n' "FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read expect=ofi_eager_bytes=0,ofi_rndv_write=0,ofi_rndv_pipeline=ofi_rndv_fallback ran=ofi_rndv_read>0,ofi_read_pieces>0" \
    >"$work/variants"
vmlist=$top/test/ofi/vm-testlist
if [ "${OFI_VM_FULL:-0}" = 1 ]; then
    vmlist=$top/test/verbs/testlist
    VARIANTS_FILE=$work/variants list "$work/list.log" -variants
else
    list "$work/list.log"
fi
# An idle wait with no spinning (every receive of sendrecv_sizes waits on Soft-RoCE): it must
# complete, sleeping on the CQ's descriptor when verbs;ofi_rxm gives one (doc/methods/ofi.md
# "Waiting"), polling otherwise; the line says which.
rm -f "$work"/wstats.*
FERRY_POLL_SPINS=0 FERRY_VERBOSE=1 FERRY_STATS_FILE="$work/wstats" timeout -k 5 240 \
    "$prefix/bin/mpiexec" -n 2 "$work/list/sendrecv_sizes" >"$work/wait.out" 2>"$work/wait.err"
rc=$?
wfd=$(sed -n 's/.*rank 0: ofi on .*, wait fd \([^,]*\).*$/\1/p' "$work/wait.err")
sleeps=$(cat "$work"/wstats.* 2>/dev/null | awk '$1 == "ofi_wait_sleeps" { s += $2 } END { print s + 0 }')
yields=$(cat "$work"/wstats.* 2>/dev/null | awk '$1 == "progress_yields" { s += $2 } END { print s + 0 }')
if [ $rc = 0 ] && grep -q '^ No Errors$' "$work/wait.out" &&
    { { [ "$wfd" = yes ] && [ "$sleeps" -gt 0 ]; } ||
        { [ "$wfd" = "no (polled)" ] && [ "$sleeps" = 0 ] && [ "$yields" -gt 0 ]; }; }; then
    echo "PASS wait_verbs_rxm (wait fd $wfd: ofi_wait_sleeps=$sleeps progress_yields=$yields)"
    passed=$((passed + 1))
else
    echo "FAIL wait_verbs_rxm: rc=$rc wait fd '$wfd' ofi_wait_sleeps=$sleeps progress_yields=$yields: $(tail -n 5 "$work/wait.err" | tr '\n' '|')"
    failed=$((failed + 1))
fi
# Ferry asked rxm for its shared receive context (ofi_info.c rxm_shared_rx_default).
if grep -q 'rank 0: ofi on verbs;ofi_rxm.*FI_OFI_RXM_USE_SRX=1 set by Ferry' "$work/wait.err"; then
    echo "PASS rxm_shared_rx_by_ferry"
    passed=$((passed + 1))
else
    echo "FAIL rxm_shared_rx_by_ferry: no 'FI_OFI_RXM_USE_SRX=1 set by Ferry' in: $(grep 'ofi on' "$work/wait.err" | head -n 1)"
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
