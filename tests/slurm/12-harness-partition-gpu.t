#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Issue 12's plugin parts through numaplan-spank-harness (no vcluster): the
# per-partition plugstack forms, the job prolog's partition record and the
# node's trust in it (not in the step's environment), srun's --gpu-bind
# detection, gpu-near's fallback without GPUs and a malformed
# SLURM_STEP_GPUS; the same under valgrind.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"

[ -x "$HARNESS" ] || skip_all "numaplan-spank-harness not built"
H=$HARNESS
tmp=$(root_tmpdir harness12) || exit 1; trap 'rm -rf "$tmp"' EXIT
cmdline() { printf '%s\0' "$@" >"$tmp/cmdline"; }
rules="cache=$tmp default=compact default[gpu,a100]=spread enforce[gpu] allow[cpu]=compact,numa"

# ---- per-partition forms
# shellcheck disable=SC2086
run $H site $rules
check "per-partition forms parse" [ "$RC" -eq 0 ]
check "... and are listed, per partition" \
	eval 'grep -q "gpu: default spread; enforced;" <<<"$OUT" && grep -q "a100: default spread;" <<<"$OUT" && grep -q "cpu: allow compact,numa;" <<<"$OUT"'
while IFS='|' read -r arg why; do
	run $H site "$arg"
	check "'$arg' refused: $why" eval '[ "$RC" -ne 0 ] && grep -q "plugstack.conf: .*$why" <<<"$ERR"'
