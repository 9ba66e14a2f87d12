#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# NUMAPLAN_POLICY/CPUS/MEMS/HCA/GPUS describe this step, in every step the
# plugin handles (numaplan-spank(8), ENVIRONMENT): set in a task numaplan
# bound, absent from every other task - never inherited from the user's
# shell, an enclosing step or the batch script.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
a=${pus[0]}
dir=$(mktemp -d /tmp/numaplan-env.XXXXXX); chmod 0755 "$dir"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
VARS="NUMAPLAN_POLICY NUMAPLAN_CPUS NUMAPLAN_MEMS NUMAPLAN_HCA NUMAPLAN_GPUS"
# stale values, as a user (or an enclosing step) would leave them
STALE=(env NUMAPLAN_POLICY=stale NUMAPLAN_CPUS=999 NUMAPLAN_MEMS=999 NUMAPLAN_HCA=stale_0:1 NUMAPLAN_GPUS=0000:99:00.0)
stale_srun() { run timeout "$NP_SRUN_TIMEOUT" "${STALE[@]}" srun "$@"; }
# none of them in probe rank R's environment
absent() { local v; for v in $VARS; do [ "$(pfield "$1" ".env.$v")" = null ] || return 1; done; }

plugstack ''
stale_srun -N1 -n1 numaplan-probe --json
check "no --numa-plan, no default: stale NUMAPLAN_* removed" eval '[ "$RC" -eq 0 ] && absent 0'
stale_srun -N1 -n1 --numa-plan=none numaplan-probe --json
check "--numa-plan=none: stale NUMAPLAN_* removed" eval '[ "$RC" -eq 0 ] && absent 0'
stale_srun -N1 -n1 --numa-plan=compact numaplan-probe --json
check "bound: this step's values replace the stale ones" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ] && [ "$(pfield 0 .env.NUMAPLAN_CPUS)" = "$a" ] && [ "$(pfield 0 .env.NUMAPLAN_HCA)" = "" ] && [ "$(pfield 0 .env.NUMAPLAN_GPUS)" = "" ]'
stale_srun -N1 -n1 --cpu-bind=map_cpu:"$a" --numa-plan=compact numaplan-probe --json
check "an explicit --cpu-bind wins: stale NUMAPLAN_* removed" \
	eval '[ "$RC" -eq 0 ] && absent 0 && grep -q "note: an explicit --cpu-bind" <<<"$ERR"'

# a step that fails on the node under on_error=warn runs unbound: nothing to say
plugstack "topology=$dir/missing.xml on_error=warn"
stale_srun -N1 -n2 --numa-plan=compact numaplan-probe --json
check "on_error=warn, topology unusable: stale NUMAPLAN_* removed from every task" \
	eval '[ "$RC" -eq 0 ] && absent 0 && absent 1 && grep -q "warning: cannot load the topology" <<<"$ERR"'

# nested: the inner step's tasks describe the inner step
plugstack ''
srun_ -N1 -n1 -c2 --numa-plan=compact sh -c 'srun -n1 --overlap --numa-plan=none numaplan-probe --json'
check "nested: outer compact, inner none: nothing inherited from the outer step" \
	eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 1 ] && absent 0'
srun_ -N1 -n1 -c2 --numa-plan=compact sh -c 'srun -n1 --overlap --numa-plan=spread numaplan-probe --json'
check "nested: outer compact, inner spread: the inner step's policy" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ]'

# sbatch: the batch step is never bound, and says so; its steps describe themselves
timeout "$NP_SRUN_TIMEOUT" "${STALE[@]}" sbatch --wait -N1 -n2 -o "$dir/b1" --wrap \
	'numaplan-probe --json | sed s/^/batch:/; srun -n1 --numa-plan=none numaplan-probe --json | sed s/^/none:/; srun -n1 --numa-plan=compact numaplan-probe --json' \
	>/dev/null 2>&1
field() { sed -n "s/^$1://p" "$dir/b1" | jq -r "$2"; }
check "batch script: stale NUMAPLAN_POLICY from sbatch's environment removed" \
	eval '[ "$(field batch .env.NUMAPLAN_POLICY)" = null ] && [ "$(field batch .env.NUMAPLAN_CPUS)" = null ]'
check "srun --numa-plan=none in the batch script: nothing" \
	eval '[ "$(field none .env.NUMAPLAN_POLICY)" = null ] && [ "$(field none .env.NUMAPLAN_HCA)" = null ]'
check "srun --numa-plan=compact in the batch script: compact" \
	eval '[ "$(grep "^{" "$dir/b1" | jq -r .env.NUMAPLAN_POLICY)" = compact ]'

done_testing
