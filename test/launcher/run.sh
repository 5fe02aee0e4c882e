#!/bin/bash
# run.sh: end-to-end checks of Ferry's mpiexec and PMI client (PMI, exit codes, kills, output).
#
# usage: test/launcher/run.sh [MPIEXEC [PMI_HELLO]]
#   or:  MPIEXEC=./mpiexec PMI_HELLO=test/launcher/pmi_hello test/launcher/run.sh
# Prints "PASS name", "FAIL name: details" or "SKIP name: reason" per check, then
# "N passed, N failed, N skipped"; exits 1 if any check failed.

MPIEXEC=${1:-${MPIEXEC:-./mpiexec}}
PMI_HELLO=${2:-${PMI_HELLO:-test/launcher/pmi_hello}}
# Absolute paths: some checks run from a scratch directory.
MPIEXEC=$(cd "$(dirname "$MPIEXEC")" && pwd)/$(basename "$MPIEXEC")
PMI_HELLO=$(cd "$(dirname "$PMI_HELLO")" && pwd)/$(basename "$PMI_HELLO")
for f in "$MPIEXEC" "$PMI_HELLO"; do
    if [ ! -x "$f" ]; then
        echo "run.sh: $f is not an executable; build it first (make mpiexec test/launcher/pmi_hello)" >&2
        exit 2
    fi
done

passed=0
failed=0
skipped=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/ferry-launcher.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/out
ERR=$TMP/err
# Each job is bounded so a hang fails one check instead of the whole run.
GUARD="timeout -k 2 30"

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
# One line of a file for a failure message.
show() { tr '\n' '|' < "$1" | cut -c1-300; }
now() { date +%s.%N; }
elapsed() { echo "$(now) - $1" | bc; }
# run CMD...: runs with stdout/stderr in $OUT/$ERR, sets rc and secs.
run() {
    local t0
    t0=$(now)
    "$@" > "$OUT" 2> "$ERR"
    rc=$?
    secs=$(elapsed "$t0")
}
faster_than() { [ "$(echo "$secs < $1" | bc)" = 1 ]; }

# ---- PMI under our mpiexec ----
for n in 1 4 16 64; do
    run $GUARD "$MPIEXEC" -n $n "$PMI_HELLO"
    if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT" && [ ! -s "$ERR" ]; then
        pass "pmi_hello_n$n"
    else
        fail "pmi_hello_n$n" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
    fi
done

run $GUARD env -u PMI_FD -u PMI_PORT "$PMI_HELLO"
if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; then
    pass "pmi_hello_singleton"
else
    fail "pmi_hello_singleton" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# Started by a launcher whose PMI Ferry does not speak, a process stops with the reason instead
# of running as one of N singletons that each succeed (launcher/pmi_client.c; PMIX_NAMESPACE is
# checked only in a build without PMIx, SLURM_STEP_NUM_TASKS under srun in test/slurm too).
for v in OMPI_COMM_WORLD_SIZE PMI_SIZE SLURM_STEP_NUM_TASKS; do
    run $GUARD env -u PMI_FD -u PMI_PORT -u PMIX_NAMESPACE -u PMIX_RANK -u OMPI_COMM_WORLD_SIZE \
        -u PMI_SIZE -u SLURM_STEP_NUM_TASKS "$v=4" "$PMI_HELLO"
    if [ $rc != 0 ] && grep -q "PMI_Init.*$v=4" "$ERR" && ! grep -q 'No Errors' "$OUT"; then
        pass "wrong_pmi_$v"
    else
        fail "wrong_pmi_$v" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
    fi
done

# ---- our client under MPICH's Hydra (PMI_FD, and PMI_PORT with -pmi-port) ----
if command -v mpiexec.hydra > /dev/null 2>&1; then
    run $GUARD mpiexec.hydra -n 4 "$PMI_HELLO"
    if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; then
        pass "hydra_n4"
    else
        fail "hydra_n4" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
    fi
    # Hydra's PMI_PORT names this host; where that name does not resolve (a bare chroot, a
    # container without its name in /etc/hosts) it gives the loopback address instead.
    hydra_iface=()
    getent hosts "$(hostname)" >/dev/null 2>&1 || hydra_iface=(-iface lo)
    run $GUARD mpiexec.hydra -pmi-port "${hydra_iface[@]}" -n 4 "$PMI_HELLO"
    if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; then
        pass "hydra_pmi_port_n4"
    else
        fail "hydra_pmi_port_n4" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
    fi
