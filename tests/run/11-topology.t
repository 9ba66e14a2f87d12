#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# On the vcluster: run plans on the compute nodes' topology, asked of the
# nodes (a probe job, or a first step with --inline), grouped into node
# types; masks get whole nodes and fall back to the plugin on partial ones;
# the site's OSU binaries run under srun --mpi=pmix.  The vcluster's nodes
# are this machine, and `vcluster up --topology FILE` (or the plugin's
# topology=) emulates another node: the plan must follow the emulation,
# never this host.  The cluster is left as tests/run-all brought it up.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up (contrib/vcluster/vcluster up --nodes 2)"
	done_testing; exit
fi
VC=$NP_SRCDIR/contrib/vcluster/vcluster
ETC=$(dirname "$SLURM_CONF")
restore() { "$VC" up --nodes 2 >/dev/null 2>&1; }
trap 'restore; rm -rf "$tmp"' EXIT
E7401=$TOPO/amd-epyc7401-2s-nps4-8numa-4vega20-mlx5.xml
R() { run timeout 600 numaplan run "$@"; }
HERE_NUMA=$(numaplan topo | sed -n 's/^[0-9]* packages, \([0-9]*\) NUMA nodes.*/\1/p')

# --- the plain cluster: its nodes are this machine ---------------------------
R stream --nodes 2 --repeat 1 --size 100000 -o "$tmp/plain"
check "stream on 2 nodes, asking them first: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
J=$tmp/plain/results.json
check "topology.source: compute node n1 via the probe job, live discovery" \
	jqt '.topology.source | test("^compute node n1 via probe job [0-9]+: live discovery")' "$J"
check "one node type of n1 and n2" jqt '.topology.node_types | length == 1 and .[0].nodes == ["n1","n2"]' "$J"
check "the probe job is recorded, COMPLETED" jqt '.topology.probe_jobs[0].state == "COMPLETED"' "$J"
numaplan topo --export-xml "$tmp/here.xml" >/dev/null
check "its fingerprint is this machine's (the nodes are this machine)" \
	jqt --arg f "$(numaplan topo --topology "$tmp/here.xml" --fingerprint)" '.topology.node_types[0].fingerprint == $f' "$J"
check "the job asks for the probed nodes, whole (masks)" \
	sh -c "grep -qx '#SBATCH --nodelist=n1,n2' '$tmp/plain/job.sh' && grep -qx '#SBATCH --exclusive' '$tmp/plain/job.sh'"
check "bound by masks, every run passed" jqt '.binding.used == "masks" and .failed_runs == 0' "$J"
check "the start says whole nodes are asked, and why" grep -q 'whole nodes asked (#SBATCH --exclusive)' <<<"$OUT"
# Rpeak's clock and FLOP/cycle come from n1's /proc/cpuinfo (an XML has
# neither): the nodes are this machine, so its FLOP/cycle must be what
# this machine gives live (a dry run here; a clock may be read from
# cpufreq there), and neither is unknown
run numaplan run stream --dry-run -q -o "$tmp/live"
check "Rpeak from the probed node's /proc/cpuinfo: this machine's FLOP/cycle, a clock, said so" \
	jqt --slurpfile l "$tmp/live/run.json" '.rpeak.gflops_per_node > 0 and .rpeak.ghz > 0 and
	     .rpeak.flops_per_cycle == $l[0].rpeak.flops_per_cycle and (.rpeak.source.ghz | test("n1.s, via the probe$"))
	     and (.rpeak.source.flops_per_cycle | test("n1.s, via the probe$"))' "$J"

# without numaplan in the job's PATH the nodes answer with lstopo
run timeout 300 env PATH=/usr/bin:/bin "$(command -v numaplan)" run stream --plan-only -o "$tmp/lstopo"
check "no numaplan on the nodes: lstopo-no-graphics answers" \
	jqt '.node_types[0].source | test("via probe job [0-9]+: live discovery by lstopo-no-graphics")' "$tmp/lstopo/run.json"
