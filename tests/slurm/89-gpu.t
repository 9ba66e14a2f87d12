#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# gpu-near on the vcluster: nodes with an emulated GPU topology (this
# machine's PUs as two NUMA nodes, four NVIDIA GPUs and two InfiniBand HCAs,
# emulated-topology.sh gpus) and gres/gpu on four fake device files (vcluster
# --gpus 4, AutoDetect=off).  Bus order, which gres.conf follows:
#   GPU 0 0000:05:00.0 NUMA 0 (mlx5_1)    GPU 2 0000:85:00.0 NUMA 0 (mlx5_1)
#   GPU 1 0000:45:00.0 NUMA 1 (mlx5_0)    GPU 3 0000:c5:00.0 NUMA 1 (mlx5_0)
# The Slurm side (the step's GPUs, --gpu-bind precedence, the fallback
# without GPUs), then the placement the planner's gpu-near gives.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

read -r -a pus <<<"$(machine_pus)"
n=${#pus[@]}
[ "$n" -ge 2 ] || skip_all "needs 2 PUs"
dir=$(root_tmpdir gpu) || skip_all "cannot make a root-only directory"
cleanup() { scancel -u root -n np-gpu-holder >/dev/null 2>&1; plugstack_reset; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/gpu.xml" gpus || skip_all "cannot generate the XML"
chmod 0644 "$dir/gpu.xml"
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/gpu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
numa0=$(IFS=,; echo "${pus[*]:0:$((n / 2))}")
numa1=$(IFS=,; echo "${pus[*]:$((n / 2))}")

run "$VC" up --nodes 2 --topology "$dir/gpu.xml" --gpus 4
check "vcluster up --gpus 4 with the GPU topology" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
run scontrol show node n1
check "n1 has Gres=gpu:4" grep -q "Gres=gpu:4" <<<"$OUT"
base="cache=$dir sysfs=$dir/sys"
plugstack "$base"

# pfield_where CUDA: the UCX_NET_DEVICES of the task that saw that CUDA_VISIBLE_DEVICES
pfield_where() { echo "$OUT" | grep '^{' | jq -r --arg c "$1" 'select(.cuda == $c) | .env.UCX_NET_DEVICES'; }
# What the task saw: the probe, plus the visible-devices variables
probe='numaplan-probe --json | jq -c --arg c "${CUDA_VISIBLE_DEVICES-unset}" --arg s "${SLURM_STEP_GPUS-unset}" ". + {cuda: \$c, step_gpus: \$s}"'

srun_ -N1 -n2 --gres=gpu:2 sh -c "$probe"
check "Slurm gives a --gres=gpu:2 step two GPUs (SLURM_STEP_GPUS=0,1)" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .step_gpus)" = 0,1 ] && [ "$(pfield 0 .cuda)" = 0,1 ]'

# ---- precedence: srun --gpu-bind
srun_ -N1 -n2 --gres=gpu:2 --gpu-bind=closest --numa-plan=gpu-near,mem=none sh -c "$probe"
check "an explicit --gpu-bind wins over gpu-near, with a note" \
	eval '[ "$RC" -eq 0 ] && grep -q "note: an explicit --gpu-bind wins; policy .gpu-near. not applied" <<<"$ERR"'
check "... and the tasks are not bound by numaplan" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]
srun_ -N1 -n2 --gres=gpu:2 --gpu-bind=verbose --numa-plan=gpu-near,mem=none sh -c "$probe"
check "--gpu-bind=verbose alone binds nothing: no such note" eval '! grep -q "gpu-bind wins" <<<"$ERR"'
# --export=NONE hands the step only SLURM* variables: srun's mark is one
srun_ -N1 -n2 --export=NONE --gres=gpu:2 --gpu-bind=closest --numa-plan=gpu-near,mem=none \
	/bin/sh -c "PATH='$PATH'; $probe"
check "--export=NONE: the explicit --gpu-bind still wins, with the note" \
	eval '[ "$RC" -eq 0 ] && grep -q "note: an explicit --gpu-bind wins; policy .gpu-near. not applied" <<<"$ERR" && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'
