#!/usr/bin/env bash
# install_check.sh: the installed tree is usable: mpicc, mpicxx, mpifort, mpiexec (and the names
# mpic++, mpif77, mpif90 and mpirun), headers, both libraries and the pkg-config file, checked by building and running
# bench/latbw.c in several ways and a C++ program with mpicxx; the wrappers' query options
# (-showme:*, -compile_info, -link_info) give flags that build a program; the modules
# (lib/ferry) hold the heavy libraries, libmpi.so none of them.
#   test/install_check.sh PREFIX
set -u
inst=${1:?usage: install_check.sh PREFIX}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for f in bin/mpicc bin/mpicxx bin/mpic++ bin/mpiexec bin/mpirun bin/ferry_info include/mpi.h lib/libmpi.so lib/libmpi.a lib/pkgconfig/ferry.pc; do
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
# The query options build systems use (CMake's FindMPI asks -showme:compile and -showme:link, or
# -show, -compile_info and -link_info): their flags alone must build a program.
mpicc=$inst/bin/mpicc
[ "$("$mpicc" -showme:compile)" = "-I$inst/include" ] || { echo "mpicc -showme:compile: $("$mpicc" -showme:compile)"; exit 1; }
# shellcheck disable=SC2046
$("$mpicc" -showme:command) $("$mpicc" -showme:compile) -o "$d/latbw_q" "$top/bench/latbw.c" \
    $("$mpicc" -showme:link) || { echo "a build with mpicc's -showme flags failed"; exit 1; }
# -link_info is the compiler and the flags of a link; the objects go before the libraries.
li=$("$mpicc" -link_info)
# shellcheck disable=SC2086
${li%% *} -o "$d/latbw_li" "$top/bench/latbw.c" ${li#* } || { echo "a build with mpicc -link_info's flags failed"; exit 1; }
case "$("$mpicc" -compile_info)" in *" -I$inst/include") ;; *) echo "mpicc -compile_info: $("$mpicc" -compile_info)"; exit 1 ;; esac
"$mpicc" -showme:nosuch >/dev/null 2>"$d/err" && { echo "mpicc -showme:nosuch succeeded"; exit 1; }
grep -q 'unknown option -showme:nosuch' "$d/err" || { echo "mpicc -showme:nosuch: $(cat "$d/err")"; exit 1; }
"$inst/bin/mpirun" -n 2 "$d/latbw_q" -q -M 64 >/dev/null || exit 1
"$inst/bin/mpiexec" --np 2 "$d/latbw_li" -q -M 64 >/dev/null || exit 1
# -cc= picks another compiler, where one is installed.
if command -v clang >/dev/null; then
    [ "$("$mpicc" -cc=clang -showme:command)" = clang ] || { echo "mpicc -cc=clang is not taken"; exit 1; }
    "$mpicc" -cc=clang -Wall -Werror -o "$d/latbw_clang" "$top/bench/latbw.c" || exit 1
    "$inst/bin/mpiexec" -n 2 "$d/latbw_clang" -q -M 64 >/dev/null || exit 1
fi
# C++: mpicxx (and mpic++) build a program that uses the C bindings with standard containers.
if command -v "$("$inst/bin/mpicxx" -showme:command)" >/dev/null; then
    "$inst/bin/mpicxx" -std=c++11 -Wall -Wextra -pedantic -Werror -o "$d/cxx_ring" "$top/test/install/cxx_ring.cpp" || exit 1
    "$inst/bin/mpic++" -std=c++17 -O2 -o "$d/cxx_ring17" "$top/test/install/cxx_ring.cpp" || exit 1
    for p in cxx_ring cxx_ring17; do
        out=$("$inst/bin/mpirun" -n 3 "$d/$p") && [ "$out" = " No Errors" ] || { echo "$p: $out"; exit 1; }
    done
else
    echo "install_check: no C++ compiler ($("$inst/bin/mpicxx" -showme:command)): mpicxx not tried" >&2
fi
# Fortran (when configure found a compiler): mpif.h, mpi.mod, libmpifort, mpif77 and mpif90; the
# query flags of mpifort build a fixed-form mpif.h program (test/fortran runs the rest).
if [ -e "$inst/bin/mpifort" ]; then
    for f in bin/mpif77 bin/mpif90 include/mpif.h include/mpi.mod lib/libmpifort.so; do
        [ -e "$inst/$f" ] || { echo "missing $inst/$f"; exit 1; }
    done
    mpifort=$inst/bin/mpifort
    # shellcheck disable=SC2046
    $("$mpifort" -showme:command) $("$mpifort" -showme:compile) -o "$d/f_pingpong" \
        "$top/test/fortran/pingpong.f" $("$mpifort" -showme:link) 2>"$d/fc.log" ||
        { echo "a build with mpifort's -showme flags failed: $(head -5 "$d/fc.log")"; exit 1; }
    out=$("$inst/bin/mpirun" -n 2 "$d/f_pingpong") && [ "$out" = " No Errors" ] || { echo "f_pingpong: $out"; exit 1; }
    "$inst/bin/mpif90" -o "$d/f_coll" "$top/test/fortran/coll.f90" || exit 1
fi
