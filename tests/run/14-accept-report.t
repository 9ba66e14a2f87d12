#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The acceptance deliverable of a real 2-node run on the vcluster: the
# shipped smoke spec, whose experiment names do not depend on the node
# count (hpl.Nn), is ACCEPTED; accept.html and accept.md put the verdict,
# the site and cluster and the caveats of a one-machine cluster before any
# figure; `report` reads the accept directory; its ReFrame perflog lines
# parse per numaplan-report(1).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up (contrib/vcluster/vcluster up --nodes 2)"
	done_testing; exit
fi
SPEC=$NP_SRCDIR/contrib/specs/smoke.accept
run timeout 900 numaplan accept --spec "$SPEC" --output "$tmp/acc" --site "Test Site" -- --nodes 2 --repeat 2 -q
check "the smoke spec on 2 nodes: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -20 <<<"$OUT") $ERR"
check "... ACCEPTED" grep -q 'checks failed: ACCEPTED' <<<"$OUT"
A=$tmp/acc/accept.json
# the spec's rows: stream.node once, stream.* once per stream experiment
# of the run, two hpl rows and one himeno row
nstream=$(jq '[.experiments[] | select(.name | startswith("stream."))] | length' "$tmp/acc/1-stream/results.json")
check "one row per matching experiment (3 + $nstream)" jqt --argjson n "$nstream" '.checks | length == 4 + $n' "$A"
check "hpl.Nn is the 2-node HPL run" jqt '[.checks[] | select(.check | startswith("hpl.Nn")) | .experiment] == ["hpl.2n", "hpl.2n"]' "$A"
check "himeno.Nn is the 2-node Himeno run, not its 1-node reference" \
	jqt '[.checks[] | select(.check | startswith("himeno.Nn")) | .experiment] == ["himeno.2n"]' "$A"
check "the check column is not cut: every check's text in full" \
	bash -c 'grep "^check" "$1" | sed "s/^check *//; s/ *#.*//" | while read -r l; do grep -qF -- "$l" <<<"$2" || exit 1; done' _ "$SPEC" "$OUT"

# The names a site wrote for one node do not match a 2-node run.
printf 'check hpl.1n gflops > 0\n' >"$tmp/one.spec"
run numaplan accept --spec "$tmp/one.spec" --results "$tmp/acc/2-hpl"
check "hpl.1n on a 2-node run: no experiment matches, exit 1" \
	bash -c "[ $RC -eq 1 ] && grep -q 'hpl.1n .*no experiment matches' <<<\"\$0\"" "$OUT"

# The report: verdict, site, cluster and caveats before the first plot.
cluster=$(scontrol show config | sed -n 's/^ClusterName *= *//p')
H=$tmp/acc/accept.html
before_svg() { # file pattern: the pattern is on a line before the first <svg
	awk -v p="$2" 'index($0, p) && !svg { found = 1 } /<svg/ { svg = 1 } END { exit !found }' "$1"
}
check "accept.html: the verdict before the first plot" before_svg "$H" '<p id="verdict" class="verdict ok">ACCEPTED</p>'
check "accept.html: the site" before_svg "$H" 'Test Site'
check "accept.html: the cluster ($cluster)" before_svg "$H" "<td>$cluster</td>"
# the vcluster's nodes are network namespaces of one kernel on the same CPUs
check "accept.html: the one-machine caveat" before_svg "$H" 'n1, n2 are one machine'
check "accept.html: the shared-CPU caveat" before_svg "$H" 'n1 and n2 shared CPUs'
check "accept.html: the plots of the runs follow" grep -q '<svg' "$H"
check "accept.html: no failed check" grep -q '<p id="failed_checks">None.</p>' "$H"
M=$tmp/acc/accept.md
check "accept.md: the verdict is the title" sh -c "head -1 '$M' | grep -qx '# numaplan acceptance: ACCEPTED'"
check "accept.md: caveats, failed checks, warnings, then the runs" bash -c \
	'c=$(grep -n "^## Caveats" "$1" | cut -d: -f1); f=$(grep -n "^## Failed checks" "$1" | cut -d: -f1)
	 w=$(grep -n "^## Warnings" "$1" | cut -d: -f1); r=$(grep -n "^## Run 1" "$1" | cut -d: -f1)
	 [ -n "$c" ] && [ "$c" -lt "$f" ] && [ "$f" -lt "$w" ] && [ "$w" -lt "$r" ]' _ "$M"

