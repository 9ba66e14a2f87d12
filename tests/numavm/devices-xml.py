# SPDX-License-Identifier: BSD-3-Clause
# devices-xml.py LIVE.xml OUT.xml IBDEV=NETDEV... - the devices guest's
# topology file (tests/numavm/devices-collect.sh): the live hwloc export
# with each Soft-RoCE device moved under the PCI function of its netdev,
# and the virtio GPUs' vendor id made AMD's (numaplan counts only NVIDIA,
# AMD and Intel functions as GPUs).  Nothing else changes.
import re
import sys
import xml.etree.ElementTree as ET

tree = ET.parse(sys.argv[1])
root = tree.getroot()
parent = {c: p for p in root.iter() for c in p}
objs = list(root.iter("object"))
osdev = {o.get("name"): o for o in objs if o.get("type") == "OSDev"}
for pair in sys.argv[3:]:
    ib, net = pair.split("=", 1)
    dev, nd = osdev.get(ib), osdev.get(net)
    if dev is None or nd is None:
        sys.exit(f"no OS device {ib} or {net} in the live topology")
    pci = parent[nd]
    if pci.get("type") != "PCIDev":
        sys.exit(f"{net} is not under a PCI function")
    parent[dev].remove(dev)
    pci.append(dev)
    print(f"{ib}: moved under {pci.get('pci_busid')} (beside {net})")
for o in objs:
    if o.get("type") == "PCIDev" and re.match(r"0380 \[1af4:1050\]", o.get("pci_type", "")):
        o.set("pci_type", o.get("pci_type").replace("[1af4:1050]", "[1002:1050]", 1))
        print(f"{o.get('pci_busid')}: vendor 1af4 -> 1002")
with open(sys.argv[2], "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
    f.write(ET.tostring(root, encoding="unicode") + "\n")
