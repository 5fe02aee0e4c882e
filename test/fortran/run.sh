#!/usr/bin/env bash
# run.sh INST: the Fortran programs of this directory, each built with mpifort and run with
# mpiexec at 2 and 3 ranks; a run passes when rank 0 prints "No Errors" and mpiexec exits 0.
# Fixed form (.f, include 'mpif.h') and free form (.f90, use mpi or, f08_*.f90, use mpi_f08;
# .F90 goes through the preprocessor).  Ends with "N passed, N failed, N skipped" (one skip when Ferry was built
# without Fortran).  First: the generated files are fresh (maint/fortran-bindings --check, when
# python3 is there).
# A program with a C file of the same name beside it (NAME.c) is built with it, the C file by
# mpicc: C code that Fortran calls.
# Other MPIs: MPIFORT=mpifort.mpich MPICC=mpicc.mpich MPIEXEC=mpiexec.mpich test/fortran/run.sh -
#   MPIFORT, MPICC, MPIEXEC   the wrappers and the launcher (default: INST's)
#   FFLAGS             added to every compile (other MPIs' wrappers on gfortran 10 and later need
#                      -fallow-argument-mismatch for the mpif.h programs; Ferry's adds it)
set -u
inst=$(cd "$1" 2>/dev/null && pwd) || inst=$1 # absolute: the runs happen in a temporary directory
here=$(cd "$(dirname "$0")" && pwd)
mpifort=${MPIFORT:-$inst/bin/mpifort}
mpicc=${MPICC:-$inst/bin/mpicc}
mpiexec=${MPIEXEC:-$inst/bin/mpiexec}
if ! command -v "${mpifort%% *}" >/dev/null 2>&1; then
    echo "SKIP fortran: no $mpifort (configure found no Fortran compiler: install gfortran)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# The compilers write the programs' own modules (.mod) into the current directory, and read an
# mpi.mod found there before their own: work where nothing else is.
cd "$d" || exit 1
passed=0 failed=0 skipped=0
fail() { # NAME LOG: one failure with the log's head
    echo "FAIL $1"
    sed 's/^/    /' "$2" | head -n 20
    failed=$((failed + 1))
}
# mpif.h, the bindings and the module's source are generated from mpi.h and committed.
if command -v python3 >/dev/null; then
    if python3 "$here/../../maint/fortran-bindings" --check >"$d/check.log" 2>&1; then
        echo "PASS generated files (maint/fortran-bindings --check)"
        passed=$((passed + 1))
    else
        fail "generated files are stale (run maint/fortran-bindings)" "$d/check.log"
    fi
else
    echo "SKIP generated files: no python3 for maint/fortran-bindings --check"
    skipped=$((skipped + 1))
fi
for src in "$here"/*.f "$here"/*.f90 "$here"/*.F90; do
    prog=$(basename "${src%.*}")
    cobj=
    if [ -f "${src%.*}.c" ]; then
        cobj=$d/$prog.c.o
        if ! $mpicc -c -o "$cobj" "${src%.*}.c" >"$d/$prog.build" 2>&1; then
            fail "$prog (build of $prog.c)" "$d/$prog.build"
            continue
        fi
    fi
    # shellcheck disable=SC2086
    if ! $mpifort ${FFLAGS:-} -o "$d/$prog" "$src" $cobj >"$d/$prog.build" 2>&1; then
        fail "$prog (build)" "$d/$prog.build"
        continue
    fi
    for np in 2 3; do
        # shellcheck disable=SC2086
        if timeout 60 $mpiexec -n $np "$d/$prog" >"$d/$prog.$np" 2>&1 &&
            grep -qx ' *No Errors' "$d/$prog.$np"; then
            echo "PASS $prog (np=$np)"
            passed=$((passed + 1))
        else
            fail "$prog (np=$np)" "$d/$prog.$np"
        fi
    done
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
