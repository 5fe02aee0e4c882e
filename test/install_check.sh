#!/usr/bin/env bash
# install_check.sh: the installed tree is usable: mpicc, mpiexec, headers, both libraries and the
# pkg-config file, checked by building and running bench/latbw.c both ways.
#   test/install_check.sh PREFIX
set -u
inst=${1:?usage: install_check.sh PREFIX}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for f in bin/mpicc bin/mpiexec bin/ferry_info include/mpi.h lib/libmpi.so lib/libmpi.a lib/pkgconfig/ferry.pc; do
    [ -e "$inst/$f" ] || { echo "missing $inst/$f"; exit 1; }
done
"$inst/bin/mpicc" -Wall -Wextra -Werror -o "$d/latbw" "$top/bench/latbw.c" || exit 1
"$inst/bin/mpiexec" -n 2 "$d/latbw" -q -M 4K || exit 1
flags=$(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags --libs ferry) || exit 1
# shellcheck disable=SC2086
cc -o "$d/latbw_pc" "$top/bench/latbw.c" $flags || exit 1
"$inst/bin/mpiexec" -n 2 "$d/latbw_pc" -q -M 64K
