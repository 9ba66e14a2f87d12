#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# derive.py - the derived topologies of this directory, made from the real
# Sapphire Rapids file ../intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml (see
# README.md): Xeon Max (the same Sapphire Rapids die with HBM) in flat
# mode, and Sapphire Rapids with CXL memory, each as hwloc 2.12 writes it
# (subtypes, MemoryTier, CXLDevice) and as hwloc 2.9 writes it (none of
# those: only the HMAT bandwidth and latency).  Run from this directory;
# it rewrites the four files.
import copy
import xml.etree.ElementTree as ET

SRC = "../intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml"
IO = ("Bridge", "PCIDev", "OSDev")
HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n'


def bits(mask):
    """hwloc's bitmap text ("0x000000ff,,0x1") as a set of indexes."""
    words = mask.split(",")
    out = set()
    for i, w in enumerate(reversed(words)):
        v = int(w, 16) if w else 0
        out |= {32 * i + b for b in range(32) if v >> b & 1}
    return out


def mask(s):
    if not s:
        return "0x0"
    n = max(s) // 32 + 1
    words = []
    for i in reversed(range(n)):
        v = sum(1 << (b - 32 * i) for b in s if 32 * i <= b < 32 * i + 32)
        words.append("0x%08x" % v)
    return ",".join(words)


def strip_io(el):
    for c in list(el):
        if c.tag == "object" and c.get("type") in IO:
            el.remove(c)
        else:
            strip_io(c)


def parents(root):
    return {c: p for p in root.iter() for c in p}


def load():
    tree = ET.parse(SRC)
    root = tree.getroot()
    strip_io(root)
    for c in list(root):
        if c.tag in ("memattr", "distances2"):
            root.remove(c)
    machine = root.find("object")
    for i in list(machine.findall("info")):
        if i.get("name", "").startswith("DMI"):
            machine.remove(i)
    return tree, root, machine


def numa_nodes(root):
    return [o for o in root.iter("object") if o.get("type") == "NUMANode"]


