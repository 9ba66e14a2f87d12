#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# gpu-near with every GPU visible, the rank's own first (--gpu-visible
# all): the visible-devices value is the rank's own GPU(s) then the
# others in index order; CPUs, memory and adapter stay those of its own
# GPU.  Expectations from the stored files: Lassen's four V100s in bus
# order, 0 and 1 on NUMA 0 (socket 0, mlx5_0/mlx5_1), 2 and 3 on NUMA 8
# (socket 1, mlx5_2/mlx5_3); Tioga's eight MI250X GCDs (ROCm).
source "$(dirname "$0")/../tap.sh"
LASSEN=$TOPO/ibm-power9-2s-4v100-4mlx5-lassen.xml
TIOGA=$TOPO/amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml
numa_of() { hwloc-calc --input "$LASSEN" --physical-output --intersect numa "$(sed 's/,/,pu:/g; s/^/pu:/' <<<"$1" | tr ',' ' ')"; }
# own-first VALUE OWN N: OWN's entries first, then 0..N-1 without them
own_first() {
	local own=$2 n=$3 out=$2 i
	for ((i = 0; i < n; i++)); do
		grep -qx "$i" <<<"${own//,/$'\n'}" || out+=",$i"
	done
	[ "$1" = "$out" ]
}

run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpu-visible all -f json
check "--gpu-visible all: exit 0" test "$RC" -eq 0
all=$OUT
bad=0
for r in 0 1 2 3; do
	v=$(jq -r ".ranks[$r].env.CUDA_VISIBLE_DEVICES" <<<"$all")
	own_first "$v" "$r" 4 || { bad=1; diag "rank $r: CUDA_VISIBLE_DEVICES=$v"; }
done
check "Lassen -n 4: rank r sees GPU r first, then the other three in order (r,0..3)" test "$bad" -eq 0
check "Lassen -n 4: ranks 0, 1 on NUMA 0 and 2, 3 on NUMA 8, as their own GPUs" \
	eval '[ "$(for r in 0 1 2 3; do numa_of "$(jq -r ".ranks[$r].cpus" <<<"$all")"; done | paste -sd" ")" = "0 0 8 8" ]'
OUT=$all
check_jq "Lassen -n 4: each rank's adapter is of its own GPU's socket, and gpus[] its own GPU only" \
	'(.ranks[0:2] | all(.hca | IN("mlx5_0","mlx5_1"))) and (.ranks[2:4] | all(.hca | IN("mlx5_2","mlx5_3"))) and ([.ranks[].gpus | length] == [1,1,1,1])'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near -f json
check "Lassen -n 4: CPUs, memory, adapters and GPUs the same as with --gpu-visible own" \
	test "$(jq -c '[.ranks[] | del(.env.CUDA_VISIBLE_DEVICES)]' <<<"$OUT")" = "$(jq -c '[.ranks[] | del(.env.CUDA_VISIBLE_DEVICES)]' <<<"$all")"
check "JSON: gpus_visible_all says which (true with all, false by default)" \
	eval '[ "$(jq .gpus_visible_all <<<"$all")" = true ] && [ "$(jq .gpus_visible_all <<<"$OUT")" = false ]'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpu-visible own -f json
check "--gpu-visible own is the default" test "$OUT" = "$(numaplan plan --topology "$LASSEN" -n 4 -p gpu-near -f json)"

run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --gpu-visible all -f json
check_jq "Lassen -n 2: a rank's two GPUs of its socket first, then the other socket's" \
	'[.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0,1,2,3","2,3,0,1"]'
run numaplan plan --topology "$LASSEN" -n 8 -p gpu-near --gpu-visible all -f json
check_jq "Lassen -n 8: two ranks per GPU, each sees its GPU first" \
	'[.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0,1,2,3","0,1,2,3","1,0,2,3","1,0,2,3","2,0,1,3","2,0,1,3","3,0,1,2","3,0,1,2"]'
run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --gpus 1,3 --gpu-visible all -f json
check_jq "--gpus 1,3: only the listed GPUs, counted from 0 (own first)" \
	'[.ranks[].env.CUDA_VISIBLE_DEVICES] == ["0,1","1,0"]'

run numaplan plan --topology "$TIOGA" -n 8 -p gpu-near --gpu-visible all -f json
bad=0
for r in $(seq 0 7); do
	v=$(jq -r ".ranks[$r].env.ROCR_VISIBLE_DEVICES" <<<"$OUT")
	own=${v%%,*}
	[ "$(jq -r ".ranks[$r].gpus | length" <<<"$OUT")" = 1 ] || bad=1
	own_first "$v" "$own" 8 || { bad=1; diag "rank $r: ROCR_VISIBLE_DEVICES=$v"; }