else
    skip hydra "mpiexec.hydra not found in PATH"
fi

# An MPICH-built program under our mpiexec: the protocol is the same both ways.
if command -v mpicc.mpich > /dev/null 2>&1; then
    cat > "$TMP/mpich_hello.c" << 'EOF'
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %d of %d\n", sum, size);
    MPI_Finalize();
    return 0;
}
EOF
    if mpicc.mpich -o "$TMP/mpich_hello" "$TMP/mpich_hello.c" 2> "$ERR"; then
        run $GUARD "$MPIEXEC" -n 3 "$TMP/mpich_hello"
        if [ $rc = 0 ] && grep -q '^sum 3 of 3$' "$OUT"; then
            pass "mpich_program_n3"
        else
            fail "mpich_program_n3" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
        fi
    else
        skip mpich_program_n3 "mpicc.mpich failed: $(show "$ERR")"
    fi
else
    skip mpich_program_n3 "mpicc.mpich not found in PATH"
fi

# ---- exit codes and failures ----
# As Hydra: the ranks' exit codes OR-ed (0|1|2).
run $GUARD "$MPIEXEC" -n 3 sh -c 'exit $PMI_RANK'
if [ $rc = 3 ]; then
    pass "exit_codes_ored"
else
    fail "exit_codes_ored" "mpiexec -n 3 sh -c 'exit \$PMI_RANK' gave rc=$rc, expected 3; stderr='$(show "$ERR")'"
fi

run $GUARD "$MPIEXEC" -n 4 sh -c '[ $PMI_RANK = 2 ] && exit 5; sleep 30'
if [ $rc = 5 ] && faster_than 5 && grep -q 'rank 2 (pid [0-9]*) exited with code 5; killing the job' "$ERR"; then
    pass "nonzero_exit_kills_job"
else
    fail "nonzero_exit_kills_job" "rc=$rc (expected 5) after ${secs}s; stderr='$(show "$ERR")'"
fi

# As Hydra: a rank's death by a signal makes mpiexec's status the signal's number.
run $GUARD env PMI_HELLO_MODE=segv "$MPIEXEC" -n 4 "$PMI_HELLO"
if [ $rc = 11 ] && faster_than 5 &&
    grep -q '^mpiexec: rank 1 (pid [0-9]*) killed by signal 11 (Segmentation fault); killing the job$' "$ERR"; then
    pass "signal_kills_job"
else
    fail "signal_kills_job" "rc=$rc (expected 11) after ${secs}s; stderr='$(show "$ERR")'"
fi

# A death that is not mpiexec's own SIGTERM or SIGKILL, while the job is already ending (rank 1
# answers mpiexec's SIGTERM by killing itself with SIGKILL): named, and the first failure's code
# stays the job's.
run $GUARD "$MPIEXEC" -n 2 sh -c '[ $PMI_RANK = 0 ] && exit 3; trap "kill -9 \$\$" TERM; sleep 30 & wait'
if [ $rc = 3 ] && faster_than 5 &&
    grep -q '^mpiexec: rank 1 (pid [0-9]*) killed by signal 9 (Killed) while the job was ending$' "$ERR"; then
    pass "foreign_signal_while_ending_named"
else
    fail "foreign_signal_while_ending_named" "rc=$rc (expected 3) after ${secs}s; stderr='$(show "$ERR")'"
fi

run $GUARD env PMI_HELLO_MODE=abort "$MPIEXEC" -n 4 "$PMI_HELLO"
if [ $rc = 7 ] && faster_than 5 && grep -q 'rank 1 (pid [0-9]*) called MPI_Abort/PMI_Abort with error code 7; killing the job' "$ERR"; then
    pass "abort_kills_job"
else
    fail "abort_kills_job" "rc=$rc (expected 7) after ${secs}s; stderr='$(show "$ERR")'"
fi