check "... the fingerprint, computed here, is this machine's" \
	jqt --arg f "$(numaplan topo --topology "$tmp/here.xml" --fingerprint)" '.node_types[0].fingerprint == $f' \
	"$tmp/lstopo/run.json"

# --- partial nodes: masks fall back to the plugin ---------------------------
# one CPU of a 2-CPU node: a mask step would fail; the plugin binds instead
R compare --shared --threads 1 --policies compact --repeat 1 -o "$tmp/part" -- numaplan-probe --json
check "--shared on partial nodes: exit 0" [ "$RC" -eq 0 ]
check "... no --exclusive in the job" sh -c "! grep -q -- '--exclusive' '$tmp/part/job.sh'"
check "... bound by the plugin, with the reason" \
	jqt '.binding.used == "plugin" and (.binding.note | test("partial nodes .*n1:1/2"))' "$tmp/part/results.json"
check "... said in the summary" grep -q 'note: bound by plugin, not masks' <<<"$OUT"
check "... and the plugin did bind (NUMAPLAN_POLICY=compact in the task)" \
	grep -q '"NUMAPLAN_POLICY": *"compact"' "$tmp"/part/raw/compare.compact.t1.r1.*.out

# --- --inline: a first step of the allocation probes ------------------------
run timeout 300 sbatch -N 2 --ntasks-per-node=1 --exclusive --wait -o "$tmp/inline.out" \
	--wrap "PATH=$PATH numaplan run stream --inline --nodes 2 --repeat 1 --size 100000 -o $tmp/inl"
check "--inline: the job succeeds" [ "$RC" -eq 0 ]
check "--inline: the topology came from a step of the job" \
	jqt '.mode == "inline" and (.topology.source | test("^compute node n1 via a step of job [0-9]+"))' \
	"$tmp/inl/results.json"

# --- the site's OSU binaries under srun --mpi=pmix ---------------------------
fake_omb "$tmp/omb"
R osu --nodes 2 --repeat 1 --osu-dir "$tmp/omb" --mpi pmix -o "$tmp/omb-run"
check "osu with the site's OMB and --mpi pmix: exit 0" [ "$RC" -eq 0 ]
check "... every experiment read from OMB's output" \
	jqt '.failed_experiments == 0 and all(.experiments[]; .params.impl == "omb")' "$tmp/omb-run/results.json"
check "... latency 1.40 us, bandwidth 160 MB/s, as the fake osu_latency and osu_bw print" \
	jqt '(.experiments[] | select(.name == "osu.latency.numa0") | .stats.lat_8B_us.median) == 1.4 and
	     (.experiments[] | select(.name == "osu.bw.numa0") | .stats.bw_max_mbps.median) == 160' "$tmp/omb-run/results.json"
check "... ranks started by srun --mpi=pmix" jqt '.software["mpi launch"] == "srun --mpi=pmix"' "$tmp/omb-run/results.json"

# --- an emulated node: two NUMA nodes on this machine's PUs ------------------
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$tmp/emu.xml" || { skip "no emulated XML"; done_testing; exit; }
"$VC" up --nodes 2 --topology "$tmp/emu.xml" >/dev/null 2>&1
R stream --nodes 2 --repeat 1 --size 100000 -o "$tmp/emu"
X=$tmp/emu/results.json
check "the emulated node has 2 NUMA nodes, this machine $HERE_NUMA: stream.numa1 is planned" \
	jqt '[.experiments[].name] | index("stream.numa1") != null' "$X"
check "... from the plugin's topology= file, as the node's probe says" \
	jqt --arg f "$ETC/topology.xml" '.topology.source | contains("file " + $f + " (topology= of numaplan.so in")' "$X"
# the emulated NUMA 1 is PU 1: a whole-node step binds it; its memory is NUMA 0
check "a mask on the emulated NUMA 1's CPU runs (a whole-node step): matrix c1.m0 ok" \
	jqt '.experiments[] | select(.name == "stream.matrix.c1.m0") | .status == "ok"' "$X"

