#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# sbatch: #SBATCH --numa-plan=... reaches the job's steps, the batch step
# itself is not bound, an srun option in the script overrides it; Slurm's
# SPANK environment variable works for srun.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
dir=$(mktemp -d /tmp/numaplan-sbatch.XXXXXX); chmod 0755 "$dir"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"

plugstack ''
cat >"$dir/job.sh" <<EOF
#!/bin/bash
#SBATCH -N1 -n2 -o $dir/out -e $dir/err
#SBATCH --numa-plan=compact,verbose
echo "batch: \$(numaplan-probe --json)"
echo "spankenv: \${SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan:-unset}"
srun numaplan-probe --json | sed 's/^/step1: /'
srun --numa-plan=spread numaplan-probe --json | sed 's/^/step2: /'
srun --numa-plan=none numaplan-probe --json | sed 's/^/step3: /'
EOF
run timeout "$NP_SRUN_TIMEOUT" sbatch --wait "$dir/job.sh"
check "sbatch --wait exits 0" [ "$RC" -eq 0 ]
out=$(cat "$dir/out" 2>/dev/null); err=$(cat "$dir/err" 2>/dev/null)
sel() { sed -n "s/^$1: //p" <<<"$out" | grep '^{'; }
check "the batch step is not bound (no NUMAPLAN_*)" \
	[ "$(sel batch | jq -r .env.NUMAPLAN_POLICY)" = null ]
check "the batch step keeps the job's CPUs (not one PU)" \
	[ "$(cpus_of "$(sel batch | jq -r .cpus)" | wc -w)" -ge 2 ]
check "Slurm passes the value in SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan" \
	grep -q "^spankenv: compact,verbose$" <<<"$out"
check "step 1 inherits #SBATCH --numa-plan=compact" \
	[ "$(sel step1 | jq -r .env.NUMAPLAN_POLICY | sort -u)" = compact ]
check "step 1 tasks bound to different PUs" \
	[ "$(sel step1 | jq -r .cpus | sort -u | wc -l)" -eq 2 ]
check "step 1 verbose lines in the job's stderr" [ "$(grep -c '^numaplan: .* task [01] (rank [01])' <<<"$err")" -ge 2 ]
check "step 2: srun --numa-plan=spread overrides the batch's" \
	[ "$(sel step2 | jq -r .env.NUMAPLAN_POLICY | sort -u)" = spread ]
check "step 3: srun --numa-plan=none opts out" \
	[ "$(sel step3 | jq -r .env.NUMAPLAN_POLICY | sort -u)" = null ]

SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan=compact,verbose srun_ -N1 -n2 numaplan-probe --json
check "srun with the SPANK environment variable: bound" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = compact ] && [ "$(pfield 1 .cpus)" = "${pus[1]}" ]'
SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan=compact srun_ -N1 -n2 --numa-plan=spread numaplan-probe --json
check "the command line beats the environment variable" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ]

done_testing
