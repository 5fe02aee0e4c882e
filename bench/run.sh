#!/usr/bin/env bash
# bench/run.sh: build bench/latbw.c against Ferry, MPICH and Open MPI (and optionally a second
# Ferry, e.g. main's, to see regressions), run them interleaved in rounds over shm and tcp,
# measure the flag ping-pong floor (bench/floor.c) in the same rounds, and print the medians
# side by side with ratios, then the goals of issue 12 with a verdict each.  Optionally writes
# the same tables as Markdown and a PNG plot (gnuplot) of latency and bandwidth against size.
#
# usage: bench/run.sh [--ferry PREFIX] [--base PREFIX] [--configs LIST] [--rounds N] [--quick]
#                     [--bind core|none] [--plot FILE.png] [--markdown FILE] [--keep DIR]
#                     [-- LATBW-OPTIONS...]
#
# The machine is shared and noisy: each library runs once per round, in an order that rotates
# from round to round, and every cell of the tables is the median over the rounds.  The load
# average before and after is printed; trust a run only when it was low.  A library that cannot
# be built or run is reported and left out; it never stops the script.  Exit status: 0 if at
# least one library produced results.

set -u -o pipefail

usage() {
    cat <<'EOF'
usage: bench/run.sh [--ferry PREFIX] [--base PREFIX] [--configs LIST] [--rounds N] [--quick]
                    [--bind core|none] [--plot FILE.png] [--markdown FILE] [--keep DIR]
                    [-- LATBW-OPTIONS...]
  --ferry PREFIX    Ferry installation: PREFIX/bin/mpicc and PREFIX/bin/mpiexec
                    (without it, or if they are missing, Ferry is skipped)
  --base PREFIX     a second Ferry installation measured beside it as "base" (e.g. main's
                    before a change): the tables add ferry/base ratios
  --configs LIST    comma list of shm, tcp (default shm,tcp); see lib_setup()
  --rounds N        rounds of interleaved runs (default 5); cells are medians over rounds
  --quick           pass -q to latbw (fewer iterations) and shorten the floor
  --bind core|none  bind each rank to a core (default core; every library alike)
  --plot FILE.png   draw latency and bandwidth against size, one line per library (gnuplot)
  --markdown FILE   write the tables and goals as Markdown (for doc/performance.md)
  --keep DIR        keep the binaries, build logs and raw outputs in DIR
  -- ARGS           further options for latbw, e.g. -- -m 1K -M 64K -t lat,bw
Environment: LATBW_TIMEOUT=SECONDS kills a run that takes longer (default 900, 180 with
--quick).
Libraries: ferry and base (PREFIX/bin/mpicc), mpich (mpicc.mpich, mpiexec.mpich), ompi
(mpicc.openmpi, mpiexec.openmpi).  Ratios are ferry/other: for latency below 1 means Ferry is
faster, for bandwidth above 1 means Ferry is faster.
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$here/latbw.c
floor_src=$here/floor.c
ferry_prefix=
base_prefix=
configs=shm,tcp
rounds=5
quick=0
bind=core
plot=
markdown=
keep=
latbw_args=()

need_arg() { [ "$2" -ge 2 ] || { echo "run.sh: $1 needs a value" >&2; usage >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case $1 in
        --ferry) need_arg "$1" $#; ferry_prefix=$2; shift 2 ;;
        --ferry=*) ferry_prefix=${1#*=}; shift ;;
        --base) need_arg "$1" $#; base_prefix=$2; shift 2 ;;
        --base=*) base_prefix=${1#*=}; shift ;;
        --configs|--config) need_arg "$1" $#; configs=$2; shift 2 ;;
        --configs=*|--config=*) configs=${1#*=}; shift ;;
        --quick|-q) quick=1; shift ;;
        --rounds) need_arg "$1" $#; rounds=$2; shift 2 ;;
        --rounds=*) rounds=${1#*=}; shift ;;
        --bind) need_arg "$1" $#; bind=$2; shift 2 ;;
        --bind=*) bind=${1#*=}; shift ;;
        --plot) need_arg "$1" $#; plot=$2; shift 2 ;;
        --plot=*) plot=${1#*=}; shift ;;
        --markdown) need_arg "$1" $#; markdown=$2; shift 2 ;;
        --markdown=*) markdown=${1#*=}; shift ;;
        --keep) need_arg "$1" $#; keep=$2; shift 2 ;;
        --keep=*) keep=${1#*=}; shift ;;
        -h|--help) usage; exit 0 ;;
        --) shift; latbw_args=("$@"); break ;;
        *) echo "run.sh: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
