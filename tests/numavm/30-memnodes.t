#!/bin/bash
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

# Soft-RoCE (rdma_rxe on eth0): ACTIVE, and numaplan topo reads it live
chk "rxe_eth0 port 1 is ACTIVE in the guest" grep -q ACTIVE "$DATA/rxe_state_up"
rxe_port() { jq -r '.devices[] | select(.name == "rxe_eth0") | "\(.kind) \(.machine_root) \(.ports[0].port):\(.ports[0].state)"' "$DATA/$1.out" 2>/dev/null; }
chk "numaplan topo lists rxe_eth0 live: OpenFabrics, at the machine root, port 1 ACTIVE (4)" \
	[ "$(rxe_port rxe_topo_up)" = "OpenFabrics true 1:4" ] || diagm "got '$(rxe_port rxe_topo_up)' $(head -c 300 "$DATA/rxe_topo_up.err")"
chk "eth0 down: the kernel turns rxe_eth0's port DOWN and numaplan topo reads state 1 live" \
	eval 'grep -q DOWN "$DATA/rxe_state_down" && [ "$(rxe_port rxe_topo_down)" = "OpenFabrics true 1:1" ]' ||
	diagm "sysfs '$(cat "$DATA/rxe_state_down")', numaplan '$(rxe_port rxe_topo_down)'"
chk "eth0 up again: ACTIVE again, live" \
	eval 'grep -q ACTIVE "$DATA/rxe_state_again" && [ "$(rxe_port rxe_topo_again)" = "OpenFabrics true 1:4" ]'
[ -n "$(rxe_port rxe_topo_plain)" ] ||
	diagm "note: without HWLOC_VIRTUAL_LINUX_OSDEV=1 hwloc hides rxe_eth0 (a virtual device), so numaplan does not list it"
done_testing