done
check "Tioga -n 8 (ROCm): each rank its GCD first, then the seven others in order" test "$bad" -eq 0
check_jq "Tioga -n 8: the first entries are the 8 GCDs, one each" \
	'[.ranks[].env.ROCR_VISIBLE_DEVICES | split(",")[0]] | sort == ["0","1","2","3","4","5","6","7"]'

# the choice is gpu-near's: refused elsewhere, and bad values refused
run numaplan plan --topology "$LASSEN" -n 4 -p hca-near --gpu-visible all
check "--gpu-visible all with hca-near: exit 2, naming it and gpu-near" \
	eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "every GPU visible (gpu-visible=all) applies only to the policy gpu-near, not to the policy .hca-near." <<<"$ERR"'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpu-visible every
check "--gpu-visible every: exit 2, the value named" \
	eval '[ "$RC" -eq 2 ] && grep -q -- "--gpu-visible .every.: valid: own" <<<"$ERR"'
run numaplan plan --topology "$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml" -n 2 -p gpu-near --gpu-visible all -f json
check "no GPU on the node: the usual fall back to hca-near, no GPU variable" \
	eval '[ "$RC" -eq 0 ] && [ "$(jq -r .policy <<<"$OUT")" = hca-near ] && [ "$(jq "[.ranks[].env | keys[] | select(test(\"VISIBLE\"))] | length" <<<"$OUT")" = 0 ]'

# the formats carry it; srun's --gpu-bind would hide the other GPUs
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpu-visible all -f slurm -- ./app
check "slurm: no --gpu-bind, each task's CUDA_VISIBLE_DEVICES in the --multi-prog file" \
	eval '! grep -q -- --gpu-bind <<<"$OUT" && grep -q "^1 env CUDA_VISIBLE_DEVICES=1,0,2,3 " <<<"$OUT" && grep -q -- "--multi-prog numaplan.multi$" <<<"$OUT"'
run numaplan plan --topology "$LASSEN" -n 4 -p gpu-near --gpu-visible all -f mpich -- ./app
check "mpich: each executable its own -env CUDA_VISIBLE_DEVICES" \
	grep -q -- "-n 1 -env CUDA_VISIBLE_DEVICES 3,0,1,2 .* ./app$" <<<"$OUT"

# the plugin's modifier, through its harness (tests/slurm/89-gpu.t runs it live)
H=$NP_BUILDDIR/plugin/numaplan-spank-harness
if [ -x "$H" ]; then
	run "$H" request gpu-near,gpu-visible=all
	check "--numa-plan=gpu-near,gpu-visible=all reaches the plan options" \
		grep -qx 'policy=gpu-near verbose=0 threads=0 mem=bind hca= help=0 from_user=1 gpu-visible=all' <<<"$OUT"
	run "$H" request gpu-near,gpu-visible=own
	check "gpu-visible=own: the default (not shown)" grep -qx 'policy=gpu-near .* from_user=1' <<<"$OUT"
	run "$H" request compact,gpu-visible=all
	check "gpu-visible=all with compact: refused, naming gpu-near" \
		eval '[ "$RC" -ne 0 ] && grep -q "refused: every GPU visible (gpu-visible=all) applies only to the policy gpu-near, not to the policy .compact." <<<"$ERR"'
	run "$H" request gpu-near,gpu-visible=some
	check "gpu-visible=some: refused, the value named" \
		eval '[ "$RC" -ne 0 ] && grep -q "invalid --numa-plan value .gpu-near,gpu-visible=some.: .gpu-visible=some. is not a choice" <<<"$ERR"'
	run "$H" request gpu-near,gpu-visible=all,gpu-visible=own
	check "gpu-visible= twice: refused" eval '[ "$RC" -ne 0 ] && grep -q "modifier .gpu-visible=. is given twice" <<<"$ERR"'
	run "$H" request gpu-visible=all default=gpu-near enforce
	check "an enforced gpu-near takes no gpu-visible=" \
		eval '[ "$RC" -ne 0 ] && grep -q "only the modifier .verbose. may be added" <<<"$ERR"'
	run "$H" request gpu-visible=all default=gpu-near
	check "gpu-visible=all alone applies to the site's default gpu-near" grep -q '^policy=gpu-near .* gpu-visible=all$' <<<"$OUT"
	run "$H" help
	check "help lists gpu-visible=own|all" grep -q "gpu-visible=own|all" <<<"$OUT"
else
	for i in 1 2 3 4 5 6 7 8; do skip "numaplan-spank-harness not built"; done
fi
done_testing
