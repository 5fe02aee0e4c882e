#!/usr/bin/env bash
# runner_selftest.sh: proves that the accounting of test/run-all.sh (test/parts.sh) and the unit
# part (test/unit/run.sh) cannot be fooled: fake parts and fake unit tests that lie in every way
# we know of run in a scratch directory, and each must be counted as the truth says.
# Prints PASS/FAIL per case and "N passed, N failed"; run first by test/run-all.sh.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ferry-selftest.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 2

ok=0 bad=0
verdict() { # verdict NAME CONDITION-STATUS DETAILS
    if [ "$2" = 0 ]; then
        echo "PASS $1"
        ok=$((ok + 1))
    else
        echo "FAIL $1: $3"
        bad=$((bad + 1))
    fi
}

# fake NAME BODY: a part script that does BODY.
fake() {
    printf '#!/usr/bin/env bash\n%s\n' "$2" >"$scratch/$1"
    chmod +x "$scratch/$1"
}

fake honest_pass 'echo "PASS a"; echo "PASS b"; echo "2 passed, 0 failed"'
fake honest_fail 'echo "PASS a"; echo "FAIL b: wrong"; echo "1 passed, 1 failed"; exit 1'
fake honest_skip 'echo "PASS a"; echo "SKIP b: no device"; echo "1 passed, 0 failed, 1 skipped"'
fake exit1_clean_summary 'echo "PASS a"; echo "PASS b"; echo "PASS c"; echo "3 passed, 0 failed"; exit 1'
fake segv_after_summary 'echo "PASS a"; echo "1 passed, 0 failed"; kill -SEGV $$'
fake no_summary 'echo "PASS a"; echo "PASS b"'
fake hangs_after_summary 'echo "PASS a"; echo "1 passed, 0 failed"; sleep 60'
fake hidden_skip 'echo "PASS a"; echo "SKIP b: no tool"; echo "1 passed, 0 failed"'
fake hidden_fail 'echo "PASS a"; echo "FAIL b: wrong"; echo "1 passed, 0 failed"'
fake summary_not_last 'echo "PASS a"; echo "1 passed, 0 failed"; echo "and then something else"'
fake failures_exit0 'echo "FAIL a: wrong"; echo "0 passed, 1 failed"'
fake asan_report 'echo "PASS a"; echo "==123==ERROR: AddressSanitizer: heap-use-after-free"; echo "1 passed, 0 failed"'
fake race_report 'echo "PASS a"; echo "WARNING: ThreadSanitizer: data race (pid=5)"; echo "1 passed, 0 failed"'
fake ubsan_report 'echo "PASS a"; echo "x.c:3:5: runtime error: signed integer overflow"; echo "1 passed, 0 failed"'

# expect_part FAKE LIMIT PASSED FAILED SKIPPED: runs FAKE through part() in a fresh accounting and
# compares the totals it adds.
expect_part() {
    local fake=$1 limit=$2 want="$3 $4 $5" got out t0=$SECONDS
    out=$(
        logs=$scratch/logs
        mkdir -p "$logs"
        # shellcheck source=test/parts.sh
        . "$here/parts.sh"
        part "$fake" "$limit" "$scratch/$fake" >/dev/null
        echo "$passed $failed $skipped"
    )
    got=$out
    local secs=$((SECONDS - t0))
    [ "$got" = "$want" ] && [ "$secs" -le $((limit + 15)) ]
    verdict "part_$fake" $? "counted '$got' (passed failed skipped), expected '$want', in $secs s"
}

expect_part honest_pass 30 2 0 0
expect_part honest_fail 30 1 1 0
expect_part honest_skip 30 1 0 1
expect_part exit1_clean_summary 30 3 1 0
expect_part segv_after_summary 30 1 1 0
expect_part no_summary 30 2 1 0
expect_part hangs_after_summary 2 1 1 0
expect_part hidden_skip 30 1 1 1
expect_part hidden_fail 30 1 2 0
expect_part summary_not_last 30 1 1 0
expect_part failures_exit0 30 0 2 0
expect_part asan_report 30 1 1 0
expect_part race_report 30 1 1 0
expect_part ubsan_report 30 1 1 0

