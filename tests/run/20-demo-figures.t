#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What the demo's report means (contrib/demo, step 3), on the vcluster as
# the demo sets it up: 2 nodes with a CPU each, `numaplan run all` with
# Slurm binding, smaller sizes.  The report must hold every part of the
# seed studies - HPL against Rpeak, OSU between the two nodes, Himeno on 1
# and on 2 nodes with its efficiency, a STREAM matrix with values - and
# every figure in it and in results.json must agree with figures.py, which
# derives them again from the raw outputs and shares no code with bench/.
# A copy with one figure changed must fail that check.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up"
	done_testing; exit
fi
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit; }
VC=$NP_SRCDIR/contrib/vcluster/vcluster
FIG=$NP_SRCDIR/tests/run/figures.py
restore() { "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$tmp"; }
trap restore EXIT

run "$VC" up --nodes 2 --disjoint-cpus
check "vcluster up --nodes 2 --disjoint-cpus (the demo's cluster)" [ "$RC" -eq 0 ]
eval "$("$VC" env)"
first=$(hwloc-calc --physical-output --intersect pu core:0 | cut -d, -f1)
D=$tmp/demo
run timeout 900 numaplan run all --nodes 2 --repeat 2 --cpuset "$first" --bind-via slurm --stream-size 200000 \
	--hpl-n 600 --nb 64 --himeno-size XS --himeno-seconds 1 --osu-max 64K -o "$D"
check "numaplan run all on the demo's 2 nodes: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
R=$D/results.json
check "the two nodes are one node type (one machine, CPUs of their own)" \
	jqt '.topology.node_types | length == 1' "$R"
check "nothing left out, nothing failed" jqt '.left_out == [] and .failed_experiments == 0' "$R"
run numaplan report "$D" --format md
MD=$tmp/report.md
printf '%s\n' "$OUT" >"$MD"
check "the report has HPL against Rpeak" grep -qE '^\| hpl\.2n \| 600 \| 64 \| 1 x 2 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$' "$MD"
check "... OSU latency and bandwidth between the two nodes" \
	eval 'grep -q "^## OSU latency" "$MD" && grep -q "^## OSU bandwidth" "$MD" &&
	      jq -e "[.experiments[] | select(.kernel == \"osu\" and .nodes == 2 and .status == \"ok\")] | length > 0" "$R" >/dev/null'
check "... Himeno on 1 and 2 nodes with the 2-node efficiency" \
	eval 'grep -qE "^\| himeno\.1n \| 1 \| [0-9]+ \| \(the reference\) \|" "$MD" &&
	      grep -qE "^\| himeno\.2n \| 2 \| [0-9]+ \| [0-9]+\.[0-9]+ \|" "$MD"'
check "... and a STREAM matrix with values" grep -qE '^\| NUMA 0 \| [0-9]+ \(100%\) \|' "$MD"
check "... which names the two nodes as one machine" grep -q 'NOTE one machine' "$MD"
# Slurm bound (--bind-via slurm): nothing compared the kernels' CPUs with
# the plan, and the row says so, with the CPUs the kernels themselves
# printed (their JSON line in raw/)
want=$(jq -r '.placement[] | "\(.host):\(.cpus)"' "$D/raw/himeno.2n.r1.n1.out" | paste -sd, | sed 's/,/, /g')
check "... whose himeno.2n row says its placement is unchecked, with the CPUs the kernels reported ($want)" \
	grep -qE "^\| himeno\.2n \| [^|]*; UNCHECKED, the kernels reported $want \| 2 \|" "$MD"

# the outlier check: STREAM on each node compares the 2 nodes, an MPI run
# across both has one result for all of them
check "outlier_check: stream.node compared its 2 nodes, hpl.2n has one result for both" \
	jqt '(.experiments[] | select(.name == "stream.node") | .outlier_check) == "2 nodes compared" and
	     (.experiments[] | select(.name == "hpl.2n") | .outlier_check) == "not per node: one result for all its nodes"' "$R"

# each node has one CPU: every STREAM domain with one thread is that CPU,
# one measurement, which results.json and the report say
check "stream.l3, numa0, socket0 and node ran where stream.core ran (one CPU per node): said so" \
	eval 'jq -e "[.experiments[] | select(.name | IN(\"stream.l3\", \"stream.numa0\", \"stream.socket0\", \"stream.node\")) |
	             select(.threads == 1 and .same_cpus_as == \"stream.core\")] | length == 4" "$R" >/dev/null &&
	      grep -qE "One measurement under several names \(their kernels ran on the same CPUs\): stream\.l3, stream\.numa0, stream\.socket0, stream\.node(, [a-z0-9.]+)* = stream\.core" "$MD"'
# every figure, derived again from raw/
run python3 "$FIG" "$D" "$MD"
check "figures.py: every figure of results.json and the report agrees with raw/" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(grep -A3 '^not ok' <<<"$OUT" | head -30)"
n=$(grep -c '^ok' <<<"$OUT")
check "... which checked something ($n figures and sections)" [ "$n" -gt 40 ]

# the check can fail: one median changed in results.json, one efficiency
# in the report
cp -r "$D" "$tmp/bad"
jq '(.experiments[] | select(.name == "hpl.2n") | .stats.gflops.median) |= . * 1.01' "$R" >"$tmp/bad/results.json"
sed -E 's/^(\| himeno\.2n \| 2 \| [0-9]+ \| )([0-9])\.([0-9]+)/\1\2.9\3/' "$MD" >"$tmp/bad.md"
run python3 "$FIG" "$tmp/bad" "$tmp/bad.md"
check "a results.json with HPL's median 1% off and a changed efficiency in the report: figures.py fails on both" \
	eval '[ "$RC" -eq 1 ] && grep -q "^not ok .* hpl\.2n: gflops median" <<<"$OUT" &&
	      grep -q "^not ok .* report: Himeno himeno\.2n" <<<"$OUT"'
done_testing
