#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# report --history: each experiment's figure over many run directories in
# date order, against the first run or a named baseline; a median worse
# than the baseline's by more than the tolerance, in the direction the
# suite judges the figure (Triad: more is better; latency: less), is a
# regression.  Runs: dry runs with outputs written by hand, collected, their
# dates set in results.json.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

# mk NAME DATE TRIAD LATENCY: a stream run and an osu run of that date
mk() {
	local d=$tmp/$1 n
	run numaplan run stream --local --dry-run --repeat 1 -o "$d"
	mkdir -p "$d/raw"
	printf '{"copy_mbps":1,"scale_mbps":1,"add_mbps":1,"triad_mbps":%s,"validated":true}\n' "$3" \
		>"$d/raw/stream.node.r1.$(hostname -s).out"
	echo "rc=0 start=1.0 end=2.0" >"$d/raw/stream.node.r1.rc"
	run numaplan run --collect "$d"
	n=osu.intra.numa0-numa0
	run numaplan run osu --local --dry-run --repeat 1 -o "$d-osu"
	mkdir -p "$d-osu/raw"
	printf '{"test":"latency","unit":"us","results":[{"size":8,"value":%s}]}\n' "$4" >"$d-osu/raw/$n.r1.x.out"
	echo "rc=0 start=1.0 end=2.0" >"$d-osu/raw/$n.r1.rc"
	run numaplan run --collect "$d-osu"
	for x in "$d" "$d-osu"; do
		jq --arg t "$2" '.created = $t' "$x/results.json" >"$x/r.json" && mv "$x/r.json" "$x/results.json"
	done
}
if [ "$(nproc)" -lt 2 ]; then skip "needs 2 CPUs for the intra-node OSU test"; done_testing; exit; fi
# the first run is the baseline: 100000 MB/s, 2.00 us
mk sep 2026-09-01T10:00:00Z 100000 2.00
mk oct 2026-10-01T10:00:00Z  98000 2.04   # -2%, +2%: within 5%
mk nov 2026-11-01T10:00:00Z  90000 2.20   # -10%, +10%: regressions
mk dec 2026-12-01T10:00:00Z 101000 1.90   # better: never a regression
ALL=("$tmp/dec" "$tmp/oct" "$tmp/sep" "$tmp/nov" "$tmp/dec-osu" "$tmp/oct-osu" "$tmp/sep-osu" "$tmp/nov-osu")

run numaplan report --history "${ALL[@]}" --format csv
check "--history --format csv: exit 0" [ "$RC" -eq 0 ]
CSV=$OUT
row() { grep -F ",$1," <<<"$CSV" | grep -F "$2" | tr -d '\r'; }
check "rows in date order whatever the order given" \
	[ "$(grep -F ',stream.node,' <<<"$CSV" | cut -d, -f1 | tr -d '\r' | tr '\n' ' ')" = \
	  "2026-09-01T10:00:00Z 2026-10-01T10:00:00Z 2026-11-01T10:00:00Z 2026-12-01T10:00:00Z " ]
check "Triad -10% against the first run: a regression" \
	[ "$(row stream.node 2026-11 | cut -d, -f8-11)" = "90000,100000,-10,true" ]
check "Triad -2%: not one (5% tolerance)" [ "$(row stream.node 2026-10 | cut -d, -f11)" = false ]
check "latency +10% (less is better): a regression" \
	[ "$(row osu.intra.numa0-numa0 2026-11 | cut -d, -f7,11)" = "false,true" ]
check "latency -5% (better): not one" [ "$(row osu.intra.numa0-numa0 2026-12 | cut -d, -f11)" = false ]
check "experiments that never had a figure are left out" eval '! grep -q ",stream.core," <<<"$CSV"'

run numaplan report --history "${ALL[@]}" --format json
check "json: the schema, 8 runs, 2 regressions" \
	jqt '.schema == "numaplan-history/1" and (.runs|length) == 8 and (.regressions|length) == 2' <<<"$OUT"
check "json: without --baseline, each experiment's first figure is its baseline" \
	jqt '.baseline.first and all(.series[]; .baseline == .points[0].median)' <<<"$OUT"

run numaplan report --history "${ALL[@]}" --baseline "$tmp/oct" --format csv
# against 98000: 90000 is -8.2%, 100000 +2.0%
check "--baseline oct: Triad -8.2% in November" \
	[ "$(grep -F ',stream.node,' <<<"$OUT" | grep 2026-11 | cut -d, -f9,10 | tr -d '\r' | cut -c1-11)" = "98000,-8.16" ]
run numaplan report --history "${ALL[@]}" --tolerance 15% --format json
check "--tolerance 15%: no regression" jqt '.regressions | length == 0' <<<"$OUT"

run numaplan report --history "${ALL[@]}" --format html -o "$tmp/h.html"
check "html: exit 0" [ "$RC" -eq 0 ]
check "html: a plot per suite and figure, over dates" \
	[ "$(grep -c '<svg' "$tmp/h.html")" -eq 2 ] && grep -q 'date (UTC)' "$tmp/h.html"
check "html: the two regressions ringed in the plots" [ "$(grep -c 'class="regression"' "$tmp/h.html")" -eq 2 ]
check "html: the table beside each plot, the regressions, the CSV" \
	sh -c "grep -q 'class=\"pair\"' '$tmp/h.html' && grep -q 'id=\"history_regressions\"' '$tmp/h.html' &&
	       grep -q '<details><summary>CSV' '$tmp/h.html'"
check "html: self-contained" sh -c "! grep -qE '(src|href)=\"?(http|//)' '$tmp/h.html'"
run numaplan report --history "${ALL[@]}"
check "md: the regression marked in its table" grep -q '| 90000 (-10.0%) ! |' <<<"$OUT"

run numaplan report --history
check "--history without directories: exit 2" [ "$RC" -eq 2 ]
run numaplan report --history "$tmp/sep" "$tmp/nothing" -o "$tmp/x.html"
check "a directory without results: exit 2, no file written" \
	eval '[ "$RC" -eq 2 ] && [ ! -e "$tmp/x.html" ] && grep -q "nothing" <<<"$ERR"'
run numaplan report "$tmp/sep" --baseline "$tmp/oct"
check "--baseline without --history: exit 2" [ "$RC" -eq 2 ]
done_testing