srun_ -N1 -n2 --gres=gpu:2 --gpu-bind=closest --numa-plan=spread,mem=none sh -c "$probe"
check "--gpu-bind does not stop a policy that places no GPU (spread)" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ] && ! grep -q "gpu-bind wins" <<<"$ERR"'
# Slurm 23.11 and later: --tres-bind=gres/gpu:TYPE is what --gpu-bind
# became (srun turns --gpu-bind=X into it); 22.05's srun has no such option.
tresprobe='numaplan-probe --json | jq -c --arg c "${CUDA_VISIBLE_DEVICES-unset}" --arg t "${SLURM_TRES_BIND-unset}" ". + {cuda: \$c, tres_bind: \$t}"'
if slurm_at_least 23.11; then
	srun_ -N1 -n2 --gres=gpu:2 --tres-bind=gres/gpu:closest --numa-plan=gpu-near,mem=none sh -c "$tresprobe"
	check "23.11+: an explicit --tres-bind=gres/gpu wins over gpu-near, with a note naming it" \
		eval '[ "$RC" -eq 0 ] && grep -q "note: an explicit --tres-bind=gres/gpu wins; policy .gpu-near. not applied" <<<"$ERR"'
	check "... the tasks are not bound by numaplan, and srun passed SLURM_TRES_BIND on (the premise)" \
		eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] && [ "$(pfield 0 .tres_bind)" = gres/gpu:closest ]'
	srun_ -N1 -n2 --gres=gpu:2 --tres-bind=gres/gpu:map:1,0 --numa-plan=gpu-near,mem=none sh -c "$tresprobe"
	check "23.11+: --tres-bind=gres/gpu:map:1,0 wins: Slurm's map (task 0 GPU 1, task 1 GPU 0)" \
		eval '[ "$(pfield 0 .cuda)" = 1 ] && [ "$(pfield 1 .cuda)" = 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'
	srun_ -N1 -n2 --gres=gpu:2 --tres-bind=gres/nic:closest --numa-plan=gpu-near,mem=none sh -c "$tresprobe"
	check "23.11+: a --tres-bind without gres/gpu binds no GPU: gpu-near applies" \
		eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ] && ! grep -q "tres-bind=gres/gpu wins" <<<"$ERR"'
	# --gpus-per-task makes srun bind by itself and export
	# SLURM_TRES_BIND=gres/gpu:per_task:1 to the step: not the user's choice
	srun_ -N1 -n2 --gpus-per-task=1 --numa-plan=gpu-near,mem=none sh -c "$tresprobe"
	check "23.11+: --gpus-per-task's implicit SLURM_TRES_BIND is not explicit: gpu-near binds" \
		eval '[ "$(pfield 0 .tres_bind)" = gres/gpu:per_task:1 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ] && ! grep -q "wins" <<<"$ERR"'
	check "... each task one GPU of the step, distinct" \
		eval '[ "$(printf "%s\n%s\n" "$(pfield 0 .cuda)" "$(pfield 1 .cuda)" | sort | tr "\n" " ")" = "0 1 " ]'
	# a nested srun inherits SLURM_TRES_BIND (srun reads it as --tres-bind),
	# and the outer -c2 (SLURM_CPUS_PER_TASK, SLURM_TRES_PER_TASK=cpu=2),
	# which the inner srun goes without
	srun_ -N1 -n1 -c2 --gres=gpu:2 --tres-bind=gres/gpu:closest sh -c \
		"env -u SLURM_CPUS_PER_TASK -u SLURM_TRES_PER_TASK srun -n2 --overlap --gres=gpu:2 --numa-plan=gpu-near,mem=none sh -c '$tresprobe'"
	check "23.11+: a nested srun's inherited SLURM_TRES_BIND is not explicit: gpu-near binds" \
		eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ] && ! grep -q "wins" <<<"$ERR"'
else
	srun_ -N1 -n1 --tres-bind=gres/gpu:closest true
	check "22.05: srun has no --tres-bind (so only --gpu-bind can ask)" eval '[ "$RC" -ne 0 ] && grep -q "unrecognized option" <<<"$ERR"'
fi
srun_ -N1 -n2 --gpus-per-task=1 --numa-plan=gpu-near,mem=none sh -c "$probe"
check "--gpus-per-task (Slurm's implicit per-task binding) is not explicit: gpu-near binds" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ] && ! grep -q "wins" <<<"$ERR"'

