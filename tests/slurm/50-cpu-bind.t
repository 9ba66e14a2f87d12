#!/bin/bash
# respect_cpu_bind: an explicit --cpu-bind wins (with a note) by default,
# not with respect_cpu_bind=no, and never against an enforced policy;
# --cpu-bind=verbose alone is not a binding request.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
a=${pus[0]} b=${pus[1]}
# Slurm's map_cpu puts task 0 on b and task 1 on a: the reverse of compact
MAP="--cpu-bind=map_cpu:$b,$a"

plugstack ''
srun_ -N1 -n2 "$MAP" --numa-plan=compact numaplan-probe --json
check "respect (default): Slurm's map_cpu wins" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .cpus)" = "$b" ] && [ "$(pfield 1 .cpus)" = "$a" ]'
check "respect: no NUMAPLAN_* (the plugin did not bind)" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]
check "respect: one note saying so" \
	eval '[ "$(grep -c "numaplan: .*note: an explicit --cpu-bind (map_cpu:) wins; policy .compact. not applied" <<<"$ERR")" -eq 1 ]'

srun_ -N1 -n2 --cpu-bind=verbose --numa-plan=compact numaplan-probe --json
check "--cpu-bind=verbose is not an explicit binding: the plugin binds" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ] && [ "$(pfield 0 .cpus)" = "$a" ]'

plugstack 'respect_cpu_bind=no'
srun_ -N1 -n2 "$MAP" --numa-plan=compact numaplan-probe --json
check "respect_cpu_bind=no: the plan wins over map_cpu" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 1 .cpus)" = "$b" ]'
check "respect_cpu_bind=no: NUMAPLAN_POLICY=compact, no note" \
	eval '[ "$(pfield 1 .env.NUMAPLAN_POLICY)" = compact ] && ! grep -q "note: an explicit" <<<"$ERR"'

plugstack 'default=compact enforce'
srun_ -N1 -n2 "$MAP" numaplan-probe --json
check "enforce: the plan wins over an explicit --cpu-bind" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'

plugstack 'default=compact'
srun_ -N1 -n2 "$MAP" numaplan-probe --json
check "site default + explicit --cpu-bind: Slurm's binding wins" \
	eval '[ "$(pfield 0 .cpus)" = "$b" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'

done_testing
