#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The suites through sbatch on the vcluster (2 nodes, tiny sizes): each
# job completes and gives a results.json with the documented fields; a
# failing job is reported as such.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up (contrib/vcluster/vcluster up --nodes 2)"
	done_testing; exit
fi
slurm_run() { # name, options...
	local name=$1; shift
	run timeout 600 numaplan run -o "$tmp/$name" "$@"
	check "run $* through sbatch: exit 0" [ "$RC" -eq 0 ]
	[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
	check "$name: a job id was followed to COMPLETED" \
		jqt '.mode == "slurm" and (.jobs | length == 1) and .jobs[0].state == "COMPLETED"' "$tmp/$name/results.json"
	check "$name: results.json has the documented fields" schema_ok "$tmp/$name/results.json"
	check "$name: every experiment passed" jqt '.failed_experiments == 0 and .failed_runs == 0' "$tmp/$name/results.json"
}

slurm_run stream stream --nodes 2 --repeat 2 --size 100000
check "stream ran on both nodes: per-node medians for n1 and n2" \
	jqt '.experiments[] | select(.name == "stream.node") | .per_node | has("n1") and has("n2")' "$tmp/stream/results.json"
check "the job script bound with srun --cpu-bind masks" grep -q -- '--cpu-bind=mask_cpu:0x' "$tmp/stream/job.sh"
check "%sys sampled on each node" \
	jqt 'all(.experiments[].runs[]; (.sys_pct|type) == "number")' "$tmp/stream/results.json"

slurm_run himeno himeno --nodes 2 --repeat 2 --size XS --iterations 5
check "himeno: 1-node and 2-node runs" jqt '[.experiments[].nodes] == [1, 2]' "$tmp/himeno/results.json"
# efficiency = MFLOPS(2) / (2 x MFLOPS(1)), recomputed here from the medians
check "himeno: 2-node efficiency from the medians" \
	jqt '(.experiments[1].stats.mflops.median / (2 * .experiments[0].stats.mflops.median)) as $e |
	     (.experiments[1].derived.efficiency - $e | fabs) < 1e-9' "$tmp/himeno/results.json"

slurm_run hpl hpl --repeat 2 --size 200 --nb 32
check "hpl: residual check passed in each run" jqt 'all(.experiments[0].runs[]; .validated)' "$tmp/hpl/results.json"

# the same placement through the SPANK plugin: --numa-plan=compact
slurm_run plugin hpl --bind-via plugin --repeat 1 --size 200 --nb 32
check "plugin: srun --numa-plan in the job script" grep -q 'srun .*--numa-plan=compact ' "$tmp/plugin/job.sh"
check "plugin: the 2 ranks ran on CPUs 0 and 1 (compact)" \
	jqt '[.experiments[0].runs[0].placement[].cpus] == ["0", "1"]' "$tmp/plugin/results.json"

if command -v numaplan-osu >/dev/null; then
	slurm_run osu osu --nodes 2 --repeat 1 --size 64 --iterations 10
	check "osu: latency series from 0 bytes" \
		jqt '.experiments[] | select(.name == "osu.latency.numa0") | .series_stats[0].size == 0' "$tmp/osu/results.json"
	check "osu: bandwidth figures" \
		jqt '.experiments[] | select(.name == "osu.bw.numa0") | .stats.bw_max_mbps.median > 0' "$tmp/osu/results.json"
else
	skip "numaplan-osu not built"
fi

slurm_run compare compare --repeat 2 --threads 1 -- sleep 1
check "compare: sleep 1 takes at least a second" \
	jqt 'all(.experiments[].runs[]; .values.wall_s >= 1)' "$tmp/compare/results.json"
check "compare: speed-up table" jqt '.summary.compare | length == 3' "$tmp/compare/results.json"

# --inline: the steps of an allocation made by a batch script of one's own
run timeout 300 sbatch -N 1 --ntasks-per-node=2 --wait -o "$tmp/inline.out" \
	--wrap "PATH=$PATH numaplan run stream --inline --repeat 1 --size 100000 -o $tmp/inline"
check "--inline inside an sbatch allocation: the job succeeds" [ "$RC" -eq 0 ]
check "--inline results: mode inline, every run passed" \
	jqt '.mode == "inline" and (.jobs | length) == 0 and .failed_runs == 0' "$tmp/inline/results.json"

run timeout 300 numaplan run compare --repeat 1 --threads 1 --policies none -o "$tmp/fail" -- false
check "a failing job: exit 1" [ "$RC" -eq 1 ]
check "... reported as FAILED with the job's output" grep -q 'ended FAILED.*slurm-[0-9]*.out' <<<"$ERR"
check "... and its run marked failed" jqt '.jobs[0].state == "FAILED" and .failed_runs == 1' "$tmp/fail/results.json"

# Ctrl-C while following: the job it submitted is cancelled
numaplan run compare --repeat 1 --threads 1 --policies none -o "$tmp/cancel" -- sleep 120 >"$tmp/cancel.out" 2>&1 &
pid=$!
# the benchmark job itself running, and numaplan following it (its line
# of that job): the topology probe's job, followed first, prints RUNNING
# too, and an interrupt then cancels the probe instead
for i in $(seq 240); do
	jid=$(squeue -h -t R -n numaplan-compare -o '%i %o' 2>/dev/null | grep -F "$tmp/cancel/" | cut -d' ' -f1 | head -1)
	[ -n "$jid" ] && grep -q "^job $jid RUNNING" "$tmp/cancel.out" && break
	sleep 0.5
done
check "the benchmark job ran, followed by numaplan (job ${jid:-none})" \
	eval '[ -n "$jid" ] && grep -q "^job $jid RUNNING" "$tmp/cancel.out"'
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C: exit 130" [ "$rc" -eq 130 ]
[ "$rc" -eq 130 ] || sed 's/^/#   /' "$tmp/cancel.out" | tail -15
check "... cancels the job it submitted" grep -q 'job [0-9]* CANCELLED' "$tmp/cancel.out"
check "... and records it" jqt '.jobs[0].state == "CANCELLED" and .failed_runs == 1' "$tmp/cancel/results.json"
done_testing
