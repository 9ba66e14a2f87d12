#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan steps on records written here by hand, whose sums are known:
# the filters, the counts, the histogram's cumulative buckets, a line
# that is no record, label escaping, the atomic --output, bad options.
source "$(dirname "$0")/../tap.sh"

d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
# rec TIME JOB STEP NODE USER PARTITION POLICY OUTCOME REFUSED VFAILED VUNKNOWN SECONDS [REASON...]
rec() {
	local t=$1 job=$2 step=$3 node=$4 user=$5 part=$6 pol=$7 out=$8 ref=$9 vf=${10} vu=${11} sec=${12}
	shift 12
	local falls=() r
	for r in "$@"; do falls+=("{\"reason\":\"$r\",\"text\":\"x\"}"); done
	printf '{"v":1,"time":"%s","job":%s,"step":%s,"uid":1000,"node":"%s","user":"%s","partition":"%s","asked":"","requested":"%s","policy":"%s","outcome":"%s","fallbacks":[%s],"refused":%s,"error":null,"verify":{"ok":1,"failed":%s,"unknown":%s},"tasks":[],"plugin_seconds":%s}\n' \
		"$t" "$job" "$step" "$node" "$user" "$part" "$pol" "$pol" "$out" "$(IFS=,; echo "${falls[*]}")" "$ref" "$vf" "$vu" "$sec"
}
# Day 1 (2026-12-01): 3 records; day 2 (2026-12-02): 4 and a torn line;
# the rotated .1 of day 2: 1 more.
{
	rec 2026-12-01T08:00:00Z 10 0 n1 alice cpu compact planned false 0 0 0.0005
	rec 2026-12-01T08:00:00Z 10 0 n2 alice cpu compact planned false 0 0 0.002
	rec 2026-12-01T09:00:00Z 11 0 n1 bob gpu spread fallback false 0 0 0.03 port-down
} >"$d/steps-2026-12-01.jsonl"
{
	rec 2026-12-02T10:00:00Z 12 1 n3 bob gpu spread fallback false 2 0 0.3 no-gpu no-hca
	rec 2026-12-02T11:00:00Z 13 0 n1 alice gpu none refused true 0 0 0.0001
	rec 2026-12-02T12:00:00Z 14 0 n1 carol cpu compact planned false 0 1 7
	echo '{"v":1,"time":"2026-12-02T12:00:01Z","job":15,'
	rec 2026-12-02T13:00:00Z 16 0 n1 alice cpu none respected false 0 0 0.004
} >"$d/steps-2026-12-02.jsonl"
rec 2026-12-02T09:00:00Z 9 3 n1 alice cpu compact planned false 0 0 0.01 >"$d/steps-2026-12-02.jsonl.1"
echo '{"not":"a record file"}' >"$d/other.json"

run numaplan steps --dir "$d" --json
check "--json: exit 0" [ "$RC" -eq 0 ]
check_jq "8 records (3 + 4 + 1 rotated) of 7 steps (job 10 on two nodes), from 3 files" \
	'.records == 8 and .steps == 7 and .files == 3'
check_jq "the torn line counted, not summed" '.bad_lines == 1'
check_jq "outcomes: cpu/compact/planned 4, gpu/spread/fallback 2, gpu/none/refused 1, cpu/none/respected 1" \
	'[.outcomes[] | "\(.partition)/\(.policy)/\(.outcome)=\(.records)"] | sort ==
	 ["cpu/compact/planned=4", "cpu/none/respected=1", "gpu/none/refused=1", "gpu/spread/fallback=2"]'
check_jq "fallbacks: port-down, no-gpu, no-hca once each; n3 has 2, n1 1" \
	'([.fallbacks[] | "\(.reason)=\(.count)"] | sort == ["no-gpu=1", "no-hca=1", "port-down=1"]) and
	 ([.fallback_nodes[] | "\(.node)=\(.count)"] | sort == ["n1=1", "n3=2"])'
