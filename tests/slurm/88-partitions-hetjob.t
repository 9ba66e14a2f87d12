#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A --numa-plan value refused by a partition in a heterogeneous job
# (salloc -p cpu : -p gpu): srun's environment holds one partition per het
# group, and the step's groups are those of its --het-group lists (or of
# its components' places).  A value the partition of any of the step's
# groups refuses is refused before the step exists: no task starts on any
# node, nothing is left behind (it would hold its CPUs, and the next srun
# would wait on "Requested nodes are busy"), and the message names each
# refusing partition and group, and only those.  A group the step does
# not run in does not count.  The same under --export=NONE.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

dir=$(root_tmpdir hetjob) || skip_all "cannot make a root-only directory"
restore() { plugstack_reset; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$dir"; }
trap restore EXIT
run "$VC" up --nodes 2 --partitions 'gpu=n1 cpu=n2'
check "vcluster up --partitions 'gpu=n1 cpu=n2'" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
probe=$(command -v numaplan-probe)
# gpu: compact enforced; cpu: compact or spread
plugstack "cache=$dir default=compact enforce[gpu] allow[cpu]=compact,spread"

# Inside the allocation: each srun's status, its stderr, and the steps left
# (squeue -s) right after it, one file each
cat >"$dir/inner.sh" <<EOS
#!/bin/bash
step() { # NAME SRUN-ARGS...
	local name=\$1; shift
	timeout 60 srun "\$@" >"$dir/\$name.out" 2>"$dir/\$name.err"; echo \$? >"$dir/\$name.rc"
	squeue -h -s -o '%i %j' -j "\$SLURM_JOB_ID_HET_GROUP_0,\$SLURM_JOB_ID_HET_GROUP_1" >"$dir/\$name.steps"
}
step refused --het-group=1 -n1 --numa-plan=spread touch "$dir/ran"
step next --het-group=1 -n1 --numa-plan=compact "$probe" --json
step cpu --het-group=0 -n1 --numa-plan=spread "$probe" --json
step export --export=NONE --het-group=1 -n1 --numa-plan=spread touch "$dir/ran"
step after-export --het-group=1 -n1 "$probe" --json
step nowhere --het-group=1 -n1 --numa-plan=numa touch "$dir/ran"
step both --het-group=0,1 --numa-plan=compact "$probe" --json
step both-refused --het-group=0,1 --numa-plan=spread "$probe" --json
step after-both --het-group=1 -n1 "$probe" --json
step places --numa-plan=spread -n1 "$probe" --json : -n1 "$probe" --json
step place-0 --numa-plan=spread -n1 "$probe" --json
EOS
chmod 0755 "$dir/inner.sh"
run timeout 600 salloc -p cpu : -p gpu "$dir/inner.sh"
check "salloc -p cpu : -p gpu ran the steps" [ "$RC" -eq 0 ]
rc_of() { cat "$dir/$1.rc" 2>/dev/null; }
policy_of() { grep '^{' "$dir/$1.out" | jq -r .env.NUMAPLAN_POLICY; }

check "het group 1 (gpu), --numa-plan=spread: srun fails" eval '[ -n "$(rc_of refused)" ] && [ "$(rc_of refused)" -ne 0 ] && [ "$(rc_of refused)" -ne 124 ]'
check "... saying why, naming the partition" \
	grep -q "numaplan: --numa-plan=spread refused: this cluster enforces the policy 'compact'.*(partition gpu, het group 1)" "$dir/refused.err"
check "... no task ran, no node said a word" eval '[ ! -e "$dir/ran" ] && ! grep -q "numaplan: n[0-9]*:" "$dir/refused.err"' 
check "... no step is left behind" eval '[ ! -s "$dir/refused.steps" ]'
check "the next step in het group 1 starts at once and runs" \
	eval '[ "$(rc_of next)" -eq 0 ] && [ "$(policy_of next)" = compact ]'
check "het group 0 (cpu) accepts spread" eval '[ "$(rc_of cpu)" -eq 0 ] && [ "$(policy_of cpu)" = spread ]'
check "--export=NONE: refused the same, no task ran" \
	eval '[ "$(rc_of export)" -ne 0 ] && [ "$(rc_of export)" -ne 124 ] && [ ! -e "$dir/ran" ] && grep -q "(partition gpu, het group 1)" "$dir/export.err"'
check "--export=NONE: no step left behind" eval '[ ! -s "$dir/export.steps" ] && [ "$(rc_of after-export)" -eq 0 ]'
check "a value no partition of the job accepts: refused, naming the step's group only" \
	eval '[ "$(rc_of nowhere)" -ne 0 ] && ! grep -q "(partition cpu, het group 0)" "$dir/nowhere.err" && grep -q "(partition gpu, het group 1)" "$dir/nowhere.err"'
check "... before any step existed: no node said a word, no task ran" \
	eval '! grep -q "numaplan: n[0-9]*:" "$dir/nowhere.err" && [ ! -e "$dir/ran" ] && [ ! -s "$dir/nowhere.steps" ]'
check "a step over both groups, compact (both accept): runs on both nodes" \
	eval '[ "$(rc_of both)" -eq 0 ] && [ "$(grep "^{" "$dir/both.out" | jq -r .env.NUMAPLAN_POLICY | sort -u)" = compact ] && [ "$(grep "^{" "$dir/both.out" | jq -r .host | sort -u | wc -l)" -eq 2 ]'
check "a step over both groups, spread (gpu refuses): srun fails, naming gpu's group alone" \
	eval '[ "$(rc_of both-refused)" -ne 0 ] && [ "$(rc_of both-refused)" -ne 124 ] && grep -q "(partition gpu, het group 1)" "$dir/both-refused.err" && ! grep -q "het group 0" "$dir/both-refused.err"'
check "... before the step existed: no node said a word, no task ran, no step left behind" \
	eval '! grep -q "numaplan: n[0-9]*:" "$dir/both-refused.err" && ! grep -q "^{" "$dir/both-refused.out" && [ ! -s "$dir/both-refused.steps" ] && [ "$(rc_of after-both)" -eq 0 ]'
check "components without --het-group (groups 0 and 1 by place), spread: refused, no task ran" \
	eval '[ "$(rc_of places)" -ne 0 ] && [ "$(rc_of places)" -ne 124 ] && grep -q "(partition gpu, het group 1)" "$dir/places.err" && ! grep -q "^{" "$dir/places.out"'
check "no --het-group at all (group 0, cpu), spread: runs spread" \
	eval '[ "$(rc_of place-0)" -eq 0 ] && [ "$(policy_of place-0)" = spread ] && [ "$(grep "^{" "$dir/place-0.out" | jq -r .host)" = n2 ]'
wait_idle
check "the job ended, nothing queued" eval '[ -z "$(squeue -h 2>/dev/null)" ]'
check "slurmd of every node still up" nodes_alive
done_testing
