#!/usr/bin/env bash
# demo.sh: installs the build tools (Debian), builds and installs Ferry into ./_inst, and runs
# the demo: a 2-rank exchange of 8 B .. 4 MiB messages over the default methods, printing
# latency and bandwidth per size.  Extra arguments go to the demo program (e.g. -q).
set -eu
cd "$(dirname "$0")"
top=$PWD
need="autoconf automake libtool pkg-config gcc make"
missing=
for p in $need; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
    sudo=; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
fi
[ -x configure ] || ./autogen.sh
mkdir -p _build
(cd _build && { [ -f Makefile ] || ../configure --prefix="$top/_inst" -q; } && make -j2 -s install) >/dev/null
_inst/bin/mpicc -O2 -o _build/demo-latbw bench/latbw.c
echo "running: _inst/bin/mpiexec -n 2 _build/demo-latbw $*"
exec _inst/bin/mpiexec -n 2 _build/demo-latbw "$@"
