#!/usr/bin/env bash
# bench/verbs.sh: Ferry's verbs protocols compared on Soft-RoCE (rxe0 in the rxe-run VM):
# latency, bandwidth and message rate (8 B messages, window 64) for eager send-receive against
# rendezvous read, the read with FIN fenced, and the pipeline; then the model parameters
# o_snd, o_rcv, L, G (and the per-message gap g) estimated from them.  rxe emulates the device
# in software (and the VM its CPU), so these are comparisons between protocols, not figures of
# a network.  MPICH (UCX) and Open MPI (openib) do not run over rxe in this VM, so there is no
# ratio column (doc/methods/verbs.md).
#
# With --ring instead: the eager protocols against each other (issue 9): send-receive (sr), the
# ring channel (ring) and the ring without prefetch (ring_nopf): latency and bandwidth to 16 KiB,
# message rate of 8 B and 512 B messages (window 64) with 1 and with 3 senders to one receiver,
# and the ring's mean bytes per data read (from its counters).
#
# The configurations run in turn, ROUNDS times over (--rounds, default 3), and each figure is the
# median of its rounds: the VM's CPU is emulated (TCG), so the machine's load moves every figure,
# and interleaving spreads it over all configurations alike.
#
# usage: bench/verbs.sh --ferry PREFIX [--quick] [--ring] [--rounds N] [--max BYTES] [--keep DIR]
#   --max: the largest message of the latency and bandwidth rows (default 4M; G comes from it).
#   --report: no VM run; the table again from the rounds a kept run left in --keep DIR (all the
#   rounds it finished: a run stopped early still gives its table).
#   PREFIX must lie inside this tree (the VM sees only the tree); RXE_RUN names the VM runner.
set -u -o pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)
prefix= quick=0 keep= ring=0 rounds=3 max=4M report=0
while [ $# -gt 0 ]; do
    case $1 in
    --ferry) prefix=$2; shift 2 ;;
    --quick | -q) quick=1; shift ;;
    --report) report=1; shift ;;
    --ring) ring=1; shift ;;
    --rounds) rounds=$2; shift 2 ;;
    --max) max=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "verbs.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$prefix" ] || { echo "verbs.sh: --ferry PREFIX is required" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0) echo "verbs.sh: --rounds wants a positive number, not '$rounds'" >&2; exit 2 ;; esac
