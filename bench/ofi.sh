#!/usr/bin/env bash
# bench/ofi.sh: Ferry's ofi method (libfabric) next to Ferry's own methods on the same
# transport, in one run: shm (Ferry's) against ofi over libfabric's shm provider, tcp (Ferry's,
# loopback) against ofi over tcp;ofi_rxm; Open MPI's libfabric path (pml cm, mtl ofi) on the
# same providers where it runs.  Latency (half round trip) and bandwidth (window of 64) from
# bench/latbw.c, each configuration once per round, interleaved, best value over the rounds;
# ratios are ofi / native (latency: above 1 means ofi is slower; bandwidth: below 1 means ofi
# is slower) and Ferry-ofi / Open-MPI-ofi.
#
# With --vm, the same inside the Soft-RoCE VM (../shared/tools/rxe-run; RXE_RUN names another
# runner): Ferry's verbs method against ofi over FI_PROVIDER="verbs;ofi_rxm" (FI_UNIVERSE_SIZE=16:
# rxm sizes its CQs by it, and rxe's CQ limit does not fit the default), and Open MPI (pml cm,
# mtl ofi; and pml ucx) and MPICH (ch4:ucx) on rxe0 where they run; the median over the rounds
# (the VM's CPU is emulated, so every figure moves with the machine's load).  PREFIX must lie
# inside this tree (the VM sees only the tree); take the VM lock around the call:
#   flock /work/.vm.lock bench/ofi.sh --ferry $PWD/_inst --vm --rounds 3
#
# usage: bench/ofi.sh --ferry PREFIX [--vm] [--rounds N] [--quick] [--keep DIR]
# MPICH (Debian's is ch4:ucx) has no libfabric path here; the table says so.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix= rounds=3 quick=0 keep= vm=0 in_vm=0
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) prefix=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --quick | -q) quick=1; shift ;;
    --keep) keep=$2; shift 2 ;;
    --vm) vm=1; shift ;;
    --in-vm) in_vm=1; vm=1; shift ;; # (internal: the rounds, run inside the VM)
    -h | --help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ofi.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$prefix" ] || { echo "ofi.sh: --ferry PREFIX is required" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0) echo "ofi.sh: --rounds wants a positive number" >&2; exit 2 ;; esac
