#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Placement checked in every run (issue 23): on the vcluster (this
# machine's PUs under one shared L3, whatever the host's caches) with the
# plugin enforcing spread, `run stream` refuses before submitting; with
# --if-enforced run, stream.l3 (2 threads planned on 2 CPUs, run as one
# masks step without -c, which the enforced plugin binds to a single CPU)
# is marked misplaced in results.json, the report and accept's verdict
# (unless the spec allows it); without enforcement every run is as
# planned.  The job's time estimate comes before its submission, and
# --time-budget caps STREAM's sizes.  Last, the other layout (an L3 per
# core): there stream.l3 is one thread, as planned under enforcement.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up (contrib/vcluster/vcluster up --nodes 2)"
	done_testing; exit
fi
VC=$NP_SRCDIR/contrib/vcluster/vcluster
trap '"$VC" plugstack "" >/dev/null 2>&1; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$tmp"' EXIT
# stream.l3 must have two threads whatever this host's caches are (one L3
# over both cores, or one per core): the nodes are this machine's PUs
# under one shared L3 (the plugin's topology=, which the probe reports)
bash "$NP_SRCDIR/tests/run/layout-topology.sh" "$tmp/shared-l3.xml" shared
run "$VC" up --nodes 2 --topology "$tmp/shared-l3.xml"
check "vcluster up on this machine's PUs with one shared L3" [ "$RC" -eq 0 ]
# the highest job id Slurm shows, and the numaplan-stream jobs above an id
# (a count would move as older jobs age out of the controller)
maxid() { scontrol show jobs -o 2>/dev/null | sed -n 's/^JobId=\([0-9]*\) .*/\1/p' | sort -n | tail -1; }
njobs_after() {
	scontrol show jobs -o 2>/dev/null | grep 'JobName=numaplan-stream' |
		sed -n 's/^JobId=\([0-9]*\) .*/\1/p' | awk -v b="${1:-0}" '$1 > b' | wc -l
}
ST=(stream --nodes 1 --repeat 1 --stream-size 100000)

run "$VC" plugstack 'default=spread enforce'
check "plugstack: spread enforced" [ "$RC" -eq 0 ]

before=$(maxid)
run timeout 300 numaplan run -o "$tmp/refused" "${ST[@]}"
check "enforced policy unlike the plan: exit 2" [ "$RC" -eq 2 ]
check "the message names the enforced policy and the way out" \
	grep -q "enforces the placement policy 'spread'.*Nothing was submitted.*--if-enforced run" <<<"$ERR"
check "stream.l3 is named among the experiments planned otherwise" grep -q 'stream.l3 (l3)' <<<"$ERR"
check "no benchmark job was submitted, no job script written" \
	eval '[ "$(njobs_after "$before")" -eq 0 ] && [ ! -e "$tmp/refused/job.sh" ]'

run timeout 600 numaplan run -o "$tmp/enf" --if-enforced run "${ST[@]}"
check "--if-enforced run: the job ran (exit 0: every figure valid)" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
R=$tmp/enf/results.json
check "results.json has the documented fields" schema_ok "$R"
# stream.l3 was planned with 2 threads on 2 CPUs; what the kernel says of
# its threads: one CPU for both, the enforced plugin's one CPU per task
check "stream.l3: the threads reported one CPU between them" \
	jqt '.experiments[] | select(.name == "stream.l3") | .nodes == 1 and .threads == 2 and
	     (.placement.rank_cpus[0] | test("^[0-9]+-[0-9]+$|^[0-9]+,[0-9]+$")) and
	     ([.runs[0].placement[].cpus] | unique | length == 1 and (.[0] | test("^[0-9]+$")))' "$R"
check "stream.l3: run and experiment marked misplaced, with the difference" \
	jqt '.experiments[] | select(.name == "stream.l3") | .status == "misplaced" and .runs_misplaced == 1 and
	     .placement_check == "misplaced" and .runs[0].status == "misplaced" and
	     (.runs[0].placement_differences[0] | test("threads share CPUs"))' "$R"
check "results.json counts the misplaced experiments" \
	jqt '.misplaced_experiments >= 1 and .misplaced_runs >= 1 and .binding.site_enforced == "spread"' "$R"
check "run's summary warns" grep -q 'MISPLACED: rep 1 node n[12]: .*threads share CPUs' <<<"$OUT"
run numaplan report "$tmp/enf" --format md
check "report: a MISPLACED table with stream.l3" \
	grep -q 'MISPLACED runs: placement differs from the plan' <<<"$OUT" && grep -q 'stream.l3.*threads share CPUs' <<<"$OUT"
# (", N/M contended" follows when the machine's other CPUs were busy)
check "report: the results table's status says misplaced" grep -qE '\| stream\.l3 .*\| misplaced(, [0-9]+/[0-9]+ contended)? \|' <<<"$OUT"

printf 'check stream.* triad_mbps > 0\n' >"$tmp/any.spec"
run numaplan accept --spec "$tmp/any.spec" --results "$tmp/enf"
check "accept: NOT ACCEPTED on a misplaced run" [ "$RC" -ne 0 ] && grep -q 'NOT ACCEPTED' <<<"$OUT"
check "accept: the placement row fails for stream.l3" \
	grep -q '^FAIL  placement as planned .*stream.l3 .*MISPLACED' <<<"$OUT"
printf 'check stream.* triad_mbps > 0\nallow misplaced stream.*\n' >"$tmp/allow.spec"
run numaplan accept --spec "$tmp/allow.spec" --results "$tmp/enf"
check "accept: allow misplaced stream.* accepts it, saying so" \
	[ "$RC" -eq 0 ] && grep -q 'PASS  placement as planned .*allowed by spec line 2' <<<"$OUT"

