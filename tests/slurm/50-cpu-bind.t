#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# respect_cpu_bind: an explicit --cpu-bind wins (with a note) by default,
# not with respect_cpu_bind=no, and never against an enforced policy;
# --cpu-bind=verbose alone is not a binding request.  Explicit means srun's
# own command line: Slurm's SLURM_CPU_BIND* variables that every task
# inherits (a nested srun takes SLURM_CPU_BIND for the option) and that a
# user may export are not, and when the note says "wins", Slurm's binding is
# what the tasks got.
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

# --cpu-bind=rank: Slurm 24.11 removed it.  22.05 passes the step
# SLURM_CPU_BIND_TYPE=rank: an explicit binding, which wins.  24.11's srun
# warns and ignores it, and no binding type reaches the step: nothing
# explicit is left, so the plugin binds.
srun_ -N1 -n2 --cpu-bind=rank --numa-plan=compact numaplan-probe --json
if slurm_at_least 24.11; then
	check "24.11+: srun ignores --cpu-bind=rank (the premise)" grep -q "Ignoring --cpu-bind=rank" <<<"$ERR"
	check "24.11+: --cpu-bind=rank asks for nothing: compact binds, no note" \
		eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ] && [ "$(pfield 0 .cpus)" = "$a" ] && ! grep -q "note: an explicit" <<<"$ERR"'
else
	check "before 24.11: --cpu-bind=rank is an explicit binding: Slurm's wins, with the note" \
		eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] && grep -q "note: an explicit --cpu-bind (rank) wins" <<<"$ERR"'
fi

# --- inherited, not explicit: the plugin binds, no note.  Every task of a
# step has SLURM_CPU_BIND=quiet,mask_cpu:... from slurmstepd (here the
# outer step's auto binding to both CPUs); the nested srun reads it as
# --cpu-bind and passes SLURM_CPU_BIND_TYPE=mask_cpu: on.
nested() { srun_ -N1 -n1 -c2 sh -c "$1"; }
# (from 23.11 a nested srun also takes the outer step's -c2 from its
# SLURM_CPUS_PER_TASK and SLURM_TRES_PER_TASK=cpu=2, 22.05's did not: the
# inner srun goes without them, for one CPU per task in both)
in1='env -u SLURM_CPUS_PER_TASK -u SLURM_TRES_PER_TASK'
nested 'echo "outer:$SLURM_CPU_BIND_TYPE" >&2; '"$in1"' srun -n1 --overlap --numa-plan=compact sh -c '"'"'echo "inner-cpt:${SLURM_CPUS_PER_TASK-1}" >&2; exec numaplan-probe --json'"'"
check "nested srun: the outer task did have SLURM_CPU_BIND_TYPE (the premise)" \
	grep -q '^outer:mask_cpu:' <<<"$ERR"
# The nested task's CPU count is Slurm's, as its SLURM_CPUS_PER_TASK says
# (unset: one).  Slurm 22.05's srun leaves the outer task's -c2 behind;
# 24.11's has been seen both to take it and, with the variables above
# unset, not to.  compact gives a task of one CPU the first PU, one of
# two CPUs both PUs.
cpt=$(sed -n 's/^inner-cpt://p' <<<"$ERR" | head -1)
want=$a; [ "${cpt:-1}" -ge 2 ] && want="$a $b"
check "nested srun: the inherited binding is not explicit: compact binds the task's first ${cpt:-1} PU(s)" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ] && [ "$(cpus_of "$(pfield 0 .cpus)")" = "$want" ]'
check "nested srun: no 'wins' note" eval '! grep -q "note: an explicit" <<<"$ERR"'
nested "$in1 srun -n1 --overlap --cpu-bind=map_cpu:$b --numa-plan=compact numaplan-probe --json"
check "nested srun with its own --cpu-bind: Slurm's map_cpu wins, with the note" \
	eval '[ "$(pfield 0 .cpus)" = "$b" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] && grep -q "note: an explicit --cpu-bind (map_cpu:) wins" <<<"$ERR"'

SLURM_CPU_BIND_TYPE=map_cpu: SLURM_CPU_BIND_LIST=$b,$a srun_ -N1 -n2 --numa-plan=compact numaplan-probe --json
check "exported SLURM_CPU_BIND_TYPE: not explicit (srun ignores it), compact binds" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 1 .cpus)" = "$b" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'
check "exported SLURM_CPU_BIND_TYPE: no 'wins' note" eval '! grep -q "note: an explicit" <<<"$ERR"'
SLURM_CPU_BIND=map_cpu:$b,$a srun_ -N1 -n2 --numa-plan=compact numaplan-probe --json
check "exported SLURM_CPU_BIND (not srun's option): compact binds, no note" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 1 .env.NUMAPLAN_POLICY)" = compact ] && ! grep -q "note: an explicit" <<<"$ERR"'
# srun's plugin writes the mark whatever the user's environment says
SLURM_NUMAPLAN_SRUN_CPU_BIND=1 SLURM_CPU_BIND=map_cpu:$b,$a srun_ -N1 -n2 --numa-plan=compact numaplan-probe --json
check "a forged mark in the environment is overwritten by srun's plugin: compact binds" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'
srun_ -N1 -n1 --cpu-bind=map_cpu:$a --numa-plan=compact sh -c 'echo "mark:${SLURM_NUMAPLAN_SRUN_CPU_BIND-unset}"'
check "the mark does not reach the program" grep -qx 'mark:unset' <<<"$OUT"
srun_ -N1 -n2 --cpu-b=map_cpu:$b,$a --numa-plan=compact numaplan-probe --json
check "an abbreviated --cpu-b (getopt_long takes it) is explicit too" \
	eval '[ "$(pfield 0 .cpus)" = "$b" ] && [ "$(pfield 1 .cpus)" = "$a" ] && grep -q "note: an explicit" <<<"$ERR"'

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