done <<'CASES'
default[gpu=spread|malformed per-partition argument
default[]=spread|no partition between
default[gpu]|needs a value
default[gpu,]=spread|an empty partition name
default[g/u]=spread|is not a partition name
topology[gpu]=/x.xml|only default, allow and enforce have per-partition forms
default[gpu]=fastest|unknown policy 'fastest'
allow[gpu]=compact,nope|unknown policy 'nope'
enforce[gpu]=maybe|valid values for enforce
default[a,a]=spread|given default twice
enforce[gpu]|for the partition 'gpu' needs default=POLICY
CASES
run $H site default=spread 'allow[cpu]=compact'
check "a site-wide default outside a partition's allow= list: refused, naming it" \
	eval '[ "$RC" -ne 0 ] && grep -q "spread for the partition .cpu. is not in its allow= list" <<<"$ERR"'
run $H site enforce default=spread 'enforce[debug]=no'
check "enforce[P]=no exempts a partition from a site-wide enforce" [ "$RC" -eq 0 ]

# ---- the job prolog's record, and the node's decision
export NUMAPLAN_HARNESS_JOB_ID=41
# shellcheck disable=SC2086
SLURM_JOB_PARTITION=gpu run $H prolog $rules
check "prolog: the partition kept in DIR/jobs/JOB@NODE" eval '[ "$(cat "$tmp/jobs/41@harness")" = gpu ]'
check "... root's, 0644" [ "$(stat -c '%U %a' "$tmp/jobs/41@harness")" = "root 644" ]
# srun believes the environment (cpu: compact allowed); the node, the record
# shellcheck disable=SC2086
SLURM_JOB_PARTITION=cpu run $H request compact $rules
check "node: the record's partition (gpu) enforces spread over a forged SLURM_JOB_PARTITION" \
	eval 'grep -q "^policy=spread" <<<"$OUT" && grep -q "enforces the policy .spread.; --numa-plan=compact ignored" <<<"$OUT"'
# shellcheck disable=SC2086
SLURM_JOB_PARTITION=gpu run $H request compact $rules
check "srun in a gpu allocation refuses another policy" eval '[ "$RC" -ne 0 ] && grep -q "enforces the policy .spread." <<<"$ERR"'
# shellcheck disable=SC2086
SLURM_JOB_PARTITION='../x' run $H prolog $rules
check "prolog: a partition name that is no name writes nothing" \
	eval '[ "$(cat "$tmp/jobs/41@harness")" = gpu ] && grep -q "unusable partition name" <<<"$ERR"'
NUMAPLAN_HARNESS_JOB_ID=42 run $H request numa $rules
check "no record: the site-wide rules (numa allowed)" grep -q "^policy=numa" <<<"$OUT"
check "... and the log says why" grep -q "no record of job 42's partition" <<<"$ERR"
# shellcheck disable=SC2086
run $H epilog $rules
check "epilog: the record removed" [ ! -e "$tmp/jobs/41@harness" ]
mkdir -p "$tmp/jobs" && echo gpu >"$tmp/jobs/43@harness" && chmod 0666 "$tmp/jobs/43@harness"
NUMAPLAN_HARNESS_JOB_ID=43 run $H request numa $rules
check "a record others may write is not trusted" \
	eval 'grep -q "^policy=numa" <<<"$OUT" && grep -q "not a file of root.s alone" <<<"$ERR"'
unset NUMAPLAN_HARNESS_JOB_ID

# ---- srun's --gpu-bind, and from Slurm 23.11 --tres-bind=gres/gpu:TYPE
# (srun 23.11+ turns --gpu-bind=X into --tres-bind=gres/gpu:X and each of
# the two replaces the other: the last one decides; TRES parts join with
# '+'; gres/gpu:verbose alone and other TRES bind no GPU; gpu:TYPE without
# gres/ is 22.05's internal form, which no srun option takes; het
# components (':') each have their own options: the first that asks decides)
while IFS='|' read -r want argc words; do
	# shellcheck disable=SC2086
	cmdline $words
	run $H gpubind "$tmp/cmdline" "$argc"
	check "gpubind: '$words' (command: last $argc): $want" [ "$OUT" = "$want" ]
done <<'CASES'
given|1|srun -n2 --gpu-bind=closest ./app
given|1|srun -n2 --gpu-bind map_gpu:1,0 ./app
given|1|srun -n2 --gpu-b=closest ./app
given|1|srun --gpu-bind=verbose,closest ./app
not given|1|srun -n2 --gpu-bind=verbose ./app
not given|1|srun -n2 --gpus=2 ./app
not given|2|srun -n2 ./app --gpu-bind=closest
not given|1|srun -n2 --gpu-freq=high ./app
given|1|srun -n2 --gpu-bind=map:1,0 ./app
given|1|srun -n2 --gpu-bind=closest --gpu-bind=none ./app
not given|1|srun -n2 --gpu-bind=closest --gpu-bind=verbose ./app
given as --tres-bind=gres/gpu|1|srun -n2 --tres-bind=gres/gpu:closest ./app
given as --tres-bind=gres/gpu|1|srun -n2 --tres-bind gres/gpu:map:1,0 ./app
given as --tres-bind=gres/gpu|1|srun -n2 --tres-b=gres/gpu:verbose,single:1 ./app
given as --tres-bind=gres/gpu|1|srun -n2 --tres-bind=gres/gpu:none ./app
given as --tres-bind=gres/gpu|1|srun --tres-bind=gres/nic:closest+gres/gpu:mask:0x3,0xc ./app
given as --tres-bind=gres/gpu|1|srun --gpu-bind=closest --tres-bind=gres/gpu:per_task:1 ./app
given|1|srun --tres-bind=gres/gpu:closest --gpu-bind=closest ./app
not given|1|srun -n2 --tres-bind=gres/gpu:verbose ./app
not given|1|srun -n2 --tres-bind=gres/nic:closest ./app
not given|1|srun -n2 --tres-bind=gres/shard:per_task:1 ./app
not given|1|srun -n2 --tres-bind=gpu:closest ./app
not given|1|srun -n2 --gpu-bind=closest --tres-bind=gres/nic:closest ./app
not given|1|srun -n2 --tres-per-task=gres/gpu=1 ./app
not given|1|srun -n2 --tres-=gres/gpu:closest ./app
not given|2|srun -n2 ./app --tres-bind=gres/gpu:closest
not given|3|srun -n2 -- ./app --tres-bind=gres/gpu:closest
given|1|srun -n1 --gpu-bind=closest : -n1 --tres-bind=gres/nic:closest ./app
given as --tres-bind=gres/gpu|1|srun -n1 : -n1 --tres-bind=gres/gpu:closest ./app
CASES

# ---- gpu-near on a step without GPUs (no SLURM_STEP_GPUS here)
npus=1
run env -u SLURM_STEP_GPUS $H bind gpu-near,mem=none,verbose $npus 0
check "gpu-near without GPUs: the documented fallback, with a note" \
	eval '[ "$RC" -eq 0 ] && grep -q "note: gpu-near: Slurm allocated no GPU to this step on this node; hca-near used instead" <<<"$OUT"'
run env -u SLURM_STEP_GPUS $H bind gpu-near,mem=none $npus 0 on_error=fail
check "... or the step fails under on_error=fail" \
	eval '[ "$RC" -ne 0 ] && grep -q "gpu-near: Slurm allocated no GPU" <<<"$OUT$ERR"'
SLURM_STEP_GPUS='0,,x' run $H bind gpu-near,mem=none $npus 0
check "gpu-near: a malformed SLURM_STEP_GPUS is an error naming it" \
	eval 'grep -q "warning: SLURM_STEP_GPUS=.0,,x. is not a list of GPU indexes (an empty entry); tasks run unbound" <<<"$OUT"'
SLURM_STEP_GPUS=5 run $H bind gpu-near,mem=none $npus 0
check "gpu-near: a GPU the topology lacks is an error, not a guess" \
	grep -q "Slurm allocated GPU 5 here, and the topology has 0 GPU" <<<"$OUT$ERR"
SLURM_STEP_GPUS=5 run $H bind compact,mem=none $npus 0
check "compact: the same GPU list does not stop the binding" \
	eval '[ "$RC" -eq 0 ] && grep -q "^NUMAPLAN_POLICY=compact" <<<"$OUT"'

# ---- valgrind
if command -v valgrind >/dev/null 2>&1; then
	vg() {
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--keep-debuginfo=yes --suppressions="$NP_SRCDIR/tests/slurm/valgrind.supp" \
			--show-leak-kinds=definite,indirect --error-exitcode=99 "$@" \
			>"$tmp/vg.out" 2>"$tmp/vg.err"
		[ $? -ne 99 ] || { sed 's/^/# /' "$tmp/vg.err" | head -30; return 1; }
	}
	# shellcheck disable=SC2086
	check "valgrind: per-partition site" vg $H site $rules
	check "valgrind: bad per-partition site" vg $H site 'default[a,a]=spread'
	# shellcheck disable=SC2086
	check "valgrind: prolog" vg env NUMAPLAN_HARNESS_JOB_ID=44 SLURM_JOB_PARTITION=gpu $H prolog $rules
	# shellcheck disable=SC2086
	check "valgrind: request with the record" vg env NUMAPLAN_HARNESS_JOB_ID=44 $H request compact $rules
	# shellcheck disable=SC2086
	check "valgrind: epilog" vg env NUMAPLAN_HARNESS_JOB_ID=44 $H epilog $rules
	cmdline srun -n2 --gpu-bind=closest ./app
	check "valgrind: gpubind" vg $H gpubind "$tmp/cmdline" 1
	cmdline srun -n2 --gpu-bind=closest --tres-bind=gres/nic:closest+gres/gpu:map:1,0 ./app
	check "valgrind: gpubind, --tres-bind" vg $H gpubind "$tmp/cmdline" 1
	check "valgrind: gpu-near fallback" vg env -u SLURM_STEP_GPUS $H bind gpu-near,mem=none,verbose 1 0
	check "valgrind: bad SLURM_STEP_GPUS" vg env SLURM_STEP_GPUS=0,,x $H bind gpu-near,mem=none 1 0
	check "valgrind: unmappable SLURM_STEP_GPUS" vg env SLURM_STEP_GPUS=5 $H bind compact,mem=none 1 0
	# the task's plan record (task_init_privileged) and the epilog's removal
	check "valgrind: bind with a plan record" vg env -u SLURM_STEP_GPUS NUMAPLAN_HARNESS_JOB_ID=46 \
		NUMAPLAN_HARNESS_STEP_ID=3 $H bind compact,mem=none 1 0 "plans=$tmp/plans"
	check "... the record: job 46 step 3 task 0, this harness's process, the CPUs it exported" \
		eval 'f="$tmp/plans/46.3.0@harness"; [ "$(stat -c "%u %a" "$f")" = "0 644" ] &&
			grep -qx "pid=[0-9]*" "$f" && grep -qx binding=numaplan "$f" &&
			[ "$(sed -n "s/^cpus=//p" "$f")" = "$(sed -n "s/^NUMAPLAN_CPUS=//p" "$tmp/vg.out")" ]'
	check "valgrind: the epilog removes it" vg env NUMAPLAN_HARNESS_JOB_ID=46 $H epilog "plans=$tmp/plans"
	check "... gone" [ ! -e "$tmp/plans/46.3.0@harness" ]
else
	skip "valgrind not installed"
fi
done_testing
