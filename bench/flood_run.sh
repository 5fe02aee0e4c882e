#!/usr/bin/env bash
# bench/flood_run.sh: build bench/flood.c against Ferry, MPICH and Open MPI and run the three
# interleaved in rounds (the machine is shared and noisy), each time with 8 ranks on this host:
# 7 senders flood rank 0, which takes their messages one source at a time.  Prints the best
# time of each library per message count and the ratios (below 1: Ferry is faster).
#
# usage: bench/flood_run.sh [--ferry PREFIX] [--rounds N] [--ranks R] [--keep DIR] [MSGS...]
#   --ferry PREFIX  Ferry installation (PREFIX/bin/mpicc, PREFIX/bin/mpiexec); without it
#                   Ferry is skipped
#   --rounds N      rounds of interleaved runs (default 3)
#   --ranks R       ranks per run (default 8)
#   --keep DIR      keep binaries and raw outputs in DIR
#   MSGS            messages per sender (default: 5000 20000)
# A run that fails or takes longer than FLOOD_TIMEOUT seconds (default 300) is reported and
# counted as missing.  More ranks than cores: every library is told to yield when idle.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ferry_prefix= rounds=3 ranks=8 keep=
counts=()
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) ferry_prefix=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --ranks) ranks=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "flood_run.sh: unknown argument '$1'" >&2; exit 2 ;;
    *) counts+=("$1"); shift ;;
    esac
done
[ ${#counts[@]} -gt 0 ] || counts=(5000 20000)
if [ -n "$keep" ]; then
    dir=$keep
    mkdir -p "$dir" || exit 2
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/flood_run.XXXXXX") || exit 2
    trap 'rm -rf "$dir"' EXIT
fi

# name|compiler|launcher
libs=()
if [ -n "$ferry_prefix" ] && [ -x "$ferry_prefix/bin/mpicc" ]; then
    libs+=("ferry|$ferry_prefix/bin/mpicc|$ferry_prefix/bin/mpiexec -n $ranks")
else
    echo "# ferry: no --ferry PREFIX with bin/mpicc; skipped"
fi
command -v mpicc.mpich >/dev/null && libs+=("mpich|mpicc.mpich|mpiexec.mpich -n $ranks")
command -v mpicc.openmpi >/dev/null &&
    libs+=("ompi|mpicc.openmpi|env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec.openmpi --oversubscribe -n $ranks")
built=()
for l in "${libs[@]}"; do
    IFS='|' read -r name cc run <<<"$l"
    if $cc -O2 -o "$dir/flood_$name" "$here/flood.c" >"$dir/build_$name.log" 2>&1; then
        built+=("$l")
    else
        echo "# $name: build failed (see $dir/build_$name.log)"
    fi
done
[ ${#built[@]} -gt 0 ] || { echo "flood_run.sh: nothing built" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $ranks ranks"
: >"$dir/all.txt"
for ((r = 1; r <= rounds; r++)); do
    for n in "${counts[@]}"; do
        for l in "${built[@]}"; do
            IFS='|' read -r name cc run <<<"$l"
            out=$dir/out_${name}_${n}_$r.txt
            # shellcheck disable=SC2086
            if timeout "${FLOOD_TIMEOUT:-300}" $run "$dir/flood_$name" -n "$n" >"$out" 2>&1; then
                sed -n "s/^flood: .*: \([0-9.]*\) s$/$name $n \1/p" "$out" >>"$dir/all.txt"
            else
                echo "# $name: $n messages, round $r failed or timed out (see $out)"
            fi
        done
    done
done

awk '
{ k = $1 SUBSEP $2; if (!(k in best) || $3 < best[k]) best[k] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
function cell(v) { return v == "" ? sprintf("%8s", "-") : sprintf("%8.2f", v) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? sprintf("%8s", "-") : sprintf("%8.2f", a / b) }
END {
    printf "%-8s | %8s %8s %8s | %8s %8s\n", "msgs", "ferry", "mpich", "ompi", "f/mpich", "f/ompi"
    printf "%-8s | %26s | %s\n", "", "seconds, best of rounds", "ratios (< 1: Ferry faster)"
    for (i = 1; i <= n; i++) {
        c = order[i]
        f = best["ferry", c]; m = best["mpich", c]; o = best["ompi", c]
        printf "%-8s | %s %s %s | %s %s\n", c, cell(f), cell(m), cell(o), ratio(f, m), ratio(f, o)
    }
}' "$dir/all.txt"