check_jq "refusals 1, verify failures 2 (one record's tasks), unknown 1" \
	'.refusals == 1 and .verify_failures == 2 and .verify_unknown == 1'
# seconds: 0.0005 0.002 0.03 0.3 0.0001 7 0.004 0.01; buckets le 0.001: 2,
# 0.0025: 3, 0.005: 4, 0.01: 5, 0.025: 5, 0.05: 6, 0.1: 6, 0.25: 6, 1: 7, 5: 7
check_jq "plugin_seconds: cumulative buckets 2 3 4 5 5 6 6 6 7 7, count 8, sum 7.3466" \
	'([.plugin_seconds.buckets[].count] == [2,3,4,5,5,6,6,6,7,7]) and .plugin_seconds.count == 8 and
	 ((.plugin_seconds.sum - 7.3466) | fabs) < 1e-9'
check_jq "slowest first: job 14 (7 s), then job 12 (0.3 s)" \
	'.slowest[0].job == 14 and .slowest[0].seconds == 7 and .slowest[1].job == 12 and (.slowest | length) == 5'
check_jq "first and last: the records' own times" '.first == "2026-12-01 08:00" and .last == "2026-12-02 13:00"'

run numaplan steps --dir "$d" --json --partition gpu
check_jq "--partition gpu: 3 records, 1 refusal" '.records == 3 and .refusals == 1'
run numaplan steps --dir "$d" --json --user alice
check_jq "--user alice: 5 records" '.records == 5'
run numaplan steps --dir "$d" --json --since 2026-12-02
check_jq "--since 2026-12-02: day 2 and the rotated file, 5 records; day 1 not opened" '.records == 5 and .files == 2'
run numaplan steps --dir "$d" --json --since 2026-12-02T11:30:00Z
check_jq "--since 2026-12-02T11:30:00Z: 2 records" '.records == 2'
run numaplan steps --dir "$d" --json --since 1h
check_jq "--since 1h (these records are older): none" '.records == 0'

run numaplan steps --dir "$d" --prometheus
check "--prometheus: exit 0" [ "$RC" -eq 0 ]
check "numaplan_steps_total{partition=\"cpu\",policy=\"compact\",outcome=\"planned\"} 4" \
	grep -qx 'numaplan_steps_total{partition="cpu",policy="compact",outcome="planned"} 4' <<<"$OUT"
check "numaplan_fallbacks_total{reason=\"port-down\"} 1, refusals 1, verify failures 2" \
	eval 'grep -qx "numaplan_fallbacks_total{reason=\"port-down\"} 1" <<<"$OUT" &&
	      grep -qx "numaplan_refusals_total 1" <<<"$OUT" && grep -qx "numaplan_verify_failures_total 2" <<<"$OUT"'
check "the histogram: le=\"0.05\" 6, le=\"+Inf\" 8, count 8" \
	eval 'grep -qx "numaplan_plugin_seconds_bucket{le=\"0.05\"} 6" <<<"$OUT" &&
	      grep -qx "numaplan_plugin_seconds_bucket{le=\"+Inf\"} 8" <<<"$OUT" &&
	      grep -qx "numaplan_plugin_seconds_count 8" <<<"$OUT"'
if command -v promtool >/dev/null 2>&1; then
	check "promtool check metrics accepts it" eval 'promtool check metrics <<<"$OUT" >/dev/null 2>&1'
else
	skip "promtool not installed"
fi

# a label value with a quote, a backslash and a line break: escaped as
# the exposition format says, on one line
e=$d/escape; mkdir "$e"
rec 2026-12-03T00:00:00Z 1 0 n1 u 'we\"ird\\p\nart' compact planned false 0 0 0.001 >"$e/steps-2026-12-03.jsonl"
run numaplan steps --dir "$e" --prometheus
check "a label with \", \\ and a line break, escaped" \
	grep -qxF 'numaplan_steps_total{partition="we\"ird\\p\nart",policy="compact",outcome="planned"} 1' <<<"$OUT"

