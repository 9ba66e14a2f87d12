#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# gpu-near's silent cases made loud, live through the plugin (issue 20,
# items 7 and 9): the emulated GPU node of 89-gpu.t (this machine's PUs as
# two NUMA nodes, four GPUs, two InfiniBand HCAs mlx5_0 and mlx5_1 whose
# port states come from a sysfs tree) with every port DOWN, rails= past the
# two HCAs, each without and with on_error=fail; and a task spanning both
# NUMA nodes while the environment holds MPICH_OFI_NIC_POLICY=NUMA.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

read -r -a pus <<<"$(machine_pus)"
n=${#pus[@]}
[ "$n" -ge 2 ] || skip_all "needs 2 PUs"
dir=$(root_tmpdir gpuloud) || skip_all "cannot make a root-only directory"
cleanup() { plugstack_reset; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$dir"; }
trap cleanup EXIT
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/gpu.xml" gpus || skip_all "cannot generate the XML"
chmod 0644 "$dir/gpu.xml"
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/gpu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
check "the emulated node has mlx5_0 and mlx5_1 (hwloc)" \
	eval '[ "$(hwloc-ls --input "$dir/gpu.xml" --whole-io | grep -o "OpenFabrics[^\"]*\"mlx5_[01]\"" | sort -u | wc -l)" -eq 2 ]'

run "$VC" up --nodes 2 --topology "$dir/gpu.xml" --gpus 4
check "vcluster up --gpus 4 with the GPU topology" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
base="cache=$dir sysfs=$dir/sys"
probe='numaplan-probe --json'

# ---- every HCA port DOWN -----------------------------------------------------
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" set "$dir/sys" mlx5_0 1 DOWN
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" set "$dir/sys" mlx5_1 1 DOWN
plugstack "$base"
srun_ -N1 -n2 --gres=gpu:2 --numa-plan=gpu-near,mem=none sh -c "$probe"
check "all DOWN: the step runs, bound by gpu-near" \
	eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = gpu-near ]'
check "all DOWN: no task has an adapter" eval '[ -z "$(pfield 0 .env.NUMAPLAN_HCA)" ] && [ "$(pfield 0 .env.UCX_NET_DEVICES)" = null ]'
check "all DOWN, without verbose: the note names both ports DOWN" \
	eval 'grep -q "note: gpu-near: no usable adapter on this node (.*mlx5_0: port 1 DOWN" <<<"$ERR" && grep -q "mlx5_1: port 1 DOWN" <<<"$ERR"'
plugstack "$base on_error=fail"
marker=$dir/ran
srun_ -N1 -n1 --gres=gpu:1 --numa-plan=gpu-near,mem=none touch "$marker"
check "all DOWN, on_error=fail: the step fails with the reason" \
	eval '[ "$RC" -ne 0 ] && grep -q "error: gpu-near: no usable adapter on .*mlx5_0: port 1 DOWN" <<<"$ERR"'
check "... and nothing ran" [ ! -e "$marker" ]

# ---- rails= past the usable adapters ------------------------------------------
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" set "$dir/sys" mlx5_0 1 ACTIVE
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" set "$dir/sys" mlx5_1 1 ACTIVE
plugstack "$base"
srun_ -N1 -n1 --gres=gpu:1 --numa-plan=gpu-near,mem=none,rails=2 sh -c "$probe"
check "rails=2 with two ACTIVE HCAs: both, no note" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.UCX_NET_DEVICES | tr , "\n" | sort | tr "\n" " ")" = "mlx5_0:1 mlx5_1:1 " ] && ! grep -q "note:" <<<"$ERR"'
srun_ -N1 -n1 --gres=gpu:1 --numa-plan=gpu-near,mem=none,rails=4 sh -c "$probe"
check "rails=4 with two: the task gets both" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.UCX_NET_DEVICES | tr , "\n" | sort | tr "\n" " ")" = "mlx5_0:1 mlx5_1:1 " ]'
check "rails=4 with two, without verbose: the note says only 2, each task 2" \
	grep -q "note: rails=4 (adapters per rank): only 2 usable adapters on this node (mlx5_[01], mlx5_[01]), each rank gets 2" <<<"$ERR"
plugstack "$base on_error=fail"
srun_ -N1 -n1 --gres=gpu:1 --numa-plan=gpu-near,mem=none,rails=4 touch "$marker"
check "rails=4, on_error=fail: the step fails, saying what to ask for" \
	eval '[ "$RC" -ne 0 ] && grep -q "rails=4 (adapters per rank): only 2 usable adapters on .*; ask for rails=2 or fewer" <<<"$ERR" && [ ! -e "$marker" ]'

# ---- Cray MPICH's NUMA NIC policy and a task spanning NUMA nodes -----------------
plugstack "$base"
srun_ -N1 -n1 -c"$n" --gres=gpu:1 --numa-plan=gpu-near,mem=none sh -c "$probe"
cpus=$(pfield 0 .cpus)
# the emulated node's NUMA nodes of those CPUs, by hwloc on its XML
spans=$(for c in $(cpus_of "$cpus"); do hwloc-calc --input "$dir/gpu.xml" --pi --physical-output --intersect numa "pu:$c"; done | sort -u | wc -l)
check "a task of $n CPUs spans both emulated NUMA nodes (cpus $cpus: $spans nodes, hwloc)" [ "$spans" -eq 2 ]
MPICH_OFI_NIC_POLICY=NUMA srun_ -N1 -n1 -c"$n" --gres=gpu:1 --numa-plan=gpu-near,mem=none \
	sh -c 'echo "policy=$MPICH_OFI_NIC_POLICY"'
check "MPICH_OFI_NIC_POLICY=NUMA kept (the user's) and a warning naming it, the CPUs and what to do" \
	eval '[ "$RC" -eq 0 ] && [ "$OUT" = policy=NUMA ] &&
	      grep -q "task 0 (rank 0): warning: MPICH_OFI_NIC_POLICY=NUMA (set in the environment, so kept) and the task.s cpus .* span NUMA nodes .*; unset MPICH_OFI_NIC_POLICY" <<<"$ERR"'
MPICH_OFI_NIC_POLICY=NUMA srun_ -N1 -n2 -c1 --gres=gpu:2 --numa-plan=gpu-near,mem=none sh -c "$probe"
check "one CPU per task (one NUMA node): no warning" eval '[ "$RC" -eq 0 ] && ! grep -q "MPICH_OFI_NIC_POLICY=NUMA" <<<"$ERR"'
MPICH_OFI_NIC_POLICY=BLOCK srun_ -N1 -n1 -c"$n" --gres=gpu:1 --numa-plan=gpu-near,mem=none sh -c "$probe"
check "MPICH_OFI_NIC_POLICY=BLOCK: no warning" eval '[ "$RC" -eq 0 ] && ! grep -q "warning: MPICH" <<<"$ERR"'
check "slurmd of every node still up" nodes_alive
done_testing
