#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# GPU nodes from the command line: the pairing table of numaplan topo,
# gpu-near plans in JSON and for srun, --rails.  Expectations from the
# stored XML files (see tests/unit/test_gpu.c for how they were read).
source "$(dirname "$0")/../tap.sh"
LASSEN=$TOPO/ibm-power9-2s-4v100-4mlx5-lassen.xml
PASCAL=$TOPO/intel-bdw2695v4-2s-2p100-mlx5-pascal.xml
TIOGA=$TOPO/amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml
SPR=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml

run numaplan topo --topology "$PASCAL"
check "topo: the P100s and mlx5_0 meet below one PCIe switch" \
	bash -c 'grep -Eq "^ +0 +0000:04:00.0 +mlx5_0 +switch$" <<<"$1" && grep -Eq "^ +1 +0000:07:00.0 +mlx5_0 +switch$" <<<"$1"' _ "$OUT"
check "topo: one line per GPU although each has three OS devices" grep -q '^GPUs: 2 ' <<<"$OUT"
run numaplan topo --topology "$LASSEN"
check "topo: a V100 ties between the two HCAs of its socket (numa)" \
	grep -Eq '^ +2 +0035:03:00.0 +mlx5_2\|mlx5_3 +numa$' <<<"$OUT"
run numaplan topo --topology "$SPR"
check "topo: as stored only mlx5_0 is ACTIVE: the NUMA-1 H100 meets it in its package" \
	grep -Eq '^ +1 +0000:5f:00.0 +mlx5_0 +package$' <<<"$OUT"
run numaplan topo --topology "$TIOGA" --json
check_jq "topo --json: GCD 5 (d6) pairs with hsi2 at the host bridge" \
	'.gpus[5] | .pci == "0000:d6:00.0" and .vendor == "AMD" and .nearest_adapters == ["hsi2"] and .meet == "hostbridge"'

run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near -f json
check "gpu-near json exits 0" test "$RC" -eq 0
check_jq "JSON: gpus (bus ids) and gpu_local per rank" \
	'[.ranks[] | .gpus[0]] == ["0004:04:00.0","0004:05:00.0","0035:03:00.0","0035:04:00.0"] and all(.ranks[]; .gpu_local == true)'
check_jq "JSON: the tied HCAs are shared one per GPU" '[.ranks[].hca] == ["mlx5_0","mlx5_1","mlx5_2","mlx5_3"]'
check_jq "JSON: CUDA_VISIBLE_DEVICES in bus order, CUDA_DEVICE_ORDER=PCI_BUS_ID" \
	'[.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0","1","2","3"] and all(.ranks[]; .env.CUDA_DEVICE_ORDER == "PCI_BUS_ID")'
check_jq "JSON: the contract's fields are still there" \
	'.ranks | all(has("rank") and has("host") and has("cpus") and has("mems") and has("hca") and has("env"))'

run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near -f slurm -- ./app
check "slurm format: one GPU per task is map_gpu (each task's adapter variables in a --multi-prog file)" grep -q -- '--gpu-bind=map_gpu:0,1,2,3 --multi-prog numaplan.multi$' <<<"$OUT"
run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near -f slurm
check "slurm format: two GPUs per task is mask_gpu" grep -q -- '--gpu-bind=mask_gpu:0x3,0xc ' <<<"$OUT"
run numaplan plan --topology "$LASSEN" -n 4 -p hca-near -f slurm
check "slurm format: no --gpu-bind under hca-near" bash -c '! grep -q -- --gpu-bind <<<"$1"' _ "$OUT"
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near -f numactl
check "numactl format: the CPU part of gpu-near, NUMA 0 then 8" \
	test "$(grep -o -- '--membind=[0-9]*' <<<"$OUT" | tr '\n' ' ')" = "--membind=0 --membind=0 --membind=8 --membind=8 "

run numaplan plan --topology "$LASSEN" -n 2 -p hca-near --rails 2 -f json
check_jq "--rails 2: both HCAs of the socket, comma list for UCX and NCCL" \
	'.ranks[0].env.UCX_NET_DEVICES == "mlx5_0:1,mlx5_1:1" and .ranks[1].env.NCCL_IB_HCA == "=mlx5_2:1,mlx5_3:1"'
run numaplan plan --topology "$LASSEN" -n 2 -p hca-near -f json
check_jq "hca-near, 2 ranks, 4 HCAs: the plan lists mlx5_1 and mlx5_3 as unused" \
	'.unused_devices == ["mlx5_1","mlx5_3"]'
run numaplan plan --topology "$LASSEN" -n 2 -p hca-near
check "table: unused adapters named" grep -q '^unused: mlx5_1 (no rank uses it)' <<<"$OUT"
run numaplan plan --topology "$LASSEN" -n 2 -p compact --rails 2
check "--rails with compact: refused, exit 2, names the option" \
	bash -c '[ "$1" -eq 2 ] && grep -q -- "rails=2 (adapters per rank) applies only to the policies hca-near and gpu-near, not to the policy .compact." <<<"$2"' _ "$RC" "$ERR"
run numaplan plan --topology "$LASSEN" -n 2 -p hca-near --rails 0
check "--rails 0: refused" test "$RC" -eq 2

