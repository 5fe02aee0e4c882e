#!/usr/bin/env bash
# install-packages.sh: installs the Debian packages of test/debian-packages that are missing,
# with apt-get as root or through sudo when it needs no password; otherwise prints in one line
# the command to run first and exits 1.  Exits 0 when everything is installed.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mapfile -t want < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$here/debian-packages")

missing_packages() {
    local p
    for p in "${want[@]}"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            printf '%s ' "$p"
    done
}

if ! command -v dpkg-query >/dev/null; then
    echo "install-packages: not a Debian system; make sure these are installed: ${want[*]}"
    exit 0
fi
missing=$(missing_packages)
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then
    sudo=
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=sudo
else
    echo "missing Debian packages; run first: sudo apt-get install -y ${missing% }"
    exit 1
fi
echo "install-packages: installing ${missing% }"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
$sudo apt-get update -qq >"$log" 2>&1 || echo "install-packages: apt-get update failed; trying anyway"
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >>"$log" 2>&1
missing=$(missing_packages)
if [ -n "$missing" ]; then
    echo "install-packages: still missing after apt-get install: ${missing% }"
    tail -n 20 "$log"
    rm -f "$log"
    exit 1
fi
rm -f "$log"