plugstack "$base default=gpu-near enforce"
srun_ -N1 -n2 --gres=gpu:2 --gpu-bind=closest --numa-plan=verbose sh -c "$probe"
check "enforced gpu-near: --gpu-bind does not win" eval '! grep -q "gpu-bind wins" <<<"$ERR"'
# one task, one GPU: a plan the step's NUMA node holds, so the plugin binds
srun_ -N1 -n1 --gres=gpu:1 --gpu-bind=closest --numa-plan=verbose sh -c "$probe"
check "enforced gpu-near: binds over --gpu-bind, and says so" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ] && grep -q "note: policy .gpu-near. applied; your --gpu-bind is overridden (the site enforces it)" <<<"$ERR"'
plugstack "$base respect_gpu_bind=no"
srun_ -N1 -n2 --gres=gpu:2 --gpu-bind=closest --numa-plan=gpu-near,mem=none sh -c "$probe"
check "respect_gpu_bind=no: --gpu-bind does not win" eval '! grep -q "gpu-bind wins" <<<"$ERR"'
check "respect_gpu_bind=no: the override is said" \
	grep -q "note: policy .gpu-near. applied; your --gpu-bind is overridden (respect_gpu_bind=no)" <<<"$ERR"
if slurm_at_least 23.11; then
	srun_ -N1 -n1 --gres=gpu:1 --tres-bind=gres/gpu:closest --numa-plan=gpu-near,mem=none sh -c "$probe"
	check "23.11+ respect_gpu_bind=no: the override of --tres-bind=gres/gpu is said, naming it" \
		eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ] && grep -q "note: policy .gpu-near. applied; your --tres-bind=gres/gpu is overridden (respect_gpu_bind=no)" <<<"$ERR"'
fi

# ---- no GPU in the step: the fallback
plugstack "$base"
srun_ -N1 -n2 --numa-plan=gpu-near,mem=none,verbose sh -c "$probe"
check "gpu-near without GPUs: warned, hca-near instead" \
	eval '[ "$RC" -eq 0 ] && grep -q "note: gpu-near: Slurm allocated no GPU to this step on this node; hca-near used instead" <<<"$ERR"'
check "... the tasks are bound as hca-near" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = hca-near ]
check "... and get no visible device" [ "$(pfield 0 .cuda)" = unset ]
plugstack "$base on_error=fail"
marker=$dir/ran
srun_ -N1 -n1 --numa-plan=gpu-near,mem=none touch "$marker"
check "on_error=fail: gpu-near without GPUs fails the step with the reason" \
	eval '[ "$RC" -ne 0 ] && grep -q "error: gpu-near: Slurm allocated no GPU to this step" <<<"$ERR"'
check "... and nothing ran" [ ! -e "$marker" ]
plugstack "$base"

# ---- the placement (the planner's gpu-near)
check "the planner plans gpu-near on the emulated GPU node" \
	eval 'numaplan plan --policy gpu-near --topology "$dir/gpu.xml" -n 2 >/dev/null'
srun_ -N1 -n2 --gres=gpu:2 --numa-plan=gpu-near,mem=none,verbose sh -c "$probe"
check "gpu-near -n2 --gres=gpu:2 runs" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
r0=$(pfield 0 .cuda); r1=$(pfield 1 .cuda)
check "each task one of the step's GPUs (0 and 1), distinct" \
	eval '[ "$(printf "%s\n%s\n" "$r0" "$r1" | sort | tr "\n" " ")" = "0 1 " ]'
for r in 0 1; do
	g=$(pfield $r .cuda); cpus=$(pfield $r .cpus); ucx=$(pfield $r .env.UCX_NET_DEVICES)
	if [ "$g" = 0 ]; then want=$numa0 hca=mlx5_1:1 bus=0000:05:00.0; else want=$numa1 hca=mlx5_0:1 bus=0000:45:00.0; fi
	check "rank $r (GPU $g): the CPUs of its GPU's NUMA node ($want)" subset "$cpus" "$want"
	check "rank $r (GPU $g): the adapter beside its GPU ($hca)" [ "$ucx" = "$hca" ]
	check "rank $r (GPU $g): NUMAPLAN_GPUS names its bus id ($bus), what audit compares" \
		[ "$(pfield $r .env.NUMAPLAN_GPUS)" = "$bus" ]
done
check "verbose names each index's bus id" \
	eval 'grep -q "gpus 0=0000:05:00.0" <<<"$ERR" && grep -q "gpus 1=0000:45:00.0" <<<"$ERR"'
srun_ -N1 -n2 --gres=gpu:1 --numa-plan=gpu-near,mem=none sh -c "$probe"
check "two tasks, one GPU: both get it" \
	eval '[ "$(pfield 0 .cuda)" = 0 ] && [ "$(pfield 1 .cuda)" = 0 ]'

