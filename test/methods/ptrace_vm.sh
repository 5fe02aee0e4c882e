#!/usr/bin/env bash
# ptrace_vm.sh: run by ptrace_run.sh inside the VM, as root.  For each kernel.yama.ptrace_scope,
# jobs of 2 ranks on one node (traffic.c, counters in FERRY_STATS_FILE) show whether shm reads
# with CMA, and whether the eager limit suits the answer:
#   scope 1, ordinary user: each rank lets its siblings read it (PR_SET_PTRACER), so reads work;
#   scope 2: root (CAP_SYS_PTRACE) reads; an ordinary user has no CMA from the start: 16 KiB goes
#            eagerly, a forced read takes the pipeline without a refused call, and FERRY_VERBOSE=2
#            says why;
#   scope 3: nobody reads, root included.
# ferry_info reports the same.
#   test/methods/ptrace_vm.sh PREFIX WORK   (WORK holds the built traffic program)
set -u
prefix=$1 work=$2
tmp=/tmp/ptrace-vm
mkdir -p "$tmp"
chmod 1777 "$tmp"
passed=0 failed=0 skipped=0
user=65534

if [ ! -w /proc/sys/kernel/yama/ptrace_scope ]; then
    echo "SKIP ptrace_scopes: this kernel has no Yama (no /proc/sys/kernel/yama/ptrace_scope)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi

# job SCOPE WHO ENV... -- COUNT SIZE: WHO is root or user; counters in $tmp/c.N; sets rc.
job() {
    local scope=$1 who=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do
        envs+=("$1")
        shift
    done
    shift
    echo "$scope" >/proc/sys/kernel/yama/ptrace_scope
    rm -f "$tmp"/c.*
    local as=()
    [ "$who" = user ] && as=(setpriv --reuid=$user --regid=$user --clear-groups)
    timeout -k 5 120 "${as[@]}" env HOME="$tmp" TMPDIR="$tmp" "${envs[@]}" \
        FERRY_STATS_FILE="$tmp/c" "$prefix/bin/mpiexec" -n 2 "$work/traffic" "$@" \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
}
# counter, eq, expect: test/counters.sh.
. "$(dirname "$0")/../counters.sh"
reads() { eq 1 shm_rndv_read "$1" && eq 1 shm_rndv_refused 0; }
no_cma() {
    eq 1 shm_rndv_read 0 && eq 1 shm_rndv_refused 0 && eq 1 shm_rndv_pipeline 3 &&
        grep -q "shm: no single-copy reads (CMA): kernel.yama.ptrace_scope = $1" "$tmp/err"
}

# Scope 1: an ordinary user's ranks read each other, and 16 KiB goes by a read (the 8 KiB limit).
job 1 user FERRY_RNDV_PROTOCOL=read -- 3 1048576
expect scope1_user_reads reads 3
job 1 user -- 4 16384
expect scope1_user_16k_by_read eval 'eq 0 rndv_sent 4 && eq 0 eager_bytes 0 && reads 4'
# Scope 2: root may (CAP_SYS_PTRACE); an ordinary user has no CMA, known before the first message.
job 2 root FERRY_RNDV_PROTOCOL=read -- 3 1048576
expect scope2_root_reads reads 3
job 2 user FERRY_VERBOSE=2 FERRY_RNDV_PROTOCOL=read -- 3 1048576
expect scope2_user_pipeline no_cma "2 and no CAP_SYS_PTRACE"
job 2 user -- 4 16384
expect scope2_user_16k_eager eval 'eq 0 eager_bytes 65536 && eq 0 rndv_sent 0'
# ferry_info tells the same.  info_expect NAME SCOPE PATTERN...: run as the ordinary user under
# SCOPE, its output has every PATTERN.
info_expect() {
    local name=$1 p
    echo "$2" >/proc/sys/kernel/yama/ptrace_scope
    shift 2
    setpriv --reuid=$user --regid=$user --clear-groups "$prefix/bin/ferry_info" >"$tmp/info" 2>&1
    for p in "$@"; do
        if ! grep -q -- "$p" "$tmp/info"; then
            echo "FAIL $name: no '$p' in: $(tr '\n' '|' <"$tmp/info" | cut -c1-600)"
            failed=$((failed + 1))
            return
        fi
    done
    echo "PASS $name"
    passed=$((passed + 1))
}
info_expect ferry_info_scope1 1 "CMA permitted" "ptrace_scope = 1 (each rank lets"
info_expect ferry_info_scope2_user 2 "CMA not permitted" "ptrace_scope = 2 (2 needs CAP_SYS_PTRACE"
# Scope 3: nobody, root included.  Last: the kernel lets nobody lower it again.
job 3 root FERRY_VERBOSE=2 FERRY_RNDV_PROTOCOL=read -- 3 1048576
expect scope3_root_pipeline no_cma 3
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
