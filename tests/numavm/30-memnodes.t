#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real kernel with 2 CPU-less memory nodes (numavm shape memnodes: nodes
# 0-1 hold 2 cores each, nodes 2-3 only memory, an HBM/CXL-like case), Slurm
# and the plugin inside.  numaplan(1): CPU-less nodes are never chosen - no
# rank's CPUs, memory policy or pages there, whatever the policy.  And
# Soft-RoCE on eth0: its port state, read live by numaplan topo.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
numavm_collect memnodes "$NP_SRCDIR/tests/numavm/memnodes-collect.sh" --rxe eth0

check_guest_is_shape
check_guest_slurm
check_topo_live

# no_memnode STEP N: no rank's policy nodes or touched pages on nodes 2-3
no_memnode() {
	local r m bad=
	for ((r = 0; r < $2; r++)); do
		for m in "${MEM_NODES[@]}"; do
			subset "$m" "${GOT_MEMS[r]:-}" && bad="$bad rank $r: mems ${GOT_MEMS[r]};"
			[ "$(pages_on "$r" "$m")" = 0 ] || bad="$bad rank $r: $(pages_on "$r" "$m") pages on node $m;"
		done
	done
	chk "$1: no rank has memory-only node $(fmt "${MEM_NODES[*]}") in its policy or pages there" [ -z "$bad" ] || diagm "$bad"
}

model_compact 4;  check_plan "compact -n4" compact4 4 bind;      no_memnode "compact -n4" 4
model_spread 4;   check_plan "spread -n4" spread4 4 bind;        no_memnode "spread -n4" 4
# numa: the CPU nodes are the domains, the memory-only nodes are not
model_numa 2;     check_plan "numa -n2" numa2 2 bind;            no_memnode "numa -n2" 2
model_numa 4;     check_plan "numa -n4" numa4 4 bind;            no_memnode "numa -n4" 4
model_socket 2;   check_plan "socket -n2" socket2 2 bind;        no_memnode "socket -n2" 2
model_l3 2;       check_plan "l3 -n2" l3_2 2 bind;               no_memnode "l3 -n2" 2
model_numa 1;     check_plan "numa -n1 mem=interleave" numa1i 1 interleave; no_memnode "numa -n1 mem=interleave" 1
                  check_maps "numa -n1 mem=interleave" maps_numa1i 1 interleave
load none2
chk "numa -n2 mem=none: memory policy left at default, no NUMAPLAN_MEMS" \
	eval '[ "$RC" = 0 ] && [ "${GOT_POL[0]:-} ${GOT_POL[1]:-}" = "default default" ] && [ -z "${GOT_ENVMEMS[0]}${GOT_ENVMEMS[1]}" ]'
no_memnode "numa -n2 mem=none (the kernel's local allocation)" 2

# Soft-RoCE (rdma_rxe on eth0): ACTIVE, and numaplan topo reads it live.
# An OpenFabrics device whose port is Ethernet is of kind RoCE (numaplan(1),
# hca-near); rxe has no PCI parent, so hwloc hangs it off the machine root.
chk "rxe_eth0 port 1 is ACTIVE in the guest" grep -q ACTIVE "$DATA/rxe_state_up"
rxe_port() { jq -r '.devices[] | select(.name == "rxe_eth0") | "\(.kind) \(.machine_root) \(.ports[0].port):\(.ports[0].state)"' "$DATA/$1.out" 2>/dev/null; }
chk "numaplan topo lists rxe_eth0 live: RoCE, at the machine root, port 1 ACTIVE (4)" \
	[ "$(rxe_port rxe_topo_up)" = "RoCE true 1:4" ] || diagm "got '$(rxe_port rxe_topo_up)' $(head -c 300 "$DATA/rxe_topo_up.err")"
chk "eth0 down: the kernel turns rxe_eth0's port DOWN and numaplan topo reads state 1 live" \
	eval 'grep -q DOWN "$DATA/rxe_state_down" && [ "$(rxe_port rxe_topo_down)" = "RoCE true 1:1" ]' ||
	diagm "sysfs '$(cat "$DATA/rxe_state_down")', numaplan '$(rxe_port rxe_topo_down)'"
chk "eth0 up again: ACTIVE again, live" \
	eval 'grep -q ACTIVE "$DATA/rxe_state_again" && [ "$(rxe_port rxe_topo_again)" = "RoCE true 1:4" ]'
chk "without HWLOC_VIRTUAL_LINUX_OSDEV=1 hwloc hides rxe_eth0 (a virtual device): numaplan topo does not list it" \
	eval '[ "$(cat "$DATA/rxe_topo_plain.rc")" = 0 ] && [ -z "$(rxe_port rxe_topo_plain)" ]'

