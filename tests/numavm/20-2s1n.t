#!/bin/bash
# A real kernel on 2 sockets x 1 NUMA node (numavm shape 2s1n: 4 cores per
# socket in 2 L3 domains, SLIT 10/21), Slurm and the plugin inside: the
# policies that tell L3 domains, NUMA nodes and sockets apart, checked task
# by task against the shape.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
numavm_collect 2s1n "$NP_SRCDIR/tests/numavm/2s1n-collect.sh"

check_guest_is_shape
check_guest_slurm
check_topo_live

model_compact 8;  check_plan "compact -n8" compact8 8 bind
# spread: node 0 then node 1, and inside each node its two L3 in turn
model_spread 4;   check_plan "spread -n4" spread4 4 bind
chk "spread -n4: ranks 0-3 on the L3 domains 0, 2, 1, 3 (nodes alternate, then L3s)" \
	[ "$(for r in 0 1 2 3; do for l in "${!L3_CPUS[@]}"; do
		case " ${L3_CPUS[l]} " in *" ${GOT_CPUS[r]:-x} "*) echo -n "$l ";; esac; done; done)" = "0 2 1 3 " ]
model_l3 4;       check_plan "l3 -n4" l3_4 4 bind
model_numa 2;     check_plan "numa -n2" numa2 2 bind
                  check_maps "numa -n2" maps_numa2 2 bind
model_socket 4;   check_plan "socket -n4 (two ranks per socket)" socket4 4 bind
model_numa 1;     check_plan "numa -n1 mem=interleave (both nodes)" numa1i 1 interleave
model_l3 4;       check_stream "numaplan-stream -n4 -c2 under l3" stream4 4
done_testing
