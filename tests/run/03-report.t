#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan report: markdown, CSV, JSON and one self-contained HTML file that
# headless Chromium renders without console errors.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

run numaplan run stream --local --repeat 2 --size 100000 -o "$tmp/s"
check "a stream run to report on" [ "$RC" -eq 0 ]
run numaplan run compare --local --repeat 1 --policies none,compact --threads 1 -o "$tmp/c" -- true
run numaplan run wrf --parse-only --wrf-dir "$DATA/wrf-adaptive" -o "$tmp/w"

run numaplan report "$tmp/s"
check "report (markdown by default) exits 0" [ "$RC" -eq 0 ]
check "markdown has the results table" grep -q '^| stream.node | whole node' <<<"$OUT"
check "markdown has the NUMA matrix" grep -q '^## STREAM Triad (MB/s) by CPU node' <<<"$OUT"
check "markdown shows the local share 100%" grep -q '(100%)' <<<"$OUT"

run numaplan report "$tmp/s" --format csv
check "csv exits 0" [ "$RC" -eq 0 ]
check "csv header" [ "$(head -1 <<<"$OUT" | tr -d '\r')" = \
	"suite,experiment,kernel,group,placement,policy,nodes,ntasks,threads,status,runs_ok,runs_total,metric,unit,n,min,median,mean,max" ]
# 6 experiments x (4 STREAM figures + sys_pct) = 30 rows
check "one row per experiment and figure" [ "$(tail -n +2 <<<"$OUT" | grep -c .)" -eq 30 ]
# rows without quoted fields split into exactly 19 (quoted ones hold commas)
check "every unquoted row has 19 fields" sh -c "tail -n +2 <<'X' | grep -v '\"' | awk -F, 'NF != 19 { exit 1 }'
$OUT
X"
check "a placement with a comma is quoted" grep -q '"CPUs of NUMA 0, memory on NUMA 0"' <<<"$OUT"

run numaplan report "$tmp/s" --format json
check "json exits 0" [ "$RC" -eq 0 ]
check "json is valid and keeps the statistics" \
	jqt '.schema == "numaplan-results/1" and (.experiments[0].stats.triad_mbps.median > 0) and (.experiments[0].median > 0)' <<<"$OUT"
# what the reader of a condensed report needs to trust a figure is kept
# from results.json as it is: where the nodes ran and how they were bound,
# what was misplaced, left out or interrupted, each experiment's check
check "json keeps binding, nodes, same_machine, shared_cpus, left_out, the misplaced and interrupted counts" \
	jqt --slurpfile r "$tmp/s/results.json" '. as $j | all(["binding", "nodes", "same_machine", "shared_cpus",
	     "left_out", "misplaced_experiments", "misplaced_runs", "interrupted_runs"][]; . as $k | $j[$k] == $r[0][$k])
	     and ([.experiments[].placement_check] == [$r[0].experiments[].placement_check])' <<<"$OUT"

run numaplan report "$tmp/c" --format md
check "compare report has the speed-up table" grep -q '^## Placement comparison' <<<"$OUT"
run numaplan report "$tmp/w" --format md
check "wrf report has the step table" grep -q '^| wrf.parse | 2.000 | 1.500 | 35.0 |' <<<"$OUT"

for d in s c w; do
	numaplan report "$tmp/$d" --format html -o "$tmp/$d.html"
done
check "html written" [ -s "$tmp/s.html" ]
check "html is self-contained (no external resource)" \
	sh -c "! grep -Eq '(src|href)=\"(https?:)?//' '$tmp/s.html' '$tmp/c.html' '$tmp/w.html'"
check "html has inline SVG plots" [ "$(grep -c '<svg ' "$tmp/s.html")" -ge 2 ]
check "html has the heatmap" grep -q 'CPU node x memory node' "$tmp/s.html"
check "compare html has the bind-vs-unbind bars" grep -q 'Bind vs unbind' "$tmp/c.html"

CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROME" ]; then
	skip "chromium not installed (apt-get install chromium)"
else
	for d in s c w; do
		prof=$(mktemp -d "$tmp/chrome.XXXXXX")
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync --no-first-run --user-data-dir="$prof" \
			--enable-logging=stderr --v=0 --dump-dom "file://$tmp/$d.html" >"$tmp/$d.dom" 2>"$tmp/$d.log"
		check "chromium renders $d.html" [ "$?" -eq 0 ]
		check "the rendered DOM holds the SVG plots ($d)" grep -q '<svg' "$tmp/$d.dom"
		check "no console error or page error ($d)" sh -c "! grep -Ei 'CONSOLE|Uncaught|SyntaxError' '$tmp/$d.log'"
	done
fi

# Legends are not cut off: the plot is wide enough for its longest
# series name, at 6.6 px a character (11 px sans-serif averages under
# 0.6 em), from where the legend text starts.
mkdir -p "$tmp/omb"
fake_omb "$tmp/omb"
run numaplan run osu --local --osu-dir "$tmp/omb" --osu-max 16 --iterations 7 --repeat 1 -q -o "$tmp/osu"
check "an OSU run to plot" [ "$RC" -eq 0 ]
run numaplan report "$tmp/osu" --format html -o "$tmp/osu.html"
legend_fits() { # html name
	awk -v name="$2" '
	/<svg / { match($0, /width="[0-9]+"/); w = substr($0, RSTART + 7, RLENGTH - 8) + 0 }
	index($0, ">" name "</text>") && /<text x="/ {
		match($0, /x="[0-9.]+"/); x = substr($0, RSTART + 3, RLENGTH - 4) + 0
		found = 1; if (x + length(name) * 6.6 > w) bad = 1 }
	END { exit !(found && !bad) }' "$1"
}
check "the legend osu.intra.numa0-numa0 fits in its plot" legend_fits "$tmp/osu.html" osu.intra.numa0-numa0

run numaplan report "$tmp/nonexistent"
check "report on a missing directory: exit 2" [ "$RC" -eq 2 ]
check "... and says it is no run directory" grep -q 'no results.json' <<<"$ERR"
run numaplan report "$tmp/s" --format pdf
check "unknown format: exit 2 with the valid ones" sh -c "[ $RC -eq 2 ] && echo '$ERR' | grep -q 'md, html, json, csv, reframe'"
echo '{"not":"results"}' >"$tmp/bad.json"
run numaplan report "$tmp/bad.json"
check "a JSON that is no results file is refused" sh -c "[ $RC -eq 2 ] && echo '$ERR' | grep -q 'not a numaplan results file'"
done_testing
