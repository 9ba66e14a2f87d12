#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Memory kinds (numaplan(1), MEMORY KINDS): what each NUMA node is, in
# `numaplan topo` and its JSON, and --mem KIND binding each rank to the
# memory of that kind attached with its CPUs.
#
# Expectations come from how the files are built, not from numaplan:
# - KNL 7250 SNC4 flat (INDEX.md): DDR nodes 0-3 with the CPUs, MCDRAM
#   nodes 4-7 without, cluster k's MCDRAM is node k+4 (its HCA is local to
#   {0,4}: "DDR + MCDRAM of one cluster").
# - derived/ (README.md there): Xeon Max flat SNC4, DDR 0-7 with 14 cores
#   each, HBM 8+k attached with DDR k's CPUs; SPR + CXL, DDR 0-7, CXL node
#   8 with package 0's CPUs and 9 with package 1's.  The *-hwloc29 copies
#   carry no subtype: HBM must come from the bandwidth (4 x DDR's), and CXL
#   cannot be known (hwloc 2.9 has no CXLDevice).
source "$(dirname "$0")/../tap.sh"
KNL=$TOPO/intel-knl7250-snc4-flat-8numa-mlx5.xml
SPR=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml
SIERRA=$TOPO/ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml
MAX12=$TOPO/derived/intel-xeonmax9480-2s-snc4-flat-16numa-hbm-hwloc212.xml
MAX9=$TOPO/derived/intel-xeonmax9480-2s-snc4-flat-16numa-hbm-hwloc29.xml
CXL12=$TOPO/derived/intel-spr8480-2s-snc4-10numa-cxl-hwloc212.xml
CXL9=$TOPO/derived/intel-spr8480-2s-snc4-10numa-cxl-hwloc29.xml

kinds() { jq -r '[.numa[] | "\(.os_index)=\(.kind)"] | sort_by(split("=")[0]|tonumber) | join(" ")' <<<"$OUT"; }

# ---- numaplan topo: the kinds
run numaplan topo --topology "$KNL" --json
check "KNL: DDR nodes 0-3 are DRAM, MCDRAM nodes 4-7 HBM (from hwloc's MCDRAM subtype)" \
	test "$(kinds)" = "0=DRAM 1=DRAM 2=DRAM 3=DRAM 4=HBM 5=HBM 6=HBM 7=HBM"
check_jq "KNL: the MCDRAM nodes keep hwloc's subtype, and have no tier (the file is hwloc 1.11's)" \
	'[.numa[] | select(.os_index >= 4)] | all(.subtype == "MCDRAM" and .memory_tier == null)'
check_jq "KNL: MCDRAM node 4 is attached with cluster 0's CPUs (DDR node 0's)" \
	'(.numa[] | select(.os_index == 4) | .locality) == (.numa[] | select(.os_index == 0) | .cpus)'

want_max="0=DRAM 1=DRAM 2=DRAM 3=DRAM 4=DRAM 5=DRAM 6=DRAM 7=DRAM 8=HBM 9=HBM 10=HBM 11=HBM 12=HBM 13=HBM 14=HBM 15=HBM"
run numaplan topo --topology "$MAX12" --json
check "Xeon Max, as hwloc 2.12 writes it: DRAM 0-7, HBM 8-15" test "$(kinds)" = "$want_max"
check_jq "Xeon Max (2.12): hwloc's MemoryTier is shown, HBM 0 and DRAM 1" \
	'[.numa[] | select(.kind == "HBM") | .memory_tier] | all(. == 0)' 
check_jq "Xeon Max (2.12): DRAM nodes are tier 1" '[.numa[] | select(.kind == "DRAM") | .memory_tier] | all(. == 1)'
run numaplan topo --topology "$MAX9" --json
check "Xeon Max, as hwloc 2.9 writes it (no subtype): the same kinds, HBM from its bandwidth" \
	test "$(kinds)" = "$want_max"
check_jq "Xeon Max (2.9): no subtype, no tier" '[.numa[]] | all(.subtype == null and .memory_tier == null)'
run numaplan topo --topology "$MAX9"
check "text: HBM node 8 has no CPUs and is attached with DDR node 0's CPUs 0-13,112-125" \
	grep -Eq '^  P#8 .* HBM +no CPUs \(memory only\), attached with cpus 0-13,112-125$' <<<"$OUT"
check "text: DDR node 0 is DRAM with CPUs 0-13,112-125" grep -Eq '^  P#0 .* DRAM +cpus 0-13,112-125$' <<<"$OUT"

run numaplan topo --topology "$CXL12" --json
check "SPR + CXL (2.12): DRAM 0-7, CXL 8-9 (subtype CXL-DRAM)" \
	test "$(kinds)" = "0=DRAM 1=DRAM 2=DRAM 3=DRAM 4=DRAM 5=DRAM 6=DRAM 7=DRAM 8=CXL 9=CXL"
run numaplan topo --topology "$CXL9" --json
check "SPR + CXL (2.9): the CPU-less nodes nothing describes are unknown, never DRAM" \
	test "$(kinds)" = "0=DRAM 1=DRAM 2=DRAM 3=DRAM 4=DRAM 5=DRAM 6=DRAM 7=DRAM 8=unknown 9=unknown"
run numaplan topo --topology "$SPR" --json
check_jq "plain SPR: every node DRAM, no subtype" '[.numa[]] | all(.kind == "DRAM" and .subtype == null)'
run numaplan topo --topology "$SIERRA" --json
check "Sierra (hwloc 1.11 file): GPU memory nodes 252-255 carry nothing that names them: unknown" \
	test "$(kinds)" = "0=DRAM 8=DRAM 252=unknown 253=unknown 254=unknown 255=unknown"

