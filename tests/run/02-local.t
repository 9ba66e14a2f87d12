#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --local: the suites on this machine with mpiexec.mpich and numactl, no
# Slurm; results.json with the documented fields; a failed run is marked
# and never averaged in.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

# no Slurm at all: a PATH without sbatch/srun must still work
export SLURM_CONF=/nonexistent/slurm.conf

run numaplan run stream --local --repeat 2 --size 100000 -o "$tmp/s"
check "run stream --local exits 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR"
check "stream results.json has the documented fields" schema_ok "$tmp/s/results.json"
check "mode is local" [ "$(jq -r .mode "$tmp/s/results.json")" = local ]
check "every stream experiment passed twice" \
	[ "$(jq '[.experiments[] | select(.runs_ok == 2)] | length' "$tmp/s/results.json")" = \
	  "$(jq '.experiments | length' "$tmp/s/results.json")" ]
check "Triad statistics of stream.node" \
	jqt '.experiments[] | select(.name == "stream.node") | .stats.triad_mbps.median > 0' "$tmp/s/results.json"
check "the median of two runs is their mean" \
	jqt '.experiments[0].stats.triad_mbps | (.median - .mean | fabs) < 1e-6 * .mean' "$tmp/s/results.json"
# %sys comes from /proc/stat's counters before and after a run: a run
# within one clock tick has none to give (left out, never made up); one
# CI rehearsal saw that once
check "%sys recorded next to each run, as a share in 0..100 (left out when no tick passed)" \
	jqt 'all(.experiments[].runs[]; (has("sys_pct") | not) or ((.sys_pct|type) == "number" and .sys_pct >= 0 and .sys_pct <= 100))' "$tmp/s/results.json"
check "... and recorded for at least one run" \
	jqt '[.experiments[].runs[] | select(.sys_pct|type == "number")] | length >= 1' "$tmp/s/results.json"
check "each run records where the kernel ran" \
	jqt 'all(.experiments[].runs[]; (.placement|length) >= 1)' "$tmp/s/results.json"
check "each run records the kernel's build; software names it once" \
	jqt '.experiments[0].runs[0].build as $b |
	     all(.experiments[].runs[]; (.build.cflags|type) == "string" and (.values.build == null)) and
	     .software["numaplan-stream build"] == "\($b.compiler): \($b.cflags)"' "$tmp/s/results.json"
# one node: the nodes cannot be compared, and that is said, not skipped
check "outlier_check: not possible on one node, in every experiment" \
	jqt 'all(.experiments[]; .outlier_check == "not possible: fewer than 2 nodes to compare")' "$tmp/s/results.json"
run numaplan report "$tmp/s" --format md
check "... and the report's Results note names them" \
	grep -q 'Outlier check not possible (one node per experiment): stream\.' <<<"$OUT"
check "raw outputs and scripts are kept" sh -c "ls '$tmp/s/raw/'*.out >/dev/null && [ -x '$tmp/s/job.sh' ]"
check "matrix summary for 1 NUMA node" \
	jqt '.summary.stream_matrix.triad_mbps | length == 1' "$tmp/s/results.json"

# HPL: 2 ranks (the cores here), P x Q = 1 x 2; efficiency = Gflops / Rpeak
# with Rpeak = 2 cores x 2.0 GHz x 16 = 64 GFLOPS from the overrides.
run numaplan run hpl --local --repeat 2 --size 200 --nb 32 --clock 2.0 --flops-per-cycle 16 -o "$tmp/h"
check "run hpl --local exits 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR"
check "hpl results.json has the documented fields" schema_ok "$tmp/h/results.json"
check "Rpeak 64 GFLOPS from --clock and --flops-per-cycle" \
	jqt '.rpeak.gflops_per_node == 64 and .rpeak.source.ghz == "--clock"' "$tmp/h/results.json"
check "HPL passed both runs" jqt '.experiments[0].runs_ok == 2' "$tmp/h/results.json"
check "efficiency = Gflops / 64 in every run" \
	jqt 'all(.experiments[0].runs[]; (.values.efficiency - .values.gflops / 64 | fabs) < 1e-9)' "$tmp/h/results.json"
check "P x Q = 1 x 2" jqt '.experiments[0].params | .p == 1 and .q == 2' "$tmp/h/results.json"

