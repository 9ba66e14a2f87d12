#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan plan: policies, formats and the JSON contract from the command line.
# Expected CPUs come from the topology (EPYC 7551 NPS4: NUMA k = cores 8k..8k+7, PUs +64).
source "$(dirname "$0")/../tap.sh"
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml
SPR=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml

run numaplan plan --topology "$EPYC" --ntasks 8 --policy hca-near --format json
check "hca-near json exits 0" test "$RC" -eq 0
check "JSON contract: policy and 8 ranks" test "$(jq -r '.policy + " " + (.ranks|length|tostring)' <<<"$OUT")" = "hca-near 8"
check_jq "JSON contract: every rank has rank/host/cpus/mems/hca/env" \
	'.ranks | all(has("rank") and has("host") and has("cpus") and has("mems") and has("hca") and has("env"))'
check_jq "hca-near 8: every rank's memory on NUMA 5" '[.ranks[].mems] | all(. == "5")'
check_jq "hca-near 8: UCX_NET_DEVICES=mlx5_0:1 exported" '[.ranks[].env.UCX_NET_DEVICES] | all(. == "mlx5_0:1")'
check "hca-near 8: CPUs inside 40-47,104-111 and all different" \
	bash -c 'jq -r ".ranks[].cpus" <<<"$1" | tr "," "\n" | awk -F- "{ if (\$1 < 40 || (\$1 > 47 && \$1 < 104) || \$1 > 111) bad=1 } END { exit bad }" && [ "$(jq -r ".ranks[].cpus" <<<"$1" | sort -u | wc -l)" = 8 ]' _ "$OUT"

run numaplan plan --topology "$EPYC" -n 16 -p hca-near -f json
check "hca-near 16: 8 ranks on NUMA 5, the rest on 4/6/7 only" \
	test "$(jq -r '[.ranks[].mems] | map(select(. == "5")) | length' <<<"$OUT")/$(jq -r '[.ranks[].mems] | map(select(. == "0" or . == "1" or . == "2" or . == "3")) | length' <<<"$OUT")" = "8/0"

run numaplan plan --topology "$EPYC" -n 8 -p spread -f json
check "spread 8: one rank per NUMA node" test "$(jq -r '[.ranks[].mems] | sort | join(",")' <<<"$OUT")" = "0,1,2,3,4,5,6,7"

# The SPR file has one ACTIVE port (mlx5_0); a copy with all four ACTIVE
# shows the blocks (tests/cli/40-hca-health.t covers the file as it is).
spr4=$(mktemp /tmp/numaplan-spr4.XXXXXX.xml)
sed 's/name="Port1State" value="1"/name="Port1State" value="4"/' "$SPR" >"$spr4"
run numaplan plan --topology "$spr4" -n 8 -p hca-near -f json
check "SPR, every port ACTIVE: each of the 4 HCAs serves 2 of 8 ranks" \
	test "$(jq -r '[.ranks[].hca] | group_by(.) | map(length) | join(",")' <<<"$OUT")" = "2,2,2,2"
rm -f "$spr4"

run numaplan plan --topology "$EPYC" -n 2 -c 4 -p compact -f json
check_jq "cpus-per-task 4: OMP_NUM_THREADS/PLACES/PROC_BIND exported" \
	'.ranks[0].env | .OMP_NUM_THREADS == "4" and .OMP_PLACES == "cores" and .OMP_PROC_BIND == "close"'
check "cpus-per-task 4: a rank is one 4-core CCX (0-3,64-67)" test "$(jq -r '.ranks[0].cpus' <<<"$OUT")" = "0-3,64-67"

run numaplan plan --topology "$EPYC" -n 4 -p compact --mem interleave -f numactl -- ./a.out x
check "numactl format: one line per rank with --interleave" test "$(grep -c '^numactl --physcpubind=.* --interleave=0 -- ./a.out x$' <<<"$OUT")" = 4

run numaplan plan --topology "$EPYC" -n 16 -p hca-near --nodes 2 -f slurm -- ./app
check "slurm format, 2 nodes: arbitrary distribution with a SLURM_HOSTFILE" \
	bash -c 'grep -q "export SLURM_HOSTFILE=" <<<"$1" && grep -q -- "--distribution=arbitrary" <<<"$1" && [ "$(grep -cx "node1" <<<"$1")" = 8 ]' _ "$OUT"
check "slurm format: 8 masks per node" test "$(grep -o 'mask_cpu:[^ ]*' <<<"$OUT" | tr ',' '\n' | wc -l)" = 8

run numaplan plan --topology "$EPYC" -n 3 -p numa --hosts a,b,c -f ompi
check "ompi rankfile: one line per rank on its host" test "$(grep -c '^rank [0-9]=[abc] slot=' <<<"$OUT")" = 3

run numaplan plan --topology "$TOPO/amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml" -n 2 -p hca-near -f json
check "no HCA: falls back to spread with a warning on stderr" \
	bash -c '[ "$(jq -r .policy <<<"$1")" = spread ] && grep -q "falling back to spread" <<<"$2"' _ "$OUT" "$ERR"

# The generated lines run for real on this machine.
run numaplan plan -n 1 -p compact -f numactl -- true
check "numactl line for the live machine runs" bash -c "$(grep -v '^#' <<<"$OUT")"
if command -v mpiexec.mpich >/dev/null; then
	n=$(nproc); [ "$n" -gt 2 ] && n=2
	run numaplan plan -n "$n" -p compact -f mpich -- true
	check "mpich line for the live machine runs under hydra" timeout 60 bash -c "$OUT"
else
	skip "mpiexec.mpich not installed"
fi
done_testing
