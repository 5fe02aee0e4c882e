# counters.sh: judging a check by the counters a job's ranks wrote (FERRY_STATS_FILE=$tmp/c, one
# file $tmp/c.RANK each).  Sourced by test/variables/run.sh and test/methods/ptrace_vm.sh, which
# set tmp, rc (the job's exit status, its stdout in $tmp/out and stderr in $tmp/err) and the
# counts passed and failed.

# counter RANK NAME: the value rank RANK wrote for counter NAME (empty if none).
counter() { awk -v n="$2" '$1 == n { print $2 }' "$tmp/c.$1" 2>/dev/null; }
eq() { [ "$(counter "$1" "$2")" = "$3" ]; }
gt() {
    local v
    v=$(counter "$1" "$2")
    [ -n "$v" ] && [ "$v" -gt "$3" ]
}
# expect NAME TEST...: passes when the job ran clean (exit 0, " No Errors") and the shell TEST holds.
expect() {
    local name=$1
    shift
    if [ "$rc" = 0 ] && grep -qx ' No Errors' "$tmp/out" && "$@"; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name: rc=$rc; counters rank 0: $(tr '\n' ' ' <"$tmp/c.0" 2>/dev/null);" \
            "rank 1: $(tr '\n' ' ' <"$tmp/c.1" 2>/dev/null); stderr: $(head -c 600 "$tmp/err")"
        failed=$((failed + 1))
    fi
}