case $rounds in ''|*[!0-9]*|0) echo "run.sh: --rounds wants a positive number" >&2; exit 2 ;; esac
case $bind in core|none) ;; *) echo "run.sh: --bind wants core or none, not '$bind'" >&2; exit 2 ;; esac
IFS=, read -r -a config_list <<<"$configs"
[ ${#config_list[@]} -gt 0 ] || { echo "run.sh: --configs is empty" >&2; exit 2; }
for c in "${config_list[@]}"; do
    case $c in shm|tcp) ;; *) echo "run.sh: unknown configuration '$c' (shm, tcp)" >&2; exit 2 ;; esac
done
[ "$quick" = 1 ] && latbw_args=(-q "${latbw_args[@]}")
abspath() { (cd "$1" 2>/dev/null && pwd) || echo "$1"; }
[ -n "$ferry_prefix" ] && ferry_prefix=$(abspath "$ferry_prefix")
[ -n "$base_prefix" ] && base_prefix=$(abspath "$base_prefix")
if [ -n "$plot" ] && ! command -v gnuplot >/dev/null 2>&1; then
    echo "run.sh: --plot needs gnuplot (Debian: gnuplot-nox, in test/debian-packages)" >&2
    exit 2
fi

if [ -n "$keep" ]; then
    mkdir -p "$keep" || exit 2
    work=$(cd "$keep" && pwd)
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-bench.XXXXXX") || exit 2
    trap 'rm -rf "$work"' EXIT
fi

# Seconds one run of latbw may take before it is killed (a hang must not stall the whole
# comparison); LATBW_TIMEOUT overrides.
if [ "$quick" = 1 ]; then run_timeout=180; else run_timeout=900; fi
run_timeout=${LATBW_TIMEOUT:-$run_timeout}
if [ "$quick" = 1 ]; then floor_args=(-i 1000 -r 21); else floor_args=(-i 10000 -r 21); fi
[ "$bind" = none ] && floor_args+=(-n)

libs=(ferry)
[ -n "$base_prefix" ] && libs+=(base)
libs+=(mpich ompi)

# The load average before we start (our own spinning ranks raise it later) tells how far to
# trust a run on a shared machine.
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
start_date=$(date '+%Y-%m-%d %H:%M')

# lib_setup LIB CONFIG: the one table of per-library command lines.  Sets CC (compiler
# command), RUN (launcher command for 2 ranks) and ENVS (variables for the run).  Returns 1 if
# the pair is not defined, with the reason in WHY.  New configurations go here.
lib_setup() {
    CC=() RUN=() ENVS=() WHY=
    local prefix=
    case $1 in ferry) prefix=$ferry_prefix ;; base) prefix=$base_prefix ;; esac
    local fbind=() mbind=() obind=()
    if [ "$bind" = core ]; then
        fbind=(-bind-to core) mbind=(-bind-to core) obind=(--bind-to core)
    else
        fbind=(-bind-to none) mbind=(-bind-to none) obind=(--bind-to none)
    fi
    case $1:$2 in
        # shm: both ranks on this node, each library's default intra-node path.
        ferry:shm|base:shm)
            CC=("$prefix/bin/mpicc")
            RUN=("$prefix/bin/mpiexec" "${fbind[@]}" -n 2)
            ENVS=("LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}") ;;
        mpich:shm)
            CC=(mpicc.mpich)
            RUN=(mpiexec.mpich "${mbind[@]}" -n 2) ;;
        ompi:shm)
            # Debian's openmpi-mca-params.conf already selects pml ob1 (not ucx), so the
            # default shm path is the vader BTL.
            CC=(mpicc.openmpi)
            RUN=(mpiexec.openmpi "${obind[@]}" -n 2)
            ENVS=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) ;;
        # tcp: loopback TCP between the two ranks, shared memory turned off.
        ferry:tcp|base:tcp)
            CC=("$prefix/bin/mpicc")
            RUN=("$prefix/bin/mpiexec" "${fbind[@]}" -n 2)
            ENVS=("LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                  FERRY_METHODS=tcp) ;;
        mpich:tcp)
            # Debian's MPICH 4.0.2 is ch4:ucx and sends even local peers through UCX (by
            # default over its sysv/posix/cma shm), so UCX_TLS=self,tcp is what forces TCP;
            # NOLOCAL is kept for builds with ch4's own shm.  UCX_LOG_LEVEL=info shows the
            # lanes used: tcp/lo and tcp/eth0, both inside this host.
            CC=(mpicc.mpich)
            RUN=(mpiexec.mpich "${mbind[@]}" -n 2)
            ENVS=(MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self) ;;
        ompi:tcp)
            CC=(mpicc.openmpi)
            RUN=(mpiexec.openmpi "${obind[@]}" -n 2 --mca btl self,tcp)
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
    lib_setup "$1" "${config_list[0]}" || return 1
    local prefix=
    case $1 in ferry) prefix=$ferry_prefix ;; base) prefix=$base_prefix ;; esac
    if [ "$1" = ferry ] || [ "$1" = base ]; then
        if [ -z "$prefix" ]; then WHY="no --$1 PREFIX given"; return 1; fi
        if [ ! -x "$prefix/bin/mpicc" ]; then WHY="$prefix/bin/mpicc not found"; return 1; fi
        if [ ! -x "$prefix/bin/mpiexec" ]; then WHY="$prefix/bin/mpiexec not found"; return 1; fi
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