# ---- every GPU visible, own first (gpu-visible=all): the task's own GPU
# leads Slurm's list, the others follow in Slurm's order; CPUs and adapter
# are its own GPU's, as above
srun_ -N1 -n2 --gres=gpu:2 --numa-plan=gpu-near,gpu-visible=all,mem=none,verbose sh -c "$probe"
check "gpu-visible=all -n2 --gres=gpu:2 runs" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
check "each task sees both of the step's GPUs, a different one first" \
	eval '[ "$(for r in 0 1; do pfield $r .cuda; done | sort | tr "\n" " ")" = "0,1 1,0 " ]'
check "verbose says so, with the whole list" \
	eval 'grep -q "task [01]: every GPU of the step visible, its own first: CUDA_VISIBLE_DEVICES=0,1$" <<<"$ERR" && grep -q "every GPU of the step visible, its own first: CUDA_VISIBLE_DEVICES=1,0$" <<<"$ERR"'
for r in 0 1; do
	g=$(pfield $r .cuda); g=${g%%,*}; cpus=$(pfield $r .cpus); ucx=$(pfield $r .env.UCX_NET_DEVICES)
	if [ "$g" = 0 ]; then want=$numa0 hca=mlx5_1:1; else want=$numa1 hca=mlx5_0:1; fi
	check "gpu-visible=all, rank $r (own GPU $g first): the CPUs of its GPU's NUMA node ($want)" subset "$cpus" "$want"
	check "gpu-visible=all, rank $r: the adapter beside its own GPU ($hca)" [ "$ucx" = "$hca" ]
done
# two tasks, four GPUs: each its NUMA node's two (0 and 2, or 1 and 3),
# then the step's other two in Slurm's order
srun_ -N1 -n2 --gres=gpu:4 --numa-plan=gpu-near,gpu-visible=all,mem=none sh -c "$probe"
check "gpu-visible=all -n2 --gres=gpu:4: one task sees 0,2,1,3 and the other 1,3,0,2" \
	eval '[ "$RC" -eq 0 ] && [ "$(for r in 0 1; do pfield $r .cuda; done | sort | paste -sd" ")" = "0,2,1,3 1,3,0,2" ]'
check "... the first with mlx5_1 (GPUs 0 and 2's), the second with mlx5_0" \
	eval '[ "$(pfield_where 0,2,1,3)" = mlx5_1:1 ] && [ "$(pfield_where 1,3,0,2)" = mlx5_0:1 ]'
srun_ -N1 -n1 --gres=gpu:1 --numa-plan=compact,gpu-visible=all sh -c "$probe"
check "gpu-visible=all with compact: refused at srun, naming gpu-near" \
	eval '[ "$RC" -ne 0 ] && grep -q "gpu-visible=all) applies only to the policy gpu-near" <<<"$ERR"'

# ---- numaplan plan -f slurm for this node type, run as written: the GPU
# variables from --gpu-bind (or the --multi-prog file, with every GPU
# visible), each task's adapter variables from the --multi-prog file
work=$dir/work
mkdir -p "$work" && chmod 0755 "$work"
printf '%s\n' '#!/bin/sh' \
	'exec numaplan-probe --json --no-mpi | jq -c --arg c "${CUDA_VISIBLE_DEVICES-unset}" ". + {cuda: \$c}"' >"$work/probe.sh"
chmod 0755 "$work/probe.sh"
plugstack ""
for vis in own all; do
	numaplan plan --topology "$dir/gpu.xml" --sysfs "$dir/sys" --hosts n1 -n 2 -p gpu-near --mem none \
		--gpu-visible $vis -f slurm -- "$work/probe.sh" >"$work/run.sh"
	numaplan plan --topology "$dir/gpu.xml" --sysfs "$dir/sys" --hosts n1 -n 2 -p gpu-near --mem none \
		--gpu-visible $vis -f json >"$work/plan.json"
	# the step needs the GPUs --gpu-bind names, and runs on n1
	sed -i 's/^srun /srun -w n1 -N1 --gres=gpu:4 /' "$work/run.sh"
	run bash -c "cd '$work' && timeout $NP_SRUN_TIMEOUT bash ./run.sh"
	bad=0
	for r in 0 1; do
		for v in UCX_NET_DEVICES NCCL_IB_HCA CUDA_DEVICE_ORDER; do
			[ "$(pfield $r ".env.$v")" = "$(jq -r ".ranks[$r].env.$v" "$work/plan.json")" ] ||
				{ bad=1; diag "$vis rank $r $v: $(pfield $r ".env.$v")"; }
		done
		[ "$(pfield $r .cuda)" = "$(jq -r ".ranks[$r].env.CUDA_VISIBLE_DEVICES" "$work/plan.json")" ] ||
			{ bad=1; diag "$vis rank $r CUDA_VISIBLE_DEVICES: $(pfield $r .cuda)"; }
		[ "$(pfield $r .cpus)" = "$(jq -r ".ranks[$r].cpus" "$work/plan.json")" ] ||
			{ bad=1; diag "$vis rank $r cpus: $(pfield $r .cpus)"; }
	done
	check "numaplan plan -f slurm --gpu-visible $vis, run by srun: each task its planned CPUs, GPUs and adapter variables" \
		eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ] && [ "$bad" -eq 0 ]'
	[ "$RC" -eq 0 ] || diag "$ERR"
