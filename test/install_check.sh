#!/usr/bin/env bash
# install_check.sh: the installed tree is usable: mpicc, mpiexec, headers, both libraries and the
# pkg-config file, checked by building and running bench/latbw.c both ways; the modules
# (lib/ferry) hold the heavy libraries, libmpi.so none of them.
#   test/install_check.sh PREFIX
set -u
inst=${1:?usage: install_check.sh PREFIX}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for f in bin/mpicc bin/mpiexec bin/ferry_info include/mpi.h lib/libmpi.so lib/libmpi.a lib/pkgconfig/ferry.pc; do
    [ -e "$inst/$f" ] || { echo "missing $inst/$f"; exit 1; }
done
# Heavy libraries are in modules (adi/module_open.c), never linked into libmpi itself: a process
# that does not use them must not pay for loading them.
heavy=$(ldd "$inst/lib/libmpi.so" | grep -E 'libibverbs|librdmacm|libnl|libfabric|libpmix')
[ -z "$heavy" ] || { echo "libmpi.so links what only modules should: $heavy"; exit 1; }
for m in "$inst"/lib/ferry/ferry_*.so; do
    [ -e "$m" ] || continue
    ldd -r "$m" 2>&1 | grep -v 'undefined symbol: \(MPIDU_\|MPIR_\)' | grep -q 'not found\|undefined' &&
        { echo "module $m does not resolve: $(ldd -r "$m" 2>&1 | grep 'not found\|undefined' | grep -v 'MPIDU_\|MPIR_' | head -3)"; exit 1; }
done
"$inst/bin/mpicc" -Wall -Wextra -Werror -o "$d/latbw" "$top/bench/latbw.c" || exit 1
"$inst/bin/mpiexec" -n 2 "$d/latbw" -q -M 4K || exit 1
flags=$(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs ferry) || exit 1
# shellcheck disable=SC2086
cc -o "$d/latbw_pc" "$top/bench/latbw.c" $flags || exit 1
"$inst/bin/mpiexec" -n 2 "$d/latbw_pc" -q -M 64K