prefix=$(cd "$prefix" && pwd) || exit 2
top=$(cd "$here/.." && pwd)
if [ $vm = 1 ]; then
    case $prefix/ in "$top"/*) ;; *) echo "ofi.sh: $prefix is outside $top (the VM sees only the tree)" >&2; exit 2 ;; esac
    work=${keep:-$top/_build/bench-ofi-vm}
    [ $in_vm = 1 ] || rm -rf "$work"
else
    work=${keep:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench-ofi.XXXXXX")}
fi
mkdir -p "$work" && work=$(cd "$work" && pwd)
[ -z "$keep" ] && [ $vm = 0 ] && trap 'rm -rf "$work"' EXIT
args=(-m 8 -M 4M)
[ "$quick" = 1 ] && args=(-q "${args[@]}")
timeout_s=$([ "$quick" = 1 ] && echo 120 || echo 600)
# In the VM (emulated CPU) --quick stops at 64 KiB: a quick round stays within minutes.
[ $vm = 1 ] && [ "$quick" = 1 ] && args=(-q -m 8 -M 64K)
[ $vm = 1 ] && timeout_s=$([ "$quick" = 1 ] && echo 240 || echo 900)

# The programs are built on the host (a compiler in the emulated VM is slow).
if [ $in_vm = 0 ]; then
    "$prefix/bin/mpicc" -O2 -o "$work/latbw.ferry" "$here/latbw.c" || exit 1
    command -v mpicc.openmpi >/dev/null &&
        mpicc.openmpi -O2 -o "$work/latbw.ompi" "$here/latbw.c" 2>"$work/ompi-build.log"
    [ $vm = 1 ] && command -v mpicc.mpich >/dev/null &&
        mpicc.mpich -O2 -o "$work/latbw.mpich" "$here/latbw.c" 2>"$work/mpich-build.log"
fi
have_ompi=0 have_mpich=0
[ -x "$work/latbw.ompi" ] && have_ompi=1
[ -x "$work/latbw.mpich" ] && have_mpich=1
ompi_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
ompi_run=(mpiexec.openmpi -n 2 --oversubscribe --mca pml cm --mca mtl ofi -x FI_PROVIDER)

# name|transport|command (words; the first ones VAR=VALUE)
if [ $vm = 1 ]; then
    rxm='FI_PROVIDER=verbs;ofi_rxm FI_UNIVERSE_SIZE=16'
    configs=(
        "ferry-verbs|rxe|FERRY_METHODS=verbs $prefix/bin/mpiexec -n 2 $work/latbw.ferry"
        "ferry-ofi-verbs|rxe|FERRY_METHODS=ofi $rxm $prefix/bin/mpiexec -n 2 $work/latbw.ferry"
    )
    [ $have_ompi = 1 ] && configs+=(
        "ompi-ofi-verbs|rxe|${ompi_env[*]} $rxm ${ompi_run[*]} -x FI_UNIVERSE_SIZE $work/latbw.ompi"
        "ompi-ucx|rxe|${ompi_env[*]} UCX_NET_DEVICES=rxe0:1 mpiexec.openmpi -n 2 --oversubscribe -x UCX_NET_DEVICES --mca pml ucx --mca btl ^openib,tcp,vader $work/latbw.ompi")
    [ $have_mpich = 1 ] && configs+=(
        "mpich-ucx|rxe|UCX_NET_DEVICES=rxe0:1 mpiexec.mpich -n 2 $work/latbw.mpich")
else
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
fi

# --vm on the host: the rounds run inside the VM (this script again, --in-vm), the table here.
if [ $vm = 1 ] && [ $in_vm = 0 ]; then
    rxe=${RXE_RUN:-}
    for c in "$top/../shared/tools/rxe-run" /work/shared/tools/rxe-run; do
        [ -z "$rxe" ] && [ -x "$c" ] && rxe=$c
    done
    [ -x "$rxe" ] || { echo "ofi.sh: no VM runner (rxe-run; set RXE_RUN)" >&2; exit 2; }
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    export RXE_VM_APPEND=${RXE_VM_APPEND:-no_timer_check} # (see test/verbs/run.sh)
    qa=()
    [ "$quick" = 1 ] && qa=(--quick)
    (cd "$top" && "$rxe" --timeout $((timeout_s * ${#configs[@]} * rounds + 300)) -- \
        bash bench/ofi.sh --ferry "$prefix" --in-vm --keep "$work" --rounds "$rounds" "${qa[@]}") ||
        { echo "ofi.sh: the VM run failed" >&2; exit 1; }
fi

declare -A failed
if [ $vm = 0 ] || [ $in_vm = 1 ]; then
    for ((r = 1; r <= rounds; r++)); do
        for c in "${configs[@]}"; do
            IFS='|' read -r name _ cmd <<<"$c"
            [ -n "${failed[$name]:-}" ] && continue
            echo "round $r/$rounds: $name" >&2
            # shellcheck disable=SC2086
            timeout -k 10 "$timeout_s" env $cmd "${args[@]}" >"$work/$name.$r" 2>"$work/$name.$r.err"
            rc=$?
            # Cut by the time limit after some sizes: those stay, and the table says so.
            if [ $rc = 124 ] || [ $rc = 137 ] && grep -q '^[0-9]' "$work/$name.$r"; then
                echo "$name round $r cut by the ${timeout_s}-s limit after $(awk '/^[0-9]/ { s = $1 } END { print s }' "$work/$name.$r") bytes" >>"$work/cut"
            elif [ $rc != 0 ] || ! grep -q '^size ' "$work/$name.$r"; then
                failed[$name]="$(cat "$work/$name.$r.err" "$work/$name.$r" 2>/dev/null | grep -v '^#' | grep -m1 -iE 'error|cannot|fail|not|abort' | cut -c1-160)"
                [ -n "${failed[$name]}" ] || failed[$name]="no results (exit: see $name.$r.err)"
                echo "${failed[$name]}" >"$work/$name.failed"
                rm -f "$work/$name.$r"
            fi
        done
    done
    [ $in_vm = 1 ] && exit 0
else
    for c in "${configs[@]}"; do
        IFS='|' read -r name _ _ <<<"$c"
        [ -e "$work/$name.failed" ] && failed[$name]=$(cat "$work/$name.failed")
    done
fi

# best NAME SIZE COLUMN(2 latency: min, 3 bandwidth: max); in the VM the median instead
best() {
    cat "$work/$1".[0-9]* 2>/dev/null | awk -v s="$2" -v c="$3" -v med="$vm" '
        $1 == s { v[++n] = $c + 0; if (n == 1 || (c == 2 ? v[n] < b : v[n] > b)) b = v[n] }
        END {
            if (!n) { printf "-"; exit }
            if (med == 1) {
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                b = v[int((n + 1) / 2)]
            }
            printf "%.2f", b
        }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f", a / b }'; }

sizes=(8 1024 16384 65536 1048576 4194304)
what="best of each"
[ $vm = 1 ] && what="median of each, in the Soft-RoCE VM (rxe0, TCG), load before: ${load:-?}, after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# bench/ofi.sh: $rounds round(s), $what; latency us (half round trip), bandwidth MB/s"
echo "# $(uname -n), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); libfabric $(fi_info --version 2>/dev/null | awk '/^libfabric:/ {print $2}')"
printf '%-15s %-5s' config via
for s in "${sizes[@]}"; do printf ' %10s' "lat@$s"; done
for s in "${sizes[@]}"; do printf ' %10s' "bw@$s"; done
echo
for c in "${configs[@]}"; do
    IFS='|' read -r name via _ <<<"$c"
    if [ -n "${failed[$name]:-}" ]; then
        printf '%-15s %-5s not run: %s\n' "$name" "$via" "${failed[$name]}"
        continue
    fi
    printf '%-15s %-5s' "$name" "$via"
    for s in "${sizes[@]}"; do printf ' %10s' "$(best "$name" "$s" 2)"; done
    for s in "${sizes[@]}"; do printf ' %10s' "$(best "$name" "$s" 3)"; done
    echo
done
echo "# ratios (latency: ofi/native, >1 = ofi slower; bandwidth: ofi/native, <1 = ofi slower)"
pairs=("ferry-ofi-shm ferry-shm" "ferry-ofi-tcp ferry-tcp" "ferry-ofi-shm ompi-ofi-shm" "ferry-ofi-tcp ompi-ofi-tcp")
[ $vm = 1 ] && pairs=("ferry-ofi-verbs ferry-verbs" "ferry-ofi-verbs ompi-ofi-verbs" "ferry-verbs ompi-ucx" "ferry-verbs mpich-ucx")
for pair in "${pairs[@]}"; do
    read -r a b <<<"$pair"
    [ -n "${failed[$a]:-}" ] || [ -n "${failed[$b]:-}" ] && continue
    [ -e "$work/$a.1" ] && [ -e "$work/$b.1" ] || continue
    printf '%-28s' "$a/$b"
    for s in "${sizes[@]}"; do printf ' %10s' "$(ratio "$(best "$a" "$s" 2)" "$(best "$b" "$s" 2)")"; done
    for s in "${sizes[@]}"; do printf ' %10s' "$(ratio "$(best "$a" "$s" 3)" "$(best "$b" "$s" 3)")"; done
    echo
done
[ -e "$work/cut" ] && sed 's/^/# /' "$work/cut"
[ $have_ompi = 1 ] || echo "# Open MPI: mpicc.openmpi not found or failed to build"
[ $vm = 1 ] || echo "# MPICH: Debian's build is ch4:ucx, without a libfabric path"
