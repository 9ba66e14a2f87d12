#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# spread against hwloc-distrib, the reference for "spread over the machine":
# on every stored topology with several packages, the ranks per package and
# per NUMA node are those of `hwloc-distrib --single N` (its rank order
# differs: it fills package 0 first, spread alternates packages).
source "$(dirname "$0")/../tap.sh"

# PU (OS index) -> "package/NUMA node" (hwloc logical indexes), from hwloc-calc.
domain_table() { # xml
	local xml=$1 p m
	for ((p = 0; p < $(hwloc-calc --input "$xml" -N package all); p++)); do
		hwloc-calc --input "$xml" --po -I pu "package:$p" | tr , '\n' | sed "s/$/ P $p/"
	done
	for ((m = 0; m < $(hwloc-calc --input "$xml" -N numa all); m++)); do
		hwloc-calc --input "$xml" --po -I pu "numa:$m" | tr , '\n' | sed "s/$/ N $m/"
	done
}
# PUs on stdin -> "count package/node" lines, sorted
tally() { # table
	awk 'NR == FNR { if ($2 == "P") pk[$1] = $3; else if (!($1 in nu)) nu[$1] = $3; next }
	     { n[pk[$1] "/" nu[$1]]++ } END { for (k in n) print n[k], k }' "$1" - | sort -k2
}
# hwloc-distrib --single --taskset masks (one bit each) -> PU numbers
mask_pu() {
	awk '{ s = tolower(substr($1, 3)); d = index("0123456789abcdef", substr(s, 1, 1)) - 1
	       b = d >= 8 ? 3 : d >= 4 ? 2 : d >= 2 ? 1 : 0; print 4 * (length(s) - 1) + b }'
}

tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
ntopo=0
for xml in "$TOPO"/*.xml; do
	npk=$(hwloc-calc --input "$xml" -N package all)
	[ "$npk" -ge 2 ] || continue
	ntopo=$((ntopo + 1))
	nc=$(hwloc-calc --input "$xml" -N core all)
	domain_table "$xml" >"$tmp/table"
	bad=""
	for n in $(printf '%s\n' 1 2 3 7 "$npk" $((npk + 1)) $((2 * npk + 1)) $((nc / 3)) $((nc / 2 + 1)) $((nc - 1)) "$nc" |
		awk -v nc="$nc" '$1 >= 1 && $1 <= nc' | sort -nu); do
		ours=$(numaplan plan --topology "$xml" -n "$n" -p spread -f json | jq -r '.ranks[].cpus' |
			sed 's/[-,].*//' | tally "$tmp/table")
		ref=$(hwloc-distrib --input "$xml" --single --taskset "$n" | mask_pu | tally "$tmp/table")
		if [ "$ours" != "$ref" ]; then
			bad="$bad $n"
			diag "$(basename "$xml") n=$n: spread $(paste -sd' ' <<<"$ours") / hwloc-distrib $(paste -sd' ' <<<"$ref")"
		fi
	done
	check "spread = hwloc-distrib per package and NUMA node: $(basename "$xml" .xml)" test -z "$bad"
done
check "every multi-package topology was compared ($ntopo)" test "$ntopo" -ge 15

# The order numaplan(1) documents: 4 ranks on the NPS4 EPYC use NUMA
# nodes 0, 4, 2, 6 - alternating sockets, nodes 0 and 2 of each.
run numaplan plan --topology "$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml" -n 4 -p spread -f json
check "EPYC NPS4, 4 ranks: NUMA 0, 4, 2, 6 in rank order" \
	test "$(jq -r '[.ranks[].mems] | join(" ")' <<<"$OUT")" = "0 4 2 6"
done_testing
