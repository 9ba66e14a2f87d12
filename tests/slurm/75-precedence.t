#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Precedence: enforce > user option > default; batch steps never bound; an
# enforced policy (or the allow= list) cannot be bypassed by putting Slurm's
# internal option variable _SLURM_SPANK_OPTION_numaplan_numa_plan in the
# environment, which srun forwards to the nodes unchecked.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
dir=$(mktemp -d /tmp/numaplan-prec.XXXXXX); chmod 0755 "$dir"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
marker=$dir/ran
policy0() { pfield 0 .env.NUMAPLAN_POLICY; }

plugstack 'default=spread'
srun_ -N1 -n2 numaplan-probe --json
check "default=spread applies without an option" [ "$(policy0)" = spread ]
srun_ -N1 -n2 --numa-plan=compact numaplan-probe --json
check "the user's option beats the default" [ "$(policy0)" = compact ]
srun_ -N1 -n2 --numa-plan=verbose numaplan-probe --json
check "modifiers only: the default policy, verbose" \
	eval '[ "$(policy0)" = spread ] && grep -q "^numaplan: .* task 0 " <<<"$ERR"'
srun_ -N1 -n2 --numa-plan=none numaplan-probe --json
check "--numa-plan=none opts out (no allow= list)" [ "$(policy0)" = null ]
run timeout "$NP_SRUN_TIMEOUT" sbatch --wait -N1 -n2 -o "$dir/b1" --wrap 'numaplan-probe --json'
check "the batch step is not bound by the default" \
	eval '[ "$RC" -eq 0 ] && [ "$(grep "^{" "$dir/b1" | jq -r .env.NUMAPLAN_POLICY)" = null ]'

plugstack 'default=spread allow=compact,spread'
_SLURM_SPANK_OPTION_numaplan_numa_plan=numa srun_ -N1 -n1 sh -c "touch $marker"
check "allow= bypassed through the internal variable: the step fails" \
	eval '[ "$RC" -ne 0 ] && grep -q "policy .numa. is not allowed" <<<"$ERR"'
check "... and nothing ran" [ ! -e "$marker" ]
rm -f "$marker"

plugstack 'default=spread enforce'
srun_ -N1 -n2 numaplan-probe --json
check "enforce: the enforced policy without an option" [ "$(policy0)" = spread ]
for v in none compact; do
	_SLURM_SPANK_OPTION_numaplan_numa_plan=$v srun_ -N1 -n2 numaplan-probe --json
	check "enforce: internal variable =$v is overridden" \
		eval '[ "$RC" -eq 0 ] && [ "$(policy0)" = spread ] && [ "$(pfield 1 .env.NUMAPLAN_POLICY)" = spread ]'
	check "enforce: ... with a note" grep -q "note: this cluster enforces the policy 'spread'; --numa-plan=$v ignored" <<<"$ERR"
done
_SLURM_SPANK_OPTION_numaplan_numa_plan='%n/../../etc/passwd' srun_ -N1 -n1 numaplan-probe --json
check "enforce: garbage in the internal variable changes nothing" \
	eval '[ "$RC" -eq 0 ] && [ "$(policy0)" = spread ]'
SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan=none srun_ -N1 -n1 true
check "enforce: the SPANK environment variable with none is refused" \
	eval '[ "$RC" -ne 0 ] && grep -q "enforces the policy" <<<"$ERR"'
run timeout "$NP_SRUN_TIMEOUT" sbatch --wait -N1 -n2 -o "$dir/b2" --wrap 'numaplan-probe --json | sed s/^/batch:/; srun numaplan-probe --json'
check "enforce: the batch step is still not bound" \
	eval '[ "$(sed -n "s/^batch://p" "$dir/b2" | jq -r .env.NUMAPLAN_POLICY)" = null ]'
check "enforce: the batch script's steps are" \
	eval '[ "$(grep "^{" "$dir/b2" | jq -r .env.NUMAPLAN_POLICY | sort -u)" = spread ]'

done_testing