# A spec the run misses: NOT ACCEPTED, and the failed check at the top.
printf 'check stream.node triad_mbps >= 1000 TB/s\ncheck stream.core triad_mbps > 0\n' >"$tmp/miss.spec"
run numaplan accept --spec "$tmp/miss.spec" --results "$tmp/acc/1-stream" --output "$tmp/miss"
check "a missed spec with --results --output: exit 1" [ "$RC" -eq 1 ]
check "... its report says NOT ACCEPTED first" \
	sh -c "head -1 '$tmp/miss/accept.md' | grep -qx '# numaplan acceptance: NOT ACCEPTED'"
check "... the failed check (only) under Failed checks, before every check" bash -c \
	'sed -n "/^## Failed checks/,/^## Warnings/p" "$1" >"$1.failed"
	 grep -q "| failed | stream.node triad_mbps >= 1000 TB/s | stream.node |" "$1.failed" &&
	 ! grep -q "stream.core" "$1.failed"' _ "$tmp/miss/accept.md"
check "... accept.html marks the verdict failed" grep -q '<p id="verdict" class="verdict failed">NOT ACCEPTED</p>' "$tmp/miss/accept.html"

run numaplan report "$tmp/acc"
check "report reads the accept directory: exit 0" [ "$RC" -eq 0 ]
check "... the acceptance report, verdict first" bash -c "head -1 <<<\"\$0\" | grep -qx '# numaplan acceptance: ACCEPTED'" "$OUT"
run numaplan report "$tmp/acc/accept.json"
check "report of DIR/accept.json is the same report" bash -c "head -1 <<<\"\$0\" | grep -qx '# numaplan acceptance: ACCEPTED'" "$OUT"
run numaplan report "$tmp/acc" --format html -o "$tmp/r.html"
check "report --format html of it is accept.html" cmp -s "$tmp/r.html" "$H"

# ReFrame perflog (numaplan-report(1), REFRAME PERFLOG): a header line of
# '|'-separated names, then records with as many fields; 8 fixed fields,
# then 5 per performance variable.
run numaplan report "$tmp/acc" --format reframe
check "report --format reframe: exit 0" [ "$RC" -eq 0 ]
echo "$OUT" >"$tmp/perflog"
nexp=$(jq -s '[.[].experiments | length] | add' "$tmp"/acc/*/results.json)
check "one record per experiment of the three runs ($nexp)" \
	[ "$(grep -vc '^job_completion_time|' "$tmp/perflog")" -eq "$nexp" ]
check "every line parses per the documented format" awk -F'|' '
	/^job_completion_time\|/ {
		nf = NF; ok = ($2 == "version" && $3 == "display_name" && $4 == "system" && $5 == "partition" &&
		              $6 == "environ" && $7 == "num_tasks" && $8 == "result" && (NF - 8) % 5 == 0 && NF > 8)
		for (i = 9; i < NF && ok; i += 5) {
			v = substr($i, 1, length($i) - 6)
			ok = ($i == v "_value" && $(i+1) == v "_unit" && $(i+2) == v "_ref" &&
			      $(i+3) == v "_lower_thres" && $(i+4) == v "_upper_thres")
		}
		if (!ok) exit 1
		next }
	{ if (!nf || NF != nf) exit 1
	  if ($1 !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9:]+Z$/ || $2 !~ /^numaplan / || $7 !~ /^[0-9]+$/ ||
	      ($8 != "pass" && $8 != "fail")) exit 1
	  for (i = 9; i < NF; i += 5)
		if ($i !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ || $(i+2) !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/ ||
		    ($(i+3) != "None" && $(i+3) != "0") || ($(i+4) != "None" && $(i+4) != "0")) exit 1
	  n++ }
	END { exit !(n > 0) }' "$tmp/perflog"
check "the system is the cluster's name, the tests pass" \
	awk -F'|' '!/^job_completion_time/ && ($4 != c || $8 != "pass") { exit 1 }' c="$cluster" "$tmp/perflog"
# stream.core's Triad against the spec's 100 MB/s (>=: a lower bound,
# thresholds as fractions of the reference: 0 below, none above)
check "a check is the reference: stream.core triad_mbps >= 100 MB/s" awk -F'|' '
	/^job_completion_time/ { for (i = 9; i <= NF; i++) if ($i == "triad_mbps_value") col = i; next }
	$3 == "stream.core" && col { found = ($(col+1) == "MB/s" && $(col+2) == 100 && $(col+3) == "0" && $(col+4) == "None") }
	END { exit !found }' "$tmp/perflog"
check "a figure no check names has reference 0, no thresholds" awk -F'|' '
	/^job_completion_time/ { col = 0; for (i = 9; i <= NF; i++) if ($i == "copy_mbps_value") col = i; next }
	$3 == "stream.core" && col { found = ($(col+2) == "0" && $(col+3) == "None" && $(col+4) == "None") }
	END { exit !found }' "$tmp/perflog"
done_testing
