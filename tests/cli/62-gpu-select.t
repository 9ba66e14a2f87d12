#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan plan --gpus LIST and --hca under gpu-near: the GPU set and the
# adapters restricted as the SPANK plugin restricts them (Slurm's
# allocation, hca=).  Expectations from the Lassen file (tests/topologies):
# GPUs in bus order 0004:04:00.0 0004:05:00.0 (socket 0, NUMA 0) and
# 0035:03:00.0 0035:04:00.0 (socket 1, NUMA 8); mlx5_0 and mlx5_1 on
# socket 0, mlx5_2 and mlx5_3 on socket 1, each GPU equally near both of
# its socket's.  The plugin's own side through its harness, on the
# emulated GPU node of tests/slurm (this machine's PUs as two NUMA nodes).
source "$(dirname "$0")/../tap.sh"
LASSEN=$TOPO/ibm-power9-2s-4v100-4mlx5-lassen.xml
# NUMA OS index of each of a rank's CPUs, distinct: from hwloc-calc, not numaplan
numa_of() { hwloc-calc --input "$LASSEN" --physical-output --intersect numa "$(sed 's/,/,pu:/g; s/^/pu:/' <<<"$1" | tr ',' ' ')" 2>/dev/null; }

run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --gpus 1,3 -f json
check "--gpus 1,3: exit 0" test "$RC" -eq 0
check_jq "--gpus 1,3: rank 0 the second GPU of socket 0, rank 1 the second of socket 1" \
	'[.ranks[].gpus] == [["0004:05:00.0"],["0035:04:00.0"]]'
check_jq "--gpus 1,3: visible indexes count the listed GPUs (0, 1), as a constrained step's" \
	'[.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0","1"]'
check "--gpus 1,3: rank 0's CPUs on NUMA 0, rank 1's on NUMA 8" \
	eval '[ "$(numa_of "$(jq -r ".ranks[0].cpus" <<<"$OUT")")" = 0 ] && [ "$(numa_of "$(jq -r ".ranks[1].cpus" <<<"$OUT")")" = 8 ]'
check_jq "--gpus 1,3: each rank an adapter of its own socket" \
	'(.ranks[0].hca | IN("mlx5_0","mlx5_1")) and (.ranks[1].hca | IN("mlx5_2","mlx5_3"))'
json13=$OUT
run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --gpus 3,1 -f json
check "--gpus 3,1 is the same plan as 1,3 (locality order, not the list's)" test "$OUT" = "$json13"
run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --gpus 2 -f json
check_jq "--gpus 2, two ranks: both share GPU 2 (index 0), socket 1's adapters" \
	'[.ranks[].gpus[0]] == ["0035:03:00.0","0035:03:00.0"] and [.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0","0"] and all(.ranks[]; .hca | IN("mlx5_2","mlx5_3"))'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpus 0,1,2,3 -f json
all4=$OUT
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near -f json
check "--gpus listing every GPU: the plan without --gpus" test "$OUT" = "$all4"

# bad lists: exit 2, nothing on stdout, the value named
while IFS='|' read -r val want; do
	run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --gpus "$val" -f json
	check "--gpus '$val' refused (exit 2), naming it: $want" \
		eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -qF -- "$want" <<<"$ERR"'
done <<'CASES'
|--gpus '': the GPU list is empty
1,1|--gpus '1,1': '1' is listed twice
x|--gpus 'x': 'x' is not an index
0,|--gpus '0,': an empty entry
0-3|--gpus '0-3': '0-3' is not an index
 1|--gpus ' 1': ' 1' is not an index
5000|--gpus '5000': '5000' is past 1023
4|GPU 4 is not on this node (it has 4 GPUs, 0-3 in PCI bus id order)
CASES
run numaplan plan --topology "$LASSEN" -n 2 -p spread --gpus 0,2
check "--gpus with spread: refused (exit 2), the list and the policy named" \
	eval '[ "$RC" -eq 2 ] && grep -q "the GPU list .0,2. applies only to the policy gpu-near, not to the policy .spread." <<<"$ERR"'
run numaplan plan --topology "$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml" -n 2 -p gpu-near --gpus 0
check "--gpus 0 on a node without GPUs: refused (exit 2), not a silent fallback" \
	eval '[ "$RC" -eq 2 ] && grep -q "GPU 0 is not on this node (it has 0 GPUs" <<<"$ERR"'