# planned with the enforced policy: the steps bind through the plugin
# (-c 1 --numa-plan=spread), which places the 2 ranks as the plan did
run timeout 600 numaplan run -o "$tmp/use" hpl --policy spread --repeat 1 --size 200 --nb 32
check "hpl planned with spread under enforced spread: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
check "the site's policy is used: srun -c 1 --numa-plan=spread, no masks" \
	grep -q 'srun .*-c 1 --numa-plan=spread ' "$tmp/use/job.sh" && ! grep -q 'mask_cpu' "$tmp/use/job.sh"
check "hpl ran as planned: ok, placement checked" \
	jqt '.misplaced_experiments == 0 and all(.experiments[]; .status == "ok" and .placement_check == "as planned")' \
	"$tmp/use/results.json"
check "run said it uses the site's policy" grep -q "site policy: 'spread' enforced on every step" <<<"$OUT"

run "$VC" plugstack ''
check "plugstack: no enforcement" [ "$RC" -eq 0 ]
run timeout 600 numaplan run -o "$tmp/free" "${ST[@]}"
check "no enforcement: exit 0" [ "$RC" -eq 0 ]
R=$tmp/free/results.json
check "every experiment as planned, none misplaced" \
	jqt '.misplaced_experiments == 0 and all(.experiments[]; .status == "ok" and .placement_check == "as planned")' "$R"
check "stream.l3's two threads on two different CPUs of its plan" \
	jqt '.experiments[] | select(.name == "stream.l3") | [.runs[0].placement[].cpus] | unique | length == 2' "$R"
run numaplan accept --spec "$tmp/any.spec" --results "$tmp/free"
check "accept: ACCEPTED, no placement row" [ "$RC" -eq 0 ] && ! grep -q 'placement as planned' <<<"$OUT"
# the estimate is said before the job is submitted (its first status line)
run timeout 600 numaplan run -o "$tmp/free2" "${ST[@]}"
est=$(grep -n '^  estimate: about [0-9hms]* for the whole job, 6 steps' <<<"$OUT" | head -1 | cut -d: -f1)
job=$(grep -n '^job [0-9]' <<<"$OUT" | head -1 | cut -d: -f1)
check "the estimate line comes before the job's first line" [ -n "$est" ] && [ -n "$job" ] && [ "$est" -lt "$job" ]

# --time-budget: 6 steps in 20 s leave each kernel (20 - 5)/6 - 1 = 1.5 s;
# stream.core's one thread at 2 GB/s moving 992 bytes per element (10
# passes of 10 arrays, the store trial's 6 Triads of 3, 6 to set up and
# check) gets at most 1.5 * 2e9 / 992 = 3024193 elements
run timeout 300 numaplan run -o "$tmp/budget" --dry-run stream --nodes 1 --repeat 1 --time-budget 20s
check "--time-budget 20s: dry run exit 0" [ "$RC" -eq 0 ]
n=$(jq -r '.[] | select(.name == "stream.core") | .params.size // empty' "$tmp/budget/experiments.json")
check "stream.core capped by the time budget (--size $n <= 3024193)" \
	[ -n "$n" ] && [ "$n" -le 3024193 ] && grep -q -- "--threads 1 --size $n" "$tmp/budget/job.sh"
check "the cap is recorded" jqt '.[] | select(.name == "stream.core") | .params.size_capped_by == "time budget"' \
	"$tmp/budget/experiments.json"
run timeout 300 numaplan run -o "$tmp/budget2" --dry-run stream --nodes 1 --repeat 1 --time-budget 3s
check "--time-budget shorter than the launches: exit 2, nothing written" \
	[ "$RC" -eq 2 ] && grep -q 'too short' <<<"$ERR" && [ ! -e "$tmp/budget2/job.sh" ]
run numaplan run stream --dry-run --time-budget 0
check "--time-budget 0: a clear error" [ "$RC" -eq 2 ] && grep -q "bad value '0' for --time-budget" <<<"$ERR"

# --- the other layout: an L3 per core ---------------------------------------
# an L3 holds one core, so stream.l3 is one thread on that core's CPU, which
# the enforced plugin's one CPU per task agrees with; NUMA node 0 holds both
# cores, so stream.numa0's two threads are what the plugin puts on one CPU
bash "$NP_SRCDIR/tests/run/layout-topology.sh" "$tmp/per-core-l3.xml" per-core
"$VC" up --nodes 2 --topology "$tmp/per-core-l3.xml" >/dev/null 2>&1
run "$VC" plugstack 'default=spread enforce'
check "an L3 per core: the vcluster on it, spread enforced" [ "$RC" -eq 0 ]
run timeout 600 numaplan run -o "$tmp/pc" --if-enforced run "${ST[@]}"
check "an L3 per core, --if-enforced run: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
pu0=$(hwloc-calc --physical-output --intersect pu core:0 | cut -d, -f1)
check "... stream.l3: one thread on core 0's PU $pu0, as planned" \
	jqt --arg p "$pu0" '.experiments[] | select(.name == "stream.l3") | .threads == 1 and
	     .placement.rank_cpus == [$p] and .status == "ok" and .placement_check == "as planned"' "$tmp/pc/results.json"
check "... stream.numa0: two threads on one CPU, misplaced" \
	jqt '.experiments[] | select(.name == "stream.numa0") | .threads == 2 and .status == "misplaced" and
	     ([.runs[0].placement[].cpus] | unique | length == 1)' "$tmp/pc/results.json"

done_testing
