#!/usr/bin/env bash
# bench/startup.sh: start-up time of an empty MPI program (MPI_Init + MPI_Finalize) built with
# Ferry, for several job sizes under several launchers, and the PMI requests each rank makes.
#
# usage: bench/startup.sh --ferry PREFIX [--sizes "16 64 256 1024"] [--rounds N]
#                         [--launchers "mpiexec hydra srun-pmi2 srun-pmix"] [--count-max N]
#
# Launchers: mpiexec (Ferry's, PREFIX/bin/mpiexec), hydra (mpiexec.hydra), srun-pmi2 and
# srun-pmix (srun --mpi=pmi2|pmix -N NODES --overcommit, with the nodes of a running Slurm,
# e.g. ../shared/tools/slurm-up; NODES is SRUN_NODES, default 2).  One missing is reported and
# skipped.  The wall time is the whole launch, best and median of the rounds (the machine is
# shared: best is the repeatable one).  Requests per rank come from one more run with
# PMI_DEBUG=1, counting the lines the client sends ("send:"), divided by the size; only for
# sizes up to --count-max (default: all; the count does not depend on the size, and a 1024-rank
# run loads the machine for minutes).  A run has STARTUP_TIMEOUT seconds (default 300).
set -u -o pipefail

usage() { sed -n '4,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=
sizes="16 64 256 1024"
rounds=3
launchers="mpiexec hydra srun-pmi2 srun-pmix"
count_max=
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) prefix=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --launchers) launchers=$2; shift 2 ;;
    --count-max) count_max=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "startup.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[ -x "$prefix/bin/mpicc" ] || { echo "startup.sh: --ferry PREFIX with bin/mpicc is needed" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0) echo "startup.sh: --rounds wants a positive number" >&2; exit 2 ;; esac
case $count_max in *[!0-9]*) echo "startup.sh: --count-max wants a number" >&2; exit 2 ;; esac
timeout=${STARTUP_TIMEOUT:-300}
nodes=${SRUN_NODES:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-startup.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
"$prefix/bin/mpicc" -O2 -o "$work/empty" "$here/startup_empty.c" || exit 2

# Asked once, and not through `grep -q` in a pipe: with pipefail, ferry_info killed by SIGPIPE
# when grep quits at the first match made the answer "no" at random.
has_pmix=no
case $("$prefix/bin/ferry_info" --parsable 2>/dev/null) in *"pmi	pmix	yes"*) has_pmix=yes ;; esac

# launch_cmd LAUNCHER N: the command line, or nothing (and WHY) if it cannot run here.
launch_cmd() {
    WHY= CMD=()
    case $1 in
    mpiexec) CMD=("$prefix/bin/mpiexec" -n "$2" "$work/empty") ;;
    hydra)
        command -v mpiexec.hydra >/dev/null || { WHY="mpiexec.hydra not installed"; return 1; }
        CMD=(mpiexec.hydra -n "$2" "$work/empty") ;;
    srun-pmi2 | srun-pmix)
        command -v srun >/dev/null || { WHY="srun not installed"; return 1; }
        timeout 20 sinfo -h >/dev/null 2>&1 || { WHY="no Slurm controller answers"; return 1; }
        if [ "$1" = srun-pmix ] && [ "$has_pmix" != yes ]; then
            WHY="this Ferry has no PMIx client"
            return 1
        fi
        CMD=(srun "--mpi=${1#srun-}" -N "$nodes" -n "$2" --overcommit "$work/empty") ;;
    *) WHY="unknown launcher"; return 1 ;;
    esac
}

now() { date +%s.%N; }
printf '%-10s %6s %9s %9s %14s\n' launcher ranks best_s median_s requests/rank
for l in $launchers; do
    for n in $sizes; do
        if ! launch_cmd "$l" "$n"; then
            printf '%-10s %6s  skipped: %s\n' "$l" "$n" "$WHY"
            continue
        fi
        times=() ok=1
        for _ in $(seq "$rounds"); do
            t0=$(now)
            if ! timeout -k 5 "$timeout" "${CMD[@]}" >"$work/out" 2>&1; then
                printf '%-10s %6s  failed: %s\n' "$l" "$n" "$(tail -n 2 "$work/out" | tr '\n' ' ')"
                ok=0
                break
            fi
            times+=("$(echo "$(now) - $t0" | bc)")
        done
        [ $ok = 1 ] || continue
        best=$(printf '%s\n' "${times[@]}" | sort -n | head -n 1)
        median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((${#times[@]} + 1) / 2))p")
        per_rank="not counted"
        if [ -z "$count_max" ] || [ "$n" -le "$count_max" ]; then
            PMI_DEBUG=1 timeout -k 5 "$timeout" "${CMD[@]}" >"$work/dbg" 2>&1
            per_rank=$(echo "scale=1; $(grep -c 'send:' "$work/dbg") / $n" | bc)
        fi
        printf '%-10s %6s %9.2f %9.2f %14s\n' "$l" "$n" "$best" "$median" "$per_rank"
    done
done