run $GUARD env PMI_HELLO_MODE=nofinal "$MPIEXEC" -n 3 "$PMI_HELLO"
if [ $rc != 0 ] && faster_than 5 && grep -q 'rank 1 (pid [0-9]*) exited with code 0 without calling PMI finalize (MPI_Finalize) while' "$ERR"; then
    pass "exit_without_finalize_kills_job"
else
    fail "exit_without_finalize_kills_job" "rc=$rc after ${secs}s; stderr='$(show "$ERR")'"
fi

# Rank 0 exits without PMI while the others wait for it in a barrier.
run $GUARD "$MPIEXEC" -n 3 bash -c '[ $PMI_RANK = 0 ] && exit 0; echo cmd=barrier_in >&$PMI_FD; read -r x <&$PMI_FD; sleep 30'
if [ $rc = 1 ] && faster_than 5 && grep -q 'wait in a PMI barrier that rank 0 (pid [0-9]*, exited) can never enter; killing the job' "$ERR"; then
    pass "barrier_deadlock_kills_job"
else
    fail "barrier_deadlock_kills_job" "rc=$rc (expected 1) after ${secs}s; stderr='$(show "$ERR")'"
fi

# A rank ignoring SIGTERM needs the SIGKILL that follows.
run $GUARD env MPIEXEC_TIMEOUT=1 "$MPIEXEC" -n 2 sh -c 'trap "" TERM; sleep 30'
if [ $rc = 124 ] && faster_than 6 && grep -q 'exceeded MPIEXEC_TIMEOUT=1 seconds' "$ERR"; then
    pass "timeout_kills_job"
else
    fail "timeout_kills_job" "rc=$rc (expected 124) after ${secs}s; stderr='$(show "$ERR")'"
fi

# Ctrl-C: SIGINT to mpiexec is passed on to the ranks and their children, which die of it
# (status 2, as Hydra).
marker="ferry_sigint_$$"
"$MPIEXEC" -n 3 sh -c "sleep 30 # $marker" > "$OUT" 2> "$ERR" &
pid=$!
sleep 0.5
kill -INT $pid
t0=$(now)
wait $pid
rc=$?
secs=$(elapsed "$t0")
sleep 0.2
left=$(pgrep -f "$marker" | wc -l)
if [ $rc = 2 ] && [ "$left" = 0 ] && faster_than 5; then
    pass "sigint_kills_ranks"
else
    fail "sigint_kills_ranks" "rc=$rc (expected 2) after ${secs}s, $left processes left; stderr='$(show "$ERR")'"
    pkill -KILL -f "$marker"
fi

# ---- output forwarding ----
run $GUARD "$MPIEXEC" -n 4 sh -c 'head -c 5000000 /dev/zero | tr "\000" "a"; head -c 1000000 /dev/zero | tr "\000" "b" >&2'
outb=$(wc -c < "$OUT")
errb=$(wc -c < "$ERR")
if [ $rc = 0 ] && [ "$outb" = 20000000 ] && [ "$errb" = 4000000 ] && [ "$(tr -d a < "$OUT" | wc -c)" = 0 ]; then
    pass "output_5MB_x4"
else
    fail "output_5MB_x4" "rc=$rc stdout $outb bytes (expected 20000000), stderr $errb bytes (expected 4000000)"
fi

run $GUARD "$MPIEXEC" -n 2 sh -c '(sleep 0.3; echo late$PMI_RANK) & echo early$PMI_RANK'
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "early0 early1 late0 late1 " ]; then
    pass "output_after_rank_exit"
else
    fail "output_after_rank_exit" "rc=$rc stdout='$(show "$OUT")'"
fi

# Whole lines from different ranks never mix.
run $GUARD "$MPIEXEC" -n 4 sh -c 'i=0; while [ $i -lt 2000 ]; do echo "rank$PMI_RANK-line-$i-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; i=$((i+1)); done'
bad=$(grep -cv '^rank[0-3]-line-[0-9]*-x\{40\}$' "$OUT")
lines=$(wc -l < "$OUT")
if [ $rc = 0 ] && [ "$lines" = 8000 ] && [ "$bad" = 0 ]; then
    pass "output_whole_lines"
