#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# gpu-near from the command line with partitioned GPUs, ranks holding
# several GPUs, fewer ranks than GPUs and a partial cpuset (issue 20,
# items 1-4).  Expectations from the stored XML files:
#   MI300A (CPX): APU N = PCI 000N:02:00.0 with rsmi 6N..6N+5, package and
#     NUMA node N, cores 24N..24N+23 (PUs +96), NIC hsiN;
#   JUWELS Booster: A100s 03:00.0 (NUMA 3, PUs 18-23,66-71, mlx5_1),
#     44:00.0 (NUMA 1, mlx5_0), 84:00.0 (NUMA 7, mlx5_3), c4:00.0 (NUMA 5,
#     PUs 30-35,78-83, mlx5_2); NUMA 0-3 are socket 0, 4-7 socket 1;
#   Tioga: GCDs c1:00.0 and c6:00.0 on NUMA 3 (NIC hsi0), de:00.0 on NUMA 2.
source "$(dirname "$0")/../tap.sh"
MI300A=$TOPO/amd-mi300a-4apu-cpx-24gpu-4slingshot-tuolumne.xml
JWB=$TOPO/amd-epyc7402-2s-nps4-8numa-4a100-4mlx5-juwelsbooster.xml
TIOGA=$TOPO/amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml

# ---- item 1: one partition per rank, as Slurm's gres numbers them
run numaplan plan --topology "$MI300A" -n 24 -p gpu-near -f json
check_jq "-n 24: rank r gets partition r alone (ROCR_VISIBLE_DEVICES=r)" \
	'[.ranks[].env.ROCR_VISIBLE_DEVICES] == [range(24) | tostring]'
check_jq "-n 24: ranks 0-5 on APU 0 (NUMA 0, hsi0), 6-11 on APU 1" \
	'[.ranks[0:6][] | .mems == "0" and .gpus == ["0000:02:00.0"] and .hca == "hsi0"] + [.ranks[6:12][] | .mems == "1" and .gpus == ["0001:02:00.0"]] | all'
run numaplan plan --topology "$MI300A" -n 24 -p gpu-near -f slurm -- ./app
check "-n 24 -f slurm: map_gpu:0,...,23, the partitions' gres indexes" \
	grep -qE -- "--gpu-bind=map_gpu:$(seq -s, 0 23)( |$)" <<<"$OUT"
# srun's mask must select exactly the partitions of each rank's environment
run numaplan plan --topology "$MI300A" -n 4 -p gpu-near -f json
json4=$OUT
run numaplan plan --topology "$MI300A" -n 4 -p gpu-near -f slurm
masks=$(grep -o -- '--gpu-bind=mask_gpu:[0-9a-fx,]*' <<<"$OUT" | cut -d: -f2)
want=
for r in 0 1 2 3; do
	m=0
	for i in $(jq -r ".ranks[$r].env.ROCR_VISIBLE_DEVICES" <<<"$json4" | tr , ' '); do m=$((m | (1 << i))); done
	want+=$(printf '%s0x%x' "${want:+,}" "$m")
done
check "-n 4 -f slurm: mask_gpu selects each rank's ROCR_VISIBLE_DEVICES ($want)" [ "$masks" = "$want" ]
OUT=$json4
check_jq "-n 4: rank 1 has APU 1's six partitions" '.ranks[1].env.ROCR_VISIBLE_DEVICES == "6,7,8,9,10,11"'

run numaplan plan --topology "$MI300A" -n 2 -p gpu-near
check "table: each APU once, with its count of partitions" \
	grep -Eq '^0 .* gpu 0000:02:00.0 x6,0001:02:00.0 x6 \(local\)$' <<<"$OUT"

# ---- items 2, 3: several GPUs; no -c: the whole locality of them
run numaplan plan --topology "$MI300A" -n 2 -p gpu-near -f json
check_jq "-n 2, no -c: each rank both APUs' packages and memory" \
	'.ranks[0].cpus == "0-47,96-143" and .ranks[0].mems == "0-1" and .ranks[1].mems == "2-3"'
check_jq "-n 2, no -c: the plan says what it chose" '.note | test("each rank takes the whole locality of its GPUs")'
check "-n 2, no -c: and so does stderr" grep -q "whole locality of its GPUs" <<<"$ERR"
run numaplan plan --topology "$MI300A" -n 2 -c 2 -p gpu-near -f json
check_jq "-n 2 -c 2: one core on each APU of the rank, memory from both" \
	'.ranks[0].cpus == "0,24,96,120" and .ranks[0].mems == "0-1"'
run numaplan plan --topology "$TIOGA" -n 3 -c 8 -p gpu-near -f json
check_jq "Tioga -n 3 -c 8: rank 2 (two GCDs on NUMA 3) uses NUMA 3's NIC and memory" \
	'.ranks[2].env.UCX_NET_DEVICES == "hsi0" and .ranks[2].mems == "2-3"'
run numaplan plan --topology "$JWB" -n 2 -c 12 --rails 2 -p gpu-near -f json
check_jq "JUWELS -n 2 -c 12 --rails 2: each GPU's own HCA, memory from both GPUs' nodes" \
	'(.ranks[0].env.UCX_NET_DEVICES | split(",") | sort) == ["mlx5_0:1","mlx5_1:1"] and .ranks[0].mems == "1,3" and .ranks[1].mems == "5,7"'

# ---- item 4: a cpuset leaves one NUMA node per socket
run numaplan plan --topology "$JWB" --cpuset 18-23,66-71,30-35,78-83 -n 2 -c 6 -p gpu-near -f json
check_jq "cpuset: the GPUs pair within a socket, the one beside the CPUs first" \
	'.ranks[0].gpus == ["0000:03:00.0","0000:44:00.0"] and .ranks[1].gpus == ["0000:c4:00.0","0000:84:00.0"]'
check_jq "cpuset: each rank the allowed CPUs of its socket, and their NUMA node's HCA" \
	'.ranks[0].cpus == "18-23,66-71" and .ranks[1].cpus == "30-35,78-83" and .ranks[0].hca == "mlx5_1" and .ranks[1].hca == "mlx5_2"'
check_jq "cpuset: the plan names the GPUs no CPU of their rank is near" \
	'.note | test("no CPU of the rank near its GPU: rank 0 \\(0000:44:00.0\\), rank 1 \\(0000:84:00.0\\)")'
done_testing
