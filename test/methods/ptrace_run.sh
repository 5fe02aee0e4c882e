#!/usr/bin/env bash
# ptrace_run.sh: shm's single-copy reads (CMA) under the kernel's ptrace rules.  Yama's
# kernel.yama.ptrace_scope cannot be changed on the host, so a throwaway VM (rxe-run, the same
# as the verbs part's) runs test/methods/ptrace_vm.sh, which sets each scope and runs jobs as
# root and as an ordinary user.
#
# usage: test/methods/ptrace_run.sh PREFIX   (PREFIX inside the tree: the VM sees only the tree)
# RXE_RUN: the VM runner (default: ../shared/tools/rxe-run beside the tree).
# Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
prefix=$(cd "${1:?usage: ptrace_run.sh PREFIX}" && pwd)
work=$top/_build/ptrace-vm
mkdir -p "$work"

passed=0 failed=0 skipped=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }
skip() { echo "SKIP $1: $2"; skipped=$((skipped + 1)); }
summary() {
    echo "$passed passed, $failed failed, $skipped skipped"
    [ "$failed" = 0 ]
    exit
}

# Built here, where the compiler is not emulated; readable by the VM's ordinary user.
if ! "$prefix/bin/mpicc" -O1 -o "$work/traffic" "$top/test/variables/traffic.c" \
    "$top/test/mpi/mtest.c" -I"$top/test/mpi" >"$work/build.log" 2>&1; then
    fail build_traffic "$(tr '\n' '|' <"$work/build.log" | cut -c1-400)"
    summary
fi
chmod -R a+rX "$work" "$prefix"

rxe=${RXE_RUN:-}
[ -z "$rxe" ] && for c in "$top/../shared/tools/rxe-run" /work/shared/tools/rxe-run; do
    [ -x "$c" ] && { rxe=$c; break; }
done
case $prefix/ in
"$top"/*) ;;
*) skip ptrace_vm "PREFIX $prefix is outside the tree $top, which is all the VM can see"; summary ;;
esac
[ -n "$rxe" ] && [ -x "$rxe" ] || { skip ptrace_vm "no VM runner (rxe-run; set RXE_RUN)"; summary; }
. "$top/test/vm_part.sh"
vm_part ptrace_vm "${RXE_TIMEOUT:-600}" "$work/vm.log" bash test/methods/ptrace_vm.sh "$prefix" \
    "$work" || summary
summary
