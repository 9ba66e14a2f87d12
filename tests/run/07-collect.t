#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --collect: results.json from the raw outputs of a directory (here a dry
# run's, with outputs written by hand), which checks the statistics, the
# per-node comparison with its outlier message, %sys from /proc/stat
# samples, and that a run failing validation is never averaged in.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

D=$tmp/s
run numaplan run stream --dry-run --nodes 3 --repeat 2 -o "$D"
check "a 3-node dry run" [ "$RC" -eq 0 ]
out() { # rep node triad validated
	printf '# placement: host %s\n{"copy_mbps":1,"scale_mbps":1,"add_mbps":1,"triad_mbps":%s,"validated":%s,"threads":2,"size":1000}\n' \
		"$2" "$3" "$4" >"$D/raw/stream.node.r$1.$2.out"
}
mkdir -p "$D/raw"
out 1 n1 100000 true; out 1 n2 110000 true; out 1 n3 80000 true
out 2 n1 104000 true; out 2 n2 90000 true;  out 2 n3 10 false
for r in 1 2; do
	echo "rc=0 start=100.0 end=101.5" >"$D/raw/stream.node.r$r.rc"
	for n in n1 n2 n3; do
		# user +100, system +20, idle +80 jiffies: 50% user, 10% sys, 40% idle
		echo "before $n cpu  100 0 50 850 0 0 0 0 0 0" >>"$D/raw/stream.node.r$r.stat"
		echo "after $n cpu  200 0 70 930 0 0 0 0 0 0" >>"$D/raw/stream.node.r$r.stat"
	done
done

run numaplan run --collect "$D"
check "collect exits 3 (incomplete): the other experiments never ran" [ "$RC" -eq 3 ]
R=$D/results.json
check "results.json has the documented fields" schema_ok "$R"
node() { # [-c|-r] filter, over the stream.node experiment
	local f=
	case $1 in -c|-r) f=$1; shift;; esac
	jq $f "$1" <(jq '.experiments[] | select(.name == "stream.node")' "$R")
}
check "6 runs, 5 passed: partial" [ "$(node -c '[.runs_total, .runs_ok, .status]')" = '[6,5,"partial"]' ]
check "the run failing validation is marked, with the reason" \
	[ "$(node -r '.runs[] | select(.node == "n3" and .rep == 2) | .status + ": " + .error')" = "failed: STREAM validation failed" ]
# over the 5 good runs: 80000 90000 100000 104000 110000
check "median 100000 of the passing runs" [ "$(node '.stats.triad_mbps.median')" = 100000 ]
check "mean 96800 (the failed 10 MB/s is not in it)" [ "$(node '.stats.triad_mbps.mean')" = 96800 ]
check "min 80000, max 110000" [ "$(node -c '[.stats.triad_mbps.min, .stats.triad_mbps.max]')" = '[80000,110000]' ]
check "per-node medians 102000, 100000, 80000" \
	[ "$(node -c '[.per_node.n1, .per_node.n2, .per_node.n3]')" = '[102000,100000,80000]' ]
check "n3 flagged: 20% below the median of the nodes" \
	[ "$(jq -r '.outliers[0].message' "$R")" = "node n3 Triad 20% below the median (stream.node)" ]
check "only n3 is flagged" [ "$(jq '.outliers | length' "$R")" -eq 1 ]
check "%sys of a run from its samples: 10" [ "$(node '.runs[0].sys_pct')" = 10 ]
check "%sys median of the experiment: 10" [ "$(node '.stats.sys_pct.median')" = 10 ]
check "... the machine's line, said as such: samples of an earlier version have no per-CPU lines, nor contention" \
	[ "$(node -c '[.runs[0].sys_scope, .runs[0].contended, .runs_contended]')" = '["machine",null,0]' ]
check "never-run experiments are failed, saying why" \
	[ "$(jq -r '.experiments[] | select(.name == "stream.core") | .runs[0].error' "$R")" = \
	  "did not run (job ended or was cancelled before this step)" ]
check "the summary prints the outlier" grep -q 'outlier: node n3 Triad 20% below the median' <<<"$OUT"

run numaplan run --collect "$D" --outlier 25
check "with --outlier 25 nothing is flagged" [ "$(jq '.outliers | length' "$R")" -eq 0 ]
run numaplan report "$D" --format md
check "the report lists failed runs and their reasons" grep -q '^| stream.node | 2 | n3 | STREAM validation failed |' <<<"$OUT"

run numaplan run --collect "$tmp/nothing"
check "collect on a non-run directory: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'not a numaplan run directory'" "$ERR"
run numaplan run stream --collect "$D"
check "collect takes no suite: exit 2" [ "$RC" -eq 2 ]

# run.json records --bind-via; collecting again reads it back, and the
# results say the binding that run asked for (the plugin's), not the
# default masks
run numaplan run stream --dry-run --bind-via plugin --topology "$EPYC" --repeat 1 -q -o "$tmp/bv"
check "a dry run with --bind-via plugin: exit 0" [ "$RC" -eq 0 ]
check "run.json records bind_via plugin" jqt '.bind_via == "plugin"' "$tmp/bv/run.json"
run numaplan run --collect "$tmp/bv"
check "collected again: the binding asked was the plugin's" \
	jqt '.binding.requested == "plugin" and .binding.whole_nodes_requested == false' "$tmp/bv/results.json"
done_testing