# compare: the same command bound and unbound
run numaplan run compare --local --repeat 2 --policies none,compact --threads 1 -o "$tmp/c" -- sleep 0.2
check "run compare --local exits 0" [ "$RC" -eq 0 ]
check "compare results.json has the documented fields" schema_ok "$tmp/c/results.json"
check "wall time of sleep 0.2 is at least 0.2 s" \
	jqt 'all(.experiments[].runs[]; .values.wall_s >= 0.2)' "$tmp/c/results.json"
check "speed-up of 'none' against itself is 1" \
	jqt '.experiments[] | select(.name == "compare.none.t1") | .derived.speedup == 1' "$tmp/c/results.json"
check "compact run bound to one CPU" \
	jqt '.experiments[] | select(.name == "compare.compact.t1") | .placement.rank_cpus | length == 1' "$tmp/c/results.json"

# a command whose argument holds a newline: the job script's comments
# (the command line, the experiment's description) stay comments, and the
# command gets its argument whole
run numaplan run compare --local --repeat 1 --policies none --threads 1 -o "$tmp/nl" -- \
	sh -c $'echo one >"$1"\necho two >>"$1"\ntouch "$1.ran"' _ "$tmp/nl-out"
check "a command with a newline in it: exit 0, its two lines ran" \
	eval '[ "$RC" -eq 0 ] && [ "$(cat "$tmp/nl-out" 2>/dev/null | tr "\n" " ")" = "one two " ]'
check "... every line of the script before its steps is a comment, a setting or a function" \
	eval '! sed -n "2,/^np_hosts /p" "$tmp/nl/job.sh" | grep -q "^echo two"'

# a command that fails: marked failed, never averaged, exit 1
run numaplan run compare --local --repeat 2 --policies none --threads 1 -o "$tmp/f" -- sh -c 'exit 3'
check "a failing command makes run exit 1" [ "$RC" -eq 1 ]
check "its runs are failed with the exit status" \
	jqt 'all(.experiments[0].runs[]; .status == "failed" and (.error|test("exit 3")))' "$tmp/f/results.json"
check "failed runs give no statistics" jqt '.experiments[0].stats == {} and .failed_experiments == 1' "$tmp/f/results.json"
check "the summary names the failure" grep -q 'failed: rep 1' <<<"$OUT"

# himeno and wrf locally (a stand-in wrf.exe that writes a real sample)
run numaplan run himeno --local --repeat 2 --size XS --iterations 5 -o "$tmp/m"
check "run himeno --local exits 0" [ "$RC" -eq 0 ]
# one node: efficiency MFLOPS(N) / (N x MFLOPS(1)) is not defined for it
# (it would be 1 by construction), and the report says no scaling ran
# rather than drawing a table of one "1.000"
check "himeno on 1 node: no efficiency, a summary row naming the experiment" \
	jqt '(.experiments[0].derived | has("efficiency") | not) and .summary.himeno_scaling ==
	     [{experiment: "himeno.1n", node_type: "", nodes: 1, mflops: .experiments[0].stats.mflops.median,
	       efficiency: null, sys_pct: .experiments[0].stats.sys_pct.median}]' "$tmp/m/results.json"
run numaplan report "$tmp/m" --format md
check "... and the report says no multi-node Himeno ran, with no efficiency figure" \
	eval 'grep -q "No multi-node Himeno ran" <<<"$OUT" && ! grep -qE "^\| himeno\.1n \| 1 \|.*\| [0-9.]+ \|[^|]*\|$" <<<"$OUT"'
run numaplan report "$tmp/m" --format html
check "... and the HTML has no efficiency chart (nothing to draw)" \
	eval '[ "$RC" -eq 0 ] && ! grep -q "Himeno scaling efficiency" <<<"$OUT"'