# The plugin with rxe_eth0: a topology= file the guest's root exported
# with HWLOC_VIRTUAL_LINUX_OSDEV=1 (root-owned, in a root-owned 0755
# directory), the port state read live at each launch.
chk "the topology= file: root's, not writable by others, on a root-owned path; it lists rxe_eth0" eval \
	'[ "$(cat "$DATA/rxe_xml_has")" = 1 ] && [ "$(wc -l <"$DATA/rxe_xml_perms")" = 4 ] &&
	 ! grep -Ev "^[-d][r-][w-][x-][r-]-[x-][r-]-[x-][.+]? +[0-9]+ root root " "$DATA/rxe_xml_perms" | grep -q . &&
	 grep -q "numaplan[.]so topology=/run/numaplan-rxe/node.xml$" "$DATA/plugstack.rxe"' ||
	diagm "$(cat "$DATA/rxe_xml_has" "$DATA/rxe_xml_perms" "$DATA/plugstack.rxe")"
# rxe_step STEP LABEL: the adapter's ranks, ACTIVE: every rank rxe_eth0,
# port 1 (NUMAPLAN_HCA and UCX_NET_DEVICES), placed as hca-near places
# ranks of an adapter at the machine root, memory on their nodes
rxe_step() {
	model_hca 4 root; check_plan "$2" "$1" 4 bind
	chk "$2: every rank's NUMAPLAN_HCA and UCX_NET_DEVICES are rxe_eth0:1" \
		[ "$(for r in 0 1 2 3; do echo "${GOT_HCA[r]:-} ${GOT_UCX[r]:-}"; done | sort | uniq -c | awk '{print $1, $2, $3}')" = "4 rxe_eth0:1 rxe_eth0:1" ] ||
		diagm "$(for r in 0 1 2 3; do echo "rank $r: NUMAPLAN_HCA '${GOT_HCA[r]:-}' UCX_NET_DEVICES '${GOT_UCX[r]:-}'"; done)"
	no_memnode "$2" 4
}
policy_of() { grep '^{' <<<"$OUT" | jq -r '.env.NUMAPLAN_POLICY // "-"' | sort | uniq -c | awk '{print $1, $2}'; }
rxe_step rxe_step_up "hca-near (topology= file, rxe_eth0 ACTIVE) -n4"
load rxe_step_up
chk "hca-near, rxe_eth0 ACTIVE: the plugin loaded the file and used no fallback" eval \
	'grep -q "^numaplan: numavm: topology: file /run/numaplan-rxe/node.xml" <<<"$ERR" && [ "$(policy_of)" = "4 hca-near" ] &&
	 ! grep -q "not used\|falling back" <<<"$ERR"' || diagm "$(head -c 600 <<<"$ERR")"
chk "numaplan plan --topology (the file) --sysfs /sys, ACTIVE: rxe_eth0 for every rank, nothing skipped" eval \
	'[ "$(jq -r "[.policy, (.skipped_devices | length), (.ranks | map(.hca) | unique | join(\",\"))] | join(\" \")" "$DATA/rxe_plan_up.out")" = "hca-near 0 rxe_eth0" ]' ||
	diagm "$(head -c 400 "$DATA/rxe_plan_up.out") $(cat "$DATA/rxe_plan_up.err")"

# eth0 down: the file still says ACTIVE, the kernel says DOWN; the step
# must not use rxe_eth0.  With no other adapter, the documented fallback:
# a warning and spread (numaplan(1), hca-near; on_error=warn, the default)
model_spread 4;   check_plan "hca-near, rxe_eth0 DOWN: falls back to spread -n4" rxe_step_down 4 bind
no_memnode "hca-near, rxe_eth0 DOWN" 4
chk "hca-near, rxe_eth0 DOWN: no rank has NUMAPLAN_HCA or UCX_NET_DEVICES, NUMAPLAN_POLICY is spread" eval \
	'[ "$(for r in 0 1 2 3; do echo "${GOT_HCA[r]:-}${GOT_UCX[r]:-}"; done | sort -u | tr -d "\n")" = "" ] && [ "$(policy_of)" = "4 spread" ]' ||
	diagm "policies: $(policy_of); hca: ${GOT_HCA[*]:-} ucx: ${GOT_UCX[*]:-}"
chk "hca-near, rxe_eth0 DOWN: verbose says rxe_eth0 was not used (port 1 DOWN) and the step fell back to spread" eval \
	'grep -q "^numaplan: numavm: adapter rxe_eth0 not used: port 1 DOWN" <<<"$ERR" &&
	 grep -q "^numaplan: numavm: note: hca-near: no usable adapter on this node (.*rxe_eth0.*port 1 DOWN.*), falling back to spread" <<<"$ERR"' ||
	diagm "$(head -c 800 <<<"$ERR")"
chk "numaplan plan --topology (the file) --sysfs /sys, DOWN: spread, skipped_devices rxe_eth0 'port 1 DOWN'" eval \
	'[ "$(jq -r "[.requested_policy, .policy, (.skipped_devices | map(.name + \": \" + .reason) | join(\",\")), (.ranks | map(.hca // \"-\") | unique | join(\",\"))] | join(\"|\")" "$DATA/rxe_plan_down.out")" = "hca-near|spread|rxe_eth0: port 1 DOWN|-" ]' ||
	diagm "$(head -c 600 "$DATA/rxe_plan_down.out") $(cat "$DATA/rxe_plan_down.err")"

# eth0 up again: the next step uses rxe_eth0 again
rxe_step rxe_step_again "hca-near (topology= file, rxe_eth0 ACTIVE again) -n4"
done_testing