done
# two tasks, four GPUs: a task takes the two GPUs of one NUMA node, 0 and 2
# (mlx5_1) or 1 and 3 (mlx5_0), the header's table; then the other two
check "-f slurm --gpu-visible all: the task seeing 0,2,1,3 uses mlx5_1, the one seeing 1,3,0,2 mlx5_0" \
	eval '[ "$(pfield_where 0,2,1,3)" = mlx5_1:1 ] && [ "$(pfield_where 1,3,0,2)" = mlx5_0:1 ]'
plugstack "$base"

# GPUs 0 and 1 held by another job: the step gets 2 and 3, and never 0, 1
holder=$(sbatch --parsable -J np-gpu-holder -w n1 -n1 -c1 --gres=gpu:2 -o /dev/null --wrap 'sleep 300')
k=0; while [ $k -lt 60 ] && [ -z "$(squeue -h -j "$holder" -t R)" ]; do sleep 0.5; k=$((k + 1)); done
srun_ -w n1 -N1 -n1 -c1 --gres=gpu:2 --numa-plan=gpu-near,mem=none,verbose sh -c "$probe"
check "the step's GPUs are 2,3 (Slurm)" [ "$(pfield 0 .step_gpus)" = 2,3 ]
check "the task gets both, and no GPU of the other job" \
	eval '[ "$(pfield 0 .cuda | tr , "\n" | sort | tr "\n" " ")" = "2 3 " ]'
check "NUMAPLAN_GPUS: the bus ids of GPUs 2 and 3, 0000:85:00.0 and 0000:c5:00.0" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_GPUS | tr , "\n" | sort | tr "\n" " ")" = "0000:85:00.0 0000:c5:00.0 " ]'
check "verbose: index 2 is 0000:85:00.0, 3 is 0000:c5:00.0" \
	eval 'grep -q "2=0000:85:00.0" <<<"$ERR" && grep -q "3=0000:c5:00.0" <<<"$ERR"'
scancel "$holder"

# numaplan plan -f slurm's line, run as printed by this Slurm's srun (its
# --cpu-bind=mask_cpu and --gpu-bind=map_gpu are taken by 22.05 and, as
# --tres-bind=gres/gpu:map_gpu, by 23.11 and later), without the plugin
plan=$(numaplan plan --topology "$dir/gpu.xml" -n 2 -p gpu-near -m none -f slurm -- sh -c "$probe")
# two ranks over four GPUs: each rank the two beside its NUMA node
check "plan -f slurm: --cpu-bind=mask_cpu and --gpu-bind=mask_gpu:0x5,0xa, nothing else binding" \
	eval 'grep -q -- "--cpu-bind=mask_cpu:.* --gpu-bind=mask_gpu:0x5,0xa " <<<"$plan" && ! grep -q -- "--cpu-bind=rank\|--tres-bind" <<<"$plan"'
k=0; while [ $k -lt 60 ] && [ -n "$(squeue -h -j "$holder" 2>/dev/null)" ]; do sleep 0.5; k=$((k + 1)); done
plugstack --off
# the printed lines as a script (the ranks' variables may come as a
# --multi-prog file its here-document writes in the current directory)
sed 's/^srun /srun -N1 -w n1 --gres=gpu:4 /' <<<"$plan" >"$dir/plan-slurm.sh"
run timeout "$NP_SRUN_TIMEOUT" bash -c 'cd "$1" && bash plan-slurm.sh' _ "$dir"
check "the -f slurm line runs under srun $(srun --version | awk '{ print $2 }')" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
check "... rank 0: GPUs 0,2 and a CPU of NUMA 0; rank 1: GPUs 1,3 and one of NUMA 1" \
	eval '[ "$(pfield 0 .cuda)" = 0,2 ] && [ "$(pfield 1 .cuda)" = 1,3 ] && subset "$(pfield 0 .cpus)" "$numa0" && subset "$(pfield 1 .cpus)" "$numa1"'
plugstack "$base"
check "slurmd of every node still up" nodes_alive
done_testing
