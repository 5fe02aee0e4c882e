#!/usr/bin/env bash
# run.sh: Ferry under Slurm on a private two-node cluster on this machine (../shared/tools/slurm-up:
# munged, slurmctld and two slurmd, the second in a network namespace as a second host).
# With srun --mpi=pmi2 and --mpi=pmix across both nodes (-N 2, 2 tasks per node: shm within a
# node, tcp between): the world size and placement, the method of every pair, the core programs
# of the MPI test list, and the failures: no PMI (srun --mpi=none), a library without PMIx under
# --mpi=pmix, MPI_Abort and a dead rank ending the step with a message.
#
#   test/slurm/run.sh PREFIX      (PREFIX/bin/mpicc; ends with "N passed, N failed, N skipped")
#
# Needs root (slurm-up runs daemons and makes namespaces); otherwise every check is skipped with
# the reason.  SLURM_UP names slurm-up (default: ../shared/tools/slurm-up beside the tree, else
# /work/shared/tools/slurm-up).  The cluster is stopped at the end, whatever happens.
set -u
prefix=${1:?usage: run.sh PREFIX}
prefix=$(cd "$prefix" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
passed=0 failed=0 skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
summary() { echo "$passed passed, $failed failed, $skipped skipped"; }

slurm_up=${SLURM_UP:-}
for c in "$top/../shared/tools/slurm-up" /work/shared/tools/slurm-up; do
    [ -z "$slurm_up" ] && [ -x "$c" ] && slurm_up=$c
done
if [ "$(id -u)" != 0 ]; then
    echo "SKIP slurm: not root (slurm-up starts daemons and network namespaces)"
    skipped=1
    summary
    exit 0
fi
if [ -z "$slurm_up" ]; then
    fail slurm_up "slurm-up not found (../shared/tools/slurm-up or SLURM_UP)"
    summary
    exit 1
fi

# One cluster per machine (fixed names: /var/lib/ferry-slurm, bridge, namespaces): a second
# run waits for the first instead of stopping its cluster under it.
exec 9>/tmp/ferry-slurm-test.lock
if ! flock -w 600 9; then
    fail slurm_lock "another test/slurm/run.sh held /tmp/ferry-slurm-test.lock for 10 minutes"
    summary
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ferry-slurm.XXXXXX")
# slurm-up's daemons (munged, slurmd ...) must not inherit the lock's descriptor (9>&-): one
# that outlived its cluster would hold the lock for good.
cleanup() {
    SLURMUP_NODES=2 "$slurm_up" stop >/dev/null 2>&1 9>&-
    rm -rf "$tmp"
}
trap cleanup EXIT
# The binaries must be where both "nodes" see them: same file system, any path.
chmod 755 "$tmp"

t0=$SECONDS
if ! SLURMUP_NODES=2 "$slurm_up" start >"$tmp/up.log" 2>&1 9>&-; then
    fail slurm_up "$(tail -n 5 "$tmp/up.log" | tr '\n' ' ')"
    summary
    exit 1
fi
pass "slurm_up_two_nodes ($((SECONDS - t0)) s)"

mpicc=$prefix/bin/mpicc
"$mpicc" -O1 -o "$tmp/world" "$here/world.c" || fail build_world "mpicc failed"
for p in abort_rank1 segv_rank2; do
    "$mpicc" -O1 -o "$tmp/$p" "$top/test/errors/$p.c" || fail "build_$p" "mpicc failed"
done

# Open MPI's mpirun starts Ferry programs through PMIx as well (doc/pmi.md): one job of 4 ranks,
# not 4 singletons.  Needs Open MPI's mpirun and a Ferry with its PMIx client.
if ! command -v mpirun >/dev/null; then
    echo "SKIP mpirun_pmix: Open MPI's mpirun is not installed"
    skipped=$((skipped + 1))
elif ! "$prefix/bin/ferry_info" --parsable | grep -q '^pmi	pmix	yes'; then
    echo "SKIP mpirun_pmix: this Ferry has no PMIx client"
    skipped=$((skipped + 1))
else
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout -k 5 120 \
        mpirun --oversubscribe -n 4 "$tmp/world" 4 1 >"$tmp/mpirun.out" 2>"$tmp/mpirun.err"
    rc=$?
    if [ $rc = 0 ] && grep -qx 'world 4 nodes 1' "$tmp/mpirun.out" &&
        grep -qx ' No Errors' "$tmp/mpirun.out"; then
        pass mpirun_pmix
    else
        fail mpirun_pmix "rc=$rc stdout='$(head -c 300 "$tmp/mpirun.out")' stderr='$(head -c 300 "$tmp/mpirun.err")'"
    fi
fi
for p in $(grep -v '^#' "$here/testlist" | awk 'NF { print $1 }' | sort -u); do
    "$mpicc" -O1 -o "$tmp/$p" "$top/test/mpi/$p.c" "$top/test/mpi/mtest.c" -I"$top/test/mpi" ||
        echo "mpicc of test/mpi/$p.c failed"
done
have_pmix=0
"$prefix/bin/ferry_info" --parsable | grep -q '^pmi	pmix	yes' && have_pmix=1

# run SECONDS CMD...: output in $tmp/out and $tmp/err, status in rc, time in secs.
run() {
    local max=$1 t
    shift
    t=$SECONDS
    timeout -k 5 "$max" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
    rc=$?
    secs=$((SECONDS - t))
}
show() { tr '\n' '|' <"$1" | cut -c1-400; }

# world_check NAME: the last run was world.c with FERRY_VERBOSE=1 on 2 nodes x 2 ranks; every
# pair on one host must use shm, every pair across hosts tcp.
world_check() {
    local name=$1 bad=""
    if [ $rc != 0 ] || ! grep -q '^world 4 nodes 2$' "$tmp/out" || ! grep -q '^ No Errors$' "$tmp/out"; then
        fail "$name" "rc=$rc stdout='$(show "$tmp/out")' stderr='$(show "$tmp/err")'"
        return
    fi
    declare -A host
    while read -r _ r _ h; do host[$r]=$h; done < <(grep '^rank [0-9]* host ' "$tmp/out")
    local pairs=0
    while read -r a b m; do
        local want=tcp
        [ "${host[$a]}" = "${host[$b]}" ] && want=shm
        [ "$a" = "$b" ] && want=self
        [ "$m" = "$want" ] || bad="$bad rank $a->$b by $m (want $want);"
        pairs=$((pairs + 1))
    done < <(sed -n 's/^ferry: rank \([0-9]*\) reaches rank \([0-9]*\) by \([a-z]*\) .*/\1 \2 \3/p' "$tmp/err")
    if [ -n "$bad" ] || [ $pairs != 16 ]; then
        fail "$name" "$pairs pairs bound (want 16):$bad"
    else
        pass "$name"
    fi
}

plugins=(pmi2)
if [ $have_pmix = 1 ]; then
    plugins+=(pmix)
else
    echo "SKIP srun --mpi=pmix: this Ferry was built without PMIx (configure found no libpmix)"
    skipped=$((skipped + 1))
fi

for mpi in "${plugins[@]}"; do
    srun=(srun "--mpi=$mpi" -N 2 --ntasks-per-node=2)
    run 60 env FERRY_VERBOSE=1 "${srun[@]}" "$tmp/world" 4 2
    world_check "world_${mpi}_2x2_shm_and_tcp"

    # The core programs of the MPI test list over both nodes: each must pass once (one " No
    # Errors" from its rank 0), not once per singleton.
    while read -r prog np; do
        if [ ! -x "$tmp/$prog" ]; then
            fail "${prog}_np${np}_$mpi" "does not compile (see above)"
            continue
        fi
        run 60 srun "--mpi=$mpi" -N 2 -n "$np" "$tmp/$prog"
        if [ $rc = 0 ] && [ "$(grep -c '^ No Errors$' "$tmp/out")" = 1 ]; then
            pass "${prog}_np${np}_$mpi"
        else
            fail "${prog}_np${np}_$mpi" "rc=$rc after ${secs}s stdout='$(show "$tmp/out")' stderr='$(show "$tmp/err")'"
        fi
    done < <(grep -v '^#' "$here/testlist" | awk 'NF >= 2 { print $1, $2 }')

    # MPI_Abort ends the step with the message, quickly.
    run 60 "${srun[@]}" "$tmp/abort_rank1"
    if [ $rc != 0 ] && [ $secs -lt 30 ] && grep -q 'MPI_Abort' "$tmp/err"; then
        pass "abort_ends_step_$mpi"
    else
        fail "abort_ends_step_$mpi" "rc=$rc after ${secs}s stderr='$(show "$tmp/err")'"
    fi
    # A rank dying of a signal ends the step: across nodes its tcp peers notice (pmi2), or
    # Slurm's PMIx plugin does.
    run 60 "${srun[@]}" "$tmp/segv_rank2"
    if [ $rc != 0 ] && [ $secs -lt 30 ] && grep -q 'task 2: Segmentation fault' "$tmp/err"; then
        pass "dead_rank_ends_step_$mpi"
    else
        fail "dead_rank_ends_step_$mpi" "rc=$rc after ${secs}s stderr='$(show "$tmp/err")'"
    fi
done

# A dead rank whose peers share its node: Slurm's PMIx plugin ends the step; with pmi2 srun
# does only with --kill-on-bad-exit (Slurm's default lets the others run; they wait on shm).
run 60 srun --mpi=pmi2 --kill-on-bad-exit=1 -N 1 -n 3 "$tmp/segv_rank2"
if [ $rc != 0 ] && [ $secs -lt 30 ] && grep -q 'task 2: Segmentation fault' "$tmp/err"; then
    pass "dead_rank_one_node_pmi2_kill_on_bad_exit"
else
    fail "dead_rank_one_node_pmi2_kill_on_bad_exit" "rc=$rc after ${secs}s stderr='$(show "$tmp/err")'"
fi
if [ $have_pmix = 1 ]; then
    run 60 srun --mpi=pmix -N 1 -n 3 "$tmp/segv_rank2"
    if [ $rc != 0 ] && [ $secs -lt 30 ] && grep -q 'task 2: Segmentation fault' "$tmp/err"; then
        pass "dead_rank_one_node_pmix"
    else
        fail "dead_rank_one_node_pmix" "rc=$rc after ${secs}s stderr='$(show "$tmp/err")'"
    fi
fi

# No PMI at all: every task says so and stops, instead of 4 singletons that each succeed.
run 60 srun --mpi=none -N 2 --ntasks-per-node=2 "$tmp/world" 4 2
n=$(grep -c 'started by srun as one of 4 tasks (SLURM_STEP_NUM_TASKS=4) without a PMI Ferry speaks' "$tmp/err")
if [ $rc != 0 ] && [ "$n" = 4 ] && ! grep -q 'No Errors' "$tmp/out"; then
    pass "no_pmi_stops"
else
    fail "no_pmi_stops" "rc=$rc, $n of 4 tasks said why; stdout='$(show "$tmp/out")' stderr='$(show "$tmp/err")'"
fi

# A client built without PMIx, started by srun --mpi=pmix: it says so and stops.  (pmi_hello
# built here from the client's sources with a config.h that lacks FERRY_HAVE_PMIX.)
if [ -r "$top/_build/config.h" ] || [ -r "$prefix/../_build/config.h" ]; then
    cfg=$top/_build/config.h
    [ -r "$cfg" ] || cfg=$prefix/../_build/config.h
    grep -v FERRY_HAVE_PMIX "$cfg" >"$tmp/config.h"
    if gcc -std=gnu11 -include "$tmp/config.h" -I"$top/launcher" -o "$tmp/pmi_hello_nopmix" \
        "$top/test/launcher/pmi_hello.c" "$top/launcher/pmi_client.c" "$top/launcher/pmi_wire.c" \
        "$top/launcher/pmi_mapping.c" 2>"$tmp/cc.log"; then
        run 60 srun --mpi=pmix -N 2 --ntasks-per-node=1 "$tmp/pmi_hello_nopmix"
        if [ $rc != 0 ] && grep -q 'built without PMIx' "$tmp/err" && ! grep -q 'No Errors' "$tmp/out"; then
            pass "pmix_launcher_without_pmix_client_stops"
        else
            fail "pmix_launcher_without_pmix_client_stops" "rc=$rc stdout='$(show "$tmp/out")' stderr='$(show "$tmp/err")'"
        fi
    else
        fail "pmix_launcher_without_pmix_client_stops" "cannot build the client: $(head -c 300 "$tmp/cc.log")"
    fi
else
    echo "SKIP pmix_launcher_without_pmix_client_stops: no _build/config.h to derive one from"
    skipped=$((skipped + 1))
fi

echo "   ($((SECONDS - t0)) s with the cluster up)"
summary
[ $failed = 0 ]