# --hca under gpu-near: the GPUs pair with the nearest adapter named
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --hca mlx5_1,mlx5_3 -f json
check_jq "--hca mlx5_1,mlx5_3: socket 0's GPUs get mlx5_1, socket 1's mlx5_3" \
	'[.ranks[].hca] == ["mlx5_1","mlx5_1","mlx5_3","mlx5_3"] and [.ranks[].env.UCX_NET_DEVICES] == ["mlx5_1:1","mlx5_1:1","mlx5_3:1","mlx5_3:1"]'
check_jq "--hca: the GPUs are still one per rank in bus order" \
	'[.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0","1","2","3"]'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --hca mlx5_2 -f json
check_jq "--hca mlx5_2 alone: every rank uses it, socket 0's too" \
	'all(.ranks[]; .hca == "mlx5_2")'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpus 0,1 --hca mlx5_3 -f json
check_jq "--gpus 0,1 --hca mlx5_3: both restrictions at once" \
	'[.ranks[].gpus[0]] == ["0004:04:00.0","0004:04:00.0","0004:05:00.0","0004:05:00.0"] and all(.ranks[]; .hca == "mlx5_3")'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --hca mlx5_9
check "--hca naming an adapter not on the node: exit 2, named" \
	eval '[ "$RC" -eq 2 ] && grep -q "mlx5_9" <<<"$ERR"'
run numaplan plan --topology "$LASSEN" -n 4 -p compact --hca mlx5_0
check "--hca with compact: refused, naming both policies that take it" \
	eval '[ "$RC" -eq 2 ] && grep -q "applies only to the policies hca-near and gpu-near, not to the policy .compact." <<<"$ERR"'

# The plugin, through its harness, on the emulated GPU node: a step given
# GPUs 1 and 3 (SLURM_STEP_GPUS=1,3, CUDA_VISIBLE_DEVICES=0,1 as Slurm sets
# it when it constrains devices) and hca=mlx5_1 gives each task what
# numaplan plan --gpus 1,3 --hca mlx5_1 gives the same rank.
H=$NP_BUILDDIR/plugin/numaplan-spank-harness
if [ -x "$H" ] && [ "$(id -u)" -eq 0 ]; then
	source "$NP_SRCDIR/tests/slurm/slurm-lib.sh"
	dir=$(root_tmpdir gpusel) || exit 1
	trap 'rm -rf "$dir"' EXIT
	bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/gpu.xml" gpus && chmod 0644 "$dir/gpu.xml"
	bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/gpu.xml" "$dir/sys"
	run numaplan plan --topology "$dir/gpu.xml" --sysfs "$dir/sys" -n 2 -p gpu-near --gpus 1,3 --hca mlx5_1 --mem none -f json
	cli=$OUT
	same=1
	for t in 0 1; do
		SLURM_STEP_GPUS=1,3 CUDA_VISIBLE_DEVICES=0,1 run "$H" bind gpu-near,hca=mlx5_1,mem=none 2 $t \
			topology="$dir/gpu.xml" sysfs="$dir/sys"
		for v in NUMAPLAN_CPUS CUDA_VISIBLE_DEVICES UCX_NET_DEVICES; do
			got=$(sed -n "s/^$v=//p" <<<"$OUT")
			case $v in
			NUMAPLAN_CPUS) want=$(jq -r ".ranks[$t].cpus" <<<"$cli") ;;
			*) want=$(jq -r ".ranks[$t].env.$v" <<<"$cli") ;;
			esac
			[ -n "$got" ] && [ "$got" = "$want" ] || { same=0; diag "task $t $v: plugin '$got', plan '$want'"; }
		done
	done
	check "plugin (SLURM_STEP_GPUS=1,3, hca=mlx5_1) and numaplan plan --gpus 1,3 --hca mlx5_1 agree" \
		test "$same" -eq 1
	OUT=$cli
	check_jq "... and that plan uses GPUs 1 and 3 (0000:45:00.0, 0000:c5:00.0) and mlx5_1 only" \
		'[.ranks[].gpus[0]] == ["0000:45:00.0","0000:c5:00.0"] and all(.ranks[]; .hca == "mlx5_1")'
else
	skip "plugin parity: needs root and numaplan-spank-harness"
	skip "plugin parity"
fi
done_testing
