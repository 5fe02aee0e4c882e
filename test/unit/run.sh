#!/usr/bin/env bash
# run.sh: the unit-test part of test/run-all.sh.  Builds the unit tests ("make check TESTS="),
# then runs every program of the build's TESTS itself, each under a time limit, so no log of an
# earlier run can be read as this run's result.  Exit 77 is a skip (automake's convention).
#
#   test/unit/run.sh BUILD-DIR        (UNIT_TEST_TIMEOUT=seconds per test, default 300)
#
# Prints PASS/FAIL/SKIP per test and "N passed, N failed, N skipped"; exits 1 on any failure.
set -u
build=${1:?usage: run.sh BUILD-DIR}
limit=${UNIT_TEST_TIMEOUT:-300}
srcdir=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$build" || exit 2

if ! make -j"${JOBS:-2}" check TESTS= >unit-build.log 2>&1; then
    echo "FAIL build of the unit tests (make check TESTS= in $build):"
    tail -n 20 unit-build.log | sed 's/^/    /'
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
read -r -a tests <<<"$(make -s --no-print-directory print-tests)"
if [ ${#tests[@]} = 0 ]; then
    echo "FAIL no unit tests listed by 'make print-tests' in $build"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi

passed=0 failed=0 skipped=0
mkdir -p unit-logs
for t in "${tests[@]}"; do
    log=unit-logs/$(printf '%s' "$t" | tr '/' '_').log
    t0=$SECONDS
    # A test built here runs from the build; a script test (automake finds it through VPATH)
    # from the source tree, told where that is as make check would.
    prog=./$t
    [ -e "$prog" ] || prog=$srcdir/$t
    srcdir=$srcdir timeout -k 5 "$limit" "$prog" </dev/null >"$log" 2>&1
    rc=$?
    secs=$((SECONDS - t0))
    case $rc in
    0)
        echo "PASS $t ($secs s)"
        passed=$((passed + 1))
        ;;
    77)
        echo "SKIP $t: $(tail -n 1 "$log")"
        skipped=$((skipped + 1))
        ;;
    *)
        if [ $rc = 124 ] || [ $rc = 137 ]; then
            why="exceeded the time limit of $limit s"
        elif [ $rc -gt 128 ]; then
            why="killed by signal $((rc - 128))"
        else
            why="exit status $rc"
        fi
        echo "FAIL $t: $why ($secs s; log $build/$log)"
        tail -n 20 "$log" | sed 's/^/    /'
        failed=$((failed + 1))
        ;;
    esac
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
