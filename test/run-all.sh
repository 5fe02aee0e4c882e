#!/usr/bin/env bash
# run-all.sh: the whole test suite: build, unit tests, launcher, shm method, the MPI test list
# under every protocol variant, Hydra, the list over tcp, tcp end to end (network namespaces),
# AddressSanitizer+UBSan and valgrind; one summary line.
#
#   test/run-all.sh            everything (about 20-30 minutes on 2 cores)
#   TEST_QUICK=1 test/run-all.sh    no variants, no sanitizer/valgrind parts
#
# Builds in _build (installed to _inst) and _build-asan (_inst-asan) at the top of the
# tree; logs of each part go to _test-logs/.  Ends with "N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 2
quick=${TEST_QUICK:-0}
jobs=${JOBS:-2}
logs=$top/_test-logs
rm -rf "$logs"
mkdir -p "$logs"
passed=0 failed=0 skipped=0
failed_parts=()

# add_counts PART LOG: takes the last "N passed, N failed[, N skipped]" line of LOG.
add_counts() {
    local part=$1 log=$2 line p f s
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "  $part: no summary line (see $log); counted as 1 failure"
        failed=$((failed + 1))
        failed_parts+=("$part")
        return
    fi
    p=$(sed -E 's/^([0-9]+) passed.*/\1/' <<<"$line")
    f=$(sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/' <<<"$line")
    s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
    [ "$f" -gt 0 ] && failed_parts+=("$part")
    echo "  $part: $line"
}

# part NAME COMMAND...: runs a part whose output ends with a summary line.
part() {
    local name=$1
    shift
    local log=$logs/$name.log t0=$SECONDS
    echo "== $name"
    "$@" >"$log" 2>&1
    grep -E '^(FAIL|SKIP)' "$log" | head -n 40 | sed 's/^/    /'
    add_counts "$name" "$log"
    echo "     ($((SECONDS - t0)) s)"
}

# single NAME COMMAND...: a part that is one check, passed when it exits 0.
single() {
    local name=$1
    shift
    local log=$logs/$name.log
    if "$@" >"$log" 2>&1; then
        echo "PASS $name"
        passed=$((passed + 1))
    else
        echo "FAIL $name (see $log)"
        tail -n 30 "$log" | sed 's/^/    /'
        failed=$((failed + 1))
        failed_parts+=("$name")
        return 1
    fi
}

build() {
    local dir=$1 prefix=$2
    shift 2
    [ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ] ||
        ./autogen.sh || return 1
    mkdir -p "$dir" && cd "$dir" || return 1
    "$top/configure" --prefix="$prefix" --enable-werror "$@" && make -j"$jobs" &&
        make install && make -j"$jobs" check TESTS= # build the unit-test programs too
    local rc=$?
    cd "$top" || return 1
    return $rc
}

echo "== build (_build, installed in _inst)"
if ! single build build "$top/_build" "$top/_inst"; then
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 1
fi
inst=$top/_inst

# Unit tests through automake (recvq, config, stub method, PMI wire, ops).
unit() {
    make -C _build check
    local rc=$?
    local p f s
    p=$(grep -h '^# PASS:' _build/test-suite.log 2>/dev/null | awk '{print $3}')
    f=$(grep -h '^# FAIL:' _build/test-suite.log 2>/dev/null | awk '{print $3}')
    s=$(grep -h '^# SKIP:' _build/test-suite.log 2>/dev/null | awk '{print $3}')
    e=$(grep -h '^# ERROR:' _build/test-suite.log 2>/dev/null | awk '{print $3}')
    grep -h '^FAIL\|^ERROR' _build/test-suite.log
    [ -z "$p" ] && { echo "0 passed, 1 failed"; return 1; }
    echo "$p passed, $((f + e)) failed, $s skipped"
    return $rc
}
part unit unit

part launcher bash test/launcher/run.sh _build/mpiexec _build/test/launcher/pmi_hello
part shm-method env SHM_RUN_SLOW=$((1 - quick)) sh test/methods/shm_run.sh "$top/_build/shm-method"

# The install: mpicc, headers, both libraries, pkg-config file.
install_check() {
    local d
    d=$(mktemp -d)
    for f in bin/mpicc bin/mpiexec include/mpi.h lib/libmpi.so lib/libmpi.a lib/pkgconfig/ferry.pc; do
        [ -e "$inst/$f" ] || { echo "missing $inst/$f"; return 1; }
    done
    "$inst/bin/mpicc" -Wall -Wextra -Werror -o "$d/latbw" bench/latbw.c || return 1
    "$inst/bin/mpiexec" -n 2 "$d/latbw" -q -M 4K || return 1
    PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs ferry || return 1
    # shellcheck disable=SC2046
    cc -o "$d/latbw_pc" bench/latbw.c $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs ferry) || return 1
    "$inst/bin/mpiexec" -n 2 "$d/latbw_pc" -q -M 64K || return 1
    rm -rf "$d"
}
single install install_check

