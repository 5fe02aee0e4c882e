#!/usr/bin/env bash
# bench/run.sh: build bench/latbw.c against Ferry, MPICH and Open MPI, run the
# three interleaved in rounds, and print one table comparing them.
#
# usage: bench/run.sh [--ferry PREFIX] [--quick] [--config NAME] [--rounds N]
#                     [--keep DIR] [-- LATBW-OPTIONS...]
#
# The machine is shared and noisy, so each library runs once per round
# (ferry, mpich, ompi, ferry, mpich, ompi, ...) and the table keeps the best
# value per size: the lowest latency and the highest bandwidth.  A library
# that cannot be built or run is reported and left out; it never stops the
# script.  Exit status: 0 if at least one library produced results.

set -u -o pipefail

usage() {
    cat <<'EOF'
usage: bench/run.sh [--ferry PREFIX] [--quick] [--config NAME] [--rounds N]
                    [--keep DIR] [-- LATBW-OPTIONS...]
  --ferry PREFIX  Ferry installation: PREFIX/bin/mpicc and PREFIX/bin/mpiexec
                  (without it, or if they are missing, Ferry is skipped)
  --quick         pass -q to latbw (fewer iterations)
  --config NAME   how the two ranks talk (default shm); see lib_setup()
  --rounds N      rounds of interleaved runs (default 3)
  --keep DIR      keep the binaries, build logs and raw outputs in DIR
  -- ARGS         further options for latbw, e.g. -- -m 1K -M 64K
Environment: LATBW_TIMEOUT=SECONDS kills a run that takes longer (default
600, 120 with --quick).
Libraries: ferry (PREFIX/bin/mpicc), mpich (mpicc.mpich, mpiexec.mpich),
ompi (mpicc.openmpi, mpiexec.openmpi).  Ratios are ferry/other: for latency
below 1 means Ferry is faster, for bandwidth above 1 means Ferry is faster.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/latbw.c
ferry_prefix=
config=shm
rounds=3
quick=0
keep=
latbw_args=()

while [ $# -gt 0 ]; do
    case $1 in
        --ferry) [ $# -ge 2 ] || { usage >&2; exit 2; }; ferry_prefix=$2; shift 2 ;;
        --ferry=*) ferry_prefix=${1#*=}; shift ;;
        --quick|-q) quick=1; shift ;;
        --config) [ $# -ge 2 ] || { usage >&2; exit 2; }; config=$2; shift 2 ;;
        --config=*) config=${1#*=}; shift ;;
        --rounds) [ $# -ge 2 ] || { usage >&2; exit 2; }; rounds=$2; shift 2 ;;
        --rounds=*) rounds=${1#*=}; shift ;;
        --keep) [ $# -ge 2 ] || { usage >&2; exit 2; }; keep=$2; shift 2 ;;
        --keep=*) keep=${1#*=}; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; latbw_args=("$@"); break ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
case $rounds in ''|*[!0-9]*|0) echo "run.sh: --rounds wants a positive number" >&2; exit 2 ;; esac
[ "$quick" = 1 ] && latbw_args=(-q "${latbw_args[@]}")
[ -n "$ferry_prefix" ] && ferry_prefix=$(cd "$ferry_prefix" 2>/dev/null && pwd || echo "$ferry_prefix")

if [ -n "$keep" ]; then
    mkdir -p "$keep" || exit 2
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench.XXXXXX") || exit 2
    trap 'rm -rf "$work"' EXIT
fi

# Seconds one run of latbw may take before it is killed (a hang must not
# stall the whole comparison); LATBW_TIMEOUT overrides.
if [ "$quick" = 1 ]; then run_timeout=120; else run_timeout=600; fi
run_timeout=${LATBW_TIMEOUT:-$run_timeout}

# Open MPI refuses more ranks than cores unless told to oversubscribe (which
# also makes it yield when idle, so only ask for it when really needed).
ompi_extra=()
[ "$(nproc 2>/dev/null || echo 2)" -lt 2 ] && ompi_extra=(--oversubscribe)

libs=(ferry mpich ompi)

# The load average before we start (our own spinning ranks raise it later)
# tells how far to trust a run on a shared machine.
load_start=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')

