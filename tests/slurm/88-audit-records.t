#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The plan records numaplan audit trusts (issue "An audit a job's owner
# cannot fool", items 1 and 6), live under slurmstepd:
#   - each task of a planned step has a record in DIR (plans=DIR),
#     root's, 0644, naming its own process and the CPUs it is bound to;
#     the step's end removes them;
#   - a task that execs with NUMAPLAN_CPUS rewritten and re-binds itself
#     to match is still a deviation (re-bound, env-changed): its record,
#     not its environment, is the plan;
#   - an `env -i` child of a task (no SLURM_PROCID) on other CPUs is a
#     deviation of that task's rank, not dropped;
#   - under an explicit srun --cpu-bind=map_cpu, a task that rewrites
#     SLURM_CPU_BIND_LIST to its new CPU is judged by the map srun gave;
#   - the batch step's processes are listed, with no plan.
# The expectations follow from the tasks' own actions and numaplan-audit(1).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool taskset
[ "$(id -u)" -eq 0 ] || skip_all "reads root's records: run as root"
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
cache=$(root_tmpdir audit-records) || { echo "Bail out! cannot make a root directory"; exit 1; }
plugstack "plans=$cache/plans"
tmp=$(mktemp -d /tmp/np-audit-records.XXXXXX) || { echo "Bail out! cannot make a scratch directory"; exit 1; }
chmod 0755 "$tmp"
jobs=
cleanup() { scancel --quiet $jobs 2>/dev/null; rm -rf "$tmp" "$cache"; plugstack_reset; }
trap cleanup EXIT

# Audit job $1 until its output matches every pattern given (ERE), at most
# 60 times; the last audit in OUT/ERR/RC, and said when it never did.
audit_until() {
	local job=$1 i p ok; shift
	for i in $(seq 60); do
		run numaplan audit "$job" --traffic 0
		ok=1
		for p in "$@"; do grep -qE -- "$p" <<<"$OUT" || ok=0; done
		[ $ok = 1 ] && return 0
		sleep 1
	done
	diag "the last audit said:"; sed 's/^/#   /' <<<"$OUT$ERR" | head -30
	return 1
}

# ---- the records of a planned step, and their end
cat >"$tmp/rec.sh" <<EOF
#!/bin/bash
sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status >$tmp/cpus.\$SLURM_PROCID
echo \$\$ >$tmp/pid.\$SLURM_PROCID
echo "\$SLURMD_NODENAME" >$tmp/node.\$SLURM_PROCID
exec sleep 300
EOF
chmod 0755 "$tmp/rec.sh"
job=$(sbatch --parsable -N1 -n2 -o /dev/null --wrap "srun -n2 --numa-plan=compact $tmp/rec.sh")
jobs="$job"
for i in $(seq 60); do [ -s "$tmp/node.1" ] && [ -s "$tmp/node.0" ] && break; sleep 1; done
node=$(cat "$tmp/node.0" 2>/dev/null)
for r in 0 1; do
	f="$cache/plans/$job.0.$r@$node"
	[ -f "$f" ] || { f=$(grep -l "^rank=$r\$" "$cache/plans/$job".0.*"@$node" 2>/dev/null | head -1); }
	check "rank $r: a plan record on $node" eval '[ -n "$f" ] && [ -f "$f" ]'
	check "rank $r: root's, mode 0644" [ "$(stat -c '%u %a' "$f" 2>/dev/null)" = "0 644" ]
	check "rank $r: it names the task's own process" \
		[ "$(sed -n 's/^pid=//p' "$f" 2>/dev/null)" = "$(cat "$tmp/pid.$r")" ]
	check "rank $r: its CPUs are those the task runs on ($(cat "$tmp/cpus.$r"))" \
		[ "$(sed -n 's/^cpus=//p' "$f" 2>/dev/null)" = "$(cat "$tmp/cpus.$r")" ]
	check "rank $r: binding numaplan, policy compact" \
		eval 'grep -qx binding=numaplan "$f" && grep -qx policy=compact "$f"'
done
check "the batch step has no record (no plan places it)" \
	eval '! ls "$cache/plans" | grep -q "^$job\.4294967291\."'
audit_until "$job" "; 0 deviation\(s\)" "^steps on .*batch \([0-9]+\)"
check "an audit of it: 2 tasks, no deviation, both judged by their record" \
	eval 'grep -q " 2 task(s), .*; 0 deviation(s)" <<<"$OUT" && grep -q "^plans: [0-9]* process(es) judged by their task.s plan record" <<<"$OUT"'
check "the batch step's processes are listed" grep -qE "^steps on $node \(processes\): .*batch \([1-9]" <<<"$OUT"
run numaplan audit "$job" --traffic 0 --json
check_jq "--json: the batch step's processes, by node" --arg n "$node" '.steps[$n].batch >= 1'
scancel "$job"
for i in $(seq 60); do ls "$cache/plans" 2>/dev/null | grep -q "^$job\." || break; sleep 1; done
check "the step's end removed its records" eval '! ls "$cache/plans" 2>/dev/null | grep -q "^$job\."'
wait_idle

