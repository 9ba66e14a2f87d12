#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan topo: text and JSON summaries of stored and live topologies.
source "$(dirname "$0")/../tap.sh"
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml

run numaplan topo --topology "$EPYC"
check "topo on the EPYC file exits 0" test "$RC" -eq 0
check "summary line counts sockets, NUMA nodes, L3, cores, PUs" \
	grep -q '^2 packages, 8 NUMA nodes, 16 L3 domains, 64 cores, 128 PUs' <<<"$OUT"
check "mlx5_0 shown as InfiniBand on NUMA 5 (its cores 40-47,104-111)" \
	grep -Eq 'mlx5_0 +InfiniBand .* numa 5 cpus 40-47,104-111' <<<"$OUT"
check "distance matrix printed with the SLIT values 10/16/32" \
	grep -Eq '^ +5 +32 +32 +32 +32 +16 +10 +16 +16$' <<<"$OUT"

run numaplan topo --topology "$EPYC" --json
check_jq "topo --json is valid JSON" .
check "JSON: 8 NUMA nodes, 2 packages, 16 L3" \
	test "$(jq -c '[(.numa|length),(.packages|length),(.l3|length)]' <<<"$OUT")" = "[8,2,16]"
check "JSON: the HCA's locality is NUMA 5" test "$(jq -r '.devices[0].name + " " + .devices[0].numa' <<<"$OUT")" = "mlx5_0 5"
check "JSON: distance from 5 to 0 is 32" test "$(jq '.distances[5][0]' <<<"$OUT")" = 32

run numaplan topo --topology "$TOPO/intel-e7-4870-4s-qib-rootlocality.xml"
check "a root-attached HCA is reported as local to everything" grep -q 'qib0.*machine root' <<<"$OUT"

run numaplan topo --topology "$TOPO/amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml"
check "a CPU-only file loads: no devices, no distances" \
	bash -c 'grep -q "Network devices: 0" <<<"$1" && grep -q "NUMA distances: none" <<<"$1"' _ "$OUT"

run numaplan topo
check "live topology loads" test "$RC" -eq 0
ncpu=$(nproc --all)
check "live topology sees this machine's $ncpu PUs" grep -q " $ncpu PUs" <<<"$OUT"

run numaplan topo --topology "$EPYC" --cpuset 0-7,64-71
check "--cpuset restricts the allowed cores" grep -q '8 cores, 16 PUs' <<<"$OUT"
check "--cpuset: allowed PUs printed" grep -q '(allowed PUs 0-7,64-71)' <<<"$OUT"

run numaplan topo --bogus
check "unknown option: exit 2, nothing on stdout" test "$RC" -eq 2 -a -z "$OUT"
check "unknown option: message names it" grep -q -- '--bogus' <<<"$ERR"
done_testing