# lib_setup LIB CONFIG: the one table of per-library command lines.  Sets
# CC (compiler command), RUN (launcher command for 2 ranks) and ENVS
# (variables for the run).  Returns 1 if the pair is not defined, with the
# reason in WHY.  New configurations go here, as LIB:CONFIG cases.
lib_setup() {
    CC=() RUN=() ENVS=() WHY=
    case $1:$2 in
        # shm: both ranks on this node, each library's default intra-node path.
        ferry:shm)
            CC=("$ferry_prefix/bin/mpicc")
            RUN=("$ferry_prefix/bin/mpiexec" -n 2)
            ENVS=("LD_LIBRARY_PATH=$ferry_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
        mpich:shm)
            CC=(mpicc.mpich)
            RUN=(mpiexec.mpich -n 2) ;;
        ompi:shm)
            # Debian's openmpi-mca-params.conf already selects pml ob1 (not
            # ucx), so the default shm path is the vader BTL.
            CC=(mpicc.openmpi)
            RUN=(mpiexec.openmpi -n 2 "${ompi_extra[@]}")
            ENVS=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) ;;
        # tcp: loopback TCP between the two ranks, shared memory turned off.
        ferry:tcp)
            CC=("$ferry_prefix/bin/mpicc")
            RUN=("$ferry_prefix/bin/mpiexec" -n 2)
            ENVS=("LD_LIBRARY_PATH=$ferry_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                  FERRY_METHODS=tcp) ;;
        mpich:tcp)
            # Debian's MPICH 4.0.2 is ch4:ucx and sends even local peers
            # through UCX (by default over its sysv/posix/cma shm), so
            # UCX_TLS=self,tcp is what forces TCP; NOLOCAL is kept for builds
            # with ch4's own shm.  UCX_LOG_LEVEL=info shows the lanes used:
            # tcp/lo and tcp/eth0, both inside this host.
            CC=(mpicc.mpich)
            RUN=(mpiexec.mpich -n 2)
            ENVS=(MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self) ;;
        ompi:tcp)
            CC=(mpicc.openmpi)
            RUN=(mpiexec.openmpi -n 2 "${ompi_extra[@]}" --mca btl self,tcp)
            ENVS=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) ;;
        *)
            WHY="configuration '$2' is not defined for $1 (see lib_setup in bench/run.sh)"
            return 1 ;;
    esac
    return 0
}

# Is the library usable at all?  Sets WHY when not.
lib_available() {
    WHY=
    lib_setup "$1" "$config" || return 1
    if [ "$1" = ferry ]; then
        if [ -z "$ferry_prefix" ]; then WHY="no --ferry PREFIX given"; return 1; fi
        if [ ! -x "$ferry_prefix/bin/mpicc" ]; then WHY="$ferry_prefix/bin/mpicc not found"; return 1; fi
        if [ ! -x "$ferry_prefix/bin/mpiexec" ]; then WHY="$ferry_prefix/bin/mpiexec not found"; return 1; fi
    fi
    if ! command -v "${CC[0]}" >/dev/null 2>&1; then WHY="${CC[0]} not found"; return 1; fi
    if ! command -v "${RUN[0]}" >/dev/null 2>&1; then WHY="${RUN[0]} not found"; return 1; fi
    return 0
}

note() { printf '%s\n' "$*" >&2; }

# Show the last lines of a log, indented, on stderr.
show_tail() { tail -n "${2:-15}" "$1" 2>/dev/null | sed 's/^/    | /' >&2; }

live=()
declare -A libname skipped
for lib in "${libs[@]}"; do
    if ! lib_available "$lib"; then
        skipped[$lib]=$WHY
        note "$lib: skipped: $WHY"
        continue
    fi
    exe=$work/latbw.$lib
    log=$work/build.$lib.log
    note "$lib: building: ${CC[*]} -O2 -Wall -Wextra -o $exe $src"
    if ! "${CC[@]}" -O2 -Wall -Wextra -o "$exe" "$src" >"$log" 2>&1; then
        skipped[$lib]="build failed"
        note "$lib: skipped: build failed:"
        show_tail "$log"
        continue
    fi
    if [ -s "$log" ]; then
        note "$lib: built with warnings:"
        show_tail "$log"
    fi
    live+=("$lib")
done