part errors bash test/errors/run.sh "$inst"
# The profiling interface from outside: an LD_PRELOAD tool and a statically linked one.
part profiling bash test/profiling/run.sh "$inst"

# Every protocol of the core against a fake method that answers AGAIN and INPROGRESS at random,
# completes out of order and needs registration (test/chaos/).
part chaos bash test/chaos/run.sh "$top/_build" "$inst"

runlist() {
    MPICC="$1" MPIEXEC="$2" TESTDIR="$3" VARIANTS_FILE=$top/test/variants \
        bash test/mpi/runtests "${@:4}"
}

# The MPI test list over our mpiexec: defaults, then every variant.
if [ "$quick" = 1 ]; then
    part mpi runlist "$inst/bin/mpicc" "$inst/bin/mpiexec" "$top/_build/mpitests"
else
    part mpi runlist "$inst/bin/mpicc" "$inst/bin/mpiexec" "$top/_build/mpitests" -variants
fi

# Messages beyond 2 GiB (MPI_Send_c ...): once, on shm, not under the variants.
if [ "$quick" != 1 ]; then
    part mpi-large runlist "$inst/bin/mpicc" "$inst/bin/mpiexec" "$top/_build/mpitests-large" \
        -list "$top/test/mpi/testlist.large"
fi

# The same library under MPICH's Hydra (PMI over PMI_FD from another launcher).
if command -v mpiexec.hydra >/dev/null; then
    part hydra runlist "$inst/bin/mpicc" mpiexec.hydra "$top/_build/mpitests"
else
    echo "SKIP hydra: mpiexec.hydra not installed"
    skipped=$((skipped + 1))
fi

# The MPI test list over tcp alone, on loopback: defaults, then tcp's variants.
tcplist() {
    FERRY_METHODS=tcp FERRY_TCP_IF=lo MPICC="$inst/bin/mpicc" MPIEXEC="$inst/bin/mpiexec" \
        TESTDIR="$top/_build/mpitests-tcp" VARIANTS_FILE=$top/test/tcp/variants \
        bash test/mpi/runtests "$@"
}
if [ "$quick" = 1 ]; then
    part mpi-tcp tcplist
else
    part mpi-tcp tcplist -variants
fi
# tcp end to end: loopback, 16 ranks, a killed rank, refused/unreachable connections, port
# range, and two hosts made of network namespaces under our mpiexec and Hydra.
part tcp bash test/tcp/run.sh "$inst"

if [ "$quick" != 1 ]; then
    # AddressSanitizer + UBSan: library and tests instrumented, default and four variants
    # (the last over tcp).
    san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
    echo "== build-asan (_build-asan, installed in _inst-asan)"
    if single build-asan build "$top/_build-asan" "$top/_inst-asan" CFLAGS="-O1 -g $san" \
        LDFLAGS="$san"; then
        printf '%s\n' FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=pipeline \
            "FERRY_SHM_CMA=0 FERRY_EAGER_LIMIT=0 FERRY_PIPELINE_CHUNK=4K" \
            "FERRY_METHODS=tcp FERRY_TCP_IF=lo" >"$logs/asan-variants"
        part asan env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 VARIANTS_FILE="$logs/asan-variants" \
            MPICC="$top/_inst-asan/bin/mpicc $san" MPIEXEC="$top/_inst-asan/bin/mpiexec" \
            TESTDIR="$top/_build-asan/mpitests" bash test/mpi/runtests -variants
    fi
    # valgrind (memcheck): a few programs of the list, each rank under valgrind.
    if command -v valgrind >/dev/null; then
        part valgrind env MPICC="$inst/bin/mpicc" MPIEXEC="$top/test/valgrind-mpiexec" \
            REAL_MPIEXEC="$inst/bin/mpiexec" TESTDIR="$top/_build/mpitests-vg" TIMEOUT=300 \
            bash test/mpi/runtests -list "$top/test/valgrind-testlist"
    else
        echo "SKIP valgrind: not installed"
        skipped=$((skipped + 1))
    fi
fi

echo
[ ${#failed_parts[@]} -gt 0 ] && echo "failures in: ${failed_parts[*]} (logs in $logs)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
