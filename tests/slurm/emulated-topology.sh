#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# emulated-topology.sh OUT.xml - an hwloc XML of this machine's PUs (same OS
# indexes, so Slurm's cgroups and affinity still apply) but with two NUMA
# nodes, the first half of the PUs in NUMA 0 and the second half in NUMA 1,
# and an InfiniBand HCA "mlx5_0" (port 1 active) local to NUMA 1.
#
# On the 2-PU test machine: NUMA 0 = PU 0, NUMA 1 = PU 1, mlx5_0 near PU 1.
# With a second argument "two-hcas", NUMA 0 also gets an InfiniBand HCA
# "mlx5_1" (port 1 active) and an Ethernet interface "eth0".  With "gpus",
# the same, and four NVIDIA GPUs (PCI 10de, class 0302), two per NUMA node,
# whose PCI bus order alternates between the NUMA nodes:
#   bus order 0: 0000:05:00.0 NUMA 0 (beside mlx5_1)
#             1: 0000:45:00.0 NUMA 1 (beside mlx5_0)
#             2: 0000:85:00.0 NUMA 0
#             3: 0000:c5:00.0 NUMA 1
# With "gpu-partitions", the two HCAs and two AMD GPUs (PCI 1002:74a0,
# class 1200, as an MI300A) in compute-partition mode, two partitions each
# (two rsmi OS devices under one PCI function, as ROCm shows CPX mode):
#   0000:05:00.0 NUMA 0 (beside mlx5_1): rsmi0 rsmi1 (gres/gpu 0, 1)
#   0000:45:00.0 NUMA 1 (beside mlx5_0): rsmi2 rsmi3 (gres/gpu 2, 3)
# The file is written from scratch rather than edited out of lstopo's
# output: only the PU list is taken from the live machine (hwloc-calc),
# and every mask is computed by hwloc-calc too.
set -eu
out=${1:?usage: emulated-topology.sh OUT.xml [two-hcas]}
extra=${2:-}

