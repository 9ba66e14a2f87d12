#!/bin/bash
# What the user asked srun for reaches the nodes and is answered:
# - an explicit --cpu-bind still wins (respect_cpu_bind) under --export=NONE,
#   which hands the step only the SLURM* variables of srun's environment;
#   a mark forged in the environment still does not, nor under enforce;
# - under enforce, a --cpu-bind the plan overrides is said so on the
#   user's stderr (Slurm's own verbose line shows the mask it set first);
# - two --numa-plan on one srun line are refused, naming both values,
#   before any task starts (the last one no longer wins silently);
# - --numa-plan=help describes spread as it is (numaplan-spank(8), and
#   lib/plan_spread.c: packages, then NUMA nodes, then L3 domains).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
a=${pus[0]} b=${pus[1]}
# Slurm's map_cpu puts task 0 on b and task 1 on a: the reverse of compact
MAP="--cpu-bind=map_cpu:$b,$a"
probe=$(command -v numaplan-probe)
dir=$(mktemp -d /tmp/numaplan-choices.XXXXXX); chmod 0755 "$dir"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
marker=$dir/ran

# ---- --export=NONE keeps the user's --cpu-bind explicit
plugstack ''
srun_ -N1 -n2 --export=NONE "$MAP" --numa-plan=compact "$probe" --json
check "--export=NONE: the premise, the tasks have no PATH" [ "$(pfield 0 .env.PATH)" = null ]
check "--export=NONE, explicit map_cpu (respect): Slurm's binding wins" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .cpus)" = "$b" ] && [ "$(pfield 1 .cpus)" = "$a" ]'
check "--export=NONE: no NUMAPLAN_* (the plugin did not bind)" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]
check "--export=NONE: the 'wins' note" \
	grep -q "note: an explicit --cpu-bind (map_cpu:) wins; policy .compact. not applied" <<<"$ERR"
srun_ -N1 -n2 --export=NONE --numa-plan=compact "$probe" --json
check "--export=NONE without --cpu-bind: compact binds" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 1 .cpus)" = "$b" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'
SLURM_NUMAPLAN_SRUN_CPU_BIND=1 SLURM_CPU_BIND=map_cpu:$b,$a \
	srun_ -N1 -n2 --export=NONE --numa-plan=compact "$probe" --json
check "--export=NONE, a forged mark (SLURM* passes): srun's plugin overwrites it, compact binds" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'
srun_ -N1 -n1 --export=NONE "--cpu-bind=map_cpu:$a" --numa-plan=compact /bin/sh -c 'echo "mark:${SLURM_NUMAPLAN_SRUN_CPU_BIND-unset}"'
check "--export=NONE: the mark does not reach the program" grep -qx 'mark:unset' <<<"$OUT"
srun_ -N1 -n2 --export=HOME "$MAP" --numa-plan=compact "$probe" --json
check "--export=HOME (a list): Slurm's binding wins" \
	eval '[ "$(pfield 0 .cpus)" = "$b" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'

# ---- enforce: never bypassed, and the override is said
plugstack 'default=compact enforce'
srun_ -N1 -n2 --export=NONE "$MAP" "$probe" --json
check "enforce, --export=NONE: the plan wins over an explicit --cpu-bind" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 1 .cpus)" = "$b" ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ]'
srun_ -N1 -n2 --cpu-bind=verbose,map_cpu:$b,$a "$probe" --json
check "enforce, verbose,map_cpu: the plan wins" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && [ "$(pfield 1 .cpus)" = "$b" ]'
check "... Slurm's verbose line shows its own mask (the premise)" grep -q "mask 0x.* set" <<<"$ERR"
check "... numaplan says it overrode the --cpu-bind, once" \
	eval '[ "$(grep -c "numaplan: n[0-9]*: note: policy .compact. applied; your --cpu-bind (map_cpu:) is overridden (the site enforces it)" <<<"$ERR")" -eq 1 ]'
srun_ -N1 -n2 "$probe" --json
check "enforce, no --cpu-bind: no override note" eval '[ "$RC" -eq 0 ] && ! grep -q "overridden" <<<"$ERR"'
srun_ -N1 -n2 --cpu-bind=verbose "$probe" --json
check "enforce, --cpu-bind=verbose (no binding asked): no override note" eval '! grep -q "overridden" <<<"$ERR"'
plugstack 'respect_cpu_bind=no'
srun_ -N1 -n2 "$MAP" --numa-plan=compact "$probe" --json
check "respect_cpu_bind=no: the plan wins, and says so" \
	eval '[ "$(pfield 0 .cpus)" = "$a" ] && grep -q "note: policy .compact. applied; your --cpu-bind (map_cpu:) is overridden (respect_cpu_bind=no)" <<<"$ERR"'

# ---- --numa-plan twice on one line
plugstack 'default=compact allow=none,compact,spread'
srun_ -N1 -n1 --numa-plan=compact --numa-plan=spread touch "$marker"
check "two --numa-plan: refused" [ "$RC" -ne 0 ]
check "... naming both values" grep -q "numaplan: --numa-plan is given twice ('compact', then 'spread')" <<<"$ERR"
check "... and nothing ran" [ ! -e "$marker" ]
srun_ -N1 -n1 --numa-plan=spread --numa-plan=spread touch "$marker"
check "the same value twice: refused too" \
	eval '[ "$RC" -ne 0 ] && grep -q "given twice (.spread., then .spread.)" <<<"$ERR" && [ ! -e "$marker" ]'
rm -f "$marker"
SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan=spread srun_ -N1 -n2 --numa-plan=compact "$probe" --json
check "Slurm's environment variable, then the command line: not twice, the line wins" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ] && ! grep -q twice <<<"$ERR"'
srun_ -N1 -n2 --het-group=0 --numa-plan=spread "$probe" --json
check "one --numa-plan with --het-group: fine" eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ]'
run timeout "$NP_SRUN_TIMEOUT" salloc -N1 -n1 sh -c \
	"srun --numa-plan=compact --numa-plan=none touch $marker; echo rc=\$?; squeue -h -s -j \$SLURM_JOB_ID | wc -l"
check "in an allocation: refused before the step exists" \
	eval 'grep -qx "rc=[1-9][0-9]*" <<<"$OUT" && [ "$(tail -1 <<<"$OUT")" -eq 0 ] && [ ! -e "$marker" ]'

# ---- help says what spread does
srun_ -N1 -n1 --numa-plan=help
spread=$(sed -n '/^  spread /,/^  numa /p' <<<"$OUT" | head -n -1 | tr -s ' \n' ' ')
check "help: spread over packages, then NUMA nodes, then L3 domains" \
	eval 'grep -q "packages, *then the NUMA nodes of each package, then their L3 domains" <<<"$spread"'
check "help: not 'round-robin over the NUMA nodes'" eval '! grep -qi "round-robin" <<<"$OUT"'
check "slurmd of every node still up" nodes_alive
done_testing
