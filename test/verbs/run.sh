#!/usr/bin/env bash
# run.sh: the verbs method's tests.  Here (no RDMA device): verbs is built, and a job runs on the
# other methods without a word about it (one line with FERRY_VERBOSE=1).  Then one Soft-RoCE VM
# (rxe-run: a QEMU guest with the rxe0 device) runs test/verbs/vm.sh: the MPI subset list and its
# variants over verbs, two "hosts" mixing shm and verbs, failures and errors.
#
# usage: test/verbs/run.sh PREFIX      (PREFIX/bin/mpicc and mpiexec; PREFIX inside the tree,
#                                       since the VM sees only the tree read-write)
# RXE_RUN: the VM runner (default: ../shared/tools/rxe-run beside the tree, else
# /work/shared/tools/rxe-run); RXE_TIMEOUT: seconds the VM may run (default 2400);
# VERBS_QUICK=1: the list without its variants (TEST_QUICK).
# Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped"; exits 1 if anything failed.
# Without a runner, or a build without verbs (no libibverbs-dev at configure), the VM part is
# reported as skipped with the reason.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=$(cd "${1:?usage: run.sh PREFIX}" && pwd)
MPICC=$prefix/bin/mpicc
MPIEXEC=$prefix/bin/mpiexec
work=$top/_build/verbs-host
mkdir -p "$work"
OUT=$work/out ERR=$work/err

passed=0 failed=0 skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
show() { tr '\n' '|' <"$1" | cut -c1-400; }
summary() {
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
    exit
}
run() {
    timeout -k 5 "$1" "${@:2}" >"$OUT" 2>"$ERR"
    rc=$?
}
details() { echo "rc=$rc stdout='$(show "$OUT")' stderr='$(show "$ERR")'"; }

# Everything the VM runs is built here, where the compiler is not emulated: the list's programs
# as runtests builds them (it reuses them there, REUSE_BUILT=1), and vm.sh's own.
vmwork=$top/_build/verbs-vm
mkdir -p "$vmwork/list"
build() { # OUTPUT SOURCES...
    "$MPICC" -O1 -g -I"$top/test/mpi" -o "$@" >"$work/build.log" 2>&1 ||
        { fail "build_${1##*/}" "$(show "$work/build.log")"; summary; }
}
for prog in $(sed -e 's/#.*//' "$here/testlist" "$here/ring-testlist" | awk 'NF { print $1 }' | sort -u); do
    build "$vmwork/list/$prog" "$top/test/mpi/$prog.c" "$top/test/mpi/mtest.c"
done
for prog in sendrecv_allpairs sendrecv_sizes; do
    build "$vmwork/$prog" "$top/test/mpi/$prog.c" "$top/test/mpi/mtest.c"
done
build "$vmwork/tcp_kill" "$top/test/tcp/tcp_kill.c"
build "$vmwork/verbs_hold" "$here/verbs_hold.c"
build "$vmwork/verbs_fault" "$here/verbs_fault.c"
# The stranger is no MPI program: plain rdma-core.
cc -O1 -o "$vmwork/verbs_stranger" "$here/verbs_stranger.c" -lrdmacm -libverbs \
    >"$work/build.log" 2>&1 || { fail build_verbs_stranger "$(show "$work/build.log")"; summary; }
cp "$vmwork/sendrecv_allpairs" "$work/sendrecv_allpairs"
# Built at all?  A build without verbs stops MPI_Init on the unknown name.
run 60 env FERRY_METHODS=verbs "$MPIEXEC" -n 1 "$work/sendrecv_allpairs"
if grep -q 'method "verbs" is not built in' "$ERR"; then
    skip verbs_built "this build has no verbs method (configure found no libibverbs-dev and librdmacm-dev): $(show "$ERR")"
    summary
fi

# ---- here, without a device ----
if [ -e /dev/infiniband/uverbs0 ]; then
    skip no_device_quiet "this host has an RDMA device"
    skip no_device_one_line_verbose "this host has an RDMA device"
