# parts.sh: the accounting of test/run-all.sh (sourced by it and by test/runner_selftest.sh).
#
# A part is a program that runs some checks and prints, at the start of a line, one
# "PASS name", "FAIL name ..." or "SKIP name: reason" per check, then, as its last line,
# "N passed, N failed" or "N passed, N failed, N skipped", and exits 0 only if nothing failed.
#
#   part NAME SECONDS COMMAND [ARGS...]
#
# runs COMMAND (a program or script, not a shell function) with its output in $logs/NAME.log,
# killed after SECONDS.  A part is counted as broken (its PASS/FAIL/SKIP lines plus one failure
# naming the reason), whatever its last line says, when it
#   - exits non-zero without reporting a failure, or dies by a signal;
#   - runs longer than SECONDS;
#   - does not end with a summary line;
#   - has a summary that disagrees with its PASS/FAIL/SKIP lines (a skip or failure left out);
#   - printed a sanitizer or race report (AddressSanitizer, LeakSanitizer, UBSan, TSan).
# Otherwise its summary is counted as it is.
#
#   check NAME SECONDS COMMAND [ARGS...]
#
# is a part that is one check: it passes when COMMAND exits 0 within SECONDS.
#
# Both print the part's wall-clock seconds.  Totals are in $passed $failed $skipped, failed parts
# in ${failed_parts[@]}, and "name seconds" pairs in ${part_times[@]}.

passed=0 failed=0 skipped=0
failed_parts=()
part_times=()
logs=${logs:-$PWD/_test-logs}

# The reports of the sanitizers and race detectors we build with: any of them is a failure.
sanitizer_report='^(==[0-9]+==)?(ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer)|^SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer)|: runtime error: '
summary_re='^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$'

# run_limited SECONDS LOG COMMAND...: runs COMMAND with its output in LOG, SIGTERM after SECONDS
# (SIGKILL 10 s later); returns its exit status, 124 on a timeout (GNU timeout's convention).
# timeout runs COMMAND in a process group of its own, which a signal to us would not reach:
# an interrupted run passes its SIGINT/SIGTERM on, so no part outlives it.
running_pid=
run_limited() {
    local limit=$1 log=$2 rc
    shift 2
    timeout -k 10 "$limit" "$@" </dev/null >"$log" 2>&1 &
    running_pid=$!
    wait "$running_pid"
    rc=$?
    running_pid=
    return $rc
}
stop_running() {
    [ -n "$running_pid" ] && kill -TERM "$running_pid" 2>/dev/null
    exit 130
}
trap stop_running INT TERM

# exit_reason RC LIMIT: why a non-zero status is not an ordinary "some checks failed".
exit_reason() {
    local rc=$1 limit=$2
    if [ "$rc" = 124 ]; then
        echo "exceeded its time limit of $limit s"
    elif [ "$rc" -gt 128 ]; then
        echo "killed by signal $((rc - 128)) (exit status $rc)"
    else
        echo "exit status $rc"
    fi
}

part() {
    local name=$1 limit=$2
    shift 2
    local log=$logs/$name.log t0=$SECONDS rc
    echo "== $name"
    run_limited "$limit" "$log" "$@"
    rc=$?
    local secs=$((SECONDS - t0))
    part_times+=("$name $secs")

    local np nf ns last p f s broken=
    np=$(grep -c '^PASS' "$log")
    nf=$(grep -c '^FAIL' "$log")
    ns=$(grep -c '^SKIP' "$log")
    last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
    if [[ $last =~ $summary_re ]]; then
        p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[4]:-0}
        if [ "$rc" = 124 ] || [ "$rc" -gt 128 ]; then
            broken=$(exit_reason "$rc" "$limit")
        elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
            broken="$(exit_reason "$rc" "$limit") but its summary reports no failure"
        elif [ "$rc" = 0 ] && [ "$f" != 0 ]; then
            broken="exit status 0 but its summary reports $f failures"
        elif [ "$p $f $s" != "$np $nf $ns" ]; then
            broken="summary '$last' disagrees with its lines ($np PASS, $nf FAIL, $ns SKIP)"
        fi
    elif [ "$rc" = 124 ] || [ "$rc" -gt 128 ]; then
        broken="$(exit_reason "$rc" "$limit"), no summary line"
    else
        broken="no summary line at the end ($(exit_reason "$rc" "$limit"))"
    fi
    if [ -z "$broken" ] && grep -qE "$sanitizer_report" "$log"; then
        broken="a sanitizer report: $(grep -m 1 -E "$sanitizer_report" "$log" | cut -c1-200)"
    fi

    grep -E '^(FAIL|SKIP)' "$log" | head -n 40 | sed 's/^/    /'
    if [ -n "$broken" ]; then
        p=$np f=$((nf + 1)) s=$ns
        echo "    FAIL $name: $broken (log $log)"
        tail -n 15 "$log" | sed 's/^/      | /'
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
    [ "$f" -gt 0 ] && failed_parts+=("$name")
    echo "  $name: $p passed, $f failed, $s skipped ($secs s)"
    [ "$f" = 0 ]
}

check() {
    local name=$1 limit=$2
    shift 2
    local log=$logs/$name.log t0=$SECONDS rc
    run_limited "$limit" "$log" "$@"
    rc=$?
    local secs=$((SECONDS - t0))
    part_times+=("$name $secs")
    if [ "$rc" = 0 ]; then
        echo "PASS $name ($secs s)"
        passed=$((passed + 1))
        return 0
    fi
    echo "FAIL $name: $(exit_reason "$rc" "$limit") ($secs s; log $log)"
    tail -n 30 "$log" | sed 's/^/    /'
    failed=$((failed + 1))
    failed_parts+=("$name")
    return 1
}

# skip_part NAME REASON: a part that cannot run here, counted as one skip.
skip_part() {
    echo "SKIP $1: $2"
    skipped=$((skipped + 1))
}

# summary: the times of every part, the total, then the one summary line; returns 1 on failures.
summary() {
    local t
    echo
    printf 'times (s):'
    for t in "${part_times[@]}"; do printf ' %s' "${t// /=}"; done
    echo
    echo "total time: $((SECONDS / 60)) min $((SECONDS % 60)) s"
    [ ${#failed_parts[@]} -gt 0 ] && echo "failures in: ${failed_parts[*]} (logs in $logs)"
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" -eq 0 ]
}