# check(): a one-check part passes on exit 0 only, and is stopped at its limit.
expect_check() {
    local name=$1 limit=$2 body=$3 want=$4 got
    fake "$name" "$body"
    got=$(
        logs=$scratch/logs
        . "$here/parts.sh"
        check "$name" "$limit" "$scratch/$name" >/dev/null
        echo "$passed $failed"
    )
    [ "$got" = "$want" ]
    verdict "check_$name" $? "counted '$got' (passed failed), expected '$want'"
}
expect_check check_ok 30 'exit 0' "1 0"
expect_check check_fails 30 'echo "all good"; exit 3' "0 1"
expect_check check_hangs 2 'sleep 60' "0 1"

# An interrupted run stops the part it is running: nothing of it lives on.
fake sleeper 'sleep 300 & echo $! >"$(dirname "$0")/sleeper.pid"; wait'
(
    logs=$scratch/logs
    . "$here/parts.sh"
    part sleeper 600 "$scratch/sleeper" >/dev/null
) &
runner=$!
for _ in $(seq 50); do [ -s sleeper.pid ] && break; sleep 0.1; done
kill -TERM $runner
wait $runner
gone=1
for _ in $(seq 50); do
    kill -0 "$(cat sleeper.pid 2>/dev/null)" 2>/dev/null || { gone=0; break; }
    sleep 0.1
done
verdict part_interrupted_leaves_nothing $gone "pid $(cat sleeper.pid 2>/dev/null) still runs"
[ $gone = 0 ] || kill "$(cat sleeper.pid)" 2>/dev/null

# The unit part: a build directory whose "make check" fails before running anything, with the
# logs of an earlier passing run left behind, must fail; fake unit tests that pass, fail, skip
# (exit 77), crash or hang are each counted as such, the hang within the per-test limit.
mkdir -p build/t
cat >build/Makefile <<'EOF'
TESTS = t/pass t/fail t/skip t/crash t/hang
print-tests:
	@echo $(TESTS)
check:
	@if [ -f broken ]; then echo "t/pass.c:1: error: expected ';'"; exit 2; fi
EOF
printf '#!/bin/sh\nexit 0\n' >build/t/pass
printf '#!/bin/sh\necho "FAIL: 2 != 3"; exit 1\n' >build/t/fail
printf '#!/bin/sh\necho "no device"; exit 77\n' >build/t/skip
printf '#!/bin/sh\nkill -SEGV $$\n' >build/t/crash
printf '#!/bin/sh\nsleep 60\n' >build/t/hang
chmod +x build/t/*
# Stale results of an earlier run that passed everything.
printf '# TOTAL: 5\n# PASS:  5\n# FAIL:  0\n' >build/test-suite.log
for t in pass fail skip crash hang; do printf ':test-result: PASS\n' >"build/t/$t.trs"; done

t0=$SECONDS
UNIT_TEST_TIMEOUT=2 "$here/unit/run.sh" "$scratch/build" >unit.out 2>&1
rc=$?
last=$(tail -n 1 unit.out)
[ "$rc" != 0 ] && [ "$last" = "1 passed, 3 failed, 1 skipped" ] && [ $((SECONDS - t0)) -le 30 ] &&
    grep -q '^FAIL t/hang.*time limit' unit.out && grep -q '^FAIL t/crash.*signal 11' unit.out
verdict unit_counts_each_test $? "rc=$rc, last line '$last', $((SECONDS - t0)) s: $(tr '\n' '|' <unit.out)"

touch build/broken
printf '# TOTAL: 5\n# PASS:  5\n# FAIL:  0\n' >build/test-suite.log
"$here/unit/run.sh" "$scratch/build" >unit.out 2>&1
rc=$?
last=$(tail -n 1 unit.out)
[ "$rc" != 0 ] && [[ $last =~ ^0\ passed,\ [1-9][0-9]*\ failed ]]
verdict unit_stale_log_after_failed_build $? "rc=$rc, last line '$last'"

echo "$ok passed, $bad failed"
[ "$bad" = 0 ]