run numaplan steps --dir "$d"
check "text: the counts and the reasons" \
	eval 'grep -q "^Step records in $d: 8 (one per step and node) of 7 step(s)" <<<"$OUT" &&
	      grep -q "1 line(s) that are no record left out" <<<"$OUT" &&
	      grep -qE "^  port-down +1$" <<<"$OUT" && grep -q "^Refused: 1 record(s).  Bindings that did not verify: 2 task(s)" <<<"$OUT"'

out=$d/out/numaplan.prom; mkdir "$d/out"
echo old >"$out"
run numaplan steps --dir "$d" --prometheus --output "$out"
check "--output: replaced whole, nothing else left in its directory" \
	eval '[ "$RC" -eq 0 ] && grep -q "^numaplan_steps_total" "$out" && [ "$(ls "$d/out")" = numaplan.prom ]'
run numaplan steps --dir "$d" --prometheus --output "$d/nosuchdir/x.prom"
check "--output into a missing directory: exit 1, says why" eval '[ "$RC" -eq 1 ] && grep -q "x.prom" <<<"$ERR"'

# numaplan report --steps: the same records as a report
run numaplan report --steps "$d"
check "report --steps (md): exit 0, the span and counts" \
	eval '[ "$RC" -eq 0 ] && grep -q "^$d: 8 record(s) (one per step and node) of 7 step(s), 2026-12-01 to 2026-12-02; 1 line(s) that are no record left out" <<<"$OUT"'
check "... outcomes per day: 12-01 planned 2 fallback 1 (3); 12-02 planned 2, fallback, refused, respected 1 each (5)" \
	eval 'grep -qx "| 2026-12-01 | 2 | 1 | 0 | 0 | 0 | 0 | 3 |" <<<"$OUT" && grep -qx "| 2026-12-02 | 2 | 1 | 1 | 1 | 0 | 0 | 5 |" <<<"$OUT"'
check "... top reasons: three, a third of the fallbacks each" \
	eval '[ "$(grep -cE "^\| (no-gpu|no-hca|port-down) \| 1 \| 33\.3% \|$" <<<"$OUT")" -eq 3 ]'
check "... nodes with the most fallbacks: n3 (2) before n1 (1)" \
	eval 'grep -A6 "^## Nodes with the most fallbacks" <<<"$OUT" | grep -E "^\| n[0-9]" | head -2 | tr -d " " | paste -sd" " | grep -qx "|n3|2| |n1|1|"'
run numaplan report --steps "$d" --format html
check "report --steps --format html: a page with the outcomes plotted per day and the same tables" \
	eval '[ "$RC" -eq 0 ] && grep -q "<svg" <<<"$OUT" && grep -q "<h2>Top fallback reasons</h2>" <<<"$OUT" && grep -q "</html>" <<<"$OUT"'
run numaplan report --steps "$d" --since 2026-12-02
check "report --steps --since 2026-12-02: day 2 alone" \
	eval 'grep -q "| 2026-12-02 |" <<<"$OUT" && ! grep -q "| 2026-12-01 |" <<<"$OUT"'
run numaplan report --steps "$d" --format json
check "report --steps --format json: exit 2 (numaplan steps --json has them)" [ "$RC" -eq 2 ]
run numaplan report --steps "$d/missing" -o "$d/r.md"
check "report --steps on a missing directory: exit 2, no output file made" eval '[ "$RC" -eq 2 ] && [ ! -e "$d/r.md" ]'

run numaplan steps --dir "$d/missing"
check "a missing directory: exit 1, named" eval '[ "$RC" -eq 1 ] && grep -q "$d/missing" <<<"$ERR"'
run numaplan steps --dir "$d" --since yesterday
check "--since yesterday: exit 2, says what is valid" eval '[ "$RC" -eq 2 ] && grep -q "24h" <<<"$ERR"'
run numaplan steps --dir "$d" --json --prometheus
check "--json with --prometheus: exit 2" [ "$RC" -eq 2 ]
run numaplan steps --dir "$d" extra
check "an operand: exit 2" [ "$RC" -eq 2 ]
done_testing