prefix=$(cd "$prefix" && pwd) || exit 2
case $prefix/ in "$top"/*) ;; *) echo "verbs.sh: $prefix is outside $top (the VM sees only the tree)" >&2; exit 2 ;; esac
rxe=${RXE_RUN:-}
for c in "$top/../shared/tools/rxe-run" /work/shared/tools/rxe-run; do
    [ -z "$rxe" ] && [ -x "$c" ] && rxe=$c
done
[ -x "$rxe" ] || { echo "verbs.sh: no VM runner (rxe-run; set RXE_RUN)" >&2; exit 2; }

work=${keep:-$top/_build/bench-verbs}
mkdir -p "$work" && work=$(cd "$work" && pwd)
for p in latbw overhead msgrate; do
    [ "$report" = 1 ] || "$prefix/bin/mpicc" -O2 -o "$work/$p" "$here/$p.c" || exit 1
done
q=
[ "$quick" = 1 ] && q=-q

if [ "$ring" = 1 ]; then
    cfgs="sr ring ring_nopf"
    cat >"$work/vm.sh" <<EOF
#!/bin/bash
cd "$work" || exit 1
export FERRY_METHODS=verbs
env_of() { case \$1 in sr) echo FERRY_VERBS_EAGER=sr ;; ring) echo FERRY_VERBS_EAGER=ring ;;
    ring_nopf) echo FERRY_VERBS_EAGER=ring FERRY_RING_PREFETCH=0 ;; esac; }
for c in $cfgs; do
    echo "== \$c" >&2
    env \$(env_of \$c) "$prefix/bin/mpiexec" -n 2 ./latbw -q -m 8 -M 16384 >"lat.\$c" 2>"err.\$c"
    for n in 2 4; do
        for s in 8 512; do
            rm -f stats.*
            env \$(env_of \$c) FERRY_STATS_FILE=stats "$prefix/bin/mpiexec" -n \$n ./msgrate -s \$s -n 100 \\
                >"rate.\$c.\$n.\$s" 2>>"err.\$c"
            cat stats.* | awk '\$1 == "verbs_ring_data_bytes" { b += \$2 } \$1 == "verbs_ring_data_reads" { r += \$2 }
                END { if (r) printf "%.0f\\n", b / r; else print "-" }' >"perread.\$c.\$n.\$s"
        done
    done
done
EOF
    chmod +x "$work/vm.sh"
    load=$(cut -d' ' -f1 /proc/loadavg)
    export RXE_VM_APPEND=${RXE_VM_APPEND:-no_timer_check} # (see test/verbs/run.sh)
    (cd "$top" && "$rxe" --timeout 3000 -- "$work/vm.sh") || { echo "verbs.sh: the VM run failed" >&2; exit 1; }
    echo "# Ferry's verbs eager protocols on rxe0 (Soft-RoCE in a TCG VM); load average before: $load, after: $(cut -d' ' -f1 /proc/loadavg)"
    echo "# latency_us (half round trip) and bandwidth_MBps (window 64), 2 ranks"
    printf '%-8s' size
    for c in $cfgs; do printf ' %12s' "lat_$c"; done
    for c in $cfgs; do printf ' %12s' "bw_$c"; done
    echo
    for s in $(awk '/^[0-9]/ { print $1 }' "$work/lat.sr"); do
        printf '%-8s' "$s"
        for c in $cfgs; do printf ' %12s' "$(awk -v s="$s" '$1 == s { print $2 }' "$work/lat.$c")"; done
        for c in $cfgs; do printf ' %12s' "$(awk -v s="$s" '$1 == s { print $3 }' "$work/lat.$c")"; done
        echo
    done
    echo "# message rate (messages/s, window 64) and the ring's mean bytes per data read"
    printf '%-22s' case
    for c in $cfgs; do printf ' %12s' "$c"; done
    for c in ring ring_nopf; do printf ' %14s' "B/read_$c"; done
    echo
    for n in 2 4; do
        for s in 8 512; do
            printf '%-22s' "$((n - 1)) sender(s), $s B"
            for c in $cfgs; do
                printf ' %12s' "$(sed -n 's/.*: \([0-9]*\) messages\/s.*/\1/p' "$work/rate.$c.$n.$s")"
            done
            for c in ring ring_nopf; do printf ' %14s' "$(cat "$work/perread.$c.$n.$s")"; done
            echo
        done
    done
    exit 0
fi

# What runs in the VM: every configuration in turn, ROUNDS times over.
cat >"$work/vm.sh" <<EOF
#!/bin/bash
cd "$work" || exit 1
export FERRY_METHODS=verbs
run() { name=\$1; shift; echo "== \$name (round \$r): \$*" >&2; env "\$@" "$prefix/bin/mpiexec" -n 2 ./latbw $q -m 8 -M $max >"lat.\$name.\$r" 2>>"err.\$name"; }
for r in \$(seq 1 $rounds); do
    run eager FERRY_EAGER_LIMIT=1G
    run read FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read
    run read_fence FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=read FERRY_RNDV_FIN_FENCE=1
    run pipeline FERRY_EAGER_LIMIT=0 FERRY_RNDV_PROTOCOL=pipeline
    run default
    "$prefix/bin/mpiexec" -n 2 ./overhead 8 >overhead.eager.\$r 2>&1
    FERRY_EAGER_LIMIT=0 "$prefix/bin/mpiexec" -n 2 ./overhead 8 >overhead.read.\$r 2>&1
done
EOF
chmod +x "$work/vm.sh"
if [ "$report" = 1 ]; then
    [ -n "$keep" ] || { echo "verbs.sh: --report needs --keep DIR (a kept run)" >&2; exit 2; }
    # The rounds every configuration finished (the last one may be cut short).
    rounds=$(for c in eager read read_fence pipeline default; do ls "$work"/lat.$c.[0-9]* 2>/dev/null | wc -l; done | sort -n | head -n 1)
    [ "$rounds" -gt 0 ] || { echo "verbs.sh: no finished round in $work" >&2; exit 1; }
    for f in "$work"/lat.*.[0-9]* "$work"/overhead.*.[0-9]*; do
        [ "${f##*.}" -le "$rounds" ] || rm -f "$f"
    done
    load="(kept run)" load_after="(kept run)"
