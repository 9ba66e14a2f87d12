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

# Four repeats on one node, by hand: Triad 100000 102000 98000 70000 (the
# median of the four is 99000; 70000 is 29.3% below it, the others within
# 3%), each repeat's step on CPU 0 with CPU 1 beside it.  CPU 0: user +60,
# system +30, irq +5, softirq +5 of 100 jiffies, so %sys 40 (the machine's
# line would give 40 of 200 = 20); CPU 1: busy 80 of 100 in repeats 1 and 2
# (contended), 20 in 3 and 4.
F=$tmp/far
run numaplan run stream --dry-run --nodes 1 --repeat 4 -o "$F"
check "a 1-node dry run with 4 repeats" [ "$RC" -eq 0 ]
mkdir -p "$F/raw"
r=0
for v in 100000 102000 98000 70000; do
	r=$((r + 1))
	printf '{"copy_mbps":1,"scale_mbps":1,"add_mbps":1,"triad_mbps":%s,"validated":true,"threads":1,"size":1000}\n' \
		"$v" >"$F/raw/stream.node.r$r.n1.out"
	echo "rc=0 start=100.0 end=101.5" >"$F/raw/stream.node.r$r.rc"
	busy=20; [ $r -le 2 ] && busy=80
	{ echo "before n1 allowed 0"
	  echo "before n1 cpu  1000 0 1000 2000 0 0 0 0 0 0"
	  echo "before n1 cpu0 500 0 500 1000 0 0 0 0 0 0"
	  echo "before n1 cpu1 500 0 500 1000 0 0 0 0 0 0"
	  echo "after n1 allowed 0"
	  echo "after n1 cpu  $((1060 + busy)) 0 1030 $((2000 + 100 - busy)) 0 5 5 0 0 0"
	  echo "after n1 cpu0 560 0 530 1000 0 5 5 0 0 0"
	  echo "after n1 cpu1 $((500 + busy)) 0 500 $((1000 + 100 - busy)) 0 0 0 0 0 0"
	} >"$F/raw/stream.node.r$r.stat"
done
run numaplan run --collect "$F"
FR=$F/results.json
fnode() { jq -c "$1" <(jq '.experiments[] | select(.name == "stream.node")' "$FR"); }
check "the fourth repeat is far from its siblings: 29.3% below their median 99000, the others not" \
	[ "$(fnode '[.runs_far, ([.runs[] | select(.far_from_siblings == true) | .rep]), (.runs[3].siblings_median),
	            (.runs[3].siblings_dev_pct * 10 | round)]')" = '[1,[4],99000,-293]' ]
check "... the spread of the repeats: (102000 - 70000) / 99000 = 32.3%" \
	[ "$(fnode '[(.repeat_spread_pct * 10 | round), .siblings_check]')" = '[323,"1 node(s) with 3+ runs compared"]' ]
check "%sys of the step's CPU 0: 40 (not the machine's 20); repeats 1 and 2 contended (CPU 1 80% busy), 3 and 4 not" \
	[ "$(fnode '[([.runs[].sys_pct] | unique), .runs[0].sys_scope, [.runs[].contended], [.runs[].others_busy_pct], .runs_contended]')" = \
	  '[[40],"step",[true,true,false,false],[80,80,20,20],2]' ]
check "the 1-node, 2-repeat run above could not compare siblings, and says so" \
	[ "$(node -r '.siblings_check')" = "not possible: fewer than 3 runs on any node" ]
run numaplan report "$F" --format md -o "$F.md"
check "the report: status 'ok, 2/4 contended, 1/4 far from siblings', and a row for each of the three runs" \
	eval 'grep -qE "^\| stream\.node \|.*\| ok, 2/4 contended, 1/4 far from siblings \|" "$F.md" &&
	      grep -qE "^\| stream\.node \| 4 \| n1 \| 70000 \| 99000 \| -29\.3 \|$" "$F.md" &&
	      grep -qE "^\| stream\.node \| 1 \| n1 \| 0 \| 80\.0 \|$" "$F.md" && grep -qE "^\| stream\.node \| 2 \| n1 \| 0 \| 80\.0 \|$" "$F.md"'
run python3 "$NP_SRCDIR/tests/run/figures.py" "$F" "$F.md"
check "figures.py agrees with all of it" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$OUT" | head -20)"

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
