#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan audit by root of another user's running job (issue 22, item 5):
# numaplan-audit(1) says root may audit any job, but Slurm makes a step
# only for the job's owner, so root's audit step was refused ("Access/
# permission denied ... no node answered").  And tasks named with bytes
# that are not UTF-8 were dropped from the audit ("0 task(s)").  Here a
# job of the user nobody runs 4 tasks, all under a name that is not
# UTF-8; one re-binds itself.  Root's audit must see them all, and the one.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool taskset
need_tool runuser
[ "$(id -u)" -eq 0 ] || skip_all "root audits another user's job: run as root"
id nobody >/dev/null 2>&1 || skip_all "needs the user nobody"
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || skip_all "needs a 2-node vcluster"
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
plugstack ''

tmp=$(mktemp -d /tmp/np-audit-user.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
chmod 0755 "$tmp"
jobs=
cleanup() { scancel --quiet $jobs 2>/dev/null; rm -rf "$tmp"; plugstack_reset; }
trap cleanup EXIT

# the tasks' program: sleep under a name of two bytes that are no UTF-8
bad=$'\xff\xfe'
cp "$(command -v sleep)" "$tmp/$bad"
chmod 0755 "$tmp/$bad"
cat >"$tmp/task.sh" <<EOF
#!/bin/bash
mine=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
other=\$(( mine == ${pus[0]} ? ${pus[1]} : ${pus[0]} ))
[ "\$SLURM_PROCID" = 1 ] && taskset -pc \$other \$\$ >/dev/null
exec "$tmp/$bad" 300
EOF
chmod 0755 "$tmp/task.sh"

job=$(runuser -u nobody -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" sbatch --parsable -N2 --ntasks-per-node=2 \
	-o /dev/null --chdir=/tmp --wrap "srun -n4 --numa-plan=compact $tmp/task.sh")
jobs="$job"
check "nobody's job is submitted" [ -n "$job" ]
check "... and belongs to nobody" [ "$(squeue -h -j "$job" -o %u)" = nobody ]

# audit until every task runs under its new name and rank 1's re-binding
# is what the audit sees (a task between its start and its exec, or
# before taskset, is another state; one deviation alone may be that one)
rebound="^n[0-9]+ +[0-9]+ +1 .*re-bound +cpus ${pus[1]} +cpus ${pus[0]} +numaplan compact"
for i in $(seq 60); do
	run numaplan audit "$job"
	grep -q " 4 task(s), .*; 1 deviation(s)" <<<"$OUT" && grep -qE "$rebound" <<<"$OUT" && break
	sleep 1
done
grep -qE "$rebound" <<<"$OUT" || { diag "the last audit said:"; sed 's/^/#   /' <<<"$OUT$ERR" | head -20; }
check "root audits nobody's job: no 'permission denied', every node answered" \
	eval '! grep -qi -e "permission denied" -e "no node answered" <<<"$ERR"'
check "every task, named in no UTF-8, is audited: 4 tasks on 2 nodes, 1 deviation" \
	grep -q "job $job: 4 task(s), .* on 2 node(s); 1 deviation(s)" <<<"$OUT"
check "exit 1: a deviation found" [ "$RC" -eq 1 ]
check "rank 1 re-bound itself: expected PU ${pus[1]} of its plan, found ${pus[0]}" \
	grep -qE "$rebound" <<<"$OUT"
check "root's slurmstepd, which the owner cannot read, is not taken for a task" \
	eval '! grep -q "cannot read its environ" <<<"$ERR"'
run numaplan audit "$job" --json
check_jq "--json: 4 tasks, none unreported" '.summary.tasks == 4 and .summary.unreported == 0'
run numaplan audit "$job" --dry-run
check "--dry-run says root runs the step as the owner" \
	eval '[ "$RC" -eq 0 ] && grep -q "runs it as the job.s owner, nobody" <<<"$ERR"'
# the collector's own view, as the owner (what root's step runs)
run runuser -u nobody -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" \
	srun --jobid="$job" --overlap -N1 -n1 --quiet numaplan audit --collect "$job"
check "the collector's JSON names the task \\xff\\xfe (each byte that is no UTF-8 as \\xHH)" \
	eval 'grep "^{" <<<"$OUT" | jq -e --arg n "\\xff\\xfe" "[.processes[].comm] | index(\$n) != null" >/dev/null'
scancel "$job"
wait_idle
done_testing