else
    rm -f "$work"/lat.* "$work"/err.* "$work"/overhead.*
    load=$(cut -d' ' -f1 /proc/loadavg)
    export RXE_VM_APPEND=${RXE_VM_APPEND:-no_timer_check} # (see test/verbs/run.sh)
    (cd "$top" && "$rxe" --timeout $((3000 * rounds)) -- "$work/vm.sh") || { echo "verbs.sh: the VM run failed" >&2; exit 1; }
    load_after=$(cut -d' ' -f1 /proc/loadavg)
fi

# The median of the rounds for each number of a line, lines told apart by their first KEYS
# fields (latbw: "size latency_us bandwidth_MBps ...", 1; overhead: "size N o_snd_us X o_rcv_us
# Y", 2); a field that is not a number is taken from the first round.
# median_of_rounds FILE PATTERN KEYS: FILE.1 .. FILE.N -> FILE.
median_of_rounds() {
    cat "$1".[0-9]* 2>/dev/null | awk -v key="$2" -v keys="$3" '
        $0 ~ key {
            k = $1
            for (i = 2; i <= keys; i++) k = k " " $i
            if (!(k in nf)) order[++n] = k
            if (NF > nf[k]) nf[k] = NF
            for (i = keys + 1; i <= NF; i++) v[k, i, ++c[k, i]] = $i
        }
        END {
            for (j = 1; j <= n; j++) {
                k = order[j]; line = k
                for (i = keys + 1; i <= nf[k]; i++) {
                    m = c[k, i]; num = 1
                    for (a = 1; a <= m; a++) if (v[k, i, a] !~ /^-?[0-9.]+$/) num = 0
                    if (!num) { line = line " " v[k, i, 1]; continue }
                    for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
                        if (v[k, i, b] + 0 < v[k, i, a] + 0) { t = v[k, i, a]; v[k, i, a] = v[k, i, b]; v[k, i, b] = t }
                    line = line " " v[k, i, int((m + 1) / 2)]
                }
                print line
            }
        }' >"$1"
}
for c in eager read read_fence pipeline default; do median_of_rounds "$work/lat.$c" '^[0-9]' 1; done
for c in eager read; do median_of_rounds "$work/overhead.$c" '^size' 2; done

# size -> latency and bandwidth per configuration (latbw prints "size latency_us bandwidth_MBps").
cfgs="eager read read_fence pipeline default"
echo "# Ferry over verbs on rxe0 (Soft-RoCE in a TCG VM); load average before: $load, after: $load_after"
echo "# each figure: the median of $rounds rounds, the configurations interleaved"
echo "# latency_us (half round trip) | bandwidth_MBps (window of 64); eager capped at the 16312-byte buffer"
printf '%-8s' size
for c in $cfgs; do printf ' %11s' "lat_$c"; done
for c in $cfgs; do printf ' %11s' "bw_$c"; done
echo
sizes=$(awk '/^[0-9]/ { print $1 }' "$work/lat.default")
for s in $sizes; do
    printf '%-8s' "$s"
    for c in $cfgs; do printf ' %11s' "$(awk -v s="$s" '$1 == s { print $2 }' "$work/lat.$c" 2>/dev/null)"; done
    for c in $cfgs; do printf ' %11s' "$(awk -v s="$s" '$1 == s { print $3 }' "$work/lat.$c" 2>/dev/null)"; done
    echo
done
# Model parameters: latency(8) = o_snd + L + o_rcv; G from the largest message's bandwidth; g
# from the 8-byte message rate.
awk -v lat8="$(awk '$1 == 8 { print $2 }' "$work/lat.eager")" \
    -v bw8="$(awk '$1 == 8 { print $3 }' "$work/lat.eager")" \
    -v bwmax="$(awk '/^[0-9]/ { b = $3 } END { print b }' "$work/lat.read")" \
    '/^size/ { os = $4; orr = $6 }
     END {
        printf "# message rate (8 B, window 64): %.3f M messages/s (g = %.2f us)\n", bw8 / 8, 8 / bw8
        printf "# model (eager, 8 B): o_snd %.2f us, o_rcv %.2f us, L %.2f us; G %.5f us/byte (read, largest size: %.1f MB/s)\n",
               os, orr, lat8 - os - orr, 1 / bwmax, bwmax
     }' "$work/overhead.eager"
echo "# overhead with every message by rendezvous read: $(cat "$work/overhead.read" | grep '^size')"
