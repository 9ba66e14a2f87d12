#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A job given one CPU (-c1 under task/cgroup) is never bound outside it,
# whatever the policy: the task's affinity stays within the step's cpuset
# cgroup, read by the task itself.  With another job holding the first
# CPU, the job's CPU is the second one and the plan follows it.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
trap 'scancel -u root -n np-c1-filler >/dev/null 2>&1; plugstack_reset' EXIT
plugstack ''

# prints the step cgroup's cpus, then the probe line
SCRIPT='cg=$(sed -n "s/^[0-9]*:cpuset:\(.*\)/\1/p" /proc/self/cgroup); echo "cgroup $(cat /sys/fs/cgroup/cpuset$cg/cpuset.cpus)"; exec numaplan-probe --json'

one_cpu() { # policy, label
	srun_ "${@:3}" -N1 -n1 -c1 --numa-plan="$1",verbose sh -c "$SCRIPT"
	local cg cpus
	cg=$(sed -n 's/^cgroup //p' <<<"$OUT")
	cpus=$(pfield 0 .cpus)
	check "$2 $1: runs" [ "$RC" -eq 0 ]
	check "$2 $1: the step has one CPU ($cg)" [ "$(cpus_of "$cg" | wc -w)" -eq 1 ]
	check "$2 $1: bound inside it ($cpus)" eval 'subset "$cpus" "$cg" && [ "$(pfield 0 .env.NUMAPLAN_CPUS)" = "$cpus" ]'
	LAST_CPU=$cpus
}

for p in compact spread numa socket l3 hca-near; do
	one_cpu "$p" "idle node,"
done
for p in compact spread; do
	one_cpu "$p,threads" "modifier"
done

node=$(sinfo -h -N -o %N | head -1)
read -r -a pus <<<"$(machine_pus)"
if [ ${#pus[@]} -eq 2 ]; then
	j=$(sbatch --parsable -J np-c1-filler -w "$node" -n1 -c1 -o /dev/null --wrap 'sleep 300')
	k=0; while [ $k -lt 60 ] && [ -z "$(squeue -h -j "$j" -t R)" ]; do sleep 0.5; k=$((k + 1)); done
	held=$(scontrol -d show job "$j" | sed -n 's/.*CPU_IDs=\([0-9,-]*\).*/\1/p' | head -1)
	for p in compact spread numa hca-near; do
		one_cpu "$p" "other job on CPU $held," -w "$node"
		check "other job on CPU $held, $p: not bound to the other job's CPU" disjoint "$LAST_CPU" "$held"
	done
	scancel "$j"
	wait_idle
else
	skip "the filler test is written for 2 PUs"
fi

done_testing
