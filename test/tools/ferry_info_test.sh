#!/bin/sh
# ferry_info_test.sh: ferry_info's report, and doc/tuning.md's table checked against the registry
# in adi/config.c (through ferry_info --parsable): every variable documented, with its default,
# and no documented variable that the registry does not have.
# usage: ferry_info_test.sh [FERRY_INFO [TUNING_MD]]   (make check passes neither: it sets srcdir)
srcdir=${srcdir:-$(dirname "$0")/../..}
info=${1:-./ferry_info}
doc=${2:-$srcdir/doc/tuning.md}
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

out=$(FERRY_EAGER_LIMIT=64K FERRY_NO_SUCH_VARIABLE=1 "$info" --parsable 2>/dev/null) ||
    fail "ferry_info --parsable exited $?"
echo "$out" | grep -q '^version	[0-9]' || fail "no version record"
echo "$out" | grep -q '^configure	' || fail "no configure record"
echo "$out" | grep -q '^method	self	usable	' || fail "self is not reported usable"
echo "$out" | grep -q '^var	FERRY_EAGER_LIMIT	size	-1	64K	' ||
    fail "FERRY_EAGER_LIMIT=64K not shown as the current value: $(echo "$out" | grep FERRY_EAGER_LIMIT)"
echo "$out" | grep -q '^unknown-var	FERRY_NO_SUCH_VARIABLE$' || fail "unknown FERRY_NO_SUCH_VARIABLE not warned"
if echo "$out" | grep -q '^method	tcp	'; then
    FERRY_TCP_IF=nosuchif9 "$info" --parsable 2>/dev/null |
        grep -q '^method	tcp	unusable	.*matches no address' ||
        fail "tcp with FERRY_TCP_IF=nosuchif9 not reported unusable with the reason"
fi
"$info" >/dev/null 2>&1 || fail "ferry_info (readable form) exited $?"
"$info" --bogus >/dev/null 2>&1 && fail "ferry_info --bogus exited 0"

# The registry's variables (name, default) against the table rows of doc/tuning.md.
echo "$out" | awk -F'\t' '$1 == "var" { print $2 "\t" ($4 == "-" ? "" : $4) }' | sort > "${TMPDIR:-/tmp}/fi_reg.$$"
# A row: | `FERRY_X` | default (words) | ... ; the default's first word, backticks removed,
# "empty" for "", K/M/G sizes turned into bytes.
awk -F'|' '/^\| *`FERRY_[A-Z0-9_]*`/ {
        name = $2; gsub(/[ `]/, "", name)
        d = $3; gsub(/`/, "", d); sub(/^ */, "", d); split(d, w, " "); d = w[1]
        if (d == "empty") d = ""
        if (d ~ /^-?[0-9]+[KMG]$/) {
            m = substr(d, length(d)); n = substr(d, 1, length(d) - 1)
            d = n * (m == "K" ? 1024 : m == "M" ? 1048576 : 1073741824)
        }
        print name "\t" d
    }' "$doc" | sort > "${TMPDIR:-/tmp}/fi_doc.$$"
nreg=$(wc -l < "${TMPDIR:-/tmp}/fi_reg.$$")
[ "$nreg" -gt 10 ] || fail "only $nreg variables in ferry_info --parsable"
diffs=$(diff "${TMPDIR:-/tmp}/fi_reg.$$" "${TMPDIR:-/tmp}/fi_doc.$$")
if [ -n "$diffs" ]; then
    fail "doc/tuning.md's table and the registry differ ('<' registry, '>' doc: name and default):"
    echo "$diffs" | grep '^[<>]' | sed 's/^/    /'
fi
rm -f "${TMPDIR:-/tmp}/fi_reg.$$" "${TMPDIR:-/tmp}/fi_doc.$$"

if [ $failed = 0 ]; then
    echo "PASS ferry_info ($nreg variables, all in doc/tuning.md with their defaults)"
    exit 0
fi
exit 1
