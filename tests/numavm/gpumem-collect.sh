#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside the memnodes guest (nodes 0-1 with the CPUs, 2-3 memory only),
# without Slurm: a CPU-less node as a GPU's own memory on a real kernel.
# The guest has no GPU, so its live topology gets one by hand: an NVIDIA
# PCI function on socket 0 and node 2 marked as hwloc 2 marks a GPU's
# memory (subtype GPUMemory, info PCIBusID naming it).  Then the plugin's
# own path (the spank harness: plan, hwloc MPOL_BIND, read back) and the
# kernel's placement under that policy.  40-gpumem.t judges.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"
H=$(bin_of numaplan-spank-harness plugin)
D=/run/np-gpumem
XML=$D/node.xml

mkdir -m 0755 "$D" && lstopo-no-graphics --of xml "$D/live.xml" || echo "cannot write $D/live.xml" >&2
python3 - "$D/live.xml" "$XML" <<'PY'
import sys
import xml.etree.ElementTree as ET

BUSID = "0042:01:00.0"
tree = ET.parse(sys.argv[1])
objs = list(tree.iter("object"))
node2 = next(o for o in objs if o.get("type") == "NUMANode" and o.get("os_index") == "2")
node2.set("subtype", "GPUMemory")
node2.insert(0, ET.Element("info", {"name": "PCIBusID", "value": BUSID}))
pkg0 = next(o for o in objs if o.get("type") == "Package" and o.get("os_index") == "0")
bridge = ET.SubElement(pkg0, "object", {"type": "Bridge", "os_index": str(0x42 << 20),
                                        "bridge_type": "0-1", "depth": "0",
                                        "bridge_pci": "0042:[00-01]"})
ET.SubElement(bridge, "object", {"type": "PCIDev", "os_index": str((0x42 << 20) | (1 << 12)),
                                 "name": "NVIDIA Corporation GV100GL [Tesla V100 SXM2]",
                                 "pci_busid": BUSID, "pci_type": "0302 [10de:1db1] [10de:1212] a1",
                                 "pci_link_speed": "0.000000"})
with open(sys.argv[2], "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
    f.write(ET.tostring(tree.getroot(), encoding="unicode") + "\n")
PY
chmod 0644 "$XML"
cat /sys/devices/system/node/node2/cpulist >"$O/node2_cpulist" 2>&1
save topo "$NUMAPLAN" topo --topology "$XML" --json
save plan "$NUMAPLAN" plan --topology "$XML" -p gpu-near -n 1 -f json
save plan_compact "$NUMAPLAN" plan --topology "$XML" -p compact -n 4 -f json
# the plugin as slurmstepd runs it for task 0 of a 1-task step on cores
# 0-1 with GPU 0: plan, bind (hwloc: MPOL_BIND), read the policy back
SLURM_STEP_GPUS=0 CUDA_VISIBLE_DEVICES=0 save bind "$H" bind --cores=0-1 gpu-near,verbose 1 0 \
	"topology=$XML" cache=none on_error=fail
# the kernel: under MPOL_BIND to {0,2}, 450 MiB (node 0 has 384) fill
# node 0 and go on in node 2, the CPU-less one
save touch numactl --physcpubind=0 --membind=0,2 "$PROBE" --json --touch 450M