pus=$(hwloc-calc --physical-output --intersect pu all | tr ',' ' ')
read -r -a pu <<<"$pus"
n=${#pu[@]}
[ "$n" -ge 2 ] || { echo "emulated-topology.sh: need at least 2 PUs, have $n" >&2; exit 1; }
half=$((n / 2))
first=("${pu[@]:0:$half}")
second=("${pu[@]:$half}")
mask() { local p a=(); for p in "$@"; do a+=("pu:$p"); done; hwloc-calc --physical-input "${a[@]}"; }
all=$(mask "${pu[@]}")
m0=$(mask "${first[@]}")
m1=$(mask "${second[@]}")
gp=10

cores() { # PU os indexes -> one Core+PU per index
	local p m
	for p in "$@"; do
		m=$(mask "$p")
		gp=$((gp + 2))
		cat <<EOF
        <object type="Core" os_index="$p" cpuset="$m" complete_cpuset="$m" gp_index="$gp">
          <object type="PU" os_index="$p" cpuset="$m" complete_cpuset="$m" gp_index="$((gp + 1))"/>
        </object>
EOF
	done
}

{
cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="$all" complete_cpuset="$all" allowed_cpuset="$all" nodeset="0x00000003" complete_nodeset="0x00000003" allowed_nodeset="0x00000003" gp_index="1">
    <info name="Backend" value="Linux"/>
    <info name="HostName" value="emulated"/>
    <info name="Architecture" value="x86_64"/>
    <object type="Package" os_index="0" cpuset="$all" complete_cpuset="$all" nodeset="0x00000003" complete_nodeset="0x00000003" gp_index="2">
      <info name="CPUModel" value="numaplan test: this machine's PUs as 2 NUMA nodes"/>
      <object type="Group" cpuset="$m0" complete_cpuset="$m0" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" kind="1000" subkind="0">
        <object type="NUMANode" os_index="0" cpuset="$m0" complete_cpuset="$m0" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="4" local_memory="1073741824"/>
EOF
gpu() { # gp_index busid
	cat <<EOF
        <object type="Bridge" gp_index="$1" bridge_type="0-1" depth="0" bridge_pci="0000:[${2:5:2}-${2:5:2}]">
          <object type="PCIDev" gp_index="$(($1 + 1))" pci_busid="$2" pci_type="0302 [10de:20b0] [10de:1450] a1" pci_link_speed="31.507692"/>
        </object>
EOF
}
apu() { # gp_index busid first-rsmi
	cat <<EOF
        <object type="Bridge" gp_index="$1" bridge_type="0-1" depth="0" bridge_pci="0000:[${2:5:2}-${2:5:2}]">
          <object type="PCIDev" gp_index="$(($1 + 1))" pci_busid="$2" pci_type="1200 [1002:74a0] [1002:74a0] 00" pci_link_speed="31.507692">
            <object type="OSDev" gp_index="$(($1 + 2))" name="rsmi$3" subtype="RSMI" osdev_type="1"/>
            <object type="OSDev" gp_index="$(($1 + 3))" name="rsmi$(($3 + 1))" subtype="RSMI" osdev_type="1"/>
          </object>
        </object>
EOF
}
cores "${first[@]}"
[ "$extra" = gpus ] && { gpu 200 0000:05:00.0; gpu 202 0000:85:00.0; }
[ "$extra" = gpu-partitions ] && apu 210 0000:05:00.0 0
case $extra in two-hcas|gpus|gpu-partitions) cat <<EOF
        <object type="Bridge" gp_index="100" bridge_type="0-1" depth="0" bridge_pci="0000:[21-22]">
          <object type="PCIDev" gp_index="101" pci_busid="0000:21:00.0" pci_type="0207 [15b3:101b] [15b3:0007] 00" pci_link_speed="31.507692">
            <object type="OSDev" gp_index="102" name="mlx5_1" subtype="OpenFabrics" osdev_type="3">
              <info name="Port1State" value="4"/>
              <info name="Port1LID" value="0x2"/>
              <info name="Port1LinkLayer" value="InfiniBand"/>
            </object>
          </object>
          <object type="PCIDev" gp_index="103" pci_busid="0000:22:00.0" pci_type="0200 [8086:1533] [8086:0000] 03" pci_link_speed="0.250000">
            <object type="OSDev" gp_index="104" name="eth0" osdev_type="2">
              <info name="Address" value="02:00:00:00:00:01"/>
            </object>
          </object>
        </object>
EOF
;; esac
cat <<EOF
      </object>
      <object type="Group" cpuset="$m1" complete_cpuset="$m1" nodeset="0x00000002" complete_nodeset="0x00000002" gp_index="5" kind="1000" subkind="0">
        <object type="NUMANode" os_index="1" cpuset="$m1" complete_cpuset="$m1" nodeset="0x00000002" complete_nodeset="0x00000002" gp_index="6" local_memory="1073741824"/>
EOF
cores "${second[@]}"
[ "$extra" = gpus ] && { gpu 204 0000:45:00.0; gpu 206 0000:c5:00.0; }
[ "$extra" = gpu-partitions ] && apu 220 0000:45:00.0 2
cat <<EOF
        <object type="Bridge" gp_index="7" bridge_type="0-1" depth="0" bridge_pci="0000:[41-41]">
          <object type="PCIDev" gp_index="8" pci_busid="0000:41:00.0" pci_type="0207 [15b3:101b] [15b3:0007] 00" pci_link_speed="31.507692">
            <object type="OSDev" gp_index="9" name="mlx5_0" subtype="OpenFabrics" osdev_type="3">
              <info name="NodeGUID" value="0c42:a103:00a1:0001"/>
              <info name="SysImageGUID" value="0c42:a103:00a1:0001"/>
              <info name="Port1State" value="4"/>
              <info name="Port1LID" value="0x1"/>
              <info name="Port1LMC" value="0"/>
              <info name="Port1GID0" value="fe80:0000:0000:0000:0c42:a103:00a1:0001"/>
              <info name="Port1LinkLayer" value="InfiniBand"/>
            </object>
          </object>
        </object>
      </object>
    </object>
  </object>
  <distances2 type="NUMANode" nbobjs="2" kind="5" name="NUMALatency" indexing="os">
    <indexes length="4">0 1 </indexes>
    <u64values length="12">10 20 20 10 </u64values>
  </distances2>
</topology>
EOF
} >"$out.tmp"
mv "$out.tmp" "$out"
