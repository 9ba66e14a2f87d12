#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every option a command's --help lists (read from its option table) is
# described in its man page: topo and plan in numaplan(1), the others in
# numaplan-CMD(1).
source "$(dirname "$0")/../tap.sh"

for cmd in topo plan run report accept audit check steps; do
	page=$NP_SRCDIR/man/numaplan-$cmd.1
	[ -f "$page" ] || page=$NP_SRCDIR/man/numaplan.1
	run numaplan "$cmd" --help
	check "numaplan $cmd --help: exit 0, usage on stdout" test "$RC" -eq 0 -a -n "$OUT"
	opts=$(grep -oE -- '(^|[ ,])--[a-z][a-z0-9-]+' <<<"$OUT" | sed 's/^[ ,]*//' | sort -u)
	missing=
	for o in $opts; do
		# man writes each '-' as '\-'
		grep -qF -- "${o//-/\\-}" "$page" || missing+=" $o"
	done
	check "numaplan $cmd: each of its $(wc -w <<<"$opts") options is in $(basename "$page")${missing:+ (not:$missing)}" \
		test -z "$missing"
done

# The -p paragraph of numaplan(1) names every policy of the library's
# table (the "Policies:" line of --help is np_policy_list()).
run numaplan plan --help
policies=$(sed -n 's/^Policies: //p' <<<"$OUT" | tr -d ' ' | tr , ' ')
para=$(sed -n '/^\.BI \\-p ", \\-\\-policy " P$/,/^\.TP$/p' "$NP_SRCDIR/man/numaplan.1")
missing=
for p in $policies; do
	grep -qE "^\.BR? ${p//-/\\\\-}( |$)" <<<"$para" || missing+=" $p"
done
check "numaplan(1): -p names each of the $(wc -w <<<"$policies") policies of the table${missing:+ (not:$missing)}" \
	test -n "$policies" -a -n "$para" -a -z "$missing"
done_testing
