#!/bin/bash
# Inside the memnodes guest (2 sockets of 2 cores, nodes 0-1 with the CPUs,
# nodes 2-3 memory only; eth0 on node 1 with Soft-RoCE on it): the steps
# 30-memnodes.t judges.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"
collect_facts
alloc_node || exit 1
probe compact4 4 compact 2M
probe spread4 4 spread 2M
probe numa2 2 numa 4M
probe numa4 4 numa
probe socket2 2 socket 4M
probe l3_2 2 l3 2M
probe numa1i 1 numa,mem=interleave 16M
probe none2 2 numa,mem=none 4M
maps maps_numa1i 1 numa,mem=interleave

# Soft-RoCE, live: the port follows its netdev's link; numaplan topo must
# read that state live.  hwloc hides virtual devices unless asked
# (HWLOC_VIRTUAL_LINUX_OSDEV): rxe has no PCI parent.
rxe_state() { cat /sys/class/infiniband/rxe_eth0/ports/1/state 2>/dev/null; }
wait_state() { # WORD: up to 10s
	local _
	for _ in $(seq 50); do case $(rxe_state) in *"$1"*) return 0;; esac; sleep 0.2; done
	return 1
}
save rxe_topo_plain "$NUMAPLAN" topo --json
rxe_state >"$O/rxe_state_up"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save rxe_topo_up "$NUMAPLAN" topo --json
ip link set eth0 down
wait_state DOWN; rxe_state >"$O/rxe_state_down"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save rxe_topo_down "$NUMAPLAN" topo --json
ip link set eth0 up
wait_state ACTIVE; rxe_state >"$O/rxe_state_again"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save rxe_topo_again "$NUMAPLAN" topo --json
exit 0
