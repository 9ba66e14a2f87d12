#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan check on real kernels (numavm shapes check and checkfault): a
# healthy shape exits 0; a CPU taken offline in the guest is found as
# cpu-offline, and is gone once it is back; a NUMA node booted short of
# memory is found as memory-balance; a root port capped with link=
# (QEMU's x-speed/x-width) reaches the guest kernel, and each NIC's link
# is judged by numaplan-check(1)'s rule on the figures the guest kernel
# shows.  Expectations come from the shapes and from the guest kernel's
# own files (the collector's facts), never from numaplan's output.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm

# the finding of KIND about OBJECT in a saved check: "severity|found|expected"
finding() { # name kind object
	jq -r --arg k "$2" --arg o "$3" '.findings[] | select(.kind == $k and .object == $o) |
		"\(.severity)|\(.found)|\(.expected)"' "$DATA/$1.out" 2>/dev/null
}
pci() { awk -v b="$1" '$1 == "pci" && $2 == b' "$DATA/facts"; }
nic_pci() { fact net "$1" pci; }
gib() { awk -v k="$1" 'BEGIN { printf "%.1f GiB", k * 1024 / 1073741824 }'; }
link() { awk -v s="$1" -v w="$2" 'BEGIN { printf "%.1f GT/s x%d", s, w }'; }
# numaplan-check(1)'s pcie-link rule on a NIC's function and the port
# above it, from the guest kernel's figures: "severity|object|found|expected"
link_rule() { # bdf
	local f p cs cw ms mw pcs pcw pms pmw caps capw
	f=$(pci "$1")
	read -r cs cw ms mw <<<"$(awk '{ print $(NF-3), $(NF-2), $(NF-1), $NF }' <<<"$f")"
	p=$(awk '{ print $6 }' <<<"$f")
	read -r pcs pcw pms pmw <<<"$(pci "$p" | awk '{ print $(NF-3), $(NF-2), $(NF-1), $NF }')"
	caps=$(awk -v a="$ms" -v b="$pms" 'BEGIN { print (a < b ? a : b) }')
	capw=$(( mw < pmw ? mw : pmw ))
	if awk -v a="$cs" -v b="$caps" 'BEGIN { exit !(a < b - 0.05) }' || [ "$cw" -lt "$capw" ]; then
		echo "fail|$1|$(link "$cs" "$cw")|$(link "$caps" "$capw")"
	elif awk -v a="$caps" -v b="$ms" 'BEGIN { exit !(a < b - 0.05) }' || [ "$capw" -lt "$mw" ]; then
		echo "warn|$p|$(link "$caps" "$capw")|$(link "$ms" "$mw")"
	else
		echo "info|$1|$(link "$cs" "$cw")|null"
	fi
}
judge_link() { # nic
	local b want got
	b=$(nic_pci "$1")
	want=$(link_rule "$b")
	IFS='|' read -r sev obj _ <<<"$want"
	got="$sev|$obj|$(finding check_booted pcie-link "$obj" | cut -d'|' -f2-)"
	chk "$1 ($b): pcie-link as the guest's figures and numaplan-check(1)'s rule say ($want)" [ "$got" = "$want" ] ||
		diagm "got $got; facts: $(pci "$b") / port: $(pci "$(pci "$b" | awk '{ print $6 }')")"
}

# ---- a healthy shape -------------------------------------------------------------
numavm_collect check "$NP_SRCDIR/tests/numavm/check-collect.sh" --no-slurm
check_guest_is_shape
chk "clean shape: numaplan check exits 0, no warn or fail finding" \
	eval '[ "$(cat "$DATA/check_booted.rc")" = 0 ] && jq -e ".counts.warn == 0 and .counts.fail == 0" "$DATA/check_booted.out" >/dev/null' ||
	diagm "$(cat "$DATA/check_booted_text.out")"
m0=$(fact node 0 memtotal_kb) m1=$(fact node 1 memtotal_kb)
chk "the two 6 GiB nodes' MemTotal are within 3% for the guest kernel ($m0, $m1 kB)" \
	awk -v a="$m0" -v b="$m1" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.03 * (a > b ? a : b)) }'
chk "memory-balance: NUMA 0 and 1 are values, $(gib "$m0") and $(gib "$m1")" \
	eval '[ "$(finding check_booted memory-balance "NUMA 0")" = "info|$(gib "$m0")|null" ] &&
	      [ "$(finding check_booted memory-balance "NUMA 1")" = "info|$(gib "$m1")|null" ]'
for n in "${!NIC_NODE[@]}"; do judge_link "$n"; done
chk "cpu 3 taken offline in the guest" [ "$(cat "$DATA/cpu3_online.out")" = 0 ]
chk "... numaplan check exits 1 and finds it: cpu-offline, CPU 3, offline, expected online" \
	eval '[ "$(cat "$DATA/check_offline.rc")" = 1 ] && [ "$(finding check_offline cpu-offline "CPU 3")" = "fail|offline|online" ] &&
	      jq -e "[.findings[] | select(.severity == \"fail\" or .severity == \"warn\")] | length == 1" "$DATA/check_offline.out" >/dev/null'
chk "... and back online: exit 0, no cpu-offline finding" \
	eval '[ "$(cat "$DATA/check_online.rc")" = 0 ] && ! jq -e ".findings[] | select(.kind == \"cpu-offline\")" "$DATA/check_online.out" >/dev/null'

# ---- node 1 short of memory, eth1's root port capped at Gen1 x1 ---------------------
numavm_collect checkfault "$NP_SRCDIR/tests/numavm/check-collect.sh" --no-slurm
check_guest_is_shape
m0=$(fact node 0 memtotal_kb) m1=$(fact node 1 memtotal_kb)
chk "node 1 booted short: $m1 kB where node 0 has $m0 kB (4 GiB against 6 GiB)" \
	awk -v a="$m0" -v b="$m1" 'BEGIN { exit !(b < 0.8 * a) }'
chk "memory-balance: NUMA 1 found at $(gib "$m1"), expected $(gib "$m0") (the larger of two); exit 1" \
	eval '[ "$(finding check_booted memory-balance "NUMA 1")" = "fail|$(gib "$m1")|$(gib "$m0")" ] &&
	      [ "$(cat "$DATA/check_booted.rc")" = 1 ] && [ "$(finding check_booted memory-balance "NUMA 0")" = "info|$(gib "$m0")|null" ]'
b1=$(nic_pci eth1)
port1=$(pci "$b1" | awk '{ print $6 }')
chk "link=2.5x1 reached the guest kernel: eth1's root port ($port1) has LnkCap 2.5 GT/s x1" \
	[ "$(pci "$port1" | awk '{ print $(NF-1), $NF }')" = "2.5 1" ]
port0=$(pci "$(nic_pci eth0)" | awk '{ print $6 }')
chk "... and eth0's port has QEMU's default, more (16 GT/s x32)" [ "$(pci "$port0" | awk '{ print $(NF-1) + 0, $NF }')" = "16 32" ]
for n in "${!NIC_NODE[@]}"; do judge_link "$n"; done
diagm "QEMU's e1000e advertises LnkCap $(pci "$b1" | awk '{ print $(NF-1) " GT/s x" $NF }'): a port capped at or above that is no limit of it"
faults=$(jq -c '[.findings[] | select(.severity == "fail" or .severity == "warn") | .kind + " " + .object]' "$DATA/check_booted.out")
chk "no other fault: memory-balance NUMA 1 is the one warn or fail finding" [ "$faults" = '["memory-balance NUMA 1"]' ] ||
	diagm "faults: $faults"
done_testing
