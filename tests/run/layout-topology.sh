#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# layout-topology.sh OUT.xml shared|per-core - an hwloc XML of this
# machine's PUs (same OS indexes, so Slurm's cgroups and affinity still
# apply), one package, one NUMA node, and the L3 laid out as asked: one L3
# over every core (shared), or one L3 per core (per-core).
#
# Machines of one kind differ here: one has a single L3 over its two
# cores, the next an L3 per core.  A test whose scenario needs one of the
# two (stream.l3 with two threads, say) runs the vcluster on this file
# (vcluster up --topology) instead of assuming the host's layout.  Only
# the PU list is read from the live machine; every mask is hwloc-calc's.
set -eu
out=${1:?usage: layout-topology.sh OUT.xml shared|per-core}
layout=${2:?usage: layout-topology.sh OUT.xml shared|per-core}
case $layout in shared|per-core) ;; *) echo "layout-topology.sh: '$layout' is not shared or per-core" >&2; exit 2;; esac

read -r -a pu <<<"$(hwloc-calc --physical-output --intersect pu all | tr ',' ' ')"
[ "${#pu[@]}" -ge 2 ] || { echo "layout-topology.sh: need at least 2 PUs, have ${#pu[@]}" >&2; exit 1; }
mask() { local p a=(); for p in "$@"; do a+=("pu:$p"); done; hwloc-calc --physical-input "${a[@]}"; }
all=$(mask "${pu[@]}")
gp=10

core() { # PU os index
	local m; m=$(mask "$1")
	gp=$((gp + 2))
	cat <<EOF
        <object type="Core" os_index="$1" cpuset="$m" complete_cpuset="$m" gp_index="$gp">
          <object type="PU" os_index="$1" cpuset="$m" complete_cpuset="$m" gp_index="$((gp + 1))"/>
        </object>
EOF
}
l3() { # mask, then the cores' PUs
	local m=$1 p; shift
	gp=$((gp + 1))
	echo "      <object type=\"L3Cache\" cpuset=\"$m\" complete_cpuset=\"$m\" gp_index=\"$gp\" cache_size=\"16777216\" depth=\"3\" cache_linesize=\"64\" cache_associativity=\"16\" cache_type=\"0\">"
	for p in "$@"; do core "$p"; done
	echo "      </object>"
}

{
cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE topology SYSTEM "hwloc2.dtd">
<topology version="2.0">
  <object type="Machine" os_index="0" cpuset="$all" complete_cpuset="$all" allowed_cpuset="$all" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">
    <info name="Backend" value="Linux"/>
    <info name="HostName" value="layout-$layout"/>
    <info name="Architecture" value="x86_64"/>
    <object type="Package" os_index="0" cpuset="$all" complete_cpuset="$all" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2">
      <info name="CPUModel" value="numaplan test: this machine's PUs, L3 $layout"/>
      <object type="NUMANode" os_index="0" cpuset="$all" complete_cpuset="$all" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="3" local_memory="1073741824"/>
EOF
if [ "$layout" = shared ]; then
	l3 "$all" "${pu[@]}"
else
	for p in "${pu[@]}"; do l3 "$(mask "$p")" "$p"; done
fi
cat <<EOF
    </object>
  </object>
</topology>
EOF
} >"$out"