def add_node(parent, where, like, os, gp, memory):
    n = ET.Element("object", {"type": "NUMANode", "os_index": str(os),
                              "cpuset": like.get("cpuset"), "complete_cpuset": like.get("complete_cpuset"),
                              "nodeset": mask({os}), "complete_nodeset": mask({os}),
                              "gp_index": str(gp), "local_memory": str(memory)})
    ET.SubElement(n, "page_type", {"size": "4096", "count": str(memory // 4096)})
    ET.SubElement(n, "page_type", {"size": "2097152", "count": "0"})
    ET.SubElement(n, "page_type", {"size": "1073741824", "count": "0"})
    parent.insert(where, n)
    return n


def widen_nodesets(root, owner, extra):
    """Objects holding node `owner` (other than NUMA nodes) hold `extra` too."""
    for o in root.iter("object"):
        if o.get("type") == "NUMANode":
            continue
        for a in ("nodeset", "complete_nodeset", "allowed_nodeset"):
            if o.get(a) is not None and owner in bits(o.get(a)):
                o.set(a, mask(bits(o.get(a)) | {extra}))


def distances(root, nodes, dist):
    n = len(nodes)
    d = ET.SubElement(root, "distances2", {"type": "NUMANode", "nbobjs": str(n), "kind": "5",
                                           "name": "NUMALatency", "indexing": "os"})
    idx = ET.SubElement(d, "indexes", {"length": "0"})
    idx.text = " ".join(str(o) for o in nodes) + " "
    idx.set("length", str(len(idx.text)))
    vals = [dist(a, b) for a in nodes for b in nodes]
    for i in range(0, len(vals), 16):
        v = ET.SubElement(d, "u64values", {"length": "0"})
        v.text = " ".join(map(str, vals[i:i + 16])) + " "
        v.set("length", str(len(v.text)))


def memattrs(root, entries):
    """entries: (name, flags, [(gp, value, initiator cpuset)])"""
    for name, flags, vals in entries:
        m = ET.SubElement(root, "memattr", {"name": name, "flags": str(flags)})
        for gp, value, ini in vals:
            ET.SubElement(m, "memattr_value", {"target_obj_type": "NUMANode", "target_obj_gp_index": str(gp),
                                               "value": str(value), "initiator_cpuset": ini})


def add_info(obj, name, value):
    """After the object's other infos: hwloc reads them before its children."""
    infos = [i for i, c in enumerate(obj) if c.tag in ("page_type", "info")]
    obj.insert(infos[-1] + 1 if infos else 0, ET.Element("info", {"name": name, "value": value}))


def move_memattrs_last(root):
    # hwloc writes distances, then support, then memattrs, then cpukinds
    tail = [c for c in root if c.tag in ("support", "memattr", "cpukind")]
    for c in tail:
        root.remove(c)
    order = {"support": 0, "memattr": 1, "cpukind": 2}
    for c in sorted(tail, key=lambda c: order[c.tag]):
        root.append(c)


def write(tree, path):
    ET.indent(tree, "  ")
    with open(path, "w") as f:
        f.write(HEADER)
        f.write(ET.tostring(tree.getroot(), encoding="unicode"))
        f.write("\n")


def xeon_max(new_hwloc):
    tree, root, machine = load()
    par = parents(root)
    ddr = numa_nodes(root)
    hbm = []
    for k, d in enumerate(ddr):
        p = par[d]
        h = add_node(p, list(p).index(d) + 1, d, 8 + k, 5000 + k, 16 << 30)
        widen_nodesets(root, k, 8 + k)
        hbm.append(h)
    for o in root.iter("object"):
        if o.get("type") == "Package":
            for i in o.findall("info"):
                if i.get("name") == "CPUModel":
                    i.set("value", "Intel(R) Xeon(R) CPU Max 9480")
    same_pkg = lambda a, b: (a % 8) // 4 == (b % 8) // 4

    def dist(a, b):
        if a == b:
            return 10
        if a % 8 == b % 8:
            return 13
        both_ddr = a < 8 and b < 8
        if same_pkg(a, b):
            return 12 if both_ddr else 14
        return 21 if both_ddr else 23
    distances(root, list(range(16)), dist)
    cl = [d.get("cpuset") for d in ddr]
    memattrs(root, [
        ("Bandwidth", 5, [(792 + k, 219100, cl[k]) for k in range(8)] +
                         [(5000 + k, 876400, cl[k]) for k in range(8)]),
        ("Latency", 6, [(792 + k, 91, cl[k]) for k in range(8)] +
                       [(5000 + k, 118, cl[k]) for k in range(8)]),
    ])
    if new_hwloc:
        for d in ddr:
            d.set("subtype", "DRAM")
            ET.SubElement(d, "info", {"name": "MemoryTier", "value": "1"})
        for h in hbm:
            h.set("subtype", "HBM")
            ET.SubElement(h, "info", {"name": "MemoryTier", "value": "0"})
        add_info(machine, "MemoryTiersNr", "2")
    move_memattrs_last(root)
    return tree


def spr_cxl(new_hwloc):
    tree, root, machine = load()
    ddr = numa_nodes(root)
    pkgs = [o for o in root.iter("object") if o.get("type") == "Package"]
    cxl = []
    for p, pk in enumerate(pkgs):
        where = len(pk.findall("info"))
        c = add_node(pk, where, pk, 8 + p, 6000 + p, 128 << 30)
        for a in ("nodeset", "complete_nodeset"):
            pk.set(a, mask(bits(pk.get(a)) | {8 + p}))
        cxl.append(c)
    for a in ("nodeset", "complete_nodeset", "allowed_nodeset"):
        if machine.get(a) is not None:
            machine.set(a, mask(bits(machine.get(a)) | {8, 9}))

    def dist(a, b):
        if a == b:
            return 10
        pa = a - 8 if a >= 8 else a // 4
        pb = b - 8 if b >= 8 else b // 4
        if a < 8 and b < 8:
            return 12 if pa == pb else 21
        return 14 if pa == pb else 26
    distances(root, list(range(10)), dist)
    cl = [d.get("cpuset") for d in ddr]
    pc = [p.get("cpuset") for p in pkgs]
    memattrs(root, [
        ("Bandwidth", 5, [(792 + k, 219100, cl[k]) for k in range(8)] +
                         [(6000 + p, 52000, pc[p]) for p in range(2)]),
        ("Latency", 6, [(792 + k, 91, cl[k]) for k in range(8)] +
                       [(6000 + p, 246, pc[p]) for p in range(2)]),
    ])
    if new_hwloc:
        for d in ddr:
            d.set("subtype", "DRAM")
            ET.SubElement(d, "info", {"name": "MemoryTier", "value": "0"})
        for p, c in enumerate(cxl):
            c.set("subtype", "CXL-DRAM")
            ET.SubElement(c, "info", {"name": "CXLDevice", "value": "0000:%02x:00.0" % (0x38 + 0x80 * p)})
            ET.SubElement(c, "info", {"name": "MemoryTier", "value": "1"})
        add_info(machine, "MemoryTiersNr", "2")
    move_memattrs_last(root)
    return tree


write(xeon_max(True), "intel-xeonmax9480-2s-snc4-flat-16numa-hbm-hwloc212.xml")
write(xeon_max(False), "intel-xeonmax9480-2s-snc4-flat-16numa-hbm-hwloc29.xml")
write(spr_cxl(True), "intel-spr8480-2s-snc4-10numa-cxl-hwloc212.xml")
write(spr_cxl(False), "intel-spr8480-2s-snc4-10numa-cxl-hwloc29.xml")