# every figure of these local runs, derived again from raw/ by figures.py
# (no code shared with bench/), in results.json and in each report
for d in s h m; do
	numaplan report "$tmp/$d" --format md -o "$tmp/$d.md" 2>/dev/null
	run python3 "$NP_SRCDIR/tests/run/figures.py" "$tmp/$d" "$tmp/$d.md"
	check "figures.py: $(jq -r .suite "$tmp/$d/results.json") --local, every figure agrees with raw/ ($(grep -c '^ok' <<<"$OUT") checks)" \
		eval '[ "$RC" -eq 0 ] && [ "$(grep -c "^ok" <<<"$OUT")" -gt 2 ]'
	[ "$RC" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$OUT" | head -20)"
done
# Contention: a CPU kept busy beside stream.core's (a loop pinned to the
# last CPU, which is 100% busy whatever else the machine does) makes that
# run contended, in results.json, the report and figures.py alike; the
# experiments whose step holds every CPU have no other CPU to judge by.
last=$(($(nproc) - 1))
if [ "$last" -ge 1 ]; then
	taskset -c "$last" bash -c 'while :; do :; done' &
	busy=$!
	run numaplan run stream --local --repeat 1 --size 2000000 -o "$tmp/busy"
	kill "$busy"; wait "$busy" 2>/dev/null
	B=$tmp/busy/results.json
	core_cpus=$(jq -r '.experiments[] | select(.name == "stream.core") | .runs[0].step_cpus' "$B")
	if [ "$RC" -eq 0 ] && ! grep -qw "$last" <<<"${core_cpus//[,-]/ }"; then
		check "CPU $last busy beside stream.core (CPUs $core_cpus): its run is contended, its other CPUs over 50% busy" \
			jqt '.contended_above_pct == 50 and (.experiments[] | select(.name == "stream.core") |
			     .runs_contended == 1 and .runs[0].contended == true and .runs[0].others_busy_pct > 50 and
			     .runs[0].sys_scope == "step")' "$B"
		check "... stream.node (every CPU) has no other CPU to judge by" \
			jqt '.experiments[] | select(.name == "stream.node") | .runs[0] | (has("others_busy_pct") | not) and .step_cpus == "0-'"$last"'"' "$B"
		run numaplan report "$tmp/busy" --format md -o "$tmp/busy.md"
		check "... the report says so: status 'ok, 1/1 contended' and a Runs under contention row" \
			eval 'grep -qE "^\| stream\.core \|.*\| ok, 1/1 contended \|" "$tmp/busy.md" &&
			      grep -A4 "^## Runs under contention" "$tmp/busy.md" | grep -qE "^\| stream\.core \| 1 \| [^|]+ \| $core_cpus \| [0-9.]+ \|$"'
		run python3 "$NP_SRCDIR/tests/run/figures.py" "$tmp/busy" "$tmp/busy.md"
		check "... and figures.py, deriving it from the per-CPU samples, agrees" \
			eval '[ "$RC" -eq 0 ] && grep -q "stream.core: 1 run(s) contended" <<<"$OUT"'
		[ "$RC" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$OUT" | head -20)"
	else
		skip "CPU $last is stream.core's own, or the run failed ($RC): $ERR"
	fi
else
	skip "one CPU: no other CPU to keep busy"
fi
mkdir -p "$tmp/wrf"
cp "$DATA/wrf-fixed/namelist.input" "$tmp/wrf/"
# Each rank writes its own rsl.error.NNNN, as WRF does: two ranks copying
# to one file race (cp's O_EXCL create fails in the one that loses, seen
# once in CI)
cat >"$tmp/wrf/wrf.exe" <<EOF
#!/bin/sh
r=\${PMI_RANK:-\${OMPI_COMM_WORLD_RANK:-\${SLURM_PROCID:-0}}}
if [ "\$r" = 0 ]; then cp "$DATA/wrf-fixed/rsl.error.0000" rsl.error.0000
else : >"rsl.error.\$(printf %04d "\$r")"; fi
EOF
chmod +x "$tmp/wrf/wrf.exe"
run numaplan run wrf --local --repeat 2 --wrf-dir "$tmp/wrf" --ntasks 2 --nproc-x 2 --nproc-y 1 -o "$tmp/w"
check "run wrf --local exits 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR $OUT"
check "namelist gets nproc_x = 2" grep -q 'nproc_x *= 2,' "$tmp/wrf/namelist.input"
check "the original namelist is kept" sh -c "! grep -q nproc_x '$tmp/wrf/namelist.input.orig'"
check "WRF mean step (hand-derived 1.2778 s)" \
	jqt '.experiments[0].stats.mean_step_s.median | (. - 11.5/9 | fabs) < 1e-6' "$tmp/w/results.json"
done_testing
