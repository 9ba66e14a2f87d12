#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# man(3): every public call of libnumaplan is named in the NAME section of
# one group page (numaplan_topo(3), ...; `make install` links
# np_topo_load.3 and the like to it), no page names a call that is not
# there, np_get_api_version is in numaplan(3), and the pages format
# without a warning.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
CC=${CC:-gcc}
tmp=$(mktemp -d /tmp/np-man3-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT

printf '#include <numaplan.h>\n' >"$tmp/decl.c"
$CC -I"$S/include" -fsyntax-only -aux-info "$tmp/decl.aux" "$tmp/decl.c"
grep -F "/* $S/include/numaplan" "$tmp/decl.aux" | grep -F ' extern ' |
	sed -E 's|^/\*[^*]*\*/ extern ||; s/^([^(]*[ *])([A-Za-z_][A-Za-z0-9_]*) \(.*/\2/' |
	sort -u >"$tmp/declared"

# the calls of a page's NAME section, as man/Makefile.am's install hook reads them
names() { sed -n '/^\.SH NAME/,/\\-/p' "$1" | tr ',' '\n' | sed -n 's/^[[:space:]]*\(np_[a-z0-9_]*\).*/\1/p'; }
groups=$(sed -n '/^man3_groups = /,/^$/p' "$S/man/Makefile.am" | tr ' \t\\' '\n\n\n' | grep '\.3$')
for p in $groups; do names "$S/man/$p"; done | sort >"$tmp/named"
echo np_get_api_version >>"$tmp/named"
sort -o "$tmp/named" "$tmp/named"
check "no call is named in two pages" test -z "$(uniq -d "$tmp/named")"
sort -u -o "$tmp/named" "$tmp/named"
undocumented=$(comm -23 "$tmp/declared" "$tmp/named" | tr '\n' ' ')
unknown=$(comm -13 "$tmp/declared" "$tmp/named" | tr '\n' ' ')
check "every public call has a man(3) page${undocumented:+ (not: $undocumented)}" test -z "$undocumented"
check "the pages name no call the headers lack${unknown:+ ($unknown)}" test -z "$unknown"
check "numaplan(3) documents np_get_api_version and NUMAPLAN_API_VERSION" \
	bash -c 'grep -q "np_get_api_version" "$1" && grep -q "NUMAPLAN_API_VERSION" "$1"' _ "$S/man/numaplan.3"
for p in "$S"/man/*.3; do
	base=$(basename "$p")
	check "$base is installed (dist_man_MANS)" grep -qE "(^|[[:space:]])$base([[:space:]]|\$)" "$S/man/Makefile.am"
	run groff -man -ww -z "$p"
	check "$base formats without a warning" test -z "$ERR$OUT"
	for ref in $(grep -oE '\bnumaplan_[a-z]+ \(3\)' "$p" | sed 's/ (3)//' | sort -u); do
		[ -f "$S/man/$ref.3" ] || notok "$base refers to $ref(3), which does not exist"
	done
done
done_testing
