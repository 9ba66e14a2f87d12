#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Adapters that are down get no ranks (numaplan plan/topo): port states from
# the XML offline, from a sysfs tree with --sysfs, named adapters NAME:PORT
# and plain interfaces, the refusal of --hca with other policies, device
# names that must not reach an environment, and each fabric's variables.
# Expected CPUs come from hwloc-calc on the same files, not from numaplan.
source "$(dirname "$0")/../tap.sh"
SPR=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml
KNL=$TOPO/intel-knl7250-snc4-flat-8numa-mlx5.xml
LASSEN=$TOPO/ibm-power9-2s-4v100-4mlx5-lassen.xml
TIOGA=$TOPO/amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml
SGI=$TOPO/sgi-uv2000-24s-24numa-mlx4.xml
FAKE="$NP_SRCDIR/tests/slurm/fake-sysfs.sh"
tmp=$(mktemp -d /tmp/numaplan-cli-hca.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# (check's own output must not be redirected: jq's goes away in jqe)
jqe() { jq -e "$@" >/dev/null; }
# PUs near an OS device, as hwloc sees it
pus_of() { hwloc-calc --input "$1" --physical-output --intersect pu "os=$2" | tr ',' '\n' | sort -n; }
# every rank's cpus (a cpulist) inside the given PU list (one per line)
ranks_within() { # json, pu-list
	local c
	for c in $(jq -r '.ranks[].cpus' <<<"$1" | tr ',' '\n' |
	           awk -F- '{ if (NF == 2) for (i = $1; i <= $2; i++) print i; else print $1 }'); do
		grep -qx "$c" <<<"$2" || return 1
	done
}

# ---- the stored SPR file: mlx5_0 ACTIVE, mlx5_1/2/3 DOWN ------------------
run numaplan plan --topology "$SPR" -n 8 -p hca-near -f json
check "SPR: 8 ranks, all on the only ACTIVE adapter mlx5_0" \
	jqe '[.ranks[].hca] | all(. == "mlx5_0")' <<<"$OUT"
check "SPR: their CPUs are mlx5_0's (hwloc-calc os=mlx5_0)" ranks_within "$OUT" "$(pus_of "$SPR" mlx5_0)"
check "SPR: skipped_devices names the three DOWN adapters, in topology order" \
	test "$(jq -c '[.skipped_devices[] | .name + "=" + .reason]' <<<"$OUT")" = \
	'["mlx5_2=port 1 DOWN","mlx5_1=port 1 DOWN","mlx5_3=port 1 DOWN"]'
check "SPR: port states from the topology" test "$(jq -r .port_states <<<"$OUT")" = topology
run numaplan plan --topology "$SPR" -n 2 -p hca-near
check "table: one 'skipped' line per adapter" test "$(grep -c '^skipped: mlx5_[123] (port 1 DOWN)$' <<<"$OUT")" -eq 3
run numaplan topo --topology "$SPR"
check "topo: the DOWN adapters are marked not usable, mlx5_0 is not" \
	eval '[ "$(grep -c "^  mlx5_[123] .*port 1 DOWN .*\[not usable: port 1 DOWN\]$" <<<"$OUT")" -eq 3 ] &&
	      grep -q "^  mlx5_0 .*port 1 ACTIVE lid 14$" <<<"$OUT"'
check "topo: says where port states come from" grep -q "port states as recorded in the topology" <<<"$OUT"
run numaplan topo --topology "$SPR" --json
check "topo --json: usable / unusable_reason / state_name per device" \
	test "$(jq -c '[.devices[] | select(.kind == "InfiniBand") | [.name, .usable, .unusable_reason, .ports[0].state_name]]' <<<"$OUT")" = \
	'[["mlx5_2",false,"port 1 DOWN","DOWN"],["mlx5_0",true,null,"ACTIVE"],["mlx5_1",false,"port 1 DOWN","DOWN"],["mlx5_3",false,"port 1 DOWN","DOWN"]]'

# ---- a KNL copy with two Omni-Path HFIs: hfi1_0 ACTIVE, hfi1_1 DOWN --------
# (the stored file has the HFI's PCI function on bus 01 without its OS
# device; the copy adds it, a second HFI in the cluster of NUMA 2, and
# turns the mlx5 into a disk so that the node's fabric is Omni-Path)
knl() { # state of hfi1_1
	sed -e 's/name="mlx5_0" osdev_type="3"/name="sdz" osdev_type="0"/' \
	    -e 's|<info name="PCISlot" value="802"/>|&<object type="OSDev" name="hfi1_0" osdev_type="3"><info name="Port1State" value="4"/></object>|' \
	    -e 's|<object type="NUMANode" os_index="6"|<object type="Bridge" os_index="2" bridge_type="0-1" depth="0" bridge_pci="0000:[81-81]"><object type="PCIDev" os_index="528384" pci_busid="0000:81:00.0" pci_type="0208 [8086:24f0] [8086:24f0] 11" pci_link_speed="0.000000"><object type="OSDev" name="hfi1_1" osdev_type="3"><info name="Port1State" value="'"$1"'"/></object></object></object>&|' \
	    "$KNL"
}
knl 1 >"$tmp/knl.xml"
run numaplan plan --topology "$tmp/knl.xml" -n 8 -p hca-near -f json
check "KNL, hfi1_1 DOWN: every rank on hfi1_0" jqe '[.ranks[].hca] | all(. == "hfi1_0")' <<<"$OUT"
check "KNL: on hfi1_0's CPUs (hwloc-calc os=hfi1_0)" ranks_within "$OUT" "$(pus_of "$tmp/knl.xml" hfi1_0)"
check "KNL: PSM2's HFI_UNIT=0 HFI_PORT=1, UCX hfi1_0:1" \
	jqe '[.ranks[].env] | all(.HFI_UNIT == "0" and .HFI_PORT == "1" and .UCX_NET_DEVICES == "hfi1_0:1")' <<<"$OUT"
check "KNL: hfi1_1 skipped, port 1 DOWN" test "$(jq -c .skipped_devices <<<"$OUT")" = '[{"name":"hfi1_1","reason":"port 1 DOWN"}]'
knl 4 >"$tmp/knl4.xml"
run numaplan plan --topology "$tmp/knl4.xml" -n 8 -p hca-near -f json
check "KNL, both ACTIVE (control): 4 ranks each" \
	test "$(jq -r '[.ranks[].hca] | join(",")' <<<"$OUT")" = "hfi1_0,hfi1_0,hfi1_0,hfi1_0,hfi1_1,hfi1_1,hfi1_1,hfi1_1"

# ---- live states: --sysfs, a tree built from the XML then changed ----------
bash "$FAKE" "$SPR" "$tmp/sys"
run numaplan plan --topology "$SPR" --sysfs "$tmp/sys" -n 4 -p hca-near -f json
check "--sysfs, tree as the XML: same choice (mlx5_0)" jqe '[.ranks[].hca] | all(. == "mlx5_0")' <<<"$OUT"
check "--sysfs: port_states names the tree" test "$(jq -r .port_states <<<"$OUT")" = "$tmp/sys"
bash "$FAKE" set "$tmp/sys" mlx5_0 1 DOWN
bash "$FAKE" set "$tmp/sys" mlx5_3 1 ACTIVE
run numaplan plan --topology "$SPR" --sysfs "$tmp/sys" -n 4 -p hca-near -f json
check "--sysfs: mlx5_0 DOWN, mlx5_3 ACTIVE live: the ranks move to mlx5_3" \
	jqe '[.ranks[].hca] | all(. == "mlx5_3")' <<<"$OUT"
check "--sysfs: on mlx5_3's CPUs" ranks_within "$OUT" "$(pus_of "$SPR" mlx5_3)"
check "--sysfs: mlx5_0 is among the skipped, port 1 DOWN" \
	jqe '.skipped_devices | any(.name == "mlx5_0" and .reason == "port 1 DOWN")' <<<"$OUT"
run numaplan plan --topology "$SPR" -n 4 -p hca-near -f json
check "without --sysfs, offline: the XML's states again (mlx5_0)" jqe '.ranks[0].hca == "mlx5_0"' <<<"$OUT"
rm -rf "$tmp/sys/class/infiniband/mlx5_3"
run numaplan topo --topology "$SPR" --sysfs "$tmp/sys"
check "topo --sysfs: a device missing from the tree is not present" \
	grep -q "^  mlx5_3 .*\[not usable: not present on this node (no $tmp/sys/class/infiniband/mlx5_3)\]" <<<"$OUT"
check "topo --sysfs: link layers shown" grep -q "^  mlx5_0 .*port 1 DOWN InfiniBand" <<<"$OUT"
run numaplan topo
check "live topo: states read from /sys" grep -q "port states read from /sys" <<<"$OUT"

# ---- all down: fallback, or an error with --no-fallback --------------------
sed 's/name="Port1State" value="4"/name="Port1State" value="1"/' "$SPR" >"$tmp/spr-down.xml"
run numaplan plan --topology "$tmp/spr-down.xml" -n 4 -p hca-near -f json
check "all DOWN: falls back to spread with a warning naming the adapters" \
	eval '[ "$RC" -eq 0 ] && [ "$(jq -r .policy <<<"$OUT")" = spread ] &&
	      grep -q "warning: hca-near: no usable adapter on this node (mlx5_2: port 1 DOWN; mlx5_0: port 1 DOWN; mlx5_1: port 1 DOWN; mlx5_3: port 1 DOWN), falling back to spread" <<<"$ERR"'
run numaplan plan --topology "$tmp/spr-down.xml" -n 4 -p hca-near --no-fallback
check "all DOWN, --no-fallback: exit 2, nothing on stdout, the reasons" \
	eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "no usable adapter on .*mlx5_0: port 1 DOWN" <<<"$ERR"'

# ---- NAME:PORT and plain interfaces ----------------------------------------
run numaplan plan --topology "$EPYC" -n 2 -p hca-near --hca mlx5_0:1 -f json
check "--hca mlx5_0:1 (NUMAPLAN_HCA's form) is accepted" jqe '.ranks[0].env.UCX_NET_DEVICES == "mlx5_0:1"' <<<"$OUT"
run numaplan plan --topology "$EPYC" -n 2 -p hca-near --hca mlx5_0:2
check "--hca mlx5_0:2: exit 2, the device's ports named" \
	eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "HCA .mlx5_0. has no port 2 (ports: 1)" <<<"$ERR"'
run numaplan plan --topology "$EPYC" -n 8 -p hca-near --hca eno1 -f json
check "--hca eno1: every rank on eno1's CPUs (hwloc-calc os=eno1)" ranks_within "$OUT" "$(pus_of "$EPYC" eno1)"
check "--hca eno1: the TCP transports' variables, no port" \
	jqe '[.ranks[] | .hca_port == null and .env.UCX_NET_DEVICES == "eno1" and .env.OMPI_MCA_btl_tcp_if_include == "eno1" and .env.FI_TCP_IFACE == "eno1" and .env.NCCL_SOCKET_IFNAME == "=eno1" and (.env | has("OMPI_MCA_btl_openib_if_include") | not)] | all' <<<"$OUT"
run numaplan plan --topology "$SGI" -n 4 -p hca-near --hca eth4 -f json
check "SGI --hca eth4: NUMA 4's CPUs (hwloc-calc os=eth4)" ranks_within "$OUT" "$(pus_of "$SGI" eth4)"
run numaplan plan --topology "$EPYC" -n 2 -p hca-near --hca eno1:1
check "--hca eno1:1: an interface has no port" eval '[ "$RC" -eq 2 ] && grep -q "has no ports" <<<"$ERR"'
run numaplan plan --topology "$EPYC" -n 2 -p hca-near --hca 'mlx5_0:x'
check "--hca mlx5_0:x: refused with the rule" eval '[ "$RC" -eq 2 ] && grep -q "port must be a number from 1 to 255" <<<"$ERR"'

# ---- --hca with another policy: refused, naming it -------------------------
for pol in compact spread numa none; do
	run numaplan plan --topology "$EPYC" -n 2 -p "$pol" --hca mlx5_0
	check "--hca with --policy $pol: exit 2, nothing on stdout, names the policy" \
		eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q -- "the adapter list .mlx5_0. applies only to the policies hca-near and gpu-near, not to the policy .$pol." <<<"$ERR"'
done

# ---- device names from an XML ------------------------------------------------
long=$(printf 'a%.0s' $(seq 3000))
sed -e 's/name="mlx5_1" osdev_type="3"/name="mlx5_1\&#10;EVIL=1" osdev_type="3"/' \
    -e "s/name=\"mlx5_2\" osdev_type=\"3\"/name=\"$long\" osdev_type=\"3\"/" "$LASSEN" >"$tmp/bad.xml"
run numaplan plan --topology "$tmp/bad.xml" -n 4 -p hca-near -f json
check "bad names: no value with a newline, nothing cut short (every UCX value NAME:1)" \
	jqe '([.ranks[].env | to_entries[] | .value | test("\n") | not] | all) and
	     ([.ranks[].env.UCX_NET_DEVICES] | all(test("^mlx5_[03]:1$")))' <<<"$OUT"
check "bad names: both skipped with the reason" \
	jqe '.skipped_devices | length == 2 and (.[0].name == "mlx5_1\\x0aEVIL=1") and (.[0].reason | startswith("invalid name"))
	       and (.[1].reason | test("3000 characters long"))' <<<"$OUT"
run numaplan topo --topology "$tmp/bad.xml"
check "topo: the newline is shown escaped, no forged line" \
	eval 'grep -q "^  mlx5_1\\\\x0aEVIL=1 " <<<"$OUT" && ! grep -q "^EVIL" <<<"$OUT"'

# ---- Slingshot: Cray MPICH's NIC mapping -------------------------------------
# Tioga: hsi2 NUMA 0, hsi1 1, hsi3 2, hsi0 3; 8 ranks in blocks of 2; NIC
# index = N of cxiN (= hsiN): ranks 0-1 NIC 2, 2-3 NIC 1, 4-5 NIC 3, 6-7 NIC 0
run numaplan plan --topology "$TIOGA" -n 8 -p hca-near -f json
check "Slingshot: MPICH_OFI_NIC_POLICY=USER, MPICH_OFI_NIC_MAPPING per node" \
	jqe '[.ranks[].env] | all(.MPICH_OFI_NIC_POLICY == "USER" and .MPICH_OFI_NIC_MAPPING == "0:6-7;1:2-3;2:0-1;3:4-5")' <<<"$OUT"
done_testing