# --- an emulated EPYC 7551: the plan is the EPYC's, whatever this host is ---
"$VC" up --nodes 2 --topology "$EPYC" >/dev/null 2>&1
R stream --plan-only -o "$tmp/epyc"
check "--plan-only on an emulated EPYC: exit 0, no results" eval '[ "$RC" -eq 0 ] && [ ! -e "$tmp/epyc/results.json" ]'
# 1 core + 1 L3 + 8 NUMA + 2 sockets + node + 8 x 8 matrix = 77 (as 01-dry-run)
check "77 experiments: the EPYC's 8 NUMA nodes, not this host's $HERE_NUMA" \
	[ "$(jq length "$tmp/epyc/experiments.json")" -eq 77 ]
check "the probed node type has the EPYC file's fingerprint" \
	jqt --arg f "$(numaplan topo --topology "$EPYC" --fingerprint)" '.node_types[0].fingerprint == $f' "$tmp/epyc/run.json"
check "the job's masks are the EPYC's: NUMA 5 is cores 40-47" \
	jqt '.[] | select(.name == "stream.numa5") | .placement.rank_cpus == ["40-47"]' "$tmp/epyc/experiments.json"
check "... and the symbolic names follow: stream.numa5 is hca-local" \
	jqt '.[] | select(.name == "stream.numa5") | .aliases == ["stream.hca-local"]' "$tmp/epyc/experiments.json"

