# vm_part.sh: runs a test script in the Soft-RoCE VM (rxe-run) and adds its results to the
# caller's counts.  Sourced by test/verbs/run.sh and test/ofi/run.sh, which define top, rxe,
# pass/fail/skip and the counters passed/failed/skipped.
#
# The script's output goes to a file in the tree (the VM writes the tree back to the host), not
# through the VM's console: under load the console lost lines (PASS lines were missing while the
# script's summary counted them, so the part disagreed with itself and was counted as broken).
#
#   vm_part NAME SECONDS LOG COMMAND...
# Prints the script's PASS/FAIL/SKIP lines; LOG gets rxe-run's own output, then the script's.
# Returns 1 (after a FAIL NAME line) when the script left no summary line.
vm_part() {
    local name=$1 limit=$2 log=$3
    shift 3
    local out=$log.out line vrc p f s
    rm -f "$out"
    (cd "$top" && RXE_VM_APPEND=${RXE_VM_APPEND:-no_timer_check} "$rxe" --timeout "$limit" -- \
        sh -c '"$@" >"$0" 2>&1' "$out" "$@") >"$log" 2>&1
    vrc=$?
    [ -f "$out" ] && cat "$out" >>"$log"
    grep -E '^(PASS|FAIL|SKIP)' "$out" 2>/dev/null
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" 2>/dev/null | tail -n 1)
    if [ -z "$line" ]; then
        local why="exit status $vrc"
        [ $vrc = 124 ] && why="timed out after $limit s"
        [ $vrc = 125 ] && why="the VM could not be prepared or booted"
        fail "$name" "$why, no summary: $(tail -n 8 "$log" | tr '\n' '|' | cut -c1-600)"
        return 1
    fi
    read -r p _ f _ s _ <<<"$(sed -E 's/,//g' <<<"$line")"
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
    [ $vrc = 0 ] || [ "$f" -gt 0 ] || fail "$name" "exit status $vrc with no failure reported"
    return 0
}
