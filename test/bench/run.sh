#!/usr/bin/env bash
# run.sh: the benchmark programs and script work (their numbers are never checked: speed is
# not asserted by tests).  bench/latbw.c, bench/coll.c, bench/knob_ab.c and bench/floor.c build
# warning-free against Ferry, MPICH and Open MPI; latbw's tests and options behave; coll and
# knob_ab run; bench/run.sh, on tiny sizes and one round, produces every table, the goals with a
# verdict each, the Markdown and the PNG plot.
#   test/bench/run.sh PREFIX     (PREFIX/bin/mpicc and PREFIX/bin/mpiexec: Ferry)
# Prints PASS/FAIL/SKIP per check and "N passed, N failed, N skipped".
set -u
prefix=${1:?usage: run.sh PREFIX}
prefix=$(cd "$prefix" && pwd)
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
passed=0 failed=0 skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
oneline() { tr '\n' '|' <"$1" | cut -c1-600; }

# Every bench program with every compiler, -Werror.
for cc in "$prefix/bin/mpicc" mpicc.mpich mpicc.openmpi; do
    name=$(basename "$cc")
    [ "$cc" = "$prefix/bin/mpicc" ] && name=ferry
    if ! command -v "$cc" >/dev/null 2>&1; then
        skip "build_latbw_$name" "$cc not installed"
        continue
    fi
    for prog in latbw coll knob_ab; do
        if "$cc" -O2 -Wall -Wextra -Werror -o "$tmp/$prog.$name" "$top/bench/$prog.c" >"$tmp/b.log" 2>&1; then
            pass "build_${prog}_$name"
        else
            fail "build_${prog}_$name" "$(oneline "$tmp/b.log")"
        fi
    done
done
if cc -O2 -Wall -Wextra -Werror -o "$tmp/floor" "$top/bench/floor.c" >"$tmp/b.log" 2>&1; then
    pass build_floor
else
    fail build_floor "$(oneline "$tmp/b.log")"
fi

# floor prints its result line with two positive numbers, and refuses bad options.
if [ -x "$tmp/floor" ] && timeout 60 "$tmp/floor" -i 200 -r 3 >"$tmp/f.out" 2>&1 &&
    awk '$1 == "floor_oneway_us" && $2 > 0 && $3 > 0 && $3 <= $2 { ok = 1 } END { exit !ok }' "$tmp/f.out"; then
    pass floor_runs
else
    fail floor_runs "$(oneline "$tmp/f.out" 2>/dev/null)"
fi
if [ -x "$tmp/floor" ] && ! "$tmp/floor" -i 0 >/dev/null 2>&1 && ! "$tmp/floor" -c x >/dev/null 2>&1; then
    pass floor_bad_options
else
    fail floor_bad_options "floor accepted -i 0 or -c x"
fi

# latbw on Ferry: -t selects the tests, the others print "-", the rates are bandwidth / size.
run_latbw() { timeout -k 5 120 "$prefix/bin/mpiexec" -n 2 "$tmp/latbw.ferry" "$@" >"$tmp/l.out" 2>&1; }
if [ -x "$tmp/latbw.ferry" ] && run_latbw -q -m 8 -M 64 -t bw,bibw &&
    awk '!/^#/ && $1 ~ /^[0-9]+$/ { n++; if ($2 != "-" || $3 == "-" || $4 == "-") bad++
         if ($3 + 0 > 0 && ($5 - $3 / $1 > 0.01 + 0.01 * $5 || $3 / $1 - $5 > 0.01 + 0.01 * $5)) bad++ }
         END { exit !(n == 4 && !bad) }' "$tmp/l.out"; then
    pass latbw_select_tests
else
    fail latbw_select_tests "$(oneline "$tmp/l.out" 2>/dev/null)"
fi
if [ -x "$tmp/latbw.ferry" ] && ! run_latbw -t nosuch && grep -q "bad test list" "$tmp/l.out"; then
    pass latbw_bad_test
else
    fail latbw_bad_test "$(oneline "$tmp/l.out" 2>/dev/null)"
fi

# knob_ab on Ferry: with no such knob it warns, runs every value alike and prints one median
# per value; a bad test name is refused.
if [ -x "$tmp/knob_ab.ferry" ] &&
    timeout -k 5 120 "$prefix/bin/mpiexec" -n 2 "$tmp/knob_ab.ferry" bw 8 no_such_knob 0 1 \
        >"$tmp/k.out" 2>&1 &&
    grep -q "no symbol no_such_knob" "$tmp/k.out" &&
    awk '/^bw 8 B no_such_knob: +0: [0-9.]+ \(q1 [0-9.]+\) +1: [0-9.]+ \(q1 [0-9.]+\) +ns per message$/ { ok = 1 }
         END { exit !ok }' "$tmp/k.out" &&
    ! timeout -k 5 120 "$prefix/bin/mpiexec" -n 2 "$tmp/knob_ab.ferry" nosuch 8 x 0 >/dev/null 2>&1; then
    pass knob_ab_runs
else
    fail knob_ab_runs "$(oneline "$tmp/k.out" 2>/dev/null)"
fi

