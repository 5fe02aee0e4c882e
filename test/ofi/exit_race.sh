#!/usr/bin/env bash
# exit_race.sh: runs test/ofi/ofi_exit_race (plain libfabric, no Ferry) ROUNDS times: one receiver
# and SENDERS senders that send COUNT messages each and close at once; counts the receiver's
# outcomes (all messages, messages missing, an error, killed by a signal).  Evidence for
# doc/methods/ofi.md "A crash inside rxm at finalize"; not a part of the suite.
#
#   test/ofi/exit_race.sh BINARY [ROUNDS [SENDERS [COUNT]]]    (FI_PROVIDER etc. from the caller)
set -u
# The program links libfabric, whose libinfinipath would turn a crash into exit 1 and a .btr file.
export IPATH_NO_BACKTRACE=1
bin=${1:?usage: exit_race.sh BINARY [ROUNDS [SENDERS [COUNT]]]}
rounds=${2:-20} senders=${3:-3} count=${4:-20}
ok=0 missing=0 error=0 crashed=0
for r in $(seq "$rounds"); do
    dir=$(mktemp -d "${TMPDIR:-/tmp}/exit_race.XXXXXX")
    "$bin" recv "$dir" "$count" "$senders" >"$dir/recv.out" 2>&1 &
    recv=$!
    for s in $(seq 0 $((senders - 1))); do
        "$bin" send "$dir" "$count" "$s" >"$dir/send.$s.out" 2>&1 &
    done
    wait $recv
    rc=$?
    wait
    case $rc in
    0) ok=$((ok + 1)) ;;
    2) missing=$((missing + 1)) ;;
    1) error=$((error + 1)); echo "round $r: error: $(tr '\n' '|' <"$dir/recv.out")" ;;
    *) crashed=$((crashed + 1)); echo "round $r: receiver exit status $rc (signal $((rc - 128)))" ;;
    esac
    rm -rf "$dir"
done
echo "exit_race: $rounds rounds, $senders senders x $count messages, FI_PROVIDER=${FI_PROVIDER:-} FI_OFI_RXM_USE_SRX=${FI_OFI_RXM_USE_SRX:-}: $ok complete, $missing missing messages, $error errors, $crashed crashed"