run numaplan plan --topology "$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml" -n 2 -p gpu-near -f json
check "no GPU: hca-near with a warning" \
	bash -c '[ "$(jq -r .policy <<<"$1")" = hca-near ] && grep -q "gpu-near: no GPU on this node, falling back to hca-near" <<<"$2"' _ "$OUT" "$ERR"
run numaplan plan --topology "$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml" -n 2 -p gpu-near --no-fallback
check "no GPU, --no-fallback: exit 2" test "$RC" -eq 2

# GPU memory NUMA nodes (hwloc 2's GPUMemory + PCIBusID): Sierra with the
# pairing 252..255 -> the GPUs in bus order written into the file
# (tests/xml/README.md); DRAM node 0 is socket 0's, 8 socket 1's.
GPUMEM=$NP_SRCDIR/tests/xml/gpumem-power9-2s-4v100-sierra-v2.xml
SIERRA=$TOPO/ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml
run numaplan topo --topology "$GPUMEM"
check "topo: each GPU line names its own memory node" \
	bash -c 'grep -Eq "^ +1 +0004:05:00.0 .* gpu-memory numa 253 " <<<"$1" && grep -Eq "^ +3 +0035:04:00.0 .* gpu-memory numa 255 " <<<"$1"' _ "$OUT"
check "topo: the pairing table has a gpu-mem column" \
	bash -c 'grep -Eq "^ +gpu +pci +adapter +meet +gpu-mem$" <<<"$1" && grep -Eq "^ +2 +0035:03:00.0 +mlx5_2\|mlx5_3 +numa +254$" <<<"$1"' _ "$OUT"
run numaplan topo --topology "$SIERRA"
check "topo, Sierra v1 file: no GPU memory named, no gpu-mem column" \
	bash -c '! grep -Eq " gpu-mem$| gpu-memory numa " <<<"$1"' _ "$OUT"
run numaplan topo --topology "$GPUMEM" --json
check_jq "topo --json: gpus[].memory_numa" '[.gpus[].memory_numa] == ["252","253","254","255"]'
run numaplan plan --topology "$GPUMEM" -n 4 -p gpu-near -f json
check_jq "gpu-near JSON: mems = the CPUs' node + the rank's own GPU's memory node" \
	'[.ranks[].mems] == ["0,252","0,253","8,254","8,255"] and [.ranks[].gpu_mems] == ["252","253","254","255"]'
run numaplan plan --topology "$GPUMEM" -n 4 -p gpu-near --mem interleave -f numactl
check "gpu-near numactl: interleaved over the CPU node and the GPU's node" \
	test "$(grep -o -- '--interleave=[0-9,]*' <<<"$OUT" | tr '\n' ' ')" = "--interleave=0,252 --interleave=0,253 --interleave=8,254 --interleave=8,255 "
for pol in hca-near compact spread; do
	run numaplan plan --topology "$GPUMEM" -n 8 -p $pol -f json
	check_jq "$pol on the same node: CPU nodes only, no gpu_mems" \
		'all(.ranks[]; (.mems == "0" or .mems == "8") and .gpu_mems == "")'
done
run numaplan plan --topology "$SIERRA" -n 4 -p gpu-near -f json
check_jq "Sierra v1 file: no association, gpu-near binds the CPU nodes only" \
	'[.ranks[].mems] == ["0","0","8","8"] and all(.ranks[]; .gpu_mems == "")'

# the plugin's --numa-plan value, through its harness (no Slurm needed)
H=$NP_BUILDDIR/plugin/numaplan-spank-harness
if [ -x "$H" ]; then
	run "$H" request gpu-near,rails=2
	check "--numa-plan=gpu-near,rails=2: the policy and rails=2 reach the plan options" \
		grep -qx 'policy=gpu-near verbose=0 threads=0 mem=bind hca= help=0 from_user=1 rails=2' <<<"$OUT"
	for bad in rails=0 rails=65 rails=x rails= ; do
		run "$H" request "hca-near,$bad"
		check "--numa-plan=hca-near,$bad refused, the value named" \
			bash -c '[ "$1" -ne 0 ] && grep -qF "'"'"'$2'"'"'" <<<"$3"' _ "$RC" "$bad" "$ERR"
	done
	run "$H" request compact,rails=2
	check "rails= with compact: refused, naming the policy" \
		bash -c '[ "$1" -ne 0 ] && grep -q "rails=2 (adapters per rank) applies only to the policies hca-near and gpu-near, not to the policy .compact." <<<"$2"' _ "$RC" "$ERR"
	run "$H" request rails=2 default=gpu-near
	check "rails= alone applies to the site's default gpu-near" grep -q '^policy=gpu-near .* rails=2$' <<<"$OUT"
	run "$H" help
	check "help lists gpu-near and rails=N" bash -c 'grep -q "gpu-near" <<<"$1" && grep -q "rails=N" <<<"$1"' _ "$OUT"
else
	skip "numaplan-spank-harness not built"
fi

# every GPU topology plans with gpu-near, distinct GPUs while they last
for f in "$TOPO"/*.xml; do
	g=$(numaplan topo --topology "$f" --json | jq '.gpus | length')
	[ "$g" -gt 0 ] || continue
	run numaplan plan --topology "$f" -n "$g" -p gpu-near --overcommit -f json
	check "gpu-near on $(basename "$f"): $g ranks, $g distinct GPUs" \
		test "$RC" -eq 0 -a "$(jq '[.ranks[].gpus[0]] | unique | length' <<<"$OUT")" = "$g"
done
done_testing
