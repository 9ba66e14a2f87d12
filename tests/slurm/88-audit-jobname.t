#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A job's name cannot speak for Slurm to numaplan audit.  The user nobody
# names a running job "x UserId=root(0) JobState=COMPLETED NodeList=n9
# NumNodes=7": in scontrol's text those words come before Slurm's own
# fields.  Read as they read, root's audit would take the job for root's
# (and run its step as root), for ended (and audit nothing), or for a job
# on a node n9 that does not exist.  Where scontrol prints JSON (Slurm
# 24.11, tests/deb13 runs this group there) the name is one string and the
# audit is the job's own: nobody's, running, on its 2 nodes.  Where it
# has text only (22.05) the record is refused and the audit fails
# (exit 2) saying why: never a clean audit, never another job's view.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool runuser
[ "$(id -u)" -eq 0 ] || skip_all "root audits another user's job: run as root"
id nobody >/dev/null 2>&1 || skip_all "needs the user nobody"
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || skip_all "needs a 2-node vcluster"
plugstack ''

jobs=
cleanup() { scancel --quiet $jobs 2>/dev/null; plugstack_reset; }
trap cleanup EXIT

name='x UserId=root(0) JobState=COMPLETED NodeList=n9 NumNodes=7'
job=$(runuser -u nobody -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" sbatch --parsable -N2 --ntasks-per-node=1 \
	-J "$name" -o /dev/null --chdir=/tmp --wrap "srun --numa-plan=compact sleep 300")
jobs="$job"
check "nobody's job is submitted under the name '$name'" [ -n "$job" ]
for i in $(seq 120); do
	[ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && [ -n "$(squeue -h -s -j "$job" -o %i | grep -v -e batch -e extern)" ] && break
	sleep 0.5
done
check "... it runs as nobody, with its srun step (squeue)" \
	eval '[ "$(squeue -h -j "$job" -o "%T %u %D")" = "RUNNING nobody 2" ]'
check "... and Slurm knows it by that name (squeue %j)" [ "$(squeue -h -j "$job" -o %j)" = "$name" ]

if scontrol --local --json show job "$job" >/dev/null 2>&1; then
	diag "scontrol has --json ($(scontrol --version)): the audit reads JSON"
	run numaplan audit "$job" --dry-run
	check "--dry-run: root runs the step as the job's owner, nobody (not the name's root)" \
		eval '[ "$RC" -eq 0 ] && grep -q "runs it as the job.s owner, nobody" <<<"$ERR"'
	for i in $(seq 30); do
		run numaplan audit "$job" --json
		jq -e '.summary.tasks == 2' <<<"$OUT" >/dev/null 2>&1 && break
		sleep 1
	done
	check "the audit is of the running job on its 2 nodes (not 'COMPLETED', not n9)" \
		eval '! grep -qE "is COMPLETED|n9" <<<"$ERR" && [ "$RC" -ne 2 ]'
	check_jq "--json: 2 tasks on the job's own nodes, none unreported" \
		'.summary.tasks == 2 and .summary.unreported == 0'
else
	diag "scontrol has no --json ($(scontrol --version)): the audit reads text"
	run numaplan audit "$job"
	check "exit 2: the record cannot be read from text" [ "$RC" -eq 2 ]
	check "... and it says so, naming a field the name spells twice" \
		eval 'grep -qE "field (UserId|JobState|NodeList|NumNodes) more than once" <<<"$ERR"'
	check "no audit ran: no task, no deviation count, nothing of n9" \
		eval '! grep -qE "task\(s\)|deviation|n9" <<<"$OUT"'
	run numaplan audit "$job" --dry-run
	check "--dry-run fails alike (exit 2): it would not run the step as anyone" [ "$RC" -eq 2 ]
fi
scancel "$job"
wait_idle
done_testing
