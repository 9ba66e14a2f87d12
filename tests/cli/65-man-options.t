#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every option a command's --help lists (read from its option table) is
# described in its man page: topo and plan in numaplan(1), the others in
# numaplan-CMD(1).
source "$(dirname "$0")/../tap.sh"

for cmd in topo plan run report accept audit; do
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
done_testing
