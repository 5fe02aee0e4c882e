#!/usr/bin/env bash
# bench/ofi.sh: Ferry's ofi method (libfabric) next to Ferry's own methods on the same
# transport, in one run: shm (Ferry's) against ofi over libfabric's shm provider, tcp (Ferry's,
# loopback) against ofi over tcp;ofi_rxm; Open MPI's libfabric path (pml cm, mtl ofi) on the
# same providers where it runs.  Latency (half round trip) and bandwidth (window of 64) from
# bench/latbw.c, each configuration once per round, interleaved, best value over the rounds;
# ratios are ofi / native (latency: above 1 means ofi is slower; bandwidth: below 1 means ofi
# is slower) and Ferry-ofi / Open-MPI-ofi.
#
# usage: bench/ofi.sh --ferry PREFIX [--rounds N] [--quick] [--keep DIR]
# MPICH (Debian's is ch4:ucx) has no libfabric path here; the table says so.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix= rounds=3 quick=0 keep=
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) prefix=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --quick | -q) quick=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ofi.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$prefix" ] || { echo "ofi.sh: --ferry PREFIX is required" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0) echo "ofi.sh: --rounds wants a positive number" >&2; exit 2 ;; esac
prefix=$(cd "$prefix" && pwd) || exit 2
work=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench-ofi.XXXXXX")}
mkdir -p "$work" && work=$(cd "$work" && pwd)
[ -z "$keep" ] && trap 'rm -rf "$work"' EXIT
args=(-m 8 -M 4M)
[ "$quick" = 1 ] && args=(-q "${args[@]}")
timeout_s=$([ "$quick" = 1 ] && echo 120 || echo 600)

"$prefix/bin/mpicc" -O2 -o "$work/latbw.ferry" "$here/latbw.c" || exit 1
have_ompi=0
if command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/latbw.ompi" "$here/latbw.c" \
    2>"$work/ompi-build.log"; then
    have_ompi=1
fi
ompi_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
ompi_run=(mpiexec.openmpi -n 2 --oversubscribe --mca pml cm --mca mtl ofi -x FI_PROVIDER)

# name|transport|command (words; the first ones VAR=VALUE)
configs=(
    "ferry-shm|shm|FERRY_METHODS=shm $prefix/bin/mpiexec -n 2 $work/latbw.ferry"
    "ferry-ofi-shm|shm|FERRY_METHODS=ofi FI_PROVIDER=shm $prefix/bin/mpiexec -n 2 $work/latbw.ferry"
    "ferry-tcp|tcp|FERRY_METHODS=tcp FERRY_TCP_IF=lo $prefix/bin/mpiexec -n 2 $work/latbw.ferry"
    "ferry-ofi-tcp|tcp|FERRY_METHODS=ofi FI_PROVIDER=tcp $prefix/bin/mpiexec -n 2 $work/latbw.ferry"
)
if [ $have_ompi = 1 ]; then
    configs+=("ompi-ofi-shm|shm|${ompi_env[*]} FI_PROVIDER=shm ${ompi_run[*]} $work/latbw.ompi"
        "ompi-ofi-tcp|tcp|${ompi_env[*]} FI_PROVIDER=tcp ${ompi_run[*]} $work/latbw.ompi")
fi

declare -A failed
for ((r = 1; r <= rounds; r++)); do
    for c in "${configs[@]}"; do
        IFS='|' read -r name _ cmd <<<"$c"
        [ -n "${failed[$name]:-}" ] && continue
        echo "round $r/$rounds: $name" >&2
        # shellcheck disable=SC2086
        if ! timeout -k 10 "$timeout_s" env $cmd "${args[@]}" >"$work/$name.$r" 2>"$work/$name.$r.err" ||
            ! grep -q '^size ' "$work/$name.$r"; then
            failed[$name]="$(grep -m1 -iE 'error|cannot|fail' "$work/$name.$r.err" "$work/$name.$r" 2>/dev/null | cut -c1-120)"
            [ -n "${failed[$name]}" ] || failed[$name]="no results"
        fi
    done
done

# best NAME SIZE COLUMN(2 latency: min, 3 bandwidth: max)
best() {
    cat "$work/$1".[0-9]* 2>/dev/null | awk -v s="$2" -v c="$3" '
        $1 == s { v = $c + 0; if (!n++ || (c == 2 ? v < b : v > b)) b = v }
        END { if (n) printf "%.2f", b; else printf "-" }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }

sizes=(8 1024 16384 65536 1048576 4194304)
echo "# bench/ofi.sh: $rounds round(s), best of each; latency us (half round trip), bandwidth MB/s"
echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); libfabric $(fi_info --version 2>/dev/null | awk '/^libfabric:/ {print $2}')"
printf '%-14s %-5s' config via
for s in "${sizes[@]}"; do printf ' %10s' "lat@$s"; done
for s in "${sizes[@]}"; do printf ' %10s' "bw@$s"; done
echo
for c in "${configs[@]}"; do
    IFS='|' read -r name via _ <<<"$c"
    if [ -n "${failed[$name]:-}" ]; then
        printf '%-14s %-5s not run: %s\n' "$name" "$via" "${failed[$name]}"
        continue
    fi
    printf '%-14s %-5s' "$name" "$via"
    for s in "${sizes[@]}"; do printf ' %10s' "$(best "$name" "$s" 2)"; done
    for s in "${sizes[@]}"; do printf ' %10s' "$(best "$name" "$s" 3)"; done
    echo
done
echo "# ratios (latency: ofi/native, >1 = ofi slower; bandwidth: ofi/native, <1 = ofi slower)"
for pair in "ferry-ofi-shm ferry-shm" "ferry-ofi-tcp ferry-tcp" "ferry-ofi-shm ompi-ofi-shm" \
    "ferry-ofi-tcp ompi-ofi-tcp"; do
    read -r a b <<<"$pair"
    [ -n "${failed[$a]:-}" ] || [ -n "${failed[$b]:-}" ] && continue
    [ -e "$work/$a.1" ] && [ -e "$work/$b.1" ] || continue
    printf '%-28s' "$a/$b"
    for s in "${sizes[@]}"; do printf ' %10s' "$(ratio "$(best "$a" "$s" 2)" "$(best "$b" "$s" 2)")"; done
    for s in "${sizes[@]}"; do printf ' %10s' "$(ratio "$(best "$a" "$s" 3)" "$(best "$b" "$s" 3)")"; done
    echo
done
[ $have_ompi = 1 ] || echo "# Open MPI: mpicc.openmpi not found or failed to build"
echo "# MPICH: Debian's build is ch4:ucx, without a libfabric path"
