#!/usr/bin/env bash
# bench/coll_run.sh: build bench/coll.c against Ferry (and optionally a second Ferry, "base",
# e.g. main before a change), MPICH and Open MPI, run them interleaved in rounds on this host
# (the machine is shared and noisy: the order rotates every round), and print the median time
# per call of a small MPI_Allreduce and of MPI_Barrier for each library, with ratios (below 1:
# Ferry is faster).
#
# usage: bench/coll_run.sh [--ferry PREFIX] [--base PREFIX] [--rounds N] [--ranks R]
#                          [--keep DIR] [-- COLL-OPTIONS...]
#   --ferry PREFIX  Ferry installation (PREFIX/bin/mpicc, PREFIX/bin/mpiexec); without it
#                   Ferry is skipped
#   --base PREFIX   a second Ferry installation, measured beside it as "base"
#   --rounds N      rounds of interleaved runs (default 5)
#   --ranks R       ranks per run (default 2), each bound to a core
#   --keep DIR      keep binaries and raw outputs in DIR
#   -- ARGS         options for coll, e.g. -- -s 64 -i 50000
# A run that fails or takes longer than COLL_TIMEOUT seconds (default 300) is reported and
# left out of the medians.
set -u -o pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ferry_prefix= base_prefix= rounds=5 ranks=2 keep=
coll_args=()
need_arg() { [ "$2" -ge 2 ] || { echo "coll_run.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) need_arg "$1" $#; ferry_prefix=$2; shift 2 ;;
    --base) need_arg "$1" $#; base_prefix=$2; shift 2 ;;
    --rounds) need_arg "$1" $#; rounds=$2; shift 2 ;;
    --ranks) need_arg "$1" $#; ranks=$2; shift 2 ;;
    --keep) need_arg "$1" $#; keep=$2; shift 2 ;;
    -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; coll_args=("$@"); break ;;
    *) echo "coll_run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
case $rounds$ranks in *[!0-9]*) echo "coll_run.sh: --rounds and --ranks take numbers" >&2; exit 2 ;; esac
if [ -n "$keep" ]; then
    dir=$keep
    mkdir -p "$dir" || exit 2
else
    dir=$(mktemp -d "${TMPDIR:-/tmp}/coll_run.XXXXXX") || exit 2
    trap 'rm -rf "$dir"' EXIT
fi

# name|compiler|launcher (every library binds each rank to a core)
libs=()
for p in "ferry|$ferry_prefix" "base|$base_prefix"; do
    IFS='|' read -r name prefix <<<"$p"
    [ -n "$prefix" ] || continue
    if [ -x "$prefix/bin/mpicc" ]; then
        libs+=("$name|$prefix/bin/mpicc|env LD_LIBRARY_PATH=$prefix/lib $prefix/bin/mpiexec -bind-to core -n $ranks")
    else
        echo "# $name: no $prefix/bin/mpicc; skipped"
    fi
done
command -v mpicc.mpich >/dev/null && libs+=("mpich|mpicc.mpich|mpiexec.mpich -bind-to core -n $ranks")
command -v mpicc.openmpi >/dev/null &&
    libs+=("ompi|mpicc.openmpi|env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec.openmpi --bind-to core -n $ranks")
built=()
for l in "${libs[@]}"; do
    IFS='|' read -r name cc run <<<"$l"
    if $cc -O2 -o "$dir/coll_$name" "$here/coll.c" >"$dir/build_$name.log" 2>&1; then
        built+=("$l")
    else
        echo "# $name: build failed (see $dir/build_$name.log)"
    fi
done
[ ${#built[@]} -gt 0 ] || { echo "coll_run.sh: nothing built" >&2; exit 1; }

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $ranks ranks, $rounds rounds, coll ${coll_args[*]}"
: >"$dir/all.txt"
nlib=${#built[@]}
for ((r = 0; r < rounds; r++)); do
    for ((k = 0; k < nlib; k++)); do
        l=${built[$(((k + r) % nlib))]}
        IFS='|' read -r name cc run <<<"$l"
        out=$dir/out_${name}_$r.txt
        # shellcheck disable=SC2086
        if timeout "${COLL_TIMEOUT:-300}" $run "$dir/coll_$name" "${coll_args[@]}" >"$out" 2>&1; then
            awk -v lib="$name" '/^coll: allreduce/ { sub(":", "", $6); print lib, "allreduce_" $6 "B", $(NF - 1) }
                /^coll: barrier/ { print lib, "barrier", $(NF - 1) }' "$out" >>"$dir/all.txt"
        else
            echo "# $name: round $((r + 1)) failed or timed out (see $out)"
        fi
    done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

sort -k1,1 -k2,2 -k3,3g "$dir/all.txt" | awk '
{ k = $1 SUBSEP $2; v[k, ++n[k]] = $3; if (!($2 in seen)) { seen[$2] = 1; order[++m] = $2 } }
function med(k,    c) { c = n[k]; if (!c) return ""; return c % 2 ? v[k, (c + 1) / 2] : (v[k, c / 2] + v[k, c / 2 + 1]) / 2 }
function cell(x) { return x == "" ? sprintf("%8s", "-") : sprintf("%8.2f", x) }
function ratio(a, b) { return (a == "" || b == "" || b == 0) ? sprintf("%8s", "-") : sprintf("%8.2f", a / b) }
END {
    printf "%-14s | %8s %8s %8s %8s | %8s %8s %8s\n", "collective", "ferry", "base", "mpich", "ompi", "f/base", "f/mpich", "f/ompi"
    printf "%-14s | %35s | %s\n", "", "us per call, median of rounds", "ratios (< 1: Ferry faster)"
    for (i = 1; i <= m; i++) {
        c = order[i]
        f = med("ferry" SUBSEP c); b = med("base" SUBSEP c); mp = med("mpich" SUBSEP c); o = med("ompi" SUBSEP c)
        printf "%-14s | %s %s %s %s | %s %s %s\n", c, cell(f), cell(b), cell(mp), cell(o), ratio(f, b), ratio(f, mp), ratio(f, o)
    }
}'
