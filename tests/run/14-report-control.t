#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan report reads results.json, which anyone who can write the run
# directory can edit: no control byte of it reaches the terminal in any
# text format, and a newline does not end a table row (issue 22, item 9).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

run numaplan run wrf --parse-only --wrf-dir "$DATA/wrf-adaptive" -o "$tmp/w"
check "a wrf run to report on" [ "$RC" -eq 0 ]
# ESC [31m (colour), OSC 0 (window title) ending in BEL, a newline, and
# U+009B (CSI as one C1 character) in the names a report shows
jq '.suite = "wrf\u001b[31m" | .experiments[0].name = "wrf\u001b]0;owned\u0007.parse\nrow" |
    .experiments[0].placement.description = "a\u009b2Jb"' "$tmp/w/results.json" >"$tmp/r.json" &&
	mv "$tmp/r.json" "$tmp/w/results.json"
check "results.json now holds the control bytes" grep -qF '\u001b' "$tmp/w/results.json"
esc=$'\e'; bel=$'\a'; c1=$'\xc2\x9b'
clean() { ! grep -q -e "$esc" -e "$bel" -e "$c1" <<<"$OUT"; }
for f in md csv html json; do
	run numaplan report "$tmp/w" --format "$f"
	check "--format $f: exit 0, no ESC, BEL or C1 byte in the output" eval '[ "$RC" -eq 0 ] && clean'
done
run numaplan report "$tmp/w" --format md
check "md: the escape is shown as \\x1b" grep -qF 'wrf\x1b]0;owned\x07.parse row' <<<"$OUT"
check "md: the title carries the suite shown the same way" grep -qF '# numaplan wrf\x1b[31m report' <<<"$OUT"
check "md: every table line still starts and ends with '|'" \
	eval '[ -z "$(grep "^|" <<<"$OUT" | grep -v "|\$")" ] && ! grep -q "^row" <<<"$OUT"'
run numaplan report "$tmp/w" --format csv
check "csv: the C1 control shown as \\xc2\\x9b" grep -qF 'a\xc2\x9b2Jb' <<<"$OUT"
run numaplan report "$tmp/w" --format json
check "json: the name is kept (JSON escapes it itself)" \
	eval 'jq -e ".experiments[0].name == \"wrf\u001b]0;owned\u0007.parse\nrow\"" <<<"$OUT" >/dev/null'

# run --collect prints its summary table from the directory's files
jq '.[0].name = "wrf\u001b[2J.parse"' "$tmp/w/experiments.json" >"$tmp/e.json" && mv "$tmp/e.json" "$tmp/w/experiments.json"
run numaplan run --collect "$tmp/w"
check "run --collect's summary table: no ESC byte, the name shown escaped" \
	eval 'clean && grep -qF "wrf\\x1b[2J.parse" <<<"$OUT"'
done_testing
