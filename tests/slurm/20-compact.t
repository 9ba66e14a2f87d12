#!/bin/bash
# srun -n2 --numa-plan=compact numaplan-probe: each task bound as planned
# (affinity and memory policy), the tasks on different CPUs, NUMAPLAN_* set,
# one verbose line per task; and the same without the option: untouched.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
plugstack ''

read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"

srun_ -N1 -n2 --numa-plan=compact,verbose numaplan-probe --json
check "srun exits 0" [ "$RC" -eq 0 ]
check "two probe lines" [ "$(nprobes)" -eq 2 ]
# compact fills the step's cores in order: on a node whose 2 CPUs both go
# to the step, local task 0 gets the first PU and task 1 the second.
for r in 0 1; do
	cpus=$(pfield $r .cpus)
	check "rank $r: affinity is PU ${pus[$r]}" [ "$cpus" = "${pus[$r]}" ]
	check "rank $r: NUMAPLAN_CPUS matches the affinity" [ "$(pfield $r .env.NUMAPLAN_CPUS)" = "$cpus" ]
	check "rank $r: NUMAPLAN_POLICY=compact" [ "$(pfield $r .env.NUMAPLAN_POLICY)" = compact ]
	numa=$(numa_of_pu "${pus[$r]}")
	check "rank $r: memory bound (MPOL_BIND) to NUMA $numa" \
		eval '[ "$(pfield $r .mempolicy)" = bind ] && [ "$(pfield $r .mems)" = "$numa" ]'
	check "rank $r: NUMAPLAN_MEMS=$numa" [ "$(pfield $r .env.NUMAPLAN_MEMS)" = "$numa" ]
	check "rank $r: NUMAPLAN_HCA set (empty: no HCA here)" [ "$(pfield $r '.env.NUMAPLAN_HCA')" = "" ]
	check "rank $r: verbose line on stderr" \
		grep -qE "^numaplan: n[0-9]+ task $r \(rank $r\): cpus ${pus[$r]} mems $numa hca none\$" <<<"$ERR"
done
check "the two tasks are on different CPUs" disjoint "$(pfield 0 .cpus)" "$(pfield 1 .cpus)"
check "exactly one verbose line per task" [ "$(grep -c '^numaplan: .* task ' <<<"$ERR")" -eq 2 ]
check "verbose: the node's plugin names the Slurm it was built for (this one)" \
	grep -qE "^numaplan: n[0-9]+: numaplan [0-9.]+( \(package [A-Za-z0-9.+~:_-]+\))?, built for Slurm $(srun --version | awk '{ print $2 }')\$" <<<"$ERR"

srun_ -N1 -n2 --numa-plan=compact,mem=interleave numaplan-probe --json
check "mem=interleave: MPOL_INTERLEAVE over the task's node" \
	eval '[ "$(pfield 0 .mempolicy)" = interleave ] && [ "$(pfield 0 .mems)" = "$(numa_of_pu "${pus[0]}")" ]'
check "no verbose line without verbose" [ "$(grep -c '^numaplan: .* task ' <<<"$ERR")" -eq 0 ]

srun_ -N1 -n2 --numa-plan=compact,mem=none numaplan-probe --json
check "mem=none: memory policy left at default, NUMAPLAN_MEMS empty" \
	eval '[ "$(pfield 0 .mempolicy)" = default ] && [ "$(pfield 0 .env.NUMAPLAN_MEMS)" = "" ]'

# -c2: the task gets both PUs, and the OpenMP variables; a user's own
# OMP_NUM_THREADS stays
srun_ -N1 -n1 -c2 --numa-plan=compact numaplan-probe --json
check "-c2: one task on both PUs" [ "$(cpus_of "$(pfield 0 .cpus)")" = "${pus[0]} ${pus[1]}" ]
check "-c2: OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close" \
	eval '[ "$(pfield 0 .env.OMP_NUM_THREADS)" = 2 ] && [ "$(pfield 0 .env.OMP_PLACES)" = cores ] && [ "$(pfield 0 .env.OMP_PROC_BIND)" = close ]'
OMP_NUM_THREADS=7 srun_ -N1 -n1 -c2 --numa-plan=compact,verbose numaplan-probe --json
check "-c2: the user's OMP_NUM_THREADS=7 is kept, and the verbose output says so" \
	eval '[ "$(pfield 0 .env.OMP_NUM_THREADS)" = 7 ] && grep -q "1 variable(s) of the plan left as you set them" <<<"$ERR"'

srun_ -N1 -n2 numaplan-probe --json
check "without --numa-plan (no default): no NUMAPLAN_* and no memory binding" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] && [ "$(pfield 1 .mempolicy)" = default ]'

srun_ -N1 -n2 --numa-plan=none numaplan-probe --json
check "--numa-plan=none: nothing set" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]

done_testing
