#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside the nps4 guest (2 sockets x 4 NUMA nodes of 2 cores, an L3 per
# node, SLIT 10/16/32, eth0 on node 5): the steps 10-nps4.t judges.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"
collect_facts
alloc_node || exit 1
probe compact4 4 compact,verbose 4M
probe spread10 10 spread 2M
probe numa4 4 numa 8M
probe numa16 16 numa
maps maps_numa4 4 numa
probe socket2 2 socket 4M
probe socket2i 2 socket,mem=interleave 16M
maps maps_socket2i 2 socket,mem=interleave
probe socket1i 1 socket,mem=interleave 16M
probe l3_8 8 l3 2M
stream stream2 2 4 socket
probe hca16 16 hca-near,hca=eth0 1M
probe hca4 4 hca-near,hca=eth0 2M
exit 0
