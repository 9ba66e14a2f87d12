#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan audit --all and --partition: three running jobs, one of whose
# tasks re-binds itself with taskset after start; the pass finds that one
# job and no other, and exits 1.  A job whose node does not answer (its
# slurmd stopped) is reported as not audited, within the pass's bound,
# and the others are still judged.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool taskset
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || skip_all "needs a 2-node vcluster"
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
plugstack ''

tmp=$(mktemp -d /tmp/np-audit-all.XXXXXX) || { echo "Bail out! cannot make a scratch directory"; exit 1; }
chmod 0755 "$tmp"
stopped=
cleanup() {
	[ -n "$stopped" ] && kill -CONT "$stopped" 2>/dev/null
	scancel --quiet $jobs 2>/dev/null; rm -rf "$tmp"; plugstack_reset
}
jobs=
trap cleanup EXIT

# rank 1 of the deviating job moves itself onto rank 0's PU; every other
# task sleeps where it was put
cat >"$tmp/task.sh" <<EOF
#!/bin/bash
mine=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
other=\$(( mine == ${pus[0]} ? ${pus[1]} : ${pus[0]} ))
[ "\$SLURM_PROCID" = 1 ] && [ "\$1" = rebind ] && taskset -pc \$other \$\$ >/dev/null
exec sleep 300
EOF
chmod 0755 "$tmp/task.sh"
submit() { sbatch --parsable -N1 -o "$tmp/slurm-%j.out" "$@"; }
# the deviating job takes both PUs of one node, the two others one each of
# the other node
bad=$(submit -n2 -w n1 --wrap "srun -n2 --numa-plan=compact $tmp/task.sh rebind")
ok1=$(submit -n1 -w n2 --wrap "srun -n1 --numa-plan=compact $tmp/task.sh")
ok2=$(submit -n1 -w n2 --wrap "srun -n1 --numa-plan=compact $tmp/task.sh")
jobs="$bad $ok1 $ok2"
check "3 jobs submitted" [ -n "$bad" ] && [ -n "$ok1" ] && [ -n "$ok2" ]

line() { grep -E "^$1 " <<<"$OUT"; }
# audit --all until the three run with their tasks started and the
# re-binding done (at most 90 s); $OUT $ERR $RC of the last
for _ in $(seq 90); do
	run numaplan audit --all --traffic 0 --timeout 20
	[ -n "$(line "$bad" | grep DEVIATES)" ] && [ -n "$(line "$ok1" | grep "OK (1 task")" ] &&
		[ -n "$(line "$ok2" | grep "OK (1 task")" ] && break
	sleep 1
done
check "audit --all: exit 1 (a job deviates)" [ "$RC" -eq 1 ]
check "... the re-bound job: DEVIATES, 1 deviation, rank 1 re-bound" \
	eval 'line "$bad" | grep -qE "DEVIATES: 1 deviation\\(s\\); first: n1 rank 1 re-bound: expected cpus [0-9]+, found cpus [0-9]+"'
check "... the two others: OK, one task each" \
	eval 'line "$ok1" | grep -q "OK (1 task(s))" && line "$ok2" | grep -q "OK (1 task(s))"'
check "... one line per running job, then the counts" \
	eval '[ "$(grep -cE "^[0-9]+ " <<<"$OUT")" -eq 3 ] && grep -qE "^audit --all: 3 running job\\(s\\): 2 OK, 1 deviating, 0 not audited" <<<"$OUT"'

run numaplan audit --partition debug --json --traffic 0 --timeout 20
check "--partition debug --json: exit 1, 3 jobs, 2 OK, 1 deviating" \
	eval '[ "$RC" -eq 1 ] && jq -e ".partition == \"debug\" and .jobs == 3 and .ok == 2 and .deviating == 1" <<<"$OUT" >/dev/null'
check "... the deviating job's own deviation list" \
	eval 'jq -e --arg j "$bad" "[.results[] | select(.job == \$j)][0] | .status == \"DEVIATES\" and .deviation_list[0].kind == \"re-bound\"" <<<"$OUT" >/dev/null'
run numaplan audit --partition nosuch
check "--partition nosuch: exit 2, named" eval '[ "$RC" -eq 2 ] && grep -q "no partition .nosuch." <<<"$ERR"'
run numaplan audit --all 123
check "--all with a job id: exit 2, says why" eval '[ "$RC" -eq 2 ] && grep -q "no job id" <<<"$ERR"'

# n2's slurmd stopped: the audits of its two jobs cannot run; they are
# reported, the pass ends within its bound (timeout 5 s + srun's margin)
# and n2 answers again after (slurmd is stopped for less than SlurmdTimeout),
# and n1's job is still judged
stopped=$(pgrep -f "slurmd -f $SLURM_CONF -N n2\$" | head -1)
if [ -n "$stopped" ]; then
	kill -STOP "$stopped"
	t0=$SECONDS
	run numaplan audit --all --traffic 0 --timeout 5 --parallel 3
	took=$((SECONDS - t0))
	kill -CONT "$stopped"; stopped=
	# a ping slurmctld sent meanwhile may have marked n2 not responding
	# (SlurmdTimeout 60 s: never down); the next one, 20 s on, clears it
	for _ in $(seq 120); do nodes_alive && [ -n "$(sinfo -h -n n2 -o %t | grep -v '[*]')" ] && break; sleep 1; done
	check "n2 not answering: its jobs NOT AUDITED, n1's still DEVIATES, exit 1" \
		eval '[ "$RC" -eq 1 ] && line "$ok1" | grep -q "NOT AUDITED" && line "$ok2" | grep -q "NOT AUDITED" && line "$bad" | grep -q DEVIATES'
	check "... the pass was not held up past its bound ($took s; at most 5 + 30 + 30)" [ "$took" -le 65 ]
else
	skip "n2's slurmd not found"
	skip "n2's slurmd not found"
fi
scancel --quiet $jobs; jobs=
wait_idle
check "slurmd of every node still up" nodes_alive
done_testing