floor_ok=0
if "${CC_FLOOR:-cc}" -O2 -Wall -Wextra -o "$work/floor" "$floor_src" >"$work/build.floor.log" 2>&1; then
    floor_ok=1
else
    note "floor: build failed (no floor in the tables):"
    show_tail "$work/build.floor.log"
fi

# One line per measurement: CONFIG LIB ROUND SIZE LAT BW BIBW ('-' for a test not run), and
# FLOOR ROUND VALUE.
results=$work/results.txt
: >"$results"
for ((round = 1; round <= rounds; round++)); do
    if [ "$floor_ok" = 1 ]; then
        note "round $round/$rounds: floor ${floor_args[*]}"
        if timeout 300 "$work/floor" "${floor_args[@]}" >"$work/floor.$round.out" 2>&1; then
            awk -v r="$round" '$1 == "floor_oneway_us" { print "FLOOR", r, $2 }' \
                "$work/floor.$round.out" >>"$results"
        else
            note "floor: run failed in round $round:"
            show_tail "$work/floor.$round.out" 5
        fi
    fi
    for config in "${config_list[@]}"; do
        # Rotate the order each round so no library always runs first (or right after a
        # given one).
        n=${#live[@]}
        for ((k = 0; k < n; k++)); do
            lib=${live[$(((k + round - 1) % n))]}
            key=$lib:$config
            [ -n "${skipped[$key]:-}" ] && continue
            lib_setup "$lib" "$config" || { skipped[$key]=$WHY; continue; }
            out=$work/run.$lib.$config.$round.out
            err=$work/run.$lib.$config.$round.err
            note "round $round/$rounds: $config: $lib: ${ENVS[*]}${ENVS[*]:+ }${RUN[*]} latbw ${latbw_args[*]}"
            env "${ENVS[@]}" timeout --kill-after=10 "$run_timeout" \
                "${RUN[@]}" "$work/latbw.$lib" "${latbw_args[@]}" </dev/null >"$out" 2>"$err"
            rc=$?
            if [ $rc -ne 0 ] || ! grep -q '^size ' "$out" || grep -q 'DATA ERROR' "$out"; then
                if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why="timed out after ${run_timeout}s"
                elif grep -q 'DATA ERROR' "$out"; then why="wrong data received"
                else why="exit status $rc"; fi
                skipped[$key]="run failed in round $round ($why)"
                note "$lib: $config: run failed in round $round ($why); no further rounds for it:"
                show_tail "$out" 5
                show_tail "$err"
                continue
            fi
            [ -s "$err" ] && { note "$lib: $config: stderr of round $round:"; show_tail "$err" 5; }
            if [ -z "${libname[$lib]:-}" ]; then
                libname[$lib]=$(sed -n 's/^# MPI library: //p' "$out" | head -n 1)
            fi
            awk -v c="$config" -v lib="$lib" -v r="$round" \
                '!/^#/ && $1 ~ /^[0-9]+$/ && NF >= 4 { print c, lib, r, $1, $2, $3, $4 }' \
                "$out" >>"$results"
        done
    done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

if ! grep -qv '^FLOOR' "$results"; then
    echo "no library produced results"
    exit 1
fi

# Medians over the rounds: CONFIG LIB SIZE METRIC VALUE NROUNDS, and FLOOR VALUE NROUNDS.
medians=$work/medians.txt
awk '
function median(list,   n, v, i, j, t) {
    n = split(list, v, " ")
    for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
$1 == "FLOOR" { fl = fl " " $3; nfl++; next }
{
    split("lat bw bibw", m, " ")
    for (k = 1; k <= 3; k++) {
        val = $(4 + k)
        if (val == "-") continue
        key = $1 SUBSEP $2 SUBSEP $4 SUBSEP m[k]
        vals[key] = vals[key] " " val
        cnt[key]++
    }
}
END {
    if (nfl) printf "FLOOR %.4f %d\n", median(fl), nfl
    for (key in vals) {
        split(key, p, SUBSEP)
        printf "%s %s %s %s %.6g %d\n", p[1], p[2], p[3], p[4], median(vals[key]), cnt[key]
    }
}' "$results" | sort -k1,1 -k2,2 -k3,3n -k4,4 >"$medians"

floor=$(awk '$1 == "FLOOR" { print $2 }' "$medians")

# The report, once as text and once as Markdown (md=1).
report() {
    local md=$1
    local libs_here=()
    for lib in "${libs[@]}"; do libs_here+=("$lib"); done
    awk -v md="$md" -v libs="${libs_here[*]}" -v configs="${config_list[*]}" \
        -v floor="$floor" -f /dev/stdin "$medians" <<'AWK'
function fmtv(v) {
    if (v == "") return "-"
    return (v < 10) ? sprintf("%.3f", v) : (v < 1000) ? sprintf("%.2f", v) : sprintf("%.0f", v)
}
function ratio(a, b) { return (a == "" || b == "" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
function hsize(s) {
    if (s >= 1048576 && s % 1048576 == 0) return (s / 1048576) "M"
    if (s >= 1024 && s % 1024 == 0) return (s / 1024) "K"
    return s
}
function row(cells, n,   i, line) {
    if (md) {
        line = "|"
        for (i = 1; i <= n; i++) line = line " " cells[i] " |"
        print line
    } else {
        line = sprintf("%-8s", cells[1])
        for (i = 2; i <= n; i++) line = line sprintf(" %9s", cells[i])
        print line
    }
}
function rule(n,   i, line) {
    if (!md) return
    line = "|"
    for (i = 1; i <= n; i++) line = line (i == 1 ? " --- |" : " ---: |")
    print line
}
$1 == "FLOOR" { next }
{
    v[$1, $2, $3, $4] = $5
    if (!(($1, $3) in seen)) { seen[$1, $3] = 1; sizes[$1] = sizes[$1] " " $3 }
    have[$2] = 1
}
END {
    nl = split(libs, L, " ")
    nc = split(configs, C, " ")
    split("lat bw bibw", M, " ")
    title["lat"] = "latency (us, lower is better)"
    title["bw"] = "bandwidth, window of 64 (MB/s, higher is better)"
    title["bibw"] = "bi-directional bandwidth, windows of 64 both ways (MB/s, higher is better)"
    peers = ""
    for (c = 1; c <= nc; c++) {
        cf = C[c]
        ns = split(sizes[cf], S, " ")
        if (ns == 0) continue
        for (mi = 1; mi <= 3; mi++) {
            m = M[mi]
            any = 0
            for (i = 1; i <= ns; i++) for (l = 1; l <= nl; l++) if ((cf, L[l], S[i], m) in v) any = 1
            if (!any) continue
            print ""
            print (md ? "**" cf ": " title[m] "**" : "== " cf ": " title[m])
            if (md) print ""
            n = 0
            cells[++n] = "size"
            for (l = 1; l <= nl; l++) if (have[L[l]]) cells[++n] = L[l]
            for (l = 1; l <= nl; l++) if (have[L[l]] && L[l] != "ferry" && have["ferry"]) cells[++n] = "f/" L[l]
            if (m == "lat" && cf == "shm" && floor != "") cells[++n] = "f/floor"
            row(cells, n); rule(n)
            for (i = 1; i <= ns; i++) {
                s = S[i]; n = 0
                cells[++n] = hsize(s)
                for (l = 1; l <= nl; l++) if (have[L[l]]) cells[++n] = fmtv(v[cf, L[l], s, m])
                for (l = 1; l <= nl; l++) if (have[L[l]] && L[l] != "ferry" && have["ferry"])
                    cells[++n] = ratio(v[cf, "ferry", s, m], v[cf, L[l], s, m])
                if (m == "lat" && cf == "shm" && floor != "") cells[++n] = ratio(v[cf, "ferry", s, m], floor)
                row(cells, n)
            }
        }
    }

    # The goals of issue 12: CONFIG METRIC SIZE KIND TARGET TEXT.  Kinds: floor (ferry <= target
    # x floor and below both peers), le_mpich (ferry <= target x MPICH), le_best (ferry <=
    # target x the lower peer), ge_best (ferry >= target x the higher peer).
    ng = 0
    G[++ng] = "shm lat 8 floor 1.15 shm latency 8 B <= 1.15x floor, below both"
    G[++ng] = "shm lat 4096 le_mpich 1.00 shm latency 4 KiB <= MPICH"
    G[++ng] = "shm bw 8 ge_best 1.20 shm rate 8 B uni >= 1.2x best"
    G[++ng] = "shm bw 512 ge_best 1.20 shm rate 512 B uni >= 1.2x best"
    G[++ng] = "shm bibw 8 ge_best 1.20 shm rate 8 B bi >= 1.2x best"
    G[++ng] = "shm bibw 512 ge_best 1.20 shm rate 512 B bi >= 1.2x best"
    G[++ng] = "shm bw 1048576 ge_best 1.00 shm bandwidth 1 MiB >= best"
    G[++ng] = "shm bw 4194304 ge_best 1.00 shm bandwidth 4 MiB >= best"
    G[++ng] = "tcp lat 1048576 le_best 1.00 tcp latency 1 MiB <= best"
    G[++ng] = "tcp bw 1048576 ge_best 1.10 tcp bandwidth 1 MiB >= 1.1x best"
    G[++ng] = "tcp lat 8 le_best 0.85 tcp latency 8 B <= 0.85x best"
    print ""
    print (md ? "**Goals of issue 12** (ratio: Ferry over the reference; met when it is on the target's side)" : "== goals of issue 12 (ratio: ferry over the reference)")
    if (md) print ""
    n = 0
    split("goal|ferry|mpich|ompi|reference|ratio|target|verdict", H, "|")
    if (md) {
        print "| goal | ferry | mpich | ompi | reference | ratio | target | verdict |"
        print "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    } else
        printf "%-40s %9s %9s %9s %10s %7s %7s  %s\n", "goal", "ferry", "mpich", "ompi", "reference", "ratio", "target", "verdict"
    met = 0; missed = 0; unknown = 0
    for (g = 1; g <= ng; g++) {
        split(G[g], f, " ")
        text = G[g]; sub(/^[^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", text)
        cf = f[1]; m = f[2]; s = f[3]; kind = f[4]; target = f[5] + 0
        fe = v[cf, "ferry", s, m]; mp = v[cf, "mpich", s, m]; om = v[cf, "ompi", s, m]
        ref = ""; refname = ""; verdict = ""
        if (kind == "floor") { ref = floor; refname = "floor" }
        else if (kind == "le_mpich") { ref = mp; refname = "mpich" }
        else if (kind == "le_best") {
            if (mp != "" && (om == "" || mp + 0 <= om + 0)) { ref = mp; refname = "mpich" }
            else if (om != "") { ref = om; refname = "ompi" }
        } else {
            if (mp != "" && (om == "" || mp + 0 >= om + 0)) { ref = mp; refname = "mpich" }
            else if (om != "") { ref = om; refname = "ompi" }
        }
        if (fe == "" || ref == "" || ref + 0 == 0) { verdict = "not measured"; unknown++; r = "-" }
        else {
            r = fe / ref
            ok = (kind == "ge_best") ? (r >= target) : (r <= target)
            if (kind == "floor" && ((mp != "" && fe + 0 >= mp + 0) || (om != "" && fe + 0 >= om + 0))) ok = 0
            verdict = ok ? "met" : "MISSED"
            if (ok) met++; else missed++
            r = sprintf("%.2f", r)
        }
        tgt = (kind == "ge_best" ? ">= " : "<= ") sprintf("%.2f", target)
        refc = (ref == "") ? "-" : fmtv(ref) " " refname
        if (md)
            printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", text, fmtv(fe), fmtv(mp), fmtv(om), refc, r, tgt, verdict
        else
            printf "%-40s %9s %9s %9s %10s %7s %7s  %s\n", text, fmtv(fe), fmtv(mp), fmtv(om), refc, r, tgt, verdict
    }
    print ""
    printf "%sgoals: %d met, %d missed, %d not measured%s\n", md ? "" : "", met, missed, unknown, md ? "" : ""
}
AWK
}

header() {
    local md=$1 p=
    [ "$md" = 1 ] && p='- '
    echo "${p}Ferry latbw comparison: configs ${config_list[*]}, $rounds round(s) interleaved, medians over rounds"
    echo "${p}host: $(uname -n), $(uname -sr), $(nproc 2>/dev/null || echo '?') cores, $start_date; ranks bound: $bind"
    echo "${p}load average (1, 5, 15 min) before: $load_start; after: $load_end (the 2 ranks busy-poll, adding 2)"
    for lib in "${libs[@]}"; do
        if [ -n "${libname[$lib]:-}" ]; then
            local extra= k
            for k in "${!skipped[@]}"; do
                [ "${k%%:*}" = "$lib" ] && extra="$extra (${k#*:}: ${skipped[$k]})"
            done
            echo "${p}$lib: ${libname[$lib]}$extra"
        else
            local why=${skipped[$lib]:-} k
            for k in "${!skipped[@]}"; do
                [ "${k%%:*}" = "$lib" ] && [ "$k" != "$lib" ] && why="$why${why:+; }${k#*:}: ${skipped[$k]}"
            done
            echo "${p}$lib: not measured: ${why:-no results}"
        fi
    done
    if [ -n "$floor" ]; then
        echo "${p}floor (bench/floor.c, a flag ping-pong between two processes): $floor us one way"
    else
        echo "${p}floor: not measured"
    fi
    echo "${p}latency in microseconds, bandwidth in MB/s (10^6 B/s); message rate = bandwidth / size"
    echo "${p}ratios are ferry/other: latency < 1 and bandwidth > 1 mean Ferry is faster"
    echo "${p}latbw options: ${latbw_args[*]:-(defaults)}"
}

echo
header 0
report 0

if [ -n "$markdown" ]; then
    { header 1; report 1; } >"$markdown" && note "markdown written to $markdown"
fi

if [ -n "$plot" ]; then
    # One data file per config and library: size lat bw.
    gp=$work/plot.gp
    {
        echo "set terminal pngcairo size 1400,$((500 * ${#config_list[@]})) font ',10'"
        echo "set output '$plot'"
        echo "set multiplot layout ${#config_list[@]},2 title 'Ferry vs MPICH vs Open MPI, 2 ranks (bench/run.sh, medians of $rounds rounds, $start_date, load $load_start)'"
        echo "set logscale xy; set grid; set key top left"
        echo "set format x '%.0s%cB'; set xlabel 'message size'"
    } >"$gp"
    for config in "${config_list[@]}"; do
        for what in lat bw; do
            cmds=()
            for lib in "${libs[@]}"; do
                dat=$work/plot.$config.$lib.$what.dat
                awk -v c="$config" -v l="$lib" -v m="$what" '$1 == c && $2 == l && $4 == m { print $3, $5 }' \
                    "$medians" >"$dat"
                [ -s "$dat" ] && cmds+=("'$dat' using 1:2 with linespoints title '$lib'")
            done
            if [ "$what" = lat ]; then
                echo "set ylabel 'latency (us)'; set title '$config: ping-pong latency (lower is better)'" >>"$gp"
                [ "$config" = shm ] && [ -n "$floor" ] && cmds+=("$floor with lines dashtype 2 title 'flag ping-pong floor'")
            else
                echo "set ylabel 'bandwidth (MB/s)'; set title '$config: bandwidth, window of 64 (higher is better)'" >>"$gp"
            fi
            if [ ${#cmds[@]} -gt 0 ]; then
                (IFS=,; echo "plot ${cmds[*]}") >>"$gp"
            else
                echo "set title '$config: no data'; plot 1/0 notitle" >>"$gp"
            fi
        done
    done
    echo "unset multiplot" >>"$gp"
    if gnuplot "$gp" 2>"$work/plot.err"; then
        note "plot written to $plot"
    else
        note "plot failed:"
        show_tail "$work/plot.err"
    fi
fi

[ -n "$keep" ] && echo && echo "raw outputs and build logs: $work"
exit 0
