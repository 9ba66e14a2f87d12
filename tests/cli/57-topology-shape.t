#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Files hwloc loads whose tree no machine has (issue 22, items 1 and 7):
# packages inside a package, cores renamed PU, an L3 level duplicated, PUs
# whose OS index is not their cpuset.  Before numaplan checked the shape,
# the first planned on an empty package array and wrote past it (exit 139
# on the issue's 2000-package file), the second allocated 16 GiB twice per
# core and then said "no usable core".  Each must give exit 2, nothing on
# stdout and one line naming the file and what is wrong with its shape.
#
# The reference that the files are ones hwloc accepts is lstopo itself;
# the expected reason follows from the edit that made each file
# (tests/xml/make-shape-xmls.sh).
source "$(dirname "$0")/../tap.sh"
XML=$NP_SRCDIR/tests/xml
command -v lstopo-no-graphics >/dev/null || { skip "lstopo-no-graphics (hwloc) not installed"; done_testing; exit 0; }
tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT

# the issue's reproduction, as it says: 2000 L1 caches renamed Package,
# the PUs' os_index reversed, cpusets unchanged
lstopo-no-graphics --input "package:1 l1d:2000 pu:1" --of xml 2>/dev/null |
	sed 's/type="L1Cache"/type="Package"/' |
	awk '/<object type="PU" os_index="/ { sub(/os_index="[0-9]+"/, "os_index=\"" 1999 - k++ "\"") } { print }' \
	>"$tmp/issue22.xml"

declare -A why=(
	["$tmp/issue22.xml"]="Package objects sit at more than one depth of the tree"
	["$XML/shape-package-two-depths.xml"]="Package objects sit at more than one depth of the tree"
	["$XML/shape-core-as-pu.xml"]="PU objects sit at more than one depth of the tree"
	["$XML/shape-l3-two-depths.xml"]="L3Cache objects sit at more than one depth of the tree"
	["$XML/shape-pu-index-permuted.xml"]="PU L#0 (P#3) has a cpuset other than its own OS index"
)
for f in "$tmp/issue22.xml" "$XML"/shape-*.xml; do
	name=$(basename "$f")
	timeout 60 lstopo-no-graphics --input "$f" >/dev/null 2>&1
	check "reference: lstopo loads $name" [ $? -eq 0 ]
	for cmd in "topo" "topo --json" "plan -n 1 -p compact" "plan --cpuset 0 -n 1 -p compact" \
	           "plan -n 4 -p spread -f ompi" "plan -n 2 -p numa -f json"; do
		# shellcheck disable=SC2086
		run numaplan $cmd --topology "$f"
		check "$name, numaplan $cmd: exit 2 (rc=$RC)" [ "$RC" -eq 2 ]
		check "$name, numaplan $cmd: nothing on stdout" [ -z "$OUT" ]
		check "$name, numaplan $cmd: one line naming the file and its shape (${ERR:0:160})" \
			eval '[ "$(wc -l <<<"$ERR")" -eq 1 ] &&
			      grep -qF "cannot use topology '"'"'$f'"'"': a shape no machine has: ${why[$f]}" <<<"$ERR"'
	done
done
run numaplan plan --topology "$XML/shape-core-as-pu.xml" -n 1 -p compact
check "item 7: a Core renamed PU is not called 'no usable core'" eval '! grep -q "no usable core" <<<"$ERR"'

# The same descriptions unedited load and plan: the check refuses the
# edit, not the synthetic machines (counts from the descriptions).
for d in "package:1 l1d:4 pu:1|1 4 4" "package:1 core:2 pu:2|1 2 4" \
         "package:2 l3:1 core:2 pu:1|2 4 4" "package:1 core:4 pu:1|1 4 4"; do
	lstopo-no-graphics --input "${d%|*}" --of xml >"$tmp/orig.xml" 2>/dev/null
	run numaplan topo --json --topology "$tmp/orig.xml"
	got=$(jq -r '"\(.packages | length) \(.ncores) \(.npus)"' <<<"$OUT" 2>/dev/null)
	check "unedited '${d%|*}' loads: packages cores PUs = ${d#*|} (got $got)" \
		eval '[ "$RC" -eq 0 ] && [ "$got" = "${d#*|}" ]'
	run numaplan plan --topology "$tmp/orig.xml" -n 2 -p compact
	check "unedited '${d%|*}' plans (rc=$RC)" [ "$RC" -eq 0 ]
done
done_testing
