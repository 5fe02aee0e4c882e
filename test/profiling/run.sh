#!/usr/bin/env bash
# run.sh INST: the profiling interface from outside, as tools use it: count_calls.c built as a
# shared library and loaded with LD_PRELOAD into ring (linked against libmpi.so), and the same
# tool linked statically before libmpi.a; both must see exactly ring's own calls on every rank.
# A Fortran tool (f08_tool.f90) in a "use mpi_f08" program must see its MPI_ calls, not its
# PMPI_ ones (skipped without mpifort).  Ends with "N passed, N failed".
set -u
inst=$(cd "$1" && pwd) || exit 2 # absolute: the Fortran build runs in a temporary directory
here=$(cd "$(dirname "$0")" && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
passed=0 failed=0
want="Send=1 Recv=4 Isend=3 Wait=3 Bcast=1"

check() { # NAME COMMAND...: every rank's line must show $want
    local name=$1 out
    shift
    out=$("$@" 2>&1)
    local n
    n=$(grep -c "count_calls rank [0-9]*: $want\$" <<<"$out")
    if [ "$n" = 3 ]; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name: expected 3 ranks reporting '$want', got:"
        sed 's/^/    /' <<<"$out" | head -n 20
        failed=$((failed + 1))
    fi
}

"$inst/bin/mpicc" -shared -fPIC -o "$d/libcount_calls.so" "$here/count_calls.c" &&
    "$inst/bin/mpicc" -o "$d/ring" "$here/ring.c" || { echo "0 passed, 1 failed"; exit 1; }
check "LD_PRELOAD interposer" env LD_PRELOAD="$d/libcount_calls.so" \
    "$inst/bin/mpiexec" -n 3 "$d/ring"
# Static: the tool's strong symbols win over libmpi.a's weak MPI_ ones.
# shellcheck disable=SC2046
if cc -I"$inst/include" -o "$d/ring_static" "$here/ring.c" "$here/count_calls.c" \
    "$inst/lib/libmpi.a" $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --static --libs-only-other \
    --libs-only-L ferry) $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --static --libs-only-l \
    ferry | sed 's/-lmpi\b//') 2>"$d/cc.log"; then
    check "static interposer" "$inst/bin/mpiexec" -n 3 "$d/ring_static"
else
    echo "FAIL static interposer: link failed"
    sed 's/^/    /' "$d/cc.log" | head
    failed=$((failed + 1))
fi
# Without the tool nothing is counted: the check cannot pass by accident.
out=$("$inst/bin/mpiexec" -n 3 "$d/ring" 2>&1)
if grep -q count_calls <<<"$out"; then
    echo "FAIL plain run printed counts"
    failed=$((failed + 1))
else
    echo "PASS plain run (no tool, no counts)"
    passed=$((passed + 1))
fi
if [ ! -x "$inst/bin/mpifort" ]; then
    echo "SKIP Fortran tool: no mpifort (Ferry built without Fortran)"
elif ! (cd "$d" && "$inst/bin/mpifort" -o "$d/f08_tool" "$here/f08_tool.f90") >"$d/fc.log" 2>&1; then
    echo "FAIL Fortran tool: build failed"
    sed 's/^/    /' "$d/fc.log" | head
    failed=$((failed + 1))
elif out=$("$inst/bin/mpiexec" -n 2 "$d/f08_tool" 2>&1) && grep -qx ' *No Errors' <<<"$out"; then
    echo "PASS Fortran tool sees use mpi_f08's MPI_Send and MPI_Pcontrol, not their PMPI_"
    passed=$((passed + 1))
else
    echo "FAIL Fortran tool:"
    sed 's/^/    /' <<<"$out" | head
    failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
