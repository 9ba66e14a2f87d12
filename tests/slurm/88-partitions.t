#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Per-partition site policy: default[P]=, allow[P]=, enforce[P] resolved from
# the job's partition on the node, on a vcluster with two partitions (gpu =
# n1, cpu = n2).  The nodes take the partition from the job prolog's record
# of Slurm's credential, never from the step's environment: a forged
# SLURM_JOB_PARTITION changes nothing.  srun refuses what the partition's
# rules refuse, before any task runs; help shows the partition's rules.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

dir=$(root_tmpdir parts) || skip_all "cannot make a root-only directory"
restore() { plugstack_reset; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$dir"; }
trap restore EXIT
run "$VC" up --nodes 2 --partitions 'gpu=n1 cpu=n2'
check "vcluster up --partitions 'gpu=n1 cpu=n2'" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
run sinfo -h -o '%P %N'
check "two partitions, gpu (default) on n1, cpu on n2" [ "$(echo "$OUT" | sort)" = "$(printf 'cpu n2\ngpu* n1')" ]

marker=$dir/ran
args="cache=$dir default=compact default[gpu]=spread enforce[gpu] allow[cpu]=compact,numa"
plugstack "$args"
policy0() { pfield 0 .env.NUMAPLAN_POLICY; }

srun_ -p gpu -n2 numaplan-probe --json
check "gpu: its own default (spread), enforced" eval '[ "$RC" -eq 0 ] && [ "$(policy0)" = spread ]'
check "... on n1" [ "$(pfield 0 .host)" = n1 ]
srun_ -p cpu -n2 numaplan-probe --json
check "cpu: the site-wide default (compact)" eval '[ "$RC" -eq 0 ] && [ "$(policy0)" = compact ]'
srun_ -p cpu -n1 --numa-plan=numa numaplan-probe --json
check "cpu: a policy of its allow= list (numa)" [ "$(policy0)" = numa ]

srun_ -p gpu -n1 --numa-plan=compact touch "$marker"
check "gpu: srun refuses another policy, naming the partition" \
	eval '[ "$RC" -ne 0 ] && grep -q "enforces the policy .spread.*(partition gpu)" <<<"$ERR"'
check "... and nothing ran" [ ! -e "$marker" ]
rm -f "$marker"
srun_ -p cpu -n1 --numa-plan=spread touch "$marker"
check "cpu: srun refuses a policy outside allow[cpu]" \
	eval '[ "$RC" -ne 0 ] && grep -q "policy .spread. is not allowed.*valid: compact, numa (partition cpu)" <<<"$ERR"'
check "... and nothing ran" [ ! -e "$marker" ]
rm -f "$marker"

# Around srun's checks: Slurm's internal option variable, and a step
# environment claiming the other partition.  The node goes by the record.
_SLURM_SPANK_OPTION_numaplan_numa_plan=compact SLURM_JOB_PARTITION=cpu srun_ -p gpu -n1 numaplan-probe --json
check "forged SLURM_JOB_PARTITION=cpu in a gpu job: still spread" \
	eval '[ "$RC" -eq 0 ] && [ "$(policy0)" = spread ]'
check "... with the enforcement note" grep -q "note: this cluster enforces the policy 'spread'; --numa-plan=compact ignored" <<<"$ERR"

run timeout "$NP_SRUN_TIMEOUT" sbatch --wait -p gpu -n2 -o "$dir/b1" --wrap 'srun numaplan-probe --json'
check "a batch job's steps in gpu: spread" \
	eval '[ "$RC" -eq 0 ] && [ "$(grep "^{" "$dir/b1" | jq -r .env.NUMAPLAN_POLICY | sort -u)" = spread ]'
wait_idle
check "the epilog removed the jobs' records" eval '[ -z "$(ls -A "$dir/jobs" 2>/dev/null)" ]'

srun_ -p gpu --numa-plan=help
check "help in gpu: the partition, its own rules" \
	eval 'grep -q "your partition *: gpu (rules of its own" <<<"$OUT" && grep -q "default policy *: spread" <<<"$OUT" && grep -q "enforced *: yes" <<<"$OUT"'
srun_ -p cpu --numa-plan=help
check "help in cpu: the site-wide default, its allow= list" \
	eval 'grep -q "default policy *: compact" <<<"$OUT" && grep -q "policies you may ask for: compact, numa" <<<"$OUT"'
check "help lists the per-partition rules" \
	eval 'grep -q "gpu: default spread; enforced;" <<<"$OUT" && grep -q "cpu: allow compact,numa;" <<<"$OUT"'

plugstack "cache=$dir default=compact default[gpu=spread"
srun_ -p cpu -n1 --numa-plan=compact true
check "a malformed per-partition argument: srun fails with the valid forms" \
	eval '[ "$RC" -ne 0 ] && grep -q "malformed per-partition argument (valid forms: default\[PART,...\]=POLICY" <<<"$ERR"'
plugstack "cache=$dir enforce[gpu]"
srun_ -p cpu -n1 --numa-plan=compact true
check "enforce[gpu] without a default: refused, naming the partition" \
	eval '[ "$RC" -ne 0 ] && grep -q "for the partition .gpu. needs default=POLICY or default.gpu.=POLICY" <<<"$ERR"'
check "slurmd of every node still up" nodes_alive
done_testing
