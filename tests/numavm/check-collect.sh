#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside a guest of the check shapes (check, checkfault): the machine as
# the guest kernel shows it (NUMA nodes and their memory, every PCI
# function's link figures, the NICs' PCI functions), then numaplan check
# on it, once as booted, once with CPU 3 taken offline, once with it back.
# 70-check.t judges on the host.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"

{
	# as collect_facts writes them (check_guest_is_shape reads these)
	node_cpu_facts
	for d in /sys/class/net/*/device; do
		[ -e "$d" ] || continue
		n=${d#/sys/class/net/}
		echo "net ${n%%/*} numa_node $(cat "$d/numa_node")"
		echo "net ${n%%/*} pci $(basename "$(readlink -f "$d")")"
	done
	for d in /sys/bus/pci/devices/*; do
		l=
		for f in current_link_speed current_link_width max_link_speed max_link_width; do
			l="$l $(cut -d' ' -f1 "$d/$f" 2>/dev/null || echo -)"
		done
		echo "pci ${d##*/} class $(cat "$d/class") parent $(basename "$(dirname "$(readlink -f "$d")")") link$l"
	done
} >"$O/facts"
save check_booted "$NUMAPLAN" check --json
save check_booted_text "$NUMAPLAN" check --all
echo 0 >/sys/devices/system/cpu/cpu3/online
save cpu3_online cat /sys/devices/system/cpu/cpu3/online
save check_offline "$NUMAPLAN" check --json
echo 1 >/sys/devices/system/cpu/cpu3/online
save check_online "$NUMAPLAN" check --json
exit 0