else
    fail "output_whole_lines" "rc=$rc $lines lines (expected 8000), $bad mixed"
fi

# Signals other than Ctrl-C's: SIGTERM is passed on too; ranks that handle it decide the status.
"$MPIEXEC" -n 3 sh -c 'trap "echo got TERM \$PMI_RANK; exit 6" TERM; sleep 30 & wait' > "$OUT" 2> "$ERR" &
pid=$!
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
if [ $rc = 6 ] && [ "$(grep -c '^got TERM [0-2]$' "$OUT")" = 3 ] &&
    grep -q 'received signal 15 (Terminated); passing it to the ranks' "$ERR"; then
    pass "sigterm_passed_to_ranks"
else
    fail "sigterm_passed_to_ranks" "rc=$rc (expected 6) stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# SIGUSR1 reaches every rank and the job goes on.
"$MPIEXEC" -n 2 sh -c 'trap "echo usr1 \$PMI_RANK" USR1; i=0; while [ $i -lt 20 ]; do sleep 0.1; i=$((i+1)); done; echo end $PMI_RANK' > "$OUT" 2> "$ERR" &
pid=$!
sleep 0.5
kill -USR1 $pid
wait $pid
rc=$?
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "end 0 end 1 usr1 0 usr1 1 " ]; then
    pass "sigusr1_passed_to_ranks"
else
    fail "sigusr1_passed_to_ranks" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# A rank that ignores the passed-on SIGINT is killed after the grace time; the status is the signal's.
"$MPIEXEC" -n 2 sh -c 'trap "" INT; sleep 30' > "$OUT" 2> "$ERR" &
pid=$!
sleep 0.5
t0=$(now)
kill -INT $pid
wait $pid
rc=$?
secs=$(elapsed "$t0")
if [ $rc = 2 ] && faster_than 5; then
    pass "sigint_ignored_then_killed"
else
    fail "sigint_ignored_then_killed" "rc=$rc (expected 2) after ${secs}s; stderr='$(show "$ERR")'"
fi

# ---- options users type: -l, MPMD, -configfile, -wdir, -bind-to, --version ----
run $GUARD "$MPIEXEC" -n 2 -l sh -c 'echo out$PMI_RANK; echo err$PMI_RANK >&2; printf "part"; sleep 0.3; echo " rest"'
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "[0] out0 [0] part rest [1] out1 [1] part rest " ] &&
    [ "$(sort "$ERR" | tr '\n' ' ')" = "[0] err0 [1] err1 " ]; then
    pass "prepend_rank"
else
    fail "prepend_rank" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# 16 ranks, lines longer than a pipe's atomic write: every line whole, with its own rank's prefix.
run $GUARD "$MPIEXEC" -n 16 -prepend-rank awk -v r=0 'BEGIN { s = sprintf("%6000s", ""); gsub(/ /, "x", s);
    r = ENVIRON["PMI_RANK"]; for (i = 0; i < 100; i++) print r ":" i ":" s }'
lines=$(wc -l < "$OUT")
bad=$(grep -Evc '^\[([0-9]+)\] \1:[0-9]+:x{6000}$' "$OUT")
if [ $rc = 0 ] && [ "$lines" = 1600 ] && [ "$bad" = 0 ]; then
    pass "prepend_rank_whole_lines_16_ranks"
else
    fail "prepend_rank_whole_lines_16_ranks" "rc=$rc $lines lines (expected 1600), $bad not whole or mislabelled"
fi

run $GUARD "$MPIEXEC" -n 1 -env PMI_HELLO_APPNUM 0 "$PMI_HELLO" : -n 2 -env PMI_HELLO_APPNUM 1 "$PMI_HELLO" \
    : -env PMI_HELLO_APPNUM 2 "$PMI_HELLO"
if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT" && [ ! -s "$ERR" ]; then
    pass "mpmd_appnum"
else
    fail "mpmd_appnum" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi
