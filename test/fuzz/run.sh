#!/bin/bash
# run.sh: the fuzz targets of doc/security.md: builds each with clang's libFuzzer, AddressSanitizer
# and UBSan, replays every input in test/fuzz/regress/<target>/ (crashes found before: they must
# stay fixed), then fuzzes for FUZZ_SECONDS (default 30) from the committed seed corpus in
# test/fuzz/corpus/<target>/.  Targets:
#   pmi   the PMI-1 wire code: line parser, reply checks, line reader, formatter, process mapping
#   tcp   the tcp method's handshake (as acceptor and connector) and frame stream, over sockets
#   card  the tcp method's business-card parser and address order
#
# usage: test/fuzz/run.sh [BUILD-DIR]      (default _build-fuzz at the top of the tree)
# Prints "PASS fuzz_<target> (...)" or "FAIL fuzz_<target>: ..." per target, then
# "N passed, N failed[, N skipped]".  A crash's input is kept in BUILD-DIR/crash-<target>-*;
# add it to test/fuzz/regress/<target>/ with the fix.  Without clang's libFuzzer (Debian:
# clang, libclang-rt-14-dev) every target is skipped with the reason.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$top/_build-fuzz}
secs=${FUZZ_SECONDS:-30}
cc=${FUZZ_CC:-clang}
mkdir -p "$build" || exit 2
passed=0 failed=0 skipped=0

flags=(-g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
    -I"$top/include" -I"$top/adi" -I"$top/methods" -I"$top/methods/tcp" -I"$top/launcher"
    -I"$top/segment" -I"$top/datatype")
tcp_src=()
for f in tcp_addr tcp_init tcp_conn tcp_hs tcp_send tcp_recv tcp_progress; do
    tcp_src+=("$top/methods/tcp/$f.c")
done
tcp_src+=("$top/adi/hmac.c" "$top/adi/err.c" "$top/test/fuzz/fuzz_stubs.c")
declare -A sources=(
    [pmi]="$top/test/fuzz/fuzz_pmi.c $top/launcher/pmi_wire.c $top/launcher/pmi_mapping.c"
    [tcp]="$top/test/fuzz/fuzz_tcp.c ${tcp_src[*]}"
    [card]="$top/test/fuzz/fuzz_card.c ${tcp_src[*]}"
)
# Longest input per target: what one read can bring (a PMI line and then some; a socket's
# worth of frames; a card).
declare -A maxlen=([pmi]=4096 [tcp]=65536 [card]=1024)

if ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
    $cc -fsanitize=fuzzer -x c - -o "$build/probe" >"$build/probe.log" 2>&1; then
    for t in pmi tcp card; do
        echo "SKIP fuzz_$t: $cc cannot build libFuzzer programs ($(head -n 1 "$build/probe.log"))"
        skipped=$((skipped + 1))
    done
    echo "$passed passed, $failed failed, $skipped skipped"
    exit 0
fi

for t in pmi tcp card; do
    bin=$build/fuzz_$t
    # shellcheck disable=SC2086
    if ! $cc "${flags[@]}" -o "$bin" ${sources[$t]} >"$build/build_$t.log" 2>&1; then
        echo "FAIL fuzz_$t: build failed: $(tail -n 5 "$build/build_$t.log" | tr '\n' '|')"
        failed=$((failed + 1))
        continue
    fi
    # Earlier crashes first: each file is run once.
    regress=("$top/test/fuzz/regress/$t"/*)
    if [ -e "${regress[0]}" ] && ! "$bin" "${regress[@]}" >"$build/regress_$t.log" 2>&1; then
        echo "FAIL fuzz_$t: a regression input crashes again: $(grep -m1 -E 'ERROR|runtime error|Running' "$build/regress_$t.log")"
        failed=$((failed + 1))
        continue
    fi
    # The committed corpus is only read: new inputs go to a scratch copy.
    rm -rf "$build/corpus_$t"
    mkdir -p "$build/corpus_$t"
    cp "$top/test/fuzz/corpus/$t"/* "$build/corpus_$t/"
    t0=$SECONDS
    timeout -k 10 $((secs + 60)) "$bin" -max_total_time="$secs" -max_len="${maxlen[$t]}" \
        -timeout=10 -rss_limit_mb=1024 -print_final_stats=1 \
        -artifact_prefix="$build/crash-$t-" "$build/corpus_$t" >"$build/fuzz_$t.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$build/fuzz_$t.log")
    if [ $rc = 0 ]; then
        echo "PASS fuzz_$t ($((SECONDS - t0)) s, ${runs:-?} inputs, $(ls "$build/corpus_$t" | wc -l) in the corpus)"
        passed=$((passed + 1))
    else
        crash=$(ls "$build"/crash-"$t"-* 2>/dev/null | head -n 1)
        echo "FAIL fuzz_$t: exit $rc after ${runs:-?} inputs; input kept in ${crash:-(none)}: $(grep -m1 -E 'harness: |ERROR: |runtime error|deadly signal|timeout' "$build/fuzz_$t.log")"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
