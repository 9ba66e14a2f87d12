#!/bin/bash
# make-gpumem-sierra.sh - regenerate gpumem-power9-2s-4v100-sierra-v2.xml.
#
#   tests/xml/make-gpumem-sierra.sh [OUT]   (default: next to this script)
#
# The Sierra node of tests/topologies (IBM AC922, hwloc 1.11 XML) has its
# four V100s' memory as CPU-less NUMA nodes 252-255, but a v1 file cannot
# say which node is which GPU's (they are equidistant, 80, from both
# sockets, and hang off the machine).  hwloc 2 on Linux says it as
# hwloc 2 does for NVIDIA GPU NUMA nodes (topology-linux.c, kept with
# HWLOC_KEEP_NVIDIA_GPU_NUMA_NODES=1): subtype "GPUMemory", an info
# "PCIBusID" naming the GPU, and the GPU's local CPUs as the node's
# locality, so the node hangs next to its socket's DRAM node.
#
# This script converts the v1 file with hwloc's own tools and adds those
# attributes by hand.  The pairing is an ASSUMPTION for the test, not a
# capture: 252/253 -> the socket-0 GPUs 0004:04:00.0/0004:05:00.0,
# 254/255 -> the socket-1 GPUs 0035:03:00.0/0035:04:00.0, in bus order.
# Then hwloc re-exports the edited file, so the file is what hwloc itself
# writes for that topology (and proves that hwloc loads it).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../topologies/ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml
out=${1:-$here/gpumem-power9-2s-4v100-sierra-v2.xml}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

lstopo-no-graphics -i "$src" --whole-io --of xml "$tmp/v2.xml"
python3 - "$tmp/v2.xml" "$tmp/edited.xml" <<'PY'
import sys
import xml.etree.ElementTree as ET

GPU_OF = {252: "0004:04:00.0", 253: "0004:05:00.0", 254: "0035:03:00.0", 255: "0035:04:00.0"}
SOCKET_OF = {252: 0, 253: 0, 254: 8, 255: 8}   # the OS index of the socket's DRAM node

def bits(s):
    v = 0
    for chunk in s.split(","):
        v = (v << 32) | (int(chunk, 16) if chunk else 0)
    return v

def text(v):
    chunks = []
    while True:
        chunks.append("0x%08x" % (v & 0xffffffff))
        v >>= 32
        if not v:
            break
    return ",".join(reversed(chunks))

tree = ET.parse(sys.argv[1])
machine = tree.getroot().find("object")
parent_of = {c: p for p in tree.iter() for c in p}
nodes = {int(n.get("os_index")): n for n in tree.iter("object") if n.get("type") == "NUMANode"}
for os_index, busid in GPU_OF.items():
    node = nodes[os_index]
    wrapper = parent_of[node]              # the empty Group hwloc made for it
    parent_of[wrapper].remove(wrapper)
    home = parent_of[nodes[SOCKET_OF[os_index]]]   # the socket's Group
    for attr in ("cpuset", "complete_cpuset"):
        node.set(attr, home.get(attr))
    node.set("subtype", "GPUMemory")
    info = ET.Element("info", {"name": "PCIBusID", "value": busid})
    info.tail = node.text
    node.insert(0, info)
    # after the socket's other memory children: OS index order, as
    # hwloc's Linux discovery attaches them
    last = max(i for i, c in enumerate(home) if c.get("type") == "NUMANode")
    home.insert(last + 1, node)
    mask = bits(node.get("nodeset"))
    # every object of the socket now has the node in its locality; a
    # NUMA node's own nodeset stays itself
    for o in home.iter("object"):
        if o.get("type") == "NUMANode":
            continue
        for attr in ("nodeset", "complete_nodeset"):
            if o.get(attr):
                o.set(attr, text(bits(o.get(attr)) | mask))
with open(sys.argv[2], "w") as f:
    f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
    f.write(ET.tostring(tree.getroot(), encoding="unicode"))
    f.write("\n")
PY
lstopo-no-graphics -f -i "$tmp/edited.xml" --whole-io --of xml "$out"
echo "wrote $out"