# The same check must fail when the sections' appnums are not what PMI says.
run $GUARD "$MPIEXEC" -n 1 -env PMI_HELLO_APPNUM 1 "$PMI_HELLO" : -n 1 -env PMI_HELLO_APPNUM 0 "$PMI_HELLO"
if [ $rc != 0 ] && grep -q 'bad job info.*appnum=0' "$ERR" && grep -q 'bad job info.*appnum=1' "$ERR"; then
    pass "mpmd_appnum_wrong_detected"
else
    fail "mpmd_appnum_wrong_detected" "rc=$rc stderr='$(show "$ERR")'"
fi

run $GUARD "$MPIEXEC" -genv G g -n 1 sh -c 'echo A$PMI_RANK$PMI_SIZE$G' : -n 2 -env L l sh -c 'echo B$PMI_RANK$G$L $0' arg
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "A03g B1gl arg B2gl arg " ]; then
    pass "mpmd_programs_args_env"
else
    fail "mpmd_programs_args_env" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

cat > "$TMP/configfile" <<'CFG'
# one section per line
-n 1 sh -c 'echo "A $PMI_RANK $PMI_SIZE"'

-n 2 -env WORD "two words" sh -c 'echo "B $PMI_RANK $WORD"'   # trailing comment
CFG
run $GUARD "$MPIEXEC" -configfile "$TMP/configfile"
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "A 0 3 B 1 two words B 2 two words " ]; then
    pass "configfile"
else
    fail "configfile" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

mkdir -p "$TMP/wd"
printf '#!/bin/sh\necho "script in $(pwd)"\n' > "$TMP/wd/where.sh"
chmod +x "$TMP/wd/where.sh"
run $GUARD "$MPIEXEC" -n 1 -wdir "$TMP/wd" ./where.sh : -n 1 -wdir / pwd
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "/ script in $TMP/wd " ]; then
    pass "wdir"
else
    fail "wdir" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# -bind-to core: ranks on distinct cores when they fit, unbound (with a warning) when not.
ncores=$(for c in /sys/devices/system/cpu/cpu[0-9]*/topology; do
    echo "$(cat "$c/physical_package_id" 2>/dev/null)-$(cat "$c/core_id" 2>/dev/null)"; done | sort -u | wc -l)
mine=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
if [ "$ncores" -ge 2 ] && [ "$(nproc)" = "$(getconf _NPROCESSORS_ONLN)" ]; then
    run $GUARD "$MPIEXEC" -bind-to core -n 2 sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2'
    a=$(sed -n 1p "$OUT") b=$(sed -n 2p "$OUT")
    if [ $rc = 0 ] && [ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && [ "$a" != "$mine" ]; then
        pass "bind_to_core"
    else
        fail "bind_to_core" "rc=$rc cpus '$a' and '$b' (mpiexec's: $mine) stderr='$(show "$ERR")'"
    fi
    run $GUARD "$MPIEXEC" -bind-to core -n $((ncores + 1)) sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2'
    if [ $rc = 0 ] && [ "$(sort -u "$OUT")" = "$mine" ] && grep -q "ranks on this node but $ncores cores.*not binding" "$ERR"; then
        pass "bind_to_core_oversubscribed"
    else
        fail "bind_to_core_oversubscribed" "rc=$rc cpus '$(show "$OUT")' stderr='$(show "$ERR")'"
    fi
else
    echo "SKIP bind_to_core: $ncores core(s) in mpiexec's CPU set"
fi

run $GUARD "$MPIEXEC" --version
if [ $rc = 0 ] && grep -q '^mpiexec (ferry) [0-9]' "$OUT"; then
    pass "version"
else
    fail "version" "rc=$rc stdout='$(show "$OUT")'"
fi

# Every option with two dashes, as Hydra takes them, and Open MPI's two permissions (no-ops).
run $GUARD "$MPIEXEC" --genv G g --prepend-rank --bind-to none --oversubscribe --allow-run-as-root \
    --np 2 sh -c 'echo "$G$PMI_RANK$PMI_SIZE"' : --n 1 --env L l sh -c 'echo "$G$L$PMI_RANK"'
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "[0] g03 [1] g13 [2] gl2 " ]; then
    pass "double_dash_options"
else
    fail "double_dash_options" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# ---- environment and fds ----