results=$work/results.txt
: >"$results"
for ((round = 1; round <= rounds; round++)); do
    still=()
    for lib in "${live[@]}"; do
        lib_setup "$lib" "$config"
        out=$work/run.$lib.$round.out
        err=$work/run.$lib.$round.err
        note "round $round/$rounds: $lib: ${ENVS[*]}${ENVS[*]:+ }${RUN[*]} latbw ${latbw_args[*]}"
        env "${ENVS[@]}" timeout --kill-after=10 "$run_timeout" \
            "${RUN[@]}" "$work/latbw.$lib" "${latbw_args[@]}" </dev/null >"$out" 2>"$err"
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q '^size ' "$out"; then
            if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="timed out after ${run_timeout}s"
            else why="exit status $rc"; fi
            skipped[$lib]="run failed in round $round ($why)"
            note "$lib: run failed in round $round ($why); no further rounds for it:"
            show_tail "$out" 5
            show_tail "$err"
            # Rows it produced before failing are not trusted either.
            continue
        fi
        [ -s "$err" ] && { note "$lib: stderr of round $round:"; show_tail "$err" 5; }
        if [ -z "${libname[$lib]:-}" ]; then
            libname[$lib]=$(sed -n 's/^# MPI library: //p' "$out" | head -n 1)
        fi
        awk -v lib="$lib" '!/^#/ && $1 ~ /^[0-9]+$/ && NF >= 3 { print lib, $1, $2, $3 }' \
            "$out" >>"$results"
        still+=("$lib")
    done
    live=("${still[@]}")
done

# Libraries that failed in a later round keep the rounds they completed.
echo
echo "Ferry latbw comparison: config $config, $rounds round(s) interleaved, best of rounds"
echo "host: $(uname -n), $(uname -sr), $(nproc 2>/dev/null || echo '?') cores, $(date '+%Y-%m-%d %H:%M')"
echo "load average before the runs: $load_start (the 2 ranks busy-poll; other load on the cores distorts the numbers)"
for lib in "${libs[@]}"; do
    if [ -n "${libname[$lib]:-}" ]; then
        extra=
        [ -n "${skipped[$lib]:-}" ] && extra=" (partial: ${skipped[$lib]})"
        printf '  %-6s %s%s\n' "$lib:" "${libname[$lib]}" "$extra"
    else
        printf '  %-6s not measured: %s\n' "$lib:" "${skipped[$lib]:-no results}"
    fi
done
echo "latency: microseconds, lower is better; bandwidth: MB/s (10^6 B/s), higher is better"
echo "ratios are ferry/mpich and ferry/ompi: latency < 1 and bandwidth > 1 mean Ferry is faster"
echo

if [ ! -s "$results" ]; then
    echo "no library produced results"
    exit 1
fi

awk '
function cell(lib, s, what,   v) {
    v = (what == "lat") ? lat[lib, s] : bw[lib, s]
    return (v == "") ? "-" : v
}
function ratio(a, b) {
    if (a == "" || b == "" || b + 0 == 0) return "-"
    return sprintf("%.2f", a / b)
}
{
    lib = $1; s = $2 + 0
    if (!(s in seen)) { seen[s] = 1; sizes[++n] = s }
    if (lat[lib, s] == "" || $3 + 0 < lat[lib, s] + 0) lat[lib, s] = $3
    if (bw[lib, s] == "" || $4 + 0 > bw[lib, s] + 0) bw[lib, s] = $4
}
END {
    # sizes in increasing order (insertion sort; n is small)
    for (i = 2; i <= n; i++) {
        v = sizes[i]
        for (j = i - 1; j >= 1 && sizes[j] > v; j--) sizes[j + 1] = sizes[j]
        sizes[j + 1] = v
    }
    fmt = "%-9s | %9s %9s %9s | %7s %7s | %9s %9s %9s | %7s %7s\n"
    printf "%-9s | %-29s | %-15s | %-29s | %-15s\n", "", "latency (us)", "latency ratio",
        "bandwidth (MB/s)", "bandwidth ratio"
    printf fmt, "size", "ferry", "mpich", "ompi", "f/mpich", "f/ompi",
        "ferry", "mpich", "ompi", "f/mpich", "f/ompi"
    for (i = 1; i <= n; i++) {
        s = sizes[i]
        printf fmt, s,
            cell("ferry", s, "lat"), cell("mpich", s, "lat"), cell("ompi", s, "lat"),
            ratio(lat["ferry", s], lat["mpich", s]), ratio(lat["ferry", s], lat["ompi", s]),
            cell("ferry", s, "bw"), cell("mpich", s, "bw"), cell("ompi", s, "bw"),
            ratio(bw["ferry", s], bw["mpich", s]), ratio(bw["ferry", s], bw["ompi", s])
    }
}' "$results"

[ -n "$keep" ] && echo && echo "raw outputs and build logs: $work"
exit 0
