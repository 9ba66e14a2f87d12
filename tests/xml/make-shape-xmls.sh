#!/bin/bash
# make-shape-xmls.sh - small hwloc XML files that hwloc (and lstopo) load
# but whose tree no machine has (issue 22, items 1 and 7).
#
#   tests/xml/make-shape-xmls.sh [OUTDIR]      (default: this directory)
#
# Each is hwloc's own synthetic topology (lstopo-no-graphics --input
# DESCRIPTION --of xml) with one structural edit:
#   shape-package-two-depths.xml  "package:1 l1d:4 pu:1", the L1Caches
#       renamed Package (packages inside a package), the PUs' os_index
#       permuted (3 0 2 1) and their cpusets left alone;
#   shape-core-as-pu.xml          "package:1 core:2 pu:2", the Cores
#       renamed PU (PUs inside PUs);
#   shape-l3-two-depths.xml       "package:2 l3:1 core:2 pu:1", the Packages
#       renamed L3Cache (an L3 level duplicated above the other);
#   shape-pu-index-permuted.xml   "package:1 core:4 pu:1", the PUs'
#       os_index permuted (3 0 2 1), cpusets left alone: PU P#3's cpuset is
#       CPU 0.
set -eu
out=${1:-$(cd "$(dirname "$0")" && pwd)}
command -v lstopo-no-graphics >/dev/null || { echo "$0: needs lstopo-no-graphics (hwloc)" >&2; exit 1; }
synth() { lstopo-no-graphics --input "$1" --of xml 2>/dev/null; }
# the PUs' os_index attributes, in file order, become 3 0 2 1
permute_pus() {
	awk 'BEGIN { split("3 0 2 1", p, " ") }
	     /<object type="PU" os_index="/ { k++; sub(/os_index="[0-9]+"/, "os_index=\"" p[k] "\"") }
	     { print }'
}
synth "package:1 l1d:4 pu:1" | sed 's/type="L1Cache"/type="Package"/' | permute_pus \
	>"$out/shape-package-two-depths.xml"
synth "package:1 core:2 pu:2" | sed 's/type="Core"/type="PU"/' >"$out/shape-core-as-pu.xml"
synth "package:2 l3:1 core:2 pu:1" |
	sed 's/type="Package" os_index="\([0-9]*\)"/type="L3Cache" os_index="\1" cache_size="1048576" depth="3" cache_linesize="64" cache_associativity="0" cache_type="0"/' \
	>"$out/shape-l3-two-depths.xml"
synth "package:1 core:4 pu:1" | permute_pus >"$out/shape-pu-index-permuted.xml"
