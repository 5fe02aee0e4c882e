#!/bin/sh
# autogen.sh: regenerates configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p config m4
autoreconf -fi
