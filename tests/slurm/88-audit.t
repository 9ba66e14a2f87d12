#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan audit JOBID on a running 2-node job: the tasks that changed
# their binding after start are found, the others are not; the plan comes
# from the plugin (NUMAPLAN_*) or from srun's own masks.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool gcc
need_tool taskset
need_tool numactl
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || skip_all "needs a 2-node vcluster"
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
plugstack ''

tmp=$(mktemp -d /tmp/np-audit.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
chmod 0755 "$tmp"
cleanup() { scancel --quiet $jobs 2>/dev/null; rm -rf "$tmp"; plugstack_reset; }
jobs=
trap cleanup EXIT

# a program whose second thread moves itself to CPU $1, then waits
cat >"$tmp/thread.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
static void *run(void *a)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(atoi(a), &s);
	sched_setaffinity(0, sizeof(s), &s);
	for (;;)
		pause();
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t t;
	if (argc > 1)
		pthread_create(&t, NULL, run, argv[1]);
	sleep(300);
	return 0;
}
EOF
gcc -O1 -pthread -o "$tmp/thread" "$tmp/thread.c" || skip_all "cannot compile the thread program"

# Each rank of the job: rank 1 re-binds itself to the other PU, rank 2
# moves a thread there, rank 3 resets its memory policy (local allocation),
# rank 0 leaves its binding alone.
cat >"$tmp/task.sh" <<EOF
#!/bin/bash
mine=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
other=\$(( mine == ${pus[0]} ? ${pus[1]} : ${pus[0]} ))
case \$SLURM_PROCID in
1) taskset -pc \$other \$\$ >/dev/null; exec sleep 300;;
2) exec $tmp/thread \$other;;
3) exec numactl --localalloc sleep 300;;
*) exec sleep 300;;
esac
EOF
chmod 0755 "$tmp/task.sh"

# audit_until N JOB [KIND...]: audit until it sees N deviations, of each
# KIND named (the tasks need a moment to start and change, and on a busy
# machine an earlier audit can count a task caught half-way), at most
# 60 s; $OUT $ERR $RC of the last
audit_until() {
	local i n=$1 job=$2 k ok
	shift 2
	for i in $(seq 60); do
		run numaplan audit "$job"
		ok=yes
		grep -q "; $n deviation(s)" <<<"$OUT" && grep -q " 4 task(s)" <<<"$OUT" || ok=no
		for k in "$@"; do grep -qE " $k +" <<<"$OUT" || ok=no; done
		[ $ok = yes ] && return 0
		sleep 1
	done
	return 1
}
submit() { # script text -> job id
	sbatch --parsable -N2 --ntasks-per-node=2 -o "$tmp/slurm-%j.out" --wrap "$1"
}

# ---- the plugin's plan: compact, local task i on the i-th PU of its node
job=$(submit "srun -n4 --numa-plan=compact $tmp/task.sh")
jobs="$jobs $job"
check "the job is submitted" [ -n "$job" ]
audit_until 3 "$job" re-bound thread-outside mempolicy
check "audit exits 1: deviations found" [ "$RC" -eq 1 ]
check "4 tasks on 2 nodes checked, 3 deviations" grep -q "job $job: 4 task(s), .* on 2 node(s); 3 deviation(s)" <<<"$OUT"
# the job's step is 0, or 1 when an audit's step came first (the audit
# starts as soon as the job is submitted)
row() { grep -E "^n[0-9]+ +[0-9]+ +$1 " <<<"$OUT"; }
# block distribution: ranks 0-1 on the first node, 2-3 on the second
check "rank 1 re-bound itself: expected its plan's PU ${pus[1]}, found ${pus[0]}" \
	grep -qE "re-bound +cpus ${pus[1]} +cpus ${pus[0]} +numaplan compact" <<<"$(row 1)"
check "rank 2: a thread outside its PU ${pus[0]} (on ${pus[1]})" \
	grep -qE "thread-outside +within cpus ${pus[0]} +cpus ${pus[1]} +numaplan compact" <<<"$(row 2)"
# the thread is not the process: its TID differs from its PID
check "... the line names the thread, not the process" \
	awk '$6 == "thread-outside" && $4 != $5 { found = 1 } END { exit !found }' <<<"$OUT"
numa=$(numa_of_pu "${pus[1]}")
check "rank 3: memory policy local instead of bound to NUMA $numa" \
	grep -qE "mempolicy +memory on NUMA $numa +local +numaplan compact" <<<"$(row 3)"
check "rank 0: as planned, no line" [ -z "$(row 0)" ]
run numaplan audit "$job" --json
# (the TAP line is check's own: only jq's output goes to /dev/null, and
# an empty output, which jq 1.6 -e takes for true, fails)
check "--json: the same 3 deviations" eval '[ -n "$OUT" ] &&
	jq -e ".summary.deviations == 3 and ([.deviations[].kind] | sort) == [\"mempolicy\", \"re-bound\", \"thread-outside\"]" <<<"$OUT" >/dev/null'
run numaplan audit "$job" --dry-run
check "--dry-run prints the step it would run: one task per node, --overlap, traffic counted for 1 s" \
	grep -qE "^srun --jobid=$job --overlap -N 2 -n 2 --ntasks-per-node=1 --cpu-bind=none .* audit --collect --traffic 1 $job\$" <<<"$OUT"
check "... and runs nothing (exit 0)" [ "$RC" -eq 0 ]
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	run runuser -u nobody -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" numaplan audit "$job"
	check "another user may not audit the job (exit 2, says whose it is)" \
		eval '[ "$RC" -eq 2 ] && grep -q "belongs to root: only its owner or root" <<<"$ERR"'
fi
scancel "$job"

# ---- a job that keeps its binding: nothing to report, exit 0
job=$(submit "srun -n4 --numa-plan=compact sleep 300")
jobs="$jobs $job"
audit_until 0 "$job"
check "a job as planned: exit 0, 0 deviations" eval '[ "$RC" -eq 0 ] && grep -q "; 0 deviation(s)" <<<"$OUT"'
scancel "$job"

# ---- srun's own masks are the plan too (no plugin): rank 1 re-binds
m0=$(printf '0x%x' $((1 << pus[0]))); m1=$(printf '0x%x' $((1 << pus[1])))
job=$(submit "srun -n4 --cpu-bind=mask_cpu:$m0,$m1 $tmp/task.sh")
jobs="$jobs $job"
audit_until 2 "$job" re-bound thread-outside
check "srun masks: rank 1 re-bound against mask $m1 (PU ${pus[1]})" \
	grep -qE "re-bound +cpus ${pus[1]} +cpus ${pus[0]} +srun --cpu-bind" <<<"$(row 1)"
check "srun masks: rank 2's thread outside PU ${pus[0]}" \
	grep -qE "thread-outside +within cpus ${pus[0]} +cpus ${pus[1]} +srun --cpu-bind" <<<"$(row 2)"
check "srun masks bind no memory: rank 3's policy is not judged" [ -z "$(row 3)" ]
scancel "$job"

# ---- jobs that cannot be audited
run numaplan audit 999999
check "an unknown job: exit 2" eval '[ "$RC" -eq 2 ] && grep -q "knows no job 999999" <<<"$ERR"'
job=$(sbatch --parsable -N1 --begin=now+1hour -o /dev/null --wrap true)
jobs="$jobs $job"
run numaplan audit "$job"
check "a pending job: exit 2, only a running job" \
	eval '[ "$RC" -eq 2 ] && grep -q "is PENDING: only a running job" <<<"$ERR"'
scancel "$job"
wait_idle
done_testing