run $GUARD env PMI_PORT=bogus:1 PMI_ID=9 "$MPIEXEC" -n 2 -genv FERRY_A 1 -env FERRY_B 'x y' \
    sh -c 'echo "$PMI_RANK/$PMI_SIZE/$PMI_SPAWNED/$FERRY_A/$FERRY_B/${PMI_PORT-unset}/${PMI_ID-unset}"'
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' ' ')" = "0/2/0/1/x y/unset/unset 1/2/0/1/x y/unset/unset " ]; then
    pass "rank_environment"
else
    fail "rank_environment" "rc=$rc stdout='$(show "$OUT")'"
fi

# Each rank holds exactly one socket: its own PMI end (the others are close-on-exec).
run $GUARD "$MPIEXEC" -n 4 sh -c 'ls -l /proc/$$/fd | grep -c socket:'
if [ $rc = 0 ] && [ "$(tr '\n' ' ' < "$OUT")" = "1 1 1 1 " ]; then
    pass "no_inherited_pmi_fds"
else
    fail "no_inherited_pmi_fds" "rc=$rc socket counts per rank: '$(show "$OUT")'"
fi

# ---- PMI server robustness (bash talks to PMI_FD by hand) ----
run $GUARD "$MPIEXEC" -n 1 bash -c '
    ask() { echo "$1" >&$PMI_FD; read -r reply <&$PMI_FD; echo "$reply"; }
    ask "this is not pmi"
    ask "cmd=put key=a value=1 extra=ignored"
    ask "   cmd=get    key=a  "
    ask "cmd=get key=nope"
    ask "cmd=publish_name service=s port=p"
    ask "cmd=get key=PMI_process_mapping"
    ask "cmd=nonsense"'
expect="cmd=error rc=-1 msg=malformed_PMI_line|cmd=put_result rc=0|cmd=get_result rc=0 value=1|"
expect+="cmd=get_result rc=-1 msg=key_not_found|cmd=publish_result rc=-1 msg=publish_is_not_supported_by_this_mpiexec|"
expect+="cmd=get_result rc=0 value=(vector,(0,1,1))|cmd=nonsense_result rc=-1 msg=unknown_command|"
if [ $rc = 0 ] && [ "$(show "$OUT")" = "$expect" ]; then
    pass "pmi_server_errors"
else
    fail "pmi_server_errors" "rc=$rc replies '$(show "$OUT")', expected '$expect'"
fi

# ---- several hosts (on this machine: fake launcher commands stand in for ssh) ----
# fakeexec HOST CMD...: exec style, runs the words as they are; fakessh [-x] HOST STRING...:
# ssh style, runs the joined words with sh.  Both export FAKE_HOST so ranks can tell.
printf '%s\n' '#!/bin/sh' 'FAKE_HOST=$1 && export FAKE_HOST && shift && exec "$@"' > "$TMP/fakeexec"
printf '%s\n' '#!/bin/sh' 'while [ "${1#-}" != "$1" ]; do shift; done' \
    'FAKE_HOST=$1 && export FAKE_HOST && shift && exec sh -c "$*"' > "$TMP/fakessh"
# badid HOST CMD...: exec style, but the PMI_ID= word claims rank 99 (with no token).
printf '%s\n' '#!/bin/sh' 'shift' 'n=$#' 'while [ $n -gt 0 ]; do' \
    '    a=$1; shift; case $a in PMI_ID=*) a=PMI_ID=99 ;; esac; set -- "$@" "$a"; n=$((n - 1))' \
    'done' 'exec "$@"' > "$TMP/badid"
chmod +x "$TMP/fakeexec" "$TMP/fakessh" "$TMP/badid"
HOSTS_OPTS="-localhost 127.0.0.1" # PMI over loopback only

run $GUARD "$MPIEXEC" -hosts localhost,hostb:2,hostc $HOSTS_OPTS -launcher-exec "$TMP/fakeexec" \
    -n 6 "$PMI_HELLO"
if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT" && [ ! -s "$ERR" ]; then
    pass "hosts_exec_style_pmi_port"
else
    fail "hosts_exec_style_pmi_port" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# -genvlist and -envlist carry variables of mpiexec's environment to remote ranks, which ssh
