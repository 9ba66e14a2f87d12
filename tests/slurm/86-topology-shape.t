#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A topology= file hwloc loads but no machine has (issue 22): packages
# inside a package made the planner write past its arrays inside
# slurmstepd (root), which then died by SIGABRT in hwloc_topology_destroy,
# leaving the step's socket and hwloc_topo_JOB.STEP.xml behind; a Core
# renamed to PU made it allocate 16 GiB twice per core.  Now the step
# fails cleanly (on_error=fail) or runs unbound with one warning
# (on_error=warn), the message says what is wrong with the file's shape,
# slurmstepd exits normally, and the next step is planned as usual.
#
# The files are hwloc's own synthetic topologies with one structural edit
# (tests/xml/make-shape-xmls.sh) and the issue's reproduction; lstopo is
# the reference that hwloc accepts each.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool lstopo-no-graphics
dir=$(root_tmpdir shape) || skip_all "cannot make a root-only directory"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
node=$(sinfo -h -N -o %N | sort | head -1)
marker=$dir/ran
spool=$(scontrol show config | awk -F' = ' '/^SlurmdSpoolDir/ { print $2 }')
spool=${spool//%n/$node}
log=$(scontrol show config | awk '$1 == "SlurmdLogFile" {print $3}')
log=${log//%n/$node}
since=$(stat -c %s "$log" 2>/dev/null || echo 0)
# what a slurmstepd that did not exit normally leaves: its socket, and the
# step's topology file (hwloc_topo_JOB.STEP.xml; hwloc_topo_whole.xml is
# slurmd's own and stays)
leftovers() {
	wait_idle
	find "$spool" -maxdepth 1 \( -type s -name "${node}_*" -o -name 'hwloc_topo_*.xml' \
		! -name hwloc_topo_whole.xml \) 2>/dev/null
}
check "nothing left over before the test (${spool})" [ -z "$(leftovers)" ]

# the issue's reproduction: 2000 L1 caches renamed Package, the PUs'
# os_index reversed
lstopo-no-graphics --input "package:1 l1d:2000 pu:1" --of xml 2>/dev/null |
	sed 's/type="L1Cache"/type="Package"/' |
	awk '/<object type="PU" os_index="/ { sub(/os_index="[0-9]+"/, "os_index=\"" 1999 - k++ "\"") } { print }' \
	>"$dir/issue22.xml"
for f in "$NP_SRCDIR"/tests/xml/shape-*.xml; do install -m 0644 "$f" "$dir/"; done
chmod 0644 "$dir"/*.xml
declare -A why=(
	[issue22.xml]="Package objects sit at more than one depth of the tree"
	[shape-package-two-depths.xml]="Package objects sit at more than one depth of the tree"
	[shape-core-as-pu.xml]="PU objects sit at more than one depth of the tree"
	[shape-l3-two-depths.xml]="L3Cache objects sit at more than one depth of the tree"
	[shape-pu-index-permuted.xml]="PU L#0 (P#3) has a cpuset other than its own OS index"
)
for name in issue22.xml shape-package-two-depths.xml shape-core-as-pu.xml shape-l3-two-depths.xml \
            shape-pu-index-permuted.xml; do
	f=$dir/$name
	msg="cannot load the topology ($f): cannot use topology '$f': a shape no machine has: ${why[$name]}"
	check "reference: lstopo loads $name" eval 'lstopo-no-graphics --input "$f" >/dev/null 2>&1'
	plugstack "topology=$f on_error=fail"
	rm -f "$marker"
	srun_ -N1 -n1 -w "$node" --numa-plan=compact sh -c "touch $marker"
	check "$name, fail: the step fails and srun returns (rc=$RC)" eval '[ "$RC" -ne 0 ] && [ "$RC" -ne 124 ]'
	check "$name, fail: the error names the file and its shape" \
		grep -qF "numaplan: $node: error: $msg" <<<"$ERR"
	check "$name, fail: the program did not run" [ ! -e "$marker" ]
	plugstack "topology=$f on_error=warn"
	srun_ -N1 -n2 -w "$node" --numa-plan=compact numaplan-probe --json
	check "$name, warn: the tasks ran, unbound by numaplan (rc=$RC)" \
		eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'
	check "$name, warn: one warning, naming the shape" \
		eval '[ "$(grep -c "^numaplan: $node: warning: " <<<"$ERR")" -eq 1 ] &&
		      grep -qF "numaplan: $node: warning: $msg" <<<"$ERR"'
	check "$name: no step socket or hwloc_topo_JOB.STEP.xml left behind" [ -z "$(leftovers)" ]
done

# slurmstepd exited normally every time: slurmd logs "[JOB.STEP] done with
# job" when a step daemon ends its work (Slurm 22.05; 24.11 says "done with
# step", or "stepd_cleanup: done with step (rc...)" for a step that failed);
# one that died by a signal never says it (before the fix: no such line for
# the steps of issue22.xml)
if [ -r "$log" ]; then
	tail -c +$((since + 1)) "$log" >"$dir/slurmd.log"
	launched=$(sed -n 's/.*launch task StepId=\([0-9]*\.[0-9]*\) .*/\1/p' "$dir/slurmd.log")
	missing=
	for s in $launched; do
		grep -qF -e "[$s] done with job" -e "[$s] done with step" -e "[$s] stepd_cleanup: done with step" "$dir/slurmd.log" ||
			missing="$missing $s"
	done
	check "slurmd's log: every slurmstepd of the test ($(wc -w <<<"$launched") steps) ended its work (not:${missing:- none})" \
		eval '[ -n "$launched" ] && [ -z "$missing" ]'
else
	skip "slurmd's log ($log) not readable"
fi

# the next step, on the node's own topology, is planned as usual
plugstack "on_error=fail"
srun_ -N1 -n2 -w "$node" --numa-plan=compact numaplan-probe --json
check "the next step: planned and bound (rc=$RC, NUMAPLAN_POLICY=$(pfield 0 .env.NUMAPLAN_POLICY))" \
	eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'
check "at the end: nothing left over" [ -z "$(leftovers)" ]
check "at the end: the nodes are up" nodes_alive
done_testing
