#!/usr/bin/env bash
# build.sh: configures (with -Werror), builds and installs Ferry out of tree, and builds the unit
# test programs: the build part of test/run-all.sh.
#   test/build.sh BUILD-DIR PREFIX [CONFIGURE-ARGS...]
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=$1 prefix=$2
shift 2
cd "$top" || exit 2
if ! { [ -x configure ] && [ configure -nt configure.ac ] && [ Makefile.in -nt Makefile.am ]; }; then
    ./autogen.sh || exit 1
fi
mkdir -p "$dir" && cd "$dir" || exit 1
"$top/configure" --prefix="$prefix" --enable-werror "$@" && make -j"${JOBS:-2}" &&
    make install && make -j"${JOBS:-2}" check TESTS=