# would not: cleanssh starts them with an empty environment, as a real ssh login would.
printf '%s\n' '#!/bin/sh' 'while [ "${1#-}" != "$1" ]; do shift; done' 'shift' \
    'exec env -i PATH="$PATH" sh -c "$*"' > "$TMP/cleanssh"
chmod +x "$TMP/cleanssh"
run $GUARD env FOO='a b' BAR=bar "$MPIEXEC" -hosts ha,hb $HOSTS_OPTS -launcher ssh \
    -launcher-exec "$TMP/cleanssh" -genvlist FOO,UNSET_FERRY_X -n 1 sh -c 'echo "1[$FOO][$BAR]"' : \
    -n 1 -envlist BAR sh -c 'echo "2[$FOO][$BAR]"'
if [ $rc = 0 ] && [ "$(sort "$OUT" | tr '\n' '|')" = "1[a b][]|2[a b][bar]|" ]; then
    pass "hosts_genvlist_envlist"
else
    fail "hosts_genvlist_envlist" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# Arguments with blanks and quotes survive the shell string; placement cycles through the
# hosts (-ppn 2 overrides their slots); each rank learns its place on its host.
run $GUARD "$MPIEXEC" -hosts ha:5,hb $HOSTS_OPTS -ppn 2 -n 5 -launcher ssh \
    -launcher-exec "$TMP/fakessh" sh -c \
    'echo "${PMI_ID%%:*} $FAKE_HOST $MPI_LOCALRANKID/$MPI_LOCALNRANKS [$0] [$1] ${PMI_PORT%%:*} ${PMI_FD:-nofd}"' \
    "a b" "it's \$x"
got=$(sort "$OUT" | tr '\n' '|')
want="0 ha 0/3 [a b] [it's \$x] 127.0.0.1 nofd|1 ha 1/3 [a b] [it's \$x] 127.0.0.1 nofd|"
want+="2 hb 0/2 [a b] [it's \$x] 127.0.0.1 nofd|3 hb 1/2 [a b] [it's \$x] 127.0.0.1 nofd|"
want+="4 ha 2/3 [a b] [it's \$x] 127.0.0.1 nofd|"
if [ $rc = 0 ] && [ "$got" = "$want" ]; then
    pass "hosts_ssh_style_quoting_placement"
else
    fail "hosts_ssh_style_quoting_placement" "rc=$rc got '$got' want '$want' stderr='$(show "$ERR")'"
fi

printf '# two hosts\n  ha:2  \n\nhb # the second\n' > "$TMP/hostfile"
run $GUARD "$MPIEXEC" -f "$TMP/hostfile" $HOSTS_OPTS -launcher-exec "$TMP/fakeexec" "$PMI_HELLO"
if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT"; then
    pass "hostfile_pmi"
else
    fail "hostfile_pmi" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi
run $GUARD "$MPIEXEC" -f "$TMP/hostfile" $HOSTS_OPTS -launcher-exec "$TMP/fakeexec" \
    sh -c 'echo ${PMI_ID%%:*} $FAKE_HOST'
got=$(sort "$OUT" | tr '\n' '|')
if [ $rc = 0 ] && [ "$got" = "0 ha|1 ha|2 hb|" ]; then
    pass "hostfile_slots_give_n"
else
    fail "hostfile_slots_give_n" "rc=$rc got '$got' stderr='$(show "$ERR")'"
fi

# A connection claiming a rank that is not a remote rank of the job (and without that rank's
# token) is closed without an answer, and the rank (whose PMI init fails) ends the job.
run $GUARD "$MPIEXEC" -hosts localhost,hb $HOSTS_OPTS -launcher-exec "$TMP/badid" -n 2 "$PMI_HELLO"
if [ $rc != 0 ] && grep -q "closed a PMI connection from 127.0.0.1:[0-9]*: its pmiid is not a remote rank's with that rank's token" "$ERR" &&
    faster_than 10; then
    pass "pmi_port_bad_id_refused"
else
    fail "pmi_port_bad_id_refused" "rc=$rc after ${secs}s stderr='$(show "$ERR")'"
fi