# --- two node types: the plugin's topology=DIR/%n.xml ------------------------
"$VC" up --nodes 2 >/dev/null 2>&1
d=$tmp/types
mkdir -p "$d" && chmod 0755 "$d"
cp "$EPYC" "$d/n1.xml"; cp "$E7401" "$d/n2.xml"; chmod 0644 "$d"/*.xml
"$VC" plugstack "topology=$d/%n.xml" >/dev/null
R osu --nodes 2 --plan-only -o "$tmp/two"
check "two node types: exit 0" [ "$RC" -eq 0 ]
check "n1 (EPYC 7551) and n2 (EPYC 7401) are two types" \
	jqt '[.node_types[] | {name, nodes}] == [{"name":"n1","nodes":["n1"]},{"name":"n2","nodes":["n2"]}]' "$tmp/two/run.json"
# each has 8 NUMA nodes: 36 intra-node pairs each, on its own node
check "36 intra-node experiments per type, on that type's node" \
	jqt '([.[] | select(.name|test("^osu\\.intra\\..*@n1$")) | select(.placement.nodelist == "n1")] | length) == 36 and
	     ([.[] | select(.name|test("^osu\\.intra\\..*@n2$")) | select(.placement.nodelist == "n2")] | length) == 36' \
	"$tmp/two/experiments.json"
check "hca-local per type: NUMA 5 on the 7551, NUMA 3 on the 7401" \
	jqt '([.[] | select(.aliases | index("osu.intra.hca-local-hca-local@n1")) | .name] == ["osu.intra.numa5-numa5@n1"]) and
	     ([.[] | select(.aliases | index("osu.intra.hca-local-hca-local@n2")) | .name] == ["osu.intra.numa3-numa3@n2"])' \
	"$tmp/two/experiments.json"
check "2-node tests need 2 nodes of one type: left out, with a note" \
	eval 'grep -q "node type n1 has 1 node: .* left out" <<<"$ERR" &&
	      ! jq -e ".[] | select(.nodes == 2 and (has(\"left_out\") | not))" "$tmp/two/experiments.json" >/dev/null'
# OSU's inter-node experiments need 2 nodes of one type: each type has 1,
# so every one of them is listed as left out, with its reason
check "experiments.json lists OSU's inter-node experiments as left out, each with its reason" \
	jqt '[.[] | select(.nodes == 2)] | length > 0 and
	     all(.left_out | test("^node type n[12] has 1 node; .* needs 2$"))' "$tmp/two/experiments.json"
# Himeno at 1 and 2 nodes: the 1-node runs stay, the 2-node ones are left
# out, and their plans go from plans/ (which holds what is to run)
R himeno --nodes 2 --plan-only -o "$tmp/twohim"
check "himeno --nodes 2 on two 1-node types: himeno.1n of each type planned, himeno.2n of each left out" \
	jqt '[.[] | {name, nodes, left_out}] == [
	       {"name":"himeno.1n@n1","nodes":1,"left_out":null}, {"name":"himeno.1n@n2","nodes":1,"left_out":null},
	       {"name":"himeno.2n@n1","nodes":2,"left_out":"node type n1 has 1 node; himeno.2n@n1 needs 2"},
	       {"name":"himeno.2n@n2","nodes":2,"left_out":"node type n2 has 1 node; himeno.2n@n2 needs 2"}]' \
	"$tmp/twohim/experiments.json"
check "... plans/ holds the plans of the two that are to run, and only those" \
	eval '[ "$(ls "$tmp/twohim/plans" | tr "\n" " ")" = "himeno.1n@n1.json himeno.1n@n2.json " ]'
# collected (nothing ran: a plan-only run), results.json and the report's
# Run section say what was left out, not only stderr at planning time
run numaplan run --collect "$tmp/twohim"
check "... results.json: left_out names both, with their type, nodes and reason" \
	jqt '[.left_out[] | [.name, .node_type, .nodes, .reason]] == [
	       ["himeno.2n@n1", "n1", 2, "node type n1 has 1 node; himeno.2n@n1 needs 2"],
	       ["himeno.2n@n2", "n2", 2, "node type n2 has 1 node; himeno.2n@n2 needs 2"]]' "$tmp/twohim/results.json"
run numaplan report "$tmp/twohim" --format md
check "... and the report's Run section has a LEFT OUT row for each" \
	eval '[ "$(grep -c "^| LEFT OUT | himeno\.2n@n[12]: node type n[12] has 1 node; himeno\.2n@n[12] needs 2 |$" <<<"$OUT")" = 2 ]'
# HPL scales to the nodes a type has: 1 node each, so hpl.1n per type
R hpl --nodes 2 --plan-only -o "$tmp/twohpl"
check "hpl --nodes 2 on two 1-node types: hpl.1n@n1 and hpl.1n@n2, nothing left out" \
	jqt '[.[] | {name, nodes, left_out}] == [{"name":"hpl.1n@n1","nodes":1,"left_out":null},
	                                          {"name":"hpl.1n@n2","nodes":1,"left_out":null}]' "$tmp/twohpl/experiments.json"

# --- two nodes of one machine on CPUs of their own: one node type ----------
# each node's probe runs on its one CPU (n1 CPU 0, n2 CPU 1), where a VM's
# hwloc may show only that CPU's caches; the nodes are still one machine
"$VC" plugstack '' >/dev/null
run "$VC" up --nodes 2 --disjoint-cpus
check "vcluster up --nodes 2 --disjoint-cpus" [ "$RC" -eq 0 ]
first=$(hwloc-calc --physical-output --intersect pu core:0 | cut -d, -f1)
R stream --nodes 2 --cpuset "$first" --plan-only -o "$tmp/disjoint"
check "nodes on CPUs of their own: --plan-only exits 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR"
check "... n1 and n2 are one node type, with this machine's fingerprint" \
	jqt --arg f "$(numaplan topo --topology "$tmp/here.xml" --fingerprint)" \
	'(.node_types | length) == 1 and .node_types[0].nodes == ["n1","n2"] and .node_types[0].fingerprint == $f' \
	"$tmp/disjoint/run.json"
check "... and nothing is left out for want of a second node of the type" \
	eval '! grep -q "left out" <<<"$ERR"'
done_testing