# ---- a task rewrites its environment and re-binds to match; another's
# env -i child runs on the other CPU
rm -f "$tmp"/node.* "$tmp"/cpus.*
cat >"$tmp/lie.sh" <<EOF
#!/bin/bash
mine=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
other=\$(( mine == ${pus[0]} ? ${pus[1]} : ${pus[0]} ))
echo "\$mine" >$tmp/cpus.\$SLURM_PROCID
echo "\$SLURMD_NODENAME" >$tmp/node.\$SLURM_PROCID
if [ "\$SLURM_PROCID" = 1 ]; then
	taskset -pc \$other \$\$ >/dev/null
	exec env NUMAPLAN_CPUS=\$other sleep 300
fi
env -i taskset -c \$other sleep 300 &
exec sleep 300
EOF
chmod 0755 "$tmp/lie.sh"
job=$(sbatch --parsable -N1 -n2 -o /dev/null --wrap "srun -n2 --numa-plan=compact $tmp/lie.sh")
jobs="$jobs $job"
for i in $(seq 60); do [ -s "$tmp/node.1" ] && [ -s "$tmp/node.0" ] && break; sleep 1; done
node=$(cat "$tmp/node.0" 2>/dev/null); c0=$(cat "$tmp/cpus.0" 2>/dev/null); c1=$(cat "$tmp/cpus.1" 2>/dev/null)
rebound1="^ *$node +[0-9]+ +1 .* re-bound +cpus $c1 +cpus $c0 "
changed1="^ *$node +[0-9]+ +1 .* env-changed +NUMAPLAN_CPUS=$c1 +NUMAPLAN_CPUS=$c0 "
child0="^ *$node +[0-9]+ +0 .* re-bound +cpus $c0 +cpus $c1 "
audit_until "$job" "$rebound1" "$changed1" "$child0" "; 3 deviation\(s\)"
check "rank 1 rewrote NUMAPLAN_CPUS to the CPU it moved to: re-bound all the same (plan $c1, found $c0)" \
	grep -qE "$rebound1" <<<"$OUT"
check "... and its environment is an env-changed deviation" grep -qE "$changed1" <<<"$OUT"
check "rank 0's env -i child on the other CPU is a deviation of rank 0" grep -qE "$child0" <<<"$OUT"
check "3 deviations, exit 1" eval 'grep -q "; 3 deviation(s)" <<<"$OUT" && [ "$RC" -eq 1 ]'
run numaplan audit "$job" --traffic 0 --json
check_jq "--json: the 3 processes (2 tasks, the child) judged by their task's record" '.summary.by_source.record == 3'
scancel "$job"
wait_idle

# ---- srun --cpu-bind=map_cpu wins over the plan; a task moves and
# rewrites srun's list to say so
rm -f "$tmp"/node.* "$tmp"/cpus.*
cat >"$tmp/map.sh" <<EOF
#!/bin/bash
echo "\$SLURMD_NODENAME" >$tmp/node.\$SLURM_PROCID
[ "\$SLURM_PROCID" = 0 ] || exec sleep 300
taskset -pc ${pus[1]} \$\$ >/dev/null
exec env SLURM_CPU_BIND_LIST=${pus[1]} SLURM_CPU_BIND_TYPE=map_cpu: sleep 300
EOF
chmod 0755 "$tmp/map.sh"
# two CPUs for the one task (-c2), so that its cgroup lets it move
job=$(sbatch --parsable -N1 -n1 -c2 -o /dev/null --wrap \
	"srun -n1 -c2 --numa-plan=compact --cpu-bind=map_cpu:${pus[0]} $tmp/map.sh")
jobs="$jobs $job"
for i in $(seq 60); do [ -s "$tmp/node.0" ] && break; sleep 1; done
node=$(cat "$tmp/node.0" 2>/dev/null)
mapped="^ *$node +[0-9]+ +0 .* re-bound +cpus ${pus[0]} +cpus ${pus[1]} +srun --cpu-bind"
audit_until "$job" "$mapped"
check "an explicit map_cpu:${pus[0]} is the plan: the task that moved to ${pus[1]} and rewrote srun's list is re-bound" \
	grep -qE "$mapped" <<<"$OUT"
f=$(ls "$cache/plans/$job".0.0@* 2>/dev/null | head -1)
check "its record says binding slurm, with srun's map" \
	eval 'grep -qx binding=slurm "$f" && grep -qx "cpu_bind_list=${pus[0]}" "$f"'
scancel "$job"
wait_idle

# ---- plans=none: no record; the audit says it judged by the environment
plugstack "plans=none"
rm -f "$tmp"/node.* "$tmp"/cpus.* "$tmp"/pid.*
job=$(sbatch --parsable -N1 -n2 -o /dev/null --wrap "srun -n2 --numa-plan=compact $tmp/rec.sh")
jobs="$jobs $job"
for i in $(seq 60); do [ -s "$tmp/node.1" ] && [ -s "$tmp/node.0" ] && break; sleep 1; done
audit_until "$job" "^warning: 2 process\(es\) judged by their own environment"
check "plans=none: no record written" eval '! ls "$cache/plans" 2>/dev/null | grep -q "^$job\."'
check "plans=none: the audit warns that both tasks were judged by their own environment" \
	grep -q "^warning: 2 process(es) judged by their own environment" <<<"$OUT"
scancel "$job"
wait_idle
done_testing
