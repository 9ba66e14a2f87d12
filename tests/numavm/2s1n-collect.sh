#!/bin/bash
# Inside the 2s1n guest (2 sockets x 1 NUMA node of 4 cores, 2 L3 of 2
# cores per socket, SLIT 10/21): the steps 20-2s1n.t judges.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"
collect_facts
alloc_node || exit 1
probe compact8 8 compact 2M
probe spread4 4 spread 4M
probe l3_4 4 l3 4M
probe numa2 2 numa 8M
maps maps_numa2 2 numa
probe socket4 4 socket
probe numa1i 1 numa,mem=interleave 16M
stream stream4 4 2 l3
exit 0
