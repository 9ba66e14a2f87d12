#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Partitioned GPUs on the vcluster: nodes with an emulated topology of two
# AMD GPUs in compute-partition mode, two partitions each (emulated-
# topology.sh gpu-partitions), and gres/gpu on four fake device files
# (vcluster --gpus 4, AutoDetect=off) listed as AutoDetect=rsmi lists a
# partitioned node: one gres/gpu per rsmi device, in rsmi order, which is
# the GPUs' PCI order with each GPU's partitions one after the other
# (Slurm's gpu_rsmi.c adds one record per device index, and gres_gpu.c
# sorts them by that index):
#   gres 0, 1: 0000:05:00.0 (rsmi0, rsmi1) NUMA 0, beside mlx5_1
#   gres 2, 3: 0000:45:00.0 (rsmi2, rsmi3) NUMA 1, beside mlx5_0
# A partition is a unit of placement: one per task, with its GPU's
# locality; the plan's own indexes and srun's --gpu-bind use gres numbers.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

read -r -a pus <<<"$(machine_pus)"
n=${#pus[@]}
[ "$n" -ge 2 ] || skip_all "needs 2 PUs"
dir=$(root_tmpdir gpupart) || skip_all "cannot make a root-only directory"
cleanup() { scancel -u root -n np-gpupart-holder >/dev/null 2>&1; plugstack_reset; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/part.xml" gpu-partitions || skip_all "cannot generate the XML"
chmod 0644 "$dir/part.xml"
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/part.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
numa0=$(IFS=,; echo "${pus[*]:0:$((n / 2))}")
numa1=$(IFS=,; echo "${pus[*]:$((n / 2))}")

run "$VC" up --nodes 2 --topology "$dir/part.xml" --gpus 4
check "vcluster up --gpus 4 with the partitioned GPU topology" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
base="cache=$dir sysfs=$dir/sys"
plugstack "$base"

probe='numaplan-probe --json | jq -c --arg r "${ROCR_VISIBLE_DEVICES-unset}" --arg s "${SLURM_STEP_GPUS-unset}" ". + {rocr: \$r, step_gpus: \$s}"'

# ---- the planner: one partition per rank, in gres order
run numaplan plan --policy gpu-near --topology "$dir/part.xml" -n 4 --overcommit --format json
plan4=$OUT
check "plan -n 4: ranks 0-3 get partitions 0-3 (ROCR_VISIBLE_DEVICES)" \
	eval '[ "$(jq -r "[.ranks[].env.ROCR_VISIBLE_DEVICES] | join(\" \")" <<<"$plan4")" = "0 1 2 3" ]'
check "plan -n 4: partitions 0, 1 on NUMA 0, 2, 3 on NUMA 1" \
	eval '[ "$(jq -r "[.ranks[].mems] | join(\" \")" <<<"$plan4")" = "0 0 1 1" ]'
run numaplan plan --policy gpu-near --topology "$dir/part.xml" -n 4 --overcommit --format slurm
check "plan -n 4 -f slurm: --gpu-bind=map_gpu:0,1,2,3 (gres numbers)" grep -q -- "--gpu-bind=map_gpu:0,1,2,3 " <<<"$OUT"
run numaplan plan --policy gpu-near --topology "$dir/part.xml" -n 2 --format slurm
bind2=$(grep -o -- "--gpu-bind=[^ ]*" <<<"$OUT")
check "plan -n 2 -f slurm: each rank both partitions of its GPU (mask_gpu:0x3,0xc)" \
	[ "$bind2" = "--gpu-bind=mask_gpu:0x3,0xc" ]
run numaplan plan --policy gpu-near --topology "$dir/part.xml" -n 2 --format json
plan2=$OUT

# ---- Slurm with the plan's --gpu-bind: the tasks see what the plan says
srun_ -N1 -n2 --gres=gpu:4 "$bind2" --numa-plan=none sh -c "$probe"
check "srun $bind2 runs" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
for r in 0 1; do
	want=$(jq -r ".ranks[$r].env.ROCR_VISIBLE_DEVICES" <<<"$plan2")
	check "task $r: Slurm's ROCR_VISIBLE_DEVICES is the plan's ($want)" [ "$(pfield $r .rocr)" = "$want" ]
done
# the -n 4 plan's map_gpu entries of ranks 1 and 2 (one partition on each
# GPU) given to two tasks (the 2-CPU vcluster allocates no 4-task step
# with GPUs): Slurm sets the plan's own value for each
m1=$(jq -r '.ranks[1].env.ROCR_VISIBLE_DEVICES' <<<"$plan4"); m2=$(jq -r '.ranks[2].env.ROCR_VISIBLE_DEVICES' <<<"$plan4")
map=$(grep -o -- "--gpu-bind=map_gpu:[0-9,]*" <<<"$(numaplan plan --policy gpu-near --topology "$dir/part.xml" -n 4 --overcommit --format slurm 2>/dev/null)" | cut -d: -f2 | cut -d, -f2,3)
srun_ -N1 -n2 --gres=gpu:4 --gpu-bind=map_gpu:$map --numa-plan=none sh -c "$probe"
check "srun --gpu-bind=map_gpu:$map (ranks 1 and 2 of the -n 4 plan): task 0 sees $m1, task 1 $m2" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .rocr)" = "$m1" ] && [ "$(pfield 1 .rocr)" = "$m2" ]'

# ---- the plugin: Slurm's gres indexes are partitions
srun_ -N1 -n2 --gres=gpu:2 --numa-plan=gpu-near,mem=none,verbose sh -c "$probe"
check "gpu-near -n2 --gres=gpu:2 runs" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
check "Slurm gives the step gres 0,1" [ "$(pfield 0 .step_gpus)" = 0,1 ]
check "each task one partition (0 and 1), distinct" \
	eval '[ "$(printf "%s\n%s\n" "$(pfield 0 .rocr)" "$(pfield 1 .rocr)" | sort | tr "\n" " ")" = "0 1 " ]'
check "verbose: both indexes are partitions of 0000:05:00.0" \
	eval 'grep -q "0=0000:05:00.0" <<<"$ERR" && grep -q "1=0000:05:00.0" <<<"$ERR" && ! grep -q "=0000:45:00.0" <<<"$ERR"'
# both partitions live on NUMA 0, which has room for one task: the other
# is placed away from its GPU, and the verbose output says so
in0=0
for r in 0 1; do subset "$(pfield $r .cpus)" "$numa0" && in0=$((in0 + 1)); done
check "one task on NUMA 0, the node of its partition" [ "$in0" -ge 1 ]
if [ "$in0" -lt 2 ]; then
	check "verbose: the task away from its GPU is named" grep -q "no CPU of the rank near its GPU: rank [01] (0000:05:00.0)" <<<"$ERR"
fi
for r in 0 1; do
	check "task $r: the adapter beside its partition's GPU (mlx5_1)" [ "$(pfield $r .env.UCX_NET_DEVICES)" = mlx5_1:1 ]
done

# gres 0, 1 held by another job: the step gets the second GPU's partitions
holder=$(sbatch --parsable -J np-gpupart-holder -w n1 -n1 -c1 --gres=gpu:2 -o /dev/null --wrap 'sleep 300')
k=0; while [ $k -lt 60 ] && [ -z "$(squeue -h -j "$holder" -t R)" ]; do sleep 0.5; k=$((k + 1)); done
srun_ -w n1 -N1 -n1 -c1 --gres=gpu:2 --numa-plan=gpu-near,mem=none,verbose sh -c "$probe"
check "the step's GPUs are gres 2,3 (Slurm)" [ "$(pfield 0 .step_gpus)" = 2,3 ]
check "the task gets both partitions 2, 3 (not refused as past the node's 2 GPUs)" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .rocr | tr , "\n" | sort | tr "\n" " ")" = "2 3 " ]'
check "the task's CPUs are NUMA 1's, its GPU's ($numa1)" subset "$(pfield 0 .cpus)" "$numa1"
check "verbose: 2 and 3 are partitions of 0000:45:00.0" \
	eval 'grep -q "2=0000:45:00.0" <<<"$ERR" && grep -q "3=0000:45:00.0" <<<"$ERR"'
scancel "$holder"
check "slurmd of every node still up" nodes_alive
done_testing