# coll on Ferry: both collectives print a time, and a bad option is refused.
if [ -x "$tmp/coll.ferry" ] && timeout -k 5 120 "$prefix/bin/mpiexec" -n 2 "$tmp/coll.ferry" -i 200 -r 2 \
        >"$tmp/c.out" 2>&1 &&
    awk '/^coll: allreduce ranks 2 size 8: [0-9.]+ us$/ && $(NF - 1) > 0 { a = 1 }
         /^coll: barrier ranks 2: [0-9.]+ us$/ && $(NF - 1) > 0 { b = 1 } END { exit !(a && b) }' "$tmp/c.out" &&
    ! timeout -k 5 120 "$prefix/bin/mpiexec" -n 2 "$tmp/coll.ferry" -s 12 >/dev/null 2>&1; then
    pass coll_runs
else
    fail coll_runs "$(oneline "$tmp/c.out" 2>/dev/null)"
fi

# latbw -s (the receiver waits outside MPI until its message was sent, for budget.py --compare):
# both tests run with the data checked, and the shared page it used is gone afterwards.
if [ -x "$tmp/latbw.ferry" ] && run_latbw -q -m 8 -M 16 -i 100 -t lat,bw -s &&
    awk '!/^#/ && $1 ~ /^[0-9]+$/ { n++; if ($2 == "-" || $3 == "-" || /DATA ERROR/) bad++ }
         END { exit !(n == 2 && !bad) }' "$tmp/l.out" &&
    ! ls /dev/shm 2>/dev/null | grep -q "^latbw-"; then
    pass latbw_side_channel
else
    fail latbw_side_channel "$(oneline "$tmp/l.out" 2>/dev/null); left: $(ls /dev/shm | grep '^latbw-' | tr '\n' ' ')"
fi

# The script end to end: one round, tiny sizes, both configurations, plot and Markdown.
if ! command -v gnuplot >/dev/null 2>&1; then
    skip run_sh "gnuplot not installed (gnuplot-nox)"
else
    timeout -k 10 900 "$top/bench/run.sh" --ferry "$prefix" --quick --rounds 1 \
        --plot "$tmp/p.png" --markdown "$tmp/p.md" -- -m 8 -M 16 -i 50 >"$tmp/r.out" 2>"$tmp/r.err"
    rc=$?
    why=
    [ $rc = 0 ] || why="exit status $rc"
    for t in "== shm: latency" "== shm: bandwidth" "== shm: bi-directional" "== tcp: latency" \
        "== goals of issue 12" "goals: " "floor (bench/floor.c"; do
        grep -qF "$t" "$tmp/r.out" || why="$why; no '$t'"
    done
    # Each goal line ends in a verdict; at these sizes the 1 MiB goals cannot be measured.
    n=$(grep -E ' (met|MISSED|not measured)$' "$tmp/r.out" | grep -cv '^goals:')
    [ "$n" = 11 ] || why="$why; $n goal lines with a verdict, not 11"
    grep -q '^shm bandwidth 1 MiB.* not measured$' "$tmp/r.out" ||
        why="$why; a 1 MiB goal judged without a 1 MiB measurement"
    [ -s "$tmp/p.png" ] && [ "$(head -c 4 "$tmp/p.png" | tail -c 3)" = PNG ] || why="$why; no PNG"
    grep -q '^| goal | ferry' "$tmp/p.md" 2>/dev/null || why="$why; no goals table in the Markdown"
    # Ferry, MPICH and Open MPI all ran (every row of the latency table has three numbers).
    awk '/^== shm: latency/ { t = 1; next } t && /^==/ { t = 0 } t && $1 ~ /^[0-9]/ {
             n++; if ($2 == "-" || $3 == "-" || $4 == "-") bad++ } END { exit !(n == 2 && !bad) }' \
        "$tmp/r.out" || why="$why; a library is missing from the shm latency table"
    if [ -z "$why" ]; then
        pass run_sh
    else
        fail run_sh "${why#; }; stdout: $(oneline "$tmp/r.out"); stderr: $(tail -n 20 "$tmp/r.err" | tr '\n' '|')"
    fi
fi

# budget.py under callgrind: every row of the instruction budget and both cache-miss rows carry a
# number for each rank that needs one, and the idle poll costs less than the delivering one.
if ! command -v valgrind >/dev/null 2>&1; then
    skip budget_py "valgrind not installed"
else
    timeout -k 10 600 python3 "$top/bench/budget.py" --ferry "$prefix" --iters 200 \
        >"$tmp/b.out" 2>&1
    rc=$?
    if [ $rc = 0 ] && awk -F'  +' '
            /^MPI_Send|^MPI_Recv|^the delivering poll|^an idle poll|Isend per|Irecv per|Waitall per/ {
                n++; a = $(NF - 1); b = $NF; if (a !~ /^[0-9.-]+$/ || b !~ /^[0-9.-]+$/) bad++
                if (a == "-" && b == "-") bad++ }
            /^the delivering poll/ { deliver = $(NF - 1) + 0 }
            /^an idle poll/ { idle = $(NF - 1) + 0 }
            /misses per message/ { m++; if ($(NF - 1) !~ /^[0-9.]+$/) bad++ }
            END { exit !(n == 7 && m == 2 && !bad && idle > 0 && idle < deliver) }' "$tmp/b.out"; then
        pass budget_py
    else
        fail budget_py "exit status $rc; $(oneline "$tmp/b.out")"
    fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