# The launcher command fails: the job ends with its exit code, naming the host.
run $GUARD "$MPIEXEC" -hosts hx,hy $HOSTS_OPTS -launcher-exec false -n 2 "$PMI_HELLO"
if [ $rc = 1 ] && grep -q 'rank [01] (pid [0-9]* on host h[xy]) exited with code 1; killing the job' "$ERR" &&
    faster_than 10; then
    pass "launcher_command_fails"
else
    fail "launcher_command_fails" "rc=$rc after ${secs}s stderr='$(show "$ERR")'"
fi

# -disable-auto-cleanup: a failing rank does not stop the others; its code is the job's.
run $GUARD "$MPIEXEC" -disable-auto-cleanup -n 3 sh -c '[ $PMI_RANK = 1 ] && exit 3; sleep 1; echo done$PMI_RANK'
if [ $rc = 3 ] && grep -q done0 "$OUT" && grep -q done2 "$OUT" &&
    grep -q 'exited with code 3; the others go on (-disable-auto-cleanup)' "$ERR"; then
    pass "disable_auto_cleanup"
else
    fail "disable_auto_cleanup" "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"
fi

# ---- bad usage ----
check_usage() { # name expected_rc expected_stderr_regex args...
    local name=$1 want=$2 re=$3
    shift 3
    run $GUARD "$MPIEXEC" "$@"
    if [ $rc = "$want" ] && grep -q "$re" "$ERR" && faster_than 5; then
        pass "$name"
    else
        fail "$name" "rc=$rc (expected $want) after ${secs}s; stderr='$(show "$ERR")'"
    fi
}
printf 'ok\nbad line\n' > "$TMP/bad_hostfile"
touch "$TMP/not_executable"
chmod 644 "$TMP/not_executable"
check_usage usage_no_program 1 'no program to run' -n 2
check_usage usage_n_zero 1 '\-n 0: the number of ranks' -n 0 true
check_usage usage_n_abc 1 '\-n abc: the number of ranks' -n abc true
check_usage usage_unknown_option 1 'unknown option -frobnicate' -frobnicate true
check_usage usage_unknown_option_dashes 1 'unknown option --frobnicate' --frobnicate true
check_usage usage_genvlist_bad_name 1 "\-genvlist A=B: 'A=B' is not a variable name" -genvlist A=B true
check_usage usage_np_dashes_abc 1 '\-\-np abc: the number of ranks' --np abc true
check_usage usage_not_found 127 'cannot run ferry_no_such_program: command not found' -n 2 ferry_no_such_program
check_usage usage_not_executable 127 'not executable' -n 2 "$TMP/not_executable"
check_usage usage_bad_hostfile 1 'hostfile line 2: expected one' -f "$TMP/bad_hostfile" true
check_usage usage_bad_slots 1 "'a:0': the slot count after ':' must be 1 to" -hosts a:0 true
check_usage usage_exec_needs_command 1 '\-launcher exec needs -launcher-exec' -hosts farhost -launcher exec true
check_usage usage_colon_first 1 "a ':' with no program before it" : true
check_usage usage_colon_last 1 'no program to run after the last' -n 1 true : -n 2
check_usage usage_bind_to 1 '\-bind-to socket: use core or none' -bind-to socket true
check_usage usage_wdir_missing 1 '\-wdir /ferry/no/such/dir: No such file' -wdir /ferry/no/such/dir true
check_usage usage_configfile_missing 1 '\-configfile /ferry/no/such/file:' -configfile /ferry/no/such/file
printf -- "-n 1 echo 'unterminated\n" > "$TMP/bad_configfile"
check_usage usage_configfile_quote 1 'line 1: unterminated . quote' -configfile "$TMP/bad_configfile"
printf '# nothing\n\n' > "$TMP/empty_configfile"
check_usage usage_configfile_empty 1 'has no program line' -configfile "$TMP/empty_configfile"
run $GUARD env MPIEXEC_TIMEOUT=soon "$MPIEXEC" true
if [ $rc = 1 ] && grep -q 'MPIEXEC_TIMEOUT=soon is not a positive number' "$ERR"; then
    pass "usage_bad_timeout"
else
    fail "usage_bad_timeout" "rc=$rc stderr='$(show "$ERR")'"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