else
    run 120 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
    if [ $rc = 0 ] && grep -q '^ No Errors$' "$OUT" && [ ! -s "$ERR" ]; then
        pass no_device_quiet
    else
        fail no_device_quiet "$(details)"
    fi
    run 120 env FERRY_VERBOSE=1 "$MPIEXEC" -n 2 "$work/sendrecv_allpairs"
    if [ $rc = 0 ] && [ "$(grep -c 'verbs unavailable: no RDMA device' "$ERR")" = 2 ]; then
        pass no_device_one_line_verbose
    else
        fail no_device_one_line_verbose "$(details)"
    fi
fi

# ---- the module (methods/module.h): a library beside which sits a module that is not Ferry's ----
# The loader looks in ferry/ beside libmpi first: a copy of libmpi with a foreign ferry_verbs.so
# there (a shared object without Ferry's entry point) must stop a job that names verbs with a
# clear error, and a job that does not name it must not even open it here (no device).
moddir=$work/module-copy
rm -rf "$moddir" && mkdir -p "$moddir/ferry"
cp -L "$prefix/lib/libmpi.so.0" "$moddir/"
echo 'int not_ferry(void) { return 0; }' >"$moddir/foreign.c"
if cc -shared -fPIC -o "$moddir/ferry/ferry_verbs.so" "$moddir/foreign.c" 2>"$work/build.log"; then
    run 60 env LD_LIBRARY_PATH="$moddir" FERRY_METHODS=verbs,shm,self "$MPIEXEC" -n 2 \
        "$work/sendrecv_allpairs"
    if [ $rc != 0 ] && [ $rc != 124 ] &&
        grep -q "the verbs method's module ferry_verbs.so does not match this library (no entry point)" "$ERR"; then
        pass module_foreign_refused
    else
        fail module_foreign_refused "$(details)"
    fi
    run 60 env LD_LIBRARY_PATH="$moddir" LD_DEBUG=files "$MPIEXEC" -n 1 "$work/sendrecv_allpairs"
    if [ -e /dev/infiniband/uverbs0 ]; then
        skip module_not_opened_without_device "this host has an RDMA device"
    elif [ $rc = 0 ] && grep -q "$moddir/libmpi.so.0" "$ERR" && ! grep -q 'ferry_verbs.so\|libibverbs' "$ERR"; then
        pass module_not_opened_without_device
    else
        fail module_not_opened_without_device "rc=$rc; libmpi copy used: $(grep -c "$moddir/libmpi.so.0" "$ERR"); module or libibverbs opened: $(grep -c 'ferry_verbs.so\|libibverbs' "$ERR")"
    fi
else
    fail module_foreign_refused "cc -shared failed: $(show "$work/build.log")"
fi

# ---- the VM ----
rxe=${RXE_RUN:-}
if [ -z "$rxe" ]; then
    for c in "$top/../shared/tools/rxe-run" /work/shared/tools/rxe-run; do
        [ -x "$c" ] && { rxe=$c; break; }
    done
fi
case $prefix/ in
"$top"/*) ;;
*)
    skip verbs_vm "PREFIX $prefix is outside the tree $top, which is all the VM can see"
    summary
    ;;
esac
if [ -z "$rxe" ] || [ ! -x "$rxe" ]; then
    skip verbs_vm "no Soft-RoCE VM runner (rxe-run; set RXE_RUN)"
    summary
fi
# A guest under software emulation on a loaded machine may find its timer interrupt too late
# and panic at boot ("IO-APIC + timer doesn't work"); vm_part boots it with no_timer_check.
. "$top/test/vm_part.sh"
vm_log=$work/vm.log
t0=$SECONDS
vm_part verbs_vm "${RXE_TIMEOUT:-2400}" "$vm_log" env VERBS_QUICK="${VERBS_QUICK:-0}" \
    bash test/verbs/vm.sh "$prefix" || summary
echo "(the VM part took $((SECONDS - t0)) s; its log: $vm_log)"
summary
