#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside the memnodes guest (2 sockets of 2 cores, nodes 0-1 with the CPUs,
# nodes 2-3 memory only; eth0 on node 1 with Soft-RoCE on it): the steps
# 30-memnodes.t judges.  The Soft-RoCE steps come last: they point the
# plugstack at a topology file for a while.
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
# The link comes up a few seconds after `ip link set up` (e1000e's
# watchdog); a host loaded by other work stretches that: a minute at most.
wait_state() { # WORD: up to 60s
	local _
	for _ in $(seq 300); do case $(rxe_state) in *"$1"*) return 0;; esac; sleep 0.2; done
	return 1
}
save rxe_topo_plain "$NUMAPLAN" topo --json
rxe_state >"$O/rxe_state_up"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save rxe_topo_up "$NUMAPLAN" topo --json

# ... and the plugin, which refuses HWLOC_* variables (it never lets an
# environment steer hwloc as root): as an admin would, export the node
# with its virtual devices, as root, to a root-owned file and name it
# with topology= (numaplan-spank(8): the file and every directory on its
# path root's alone).  The steps then read the port state live at launch,
# whatever the file says.
RXE_DIR=/run/numaplan-rxe
RXE_XML=$RXE_DIR/node.xml
mkdir -m 0755 "$RXE_DIR" && HWLOC_VIRTUAL_LINUX_OSDEV=1 lstopo-no-graphics --of xml "$RXE_XML" &&
	chmod 0644 "$RXE_XML" || echo "cannot write $RXE_XML" >&2
ls -ld / /run "$RXE_DIR" "$RXE_XML" >"$O/rxe_xml_perms" 2>&1
grep -c 'name="rxe_eth0"' "$RXE_XML" >"$O/rxe_xml_has" 2>&1
cp "$NUMAVM_PLUGSTACK" "$O/plugstack.orig"
awk -v x="$RXE_XML" '/numaplan[.]so/ { print $0 " topology=" x; next } { print }' \
	"$O/plugstack.orig" >"$NUMAVM_PLUGSTACK"
cp "$NUMAVM_PLUGSTACK" "$O/plugstack.rxe"
rxe_plan() { save "$1" "$NUMAPLAN" plan --topology "$RXE_XML" --sysfs /sys -p hca-near -n 4 -f json; }
probe rxe_step_up 4 hca-near,verbose 2M
rxe_plan rxe_plan_up

ip link set eth0 down
wait_state DOWN; rxe_state >"$O/rxe_state_down"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save rxe_topo_down "$NUMAPLAN" topo --json
probe rxe_step_down 4 hca-near,verbose 2M
rxe_plan rxe_plan_down

ip link set eth0 up
wait_state ACTIVE; rxe_state >"$O/rxe_state_again"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save rxe_topo_again "$NUMAPLAN" topo --json
probe rxe_step_again 4 hca-near,verbose 2M
cp "$O/plugstack.orig" "$NUMAVM_PLUGSTACK"
exit 0
