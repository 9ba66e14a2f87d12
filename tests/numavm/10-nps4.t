#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real kernel on 2 sockets x 4 NUMA nodes (numavm shape nps4: 2 cores and
# one L3 per node, SLIT 10/16/32, eth0 behind a PCIe bridge on node 5), with
# Slurm and the plugin inside: every policy checked task by task - CPU
# affinity, memory policy, where touched pages landed - against the shape.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
portable_stream
numavm_collect nps4 "$NP_SRCDIR/tests/numavm/nps4-collect.sh"

check_guest_is_shape
check_guest_slurm
check_topo_live
chk "an exclusive allocation of the whole node for the steps" grep -q 'Granted job allocation' "$DATA/alloc.out"

# compact: the first four cores; memory bound to their nodes (0, 1)
model_compact 4;  check_plan "compact -n4" compact4 4 bind
# the plugin's verbose lines: the node's topology came from live discovery
# (or from the plugin's cache of it), never from a file
chk "compact,verbose: the plugin discovered the node live (or used its cache of that)" eval \
	'grep -Eq "^numaplan: numavm: topology: (live discovery|cache /run/numaplan/)" <<<"$ERR" &&
	 ! grep -q "topology: file" <<<"$ERR" && [ "$(grep -c "^numaplan: numavm task " <<<"$ERR")" -eq 4 ]' ||
	diagm "$ERR"
# spread, top down: 5 ranks per package; consecutive ranks alternate
# packages, a package's ranks take its 4 nodes in turn, and its fifth
# (the one left over, given to the first of the evenly spaced nodes)
# goes back to its first node, on that node's second core
model_spread 10;  check_plan "spread -n10" spread10 10 bind
order=; for r in $(seq 0 9); do order="$order $(nodes_of "${GOT_CPUS[r]:-}")"; done
chk "spread -n10: nodes by rank 0 4 1 5 2 6 3 7 0 4 (packages alternate, then nodes)" \
	[ "$order" = " 0 4 1 5 2 6 3 7 0 4" ] || diagm "nodes by rank:$order"
# numa: 4 ranks own 2 whole nodes each; 16 ranks halve each node
model_numa 4;     check_plan "numa -n4" numa4 4 bind
                  check_maps "numa -n4" maps_numa4 4 bind
model_numa 16;    check_plan "numa -n16" numa16 16 bind
# socket: a package each; interleaved over the package's 4 nodes
model_socket 2;   check_plan "socket -n2" socket2 2 bind
                  check_plan "socket -n2 mem=interleave" socket2i 2 interleave
                  check_maps "socket -n2 mem=interleave" maps_socket2i 2 interleave
model_socket 1;   check_plan "socket -n1 mem=interleave (all 8 nodes)" socket1i 1 interleave
# l3: one L3 per node in this shape
model_l3 8;       check_plan "l3 -n8" l3_8 8 bind
# numaplan-stream: functional only (TCG), placement as planned
model_socket 2;   check_stream "numaplan-stream -n2 -c4 under socket" stream2 2

# hca-near on eth0 (node 5): node 5's cores, then the nodes at distance 16
# (4, 6, 7, same socket), then those at 32 (0-3): SLIT order
model_hca 16 5;   check_plan "hca-near hca=eth0 -n16" hca16 16 bind
d=; for r in $(seq 0 15); do d="$d ${DIST["5 $(nodes_of "${GOT_CPUS[r]:-}")"]:-?}"; done
chk "hca-near hca=eth0 -n16: distance from node 5 by rank: 10 x2, 16 x6, 32 x8 (SLIT order)" \
	[ "$d" = " 10 10 16 16 16 16 16 16 32 32 32 32 32 32 32 32" ] || diagm "distances:$d"
# an interface has no port: NUMAPLAN_HCA and UCX_NET_DEVICES are its name
# (numaplan(1), --hca; UCX's TCP transport takes eth0)
chk "hca-near hca=eth0 -n16: every rank's NUMAPLAN_HCA and UCX_NET_DEVICES are eth0" \
	[ "$(for r in $(seq 0 15); do echo "${GOT_HCA[r]:-} ${GOT_UCX[r]:-}"; done | sort | uniq -c | awk '{print $1, $2, $3}')" = "16 eth0 eth0" ]
model_hca 4 5;    check_plan "hca-near hca=eth0 -n4" hca4 4 bind
chk "hca-near hca=eth0 -n4: every rank's NUMAPLAN_HCA is eth0" \
	[ "$(printf '%s\n' "${GOT_HCA[@]}" | sort | uniq -c | awk '{print $1, $2}')" = "4 eth0" ]
done_testing