# ---- --mem KIND
for f in "$MAX12" "$MAX9"; do
	v=${f##*-}; v=${v%.xml}
	run numaplan plan --topology "$f" -n 8 -p numa --mem hbm --format json
	check "Xeon Max ($v), numa x 8, --mem hbm: rank k on DDR node k's CPUs binds to HBM node k+8" \
		test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = "8 9 10 11 12 13 14 15"
	check_jq "Xeon Max ($v): mempolicy bind, mem_kind HBM" '[.ranks[]] | all(.mempolicy == "bind" and .mem_kind == "HBM")'
done
run numaplan plan --topology "$MAX12" -n 8 -p numa --mem hbm --format json
a=$(jq -S 'del(.topology)' <<<"$OUT")
run numaplan plan --topology "$MAX9" -n 8 -p numa --mem hbm --format json
check "Xeon Max: the 2.12 and 2.9 files give the same plan (all but the file's name)" \
	test "$a" = "$(jq -S 'del(.topology)' <<<"$OUT")"

run numaplan plan --topology "$MAX9" -n 2 -p socket --mem interleave:hbm --format json
check "Xeon Max, socket x 2, interleave:hbm: each rank over its package's 4 HBM nodes" \
	test "$(jq -r '[.ranks[] | .mems + "/" + .mempolicy] | join(" ")' <<<"$OUT")" = "8-11/interleave 12-15/interleave"
run numaplan plan --topology "$MAX9" -n 8 -p numa --mem ddr --format json
check "Xeon Max, --mem ddr: the CPUs' own DDR nodes 0-7" \
	test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = "0 1 2 3 4 5 6 7"
run numaplan plan --topology "$MAX9" -n 8 -p numa --format json
check_jq "Xeon Max, no kind: the CPUs' own nodes, no mem_kind" \
	'[.ranks[]] | (map(.mems) == ["0","1","2","3","4","5","6","7"]) and all(.mem_kind == null)'

run numaplan plan --topology "$KNL" -n 4 -p numa --mem hbm --format json
check "KNL, numa x 4, --mem mcdram's alias hbm: clusters 0-3 bind to MCDRAM 4-7" \
	test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = "4 5 6 7"
run numaplan plan --topology "$KNL" -n 4 -p numa --mem MCDRAM --format json
check "KNL: --mem MCDRAM (case ignored) is the same" test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = "4 5 6 7"

run numaplan plan --topology "$CXL12" -n 2 -p socket --mem cxl --format json
check "SPR + CXL (2.12), socket x 2, --mem cxl: package 0's rank on CXL 8, package 1's on 9" \
	test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = "8 9"
run numaplan plan --topology "$CXL12" -n 8 -p numa --mem bind:cxl --format json
check "SPR + CXL, numa x 8, bind:cxl: ranks of package 0 (nodes 0-3) on 8, of package 1 on 9" \
	test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = "8 8 8 8 9 9 9 9"

# ---- a kind the node does not have: refused, saying what it has
run numaplan plan --topology "$SPR" -n 4 -p numa --mem hbm --format json
check "plain SPR, --mem hbm: refused (exit 2), no plan printed" test "$RC" -eq 2 -a -z "$OUT"
check "... the message names the missing kind and what the node has" \
	grep -q "no HBM memory on this node (it has DRAM on NUMA 0-7)" <<<"$ERR"
run numaplan plan --topology "$CXL9" -n 2 -p socket --mem cxl
check "SPR + CXL as hwloc 2.9 writes it, --mem cxl: refused, nodes 8-9 reported unknown" \
	bash -c '[ "$1" -ne 0 ] && grep -q "no CXL memory on this node (it has unknown on NUMA 8-9, DRAM on NUMA 0-7)" <<<"$2"' _ "$RC" "$ERR"
run numaplan plan --topology "$SIERRA" -n 2 -p socket --mem gpu
check "Sierra, --mem gpu: refused (no node says it is GPU memory)" \
	bash -c '[ "$1" -ne 0 ] && grep -q "no GPUMemory memory on this node" <<<"$2"' _ "$RC" "$ERR"

# ---- the fingerprint groups nodes that get the same plans: the CXL files
# differ only in what the CPU-less nodes are, and so do their --mem cxl plans
run numaplan topo --topology "$CXL12" --fingerprint
fp12=$OUT
run numaplan topo --topology "$CXL9" --fingerprint
check "SPR + CXL: the 2.12 and 2.9 files (CXL vs unknown nodes) have different fingerprints" \
	test -n "$fp12" -a "$fp12" != "$OUT"
run numaplan topo --topology "$MAX12" --fingerprint
fp12=$OUT
run numaplan topo --topology "$MAX9" --fingerprint
check "Xeon Max: the 2.12 and 2.9 files (HBM either way) have one fingerprint" test -n "$fp12" -a "$fp12" = "$OUT"

# ---- bad choices
for bad in none:hbm bind:fast fast "interleave:" ":hbm"; do
	run numaplan plan --topology "$MAX9" -n 2 -p socket --mem "$bad"
	check "--mem '$bad' refused with a message naming it" \
		bash -c '[ "$1" -eq 2 ] && [ -z "$3" ] && grep -qF -- "$4" <<<"$2"' _ "$RC" "$ERR" "$OUT" "'$bad'"
done

done_testing
