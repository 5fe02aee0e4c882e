# checks.sh: what the host-side check scripts (test/harden/run.sh, test/ofi/run.sh) share,
# sourced after they set OUT and ERR (a job's stdout and stderr), rc (its exit status) and
# secs (its wall time): the PASS/FAIL/SKIP lines, their counts and the summary line.
passed=0 failed=0 skipped=0 secs=0
pass() { echo "PASS $1 (${secs}s)"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
# A file on one line, cut to fit in a FAIL line.
show() { tr '\n' '|' <"$1" | cut -c1-600; }
no_errors() { [ "$rc" = 0 ] && grep -q '^ No Errors$' "$OUT"; }
details() { echo "rc=$rc ${secs}s stdout='$(show "$OUT")' stderr='$(show "$ERR")'"; }
# Prints "N passed, N failed, N skipped" and ends the script, failing if a check failed.
summary() {
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
    exit
}
