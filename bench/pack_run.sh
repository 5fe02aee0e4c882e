#!/usr/bin/env bash
# bench/pack_run.sh: build bench/pack_bench.c against Ferry, MPICH and Open MPI, run the three
# interleaved in rounds (the machine is shared and noisy), and print one table of MPI_Pack and
# MPI_Unpack throughput per shape with a plain C loop beside them, keeping the best value of
# each cell over the rounds.
#
# usage: bench/pack_run.sh [--ferry PREFIX] [--rounds N] [--quick] [--keep DIR]
#   --ferry PREFIX  Ferry installation (PREFIX/bin/mpicc); default: the mpicc in PATH is not
#                   assumed to be Ferry, so without it Ferry is skipped
#   --rounds N      rounds of interleaved runs (default 3)
#   --quick         shorter timing in each run (pack_bench -q)
#   --keep DIR      keep binaries and raw outputs in DIR
# Columns are MB/s (10^6 bytes of packed data per second).  ferry/mpich > 1: Ferry is faster;
# ferry/loop: Ferry's pack against the hand-written loop (the loop is the best any of the three
# builds measured).  A library that cannot be built or run is reported and left out.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/pack_bench.c
ferry_prefix=
rounds=3
quick=
keep=
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) ferry_prefix=$2; shift 2 ;;
    --ferry=*) ferry_prefix=${1#*=}; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --rounds=*) rounds=${1#*=}; shift ;;
    --quick | -q) quick=-q; shift ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "pack_run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case $rounds in '' | *[!0-9]* | 0) echo "pack_run.sh: --rounds wants a positive number" >&2; exit 2 ;; esac

if [ -n "$keep" ]; then
    dir=$keep
    mkdir -p "$dir" || exit 2
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/pack_run.XXXXXX") || exit 2
    trap 'rm -rf "$dir"' EXIT
fi

# name, compiler, launcher (each run is one process)
libs=()
if [ -n "$ferry_prefix" ] && [ -x "$ferry_prefix/bin/mpicc" ]; then
    libs+=("ferry|$ferry_prefix/bin/mpicc|$ferry_prefix/bin/mpiexec -n 1")
else
    echo "# ferry: no --ferry PREFIX with bin/mpicc; skipped"
fi
command -v mpicc.mpich >/dev/null && libs+=("mpich|mpicc.mpich|mpiexec.mpich -n 1")
command -v mpicc.openmpi >/dev/null &&
    libs+=("ompi|mpicc.openmpi|env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self mpiexec.openmpi -n 1")

built=()
for l in "${libs[@]}"; do
    IFS='|' read -r name cc run <<<"$l"
    if $cc -O2 -o "$dir/pack_$name" "$src" >"$dir/build_$name.log" 2>&1; then
        built+=("$l")
    else
        echo "# $name: build failed (see $dir/build_$name.log)"
    fi
done
[ ${#built[@]} -gt 0 ] || { echo "pack_run.sh: nothing built" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$dir/all.txt"
for ((r = 1; r <= rounds; r++)); do
    for l in "${built[@]}"; do
        IFS='|' read -r name cc run <<<"$l"
        # shellcheck disable=SC2086
        if timeout 300 $run "$dir/pack_$name" $quick >"$dir/out_${name}_$r.txt" 2>"$dir/err_${name}_$r.txt"; then
            # "shape words... bytes pack unpack loop-pk loop-unpk" -> lib|shape|5 numbers
            grep -v '^#' "$dir/out_${name}_$r.txt" | grep -v 'not measured' |
                awk -v lib="$name" '{ n = NF; s = $1; for (i = 2; i <= n - 5; i++) s = s " " $i;
                    print lib "|" s "|" $(n-4) "|" $(n-3) "|" $(n-2) "|" $(n-1) "|" $n }' >>"$dir/all.txt"
        else
            echo "# $name: run $r failed (see $dir/err_${name}_$r.txt)"
        fi
    done
done

awk -F'|' '
function max(a, b) { return a > b ? a : b }
{
    if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2; bytes[$2] = $3 }
    k = $1 SUBSEP $2
    pk[k] = max(pk[k], $4); up[k] = max(up[k], $5)
    lp[$2] = max(lp[$2], $6); lu[$2] = max(lu[$2], $7)
}
function cell(v) { return v > 0 ? sprintf("%7.0f", v) : sprintf("%7s", "-") }
function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%6.2f", a / b) : sprintf("%6s", "-") }
END {
    printf "%-36s %8s | %7s %7s %7s %7s | %7s %7s %7s %7s | %6s %6s %6s\n", "shape", "bytes",
        "ferry", "mpich", "ompi", "loop", "ferry", "mpich", "ompi", "loop", "f/mpi", "f/ompi", "f/loop"
    printf "%-36s %8s | %31s | %31s | %s\n", "", "", "pack MB/s", "unpack MB/s", "pack ratios"
    for (i = 1; i <= n; i++) {
        s = order[i]
        f = "ferry" SUBSEP s; m = "mpich" SUBSEP s; o = "ompi" SUBSEP s
        printf "%-36s %8s | %s %s %s %s | %s %s %s %s | %s %s %s\n", s, bytes[s],
            cell(pk[f]), cell(pk[m]), cell(pk[o]), cell(lp[s]),
            cell(up[f]), cell(up[m]), cell(up[o]), cell(lu[s]),
            ratio(pk[f], pk[m]), ratio(pk[f], pk[o]), ratio(pk[f], lp[s])
    }
}' "$dir/all.txt"
