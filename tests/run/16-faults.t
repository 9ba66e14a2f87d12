#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan run screen over a whole vcluster partition (16 nodes by default,
# NP_FAULT_NODES) while things go wrong, as they do in hours-long runs on
# hundreds of nodes: a node's slurmd is killed, a node is drained,
# slurmctld restarts, the results' file system fills up, the user presses
# Ctrl-C.  Each time: nothing already measured is lost, the node that
# failed is reported failed (not an outlier, not a pass), the run can be
# finished (job.sh again: only what did not succeed runs) or collected
# again, and the exit status says what happened (numaplan-run(1), EXIT
# STATUS).  Steps are tiny: the whole file runs in a few minutes.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up"
	done_testing; exit
fi
VC=$NP_SRCDIR/contrib/vcluster/vcluster
# 16 nodes: 32 made each section half as long again under a one-core
# load (stop 43: 273 s against 210 to 248) for nothing more to judge
N=${NP_FAULT_NODES:-16}
FS=$tmp/fs
VCDIR=$(sed -n 's/^StateSaveLocation=\(.*\)\/state$/\1/p' "$SLURM_CONF")

# Whatever happens: the cluster back to the group's 2 nodes (which ends
# the nodes' mount namespaces), then the file system goes.
restore() {
	"$VC" up --nodes 2 >/dev/null 2>&1
	mountpoint -q "$FS" && { umount "$FS" 2>/dev/null || umount -l "$FS"; }
	rm -rf "$tmp"
}
trap restore EXIT

# The results' small file system first: each node's slurmd runs in a
# mount namespace of its own, taken when it starts, so a mount must exist
# before the nodes start to be seen by them.
mkdir -p "$FS"
run mount -t tmpfs -o size=6m,mode=0755 numaplan-faults "$FS"
check "a 6 MB tmpfs for a run's results" [ "$RC" -eq 0 ]
"$VC" down >/dev/null 2>&1
t0=$(date +%s)
run timeout 300 "$VC" up --nodes "$N"
check "vcluster up --nodes $N" [ "$RC" -eq 0 ]
diag "vcluster up --nodes $N: $(($(date +%s) - t0)) s"
[ "$RC" -eq 0 ] || { diag "$OUT $ERR"; done_testing; exit; }
eval "$("$VC" env)"
S='.summary.screen'
nodes_json=$(seq 1 "$N" | sed 's/^/n/' | jq -R . | jq -s -c 'sort')

# screen DIR: a tiny screen of every node, in the background (PID), its
# output and messages in $tmp (the run's own file system may fill up)
screen() {
	numaplan run screen --repeat 1 --hpl-n 200 --nb 32 --stream-size 100000 --iterations 50 \
		--outlier 1000 --outlier-mad 0 -o "$1" >"$tmp/${1##*/}.out" 2>"$tmp/${1##*/}.err" &
	PID=$!
}
# wait for the first K steps of the run in DIR to be done (at most 3
# minutes): 2 is the hardware check and HPL
steps_done() { # dir k
	local i
	for i in $(seq 360); do
		[ "$(cat "$1/progress.log" 2>/dev/null | grep -c '^[0-9]*/[0-9]* screen\..* exit ')" -ge "$2" ] && return 0
		kill -0 "$PID" 2>/dev/null || { diag "numaplan ended early: $(grep -v 'one machine' "$tmp/${1##*/}.err" | tail -3)"; return 1; }
		sleep 0.5
	done
	return 1
}
# numaplan's exit status (at most 5 minutes)
finish() {
	local i
	for i in $(seq 600); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
	kill -0 "$PID" 2>/dev/null && { kill -INT "$PID"; sleep 5; kill -KILL "$PID" 2>/dev/null; }
	wait "$PID"
}
# runs of experiment E that passed, as sorted node names
ok_nodes() { jq -c "[.experiments[] | select(.name == \"$2\") | .runs[] | select(.status == \"ok\") | .node] | sort" \
	"$1/results.json"; }
# the job script again, to finish a run, and its collection
resubmit() { # dir
	sbatch --wait --quiet "$1/job.sh" >"$tmp/sbatch.out" 2>&1
	SBATCH_RC=$?
	run numaplan run --collect "$1"
}
mtimes() { stat -c '%n %Y.%y' "$@" 2>/dev/null; }
# why a run did not finish as expected: numaplan's exit and last words,
# the nodes it failed with their findings, the runs still interrupted or
# failed, the jobs' states, and the step records that are not rc=0
why() { # dir
	diag "exit $RC: $(tail -3 <<<"$ERR" | tr '\n' ' ')"
	diag "failed: $(jq -c "[$S.failed[] as \$n | {(\$n): $S.nodes[\$n].findings}]" "$1/results.json" 2>&1)"
	diag "interrupted_runs $(jq .interrupted_runs "$1/results.json" 2>&1), failed_runs $(jq .failed_runs "$1/results.json" 2>&1), jobs $(jq -c '[.jobs[] | {id, state}]' "$1/results.json" 2>&1)"
	diag "step records not rc=0: $(grep -L '^rc=0' "$1"/raw/*.rc 2>/dev/null | head -5 | xargs -r -n1 sh -c 'echo "$1: $(head -c 80 "$1")"' _ | tr '\n' ' ')"
	diag "job.sh again: sbatch exit ${SBATCH_RC:-?} $(tail -3 "$tmp/sbatch.out" 2>/dev/null | tr '\n' ' ')"
	diag "runs Slurm said cancelled, with their status: $(grep -l ' CANCELLED AT ' "$1"/raw/*.err 2>/dev/null | head -5 |
		xargs -r -n1 sh -c 'echo "${1##*/}: $(head -c 40 "${1%.err}.rc" 2>/dev/null)"' _ | tr '\n' ' ')"
}

T0=$(date +%s)
took() { diag "$1: $(($(date +%s) - T0)) s"; T0=$(date +%s); }
# ---- the file system fills up ---------------------------------------------
D=$FS/full
screen "$D"
steps_done "$D" 2
check "full fs: HPL ran on the $N nodes first" [ "$(ls "$D"/raw/screen.hpl.r1.n*.out 2>/dev/null | wc -l)" -eq "$N" ]
hpl_before=$(mtimes "$D"/raw/screen.hpl.r1.n*.out)
dd if=/dev/zero of="$FS/filler" bs=64k 2>/dev/null
finish; rc=$?
check "full fs: exit 4, results.json could not be written" [ "$rc" -eq 4 ]
check "... and says so, naming --collect" eval 'grep -q "No space left on device" "$tmp/${D##*/}.err" && grep -q -- "--collect" "$tmp/${D##*/}.err"'
check "... what was measured is still there" [ "$(mtimes "$D"/raw/screen.hpl.r1.n*.out)" = "$hpl_before" ]
rm -f "$FS/filler"
run numaplan run --collect "$D"
check "space again: --collect keeps the $N HPL results" [ "$(ok_nodes "$D" screen.hpl)" = "$nodes_json" ]
check "... no node failed for the full disk, the run is incomplete: exit 3" \
	eval '[ "$RC" -eq 3 ] && jqt "$S.failed == [] and .interrupted_runs > 0" "$D/results.json"'
# a collection that fails for space leaves the results it had
cp "$D/results.json" "$tmp/results.before"
dd if=/dev/zero of="$FS/filler" bs=64k 2>/dev/null
run numaplan run --collect "$D"
check "full again: --collect exits 4 and leaves results.json whole" \
	eval '[ "$RC" -eq 4 ] && cmp -s "$D/results.json" "$tmp/results.before"'
rm -f "$FS/filler"
resubmit "$D"
check "finished (job.sh again, --collect): exit 0, every node passed everything" \
	eval '[ "$RC" -eq 0 ] && jqt "$S.failed == [] and $S.not_screened == [] and (${S}.nodes | length) == $N" "$D/results.json"' ||
	why "$D"
check "... without running HPL again" [ "$(mtimes "$D"/raw/screen.hpl.r1.n*.out)" = "$hpl_before" ]
rm -rf "$D"

took "file system full"
# ---- Ctrl-C ----------------------------------------------------------------
D=$tmp/int
screen "$D"
steps_done "$D" 2
hpl_before=$(mtimes "$D"/raw/screen.hpl.r1.n*.out)
kill -INT "$PID"
finish; rc=$?
check "Ctrl-C: exit 130, the job cancelled" \
	eval '[ "$rc" -eq 130 ] && jqt ".jobs[0].state == \"CANCELLED\"" "$D/results.json"'
check "... HPL of the $N nodes kept" [ "$(ok_nodes "$D" screen.hpl)" = "$nodes_json" ]
# (a node Slurm itself took away meanwhile, say a slurmd starved into "not
# responding" on this 2-core machine, is failed for that and says so)
check "... no node reported failed for being interrupted" \
	jqt "([$S.failed[] as \$n | $S.nodes[\$n].findings | any(test(\"Slurm took the node away\"))] | all) and .interrupted_runs > 0" "$D/results.json"
jqt ".interrupted_runs > 0 and $S.failed == []" "$D/results.json" ||
	diag "interrupted_runs $(jq .interrupted_runs "$D/results.json"); failed: $(jq -c "[$S.failed[] as \$n | {(\$n): $S.nodes[\$n].findings}]" "$D/results.json")"
resubmit "$D"
check "finished: exit 0, every node screened, HPL not run again" \
	eval '[ "$RC" -eq 0 ] && jqt "$S.failed == [] and (${S}.nodes | length) == $N" "$D/results.json" &&
	      [ "$(mtimes "$D"/raw/screen.hpl.r1.n*.out)" = "$hpl_before" ]' ||
	{ why "$D"; [ "$(mtimes "$D"/raw/screen.hpl.r1.n*.out)" = "$hpl_before" ] || diag "HPL ran again"; }

took "Ctrl-C"
# ---- slurmctld restarts ------------------------------------------------------
# down for 10 s: longer than the follower used to wait for a job it could
# not see (3 unanswered polls)
D=$tmp/ctld
screen "$D"
steps_done "$D" 2
kill "$(cat "$VCDIR/run/slurmctld.pid")"
sleep 10
slurmctld -f "$SLURM_CONF" -i
finish; rc=$?
check "slurmctld restarted mid-run: exit 0, followed to the end" \
	eval '[ "$rc" -eq 0 ] && jqt ".jobs[0].state == \"COMPLETED\"" "$D/results.json"'
[ "$rc" -eq 0 ] || diag "$(tail -5 "$tmp/${D##*/}.out") $(tail -5 "$tmp/${D##*/}.err")"
check "... every node screened, every run passed" \
	jqt "$S.failed == [] and $S.not_screened == [] and (${S}.nodes | length) == $N and .failed_runs == 0" \
	"$D/results.json"

took "slurmctld restart"
# ---- a node is drained --------------------------------------------------------
D=$tmp/drain
screen "$D"
steps_done "$D" 2
scontrol update NodeName=n3 State=DRAIN Reason=fault-test
finish; rc=$?
check "n3 drained mid-run: exit 1" [ "$rc" -eq 1 ]
check "... n3 failed, with Slurm's reason, and not an outlier" \
	jqt "$S.failed == [\"n3\"] and ($S.outliers | index(\"n3\") | not) and
	     ($S.nodes.n3.findings | any(test(\"drain.*fault-test\")))" "$D/results.json"
check "... what it and the others measured is kept" [ "$(ok_nodes "$D" screen.hpl)" = "$nodes_json" ]
scontrol update NodeName=n3 State=RESUME

took "drain"
# ---- a node's slurmd is killed -------------------------------------------------
D=$tmp/kill
screen "$D"
steps_done "$D" 2
hpl_before=$(mtimes "$D"/raw/screen.hpl.r1.n*.out)
kill -KILL "$(cat "$VCDIR/run/slurmd-n7.pid")"
finish; rc=$?
took "slurmd killed, the run's end"
check "n7's slurmd killed mid-run: exit 1" [ "$rc" -eq 1 ]
[ "$rc" -eq 1 ] || diag "$(tail -5 "$tmp/${D##*/}.out") $(tail -5 "$tmp/${D##*/}.err")"
check "... n7 failed (not an outlier, not a pass)" \
	jqt "$S.failed == [\"n7\"] and ($S.outliers | index(\"n7\") | not)" "$D/results.json"
diag "failed: $(jq -c "$S.failed" "$D/results.json"); n7: $(jq -c "$S.nodes.n7.findings" "$D/results.json")"
others=$(jq -c 'map(select(. != "n7"))' <<<"$nodes_json")
# (killing slurmd leaves a step already running on n7 to finish: n7's
# STREAM may have passed before its node went; the others' must all have)
but7() { ok_nodes "$@" | jq -c 'map(select(. != "n7"))'; }
check "... the other nodes ran everything, the job was not requeued" \
	eval '[ "$(but7 "$D" screen.lat.numa0-numa0)" = "$others" ] && [ "$(but7 "$D" screen.stream.numa0)" = "$others" ] &&
	      jqt "(.jobs | length) == 1" "$D/results.json"'
check "... HPL of all $N, measured before, kept" [ "$(ok_nodes "$D" screen.hpl)" = "$nodes_json" ]
"$VC" up --nodes "$N" >/dev/null 2>&1
scontrol update NodeName=n7 State=RESUME >/dev/null 2>&1
lat_n1=$(mtimes "$D"/raw/screen.lat.numa0-numa0.r1.n1.out)
took "n7 back"
resubmit "$D"
check "n7 back, finished: exit 0, n7 passes, nothing else ran again" \
	eval '[ "$RC" -eq 0 ] && jqt "$S.failed == [] and $S.nodes.n7.status == \"ok\"" "$D/results.json" &&
	      [ "$(mtimes "$D"/raw/screen.lat.numa0-numa0.r1.n1.out)" = "$lat_n1" ] &&
	      [ "$(mtimes "$D"/raw/screen.hpl.r1.n*.out)" = "$hpl_before" ]' || why "$D"

took "finished"
# ---- audit and report over the whole partition ---------------------------------
run numaplan report "$D" --format md
# the screen's table of nodes (the Hardware table after it has a row per
# node as well: "ok" where numaplan check found nothing)
screen_table() { awk '/^## Screen: each node/ { on = 1; next } /^## / { on = 0 } on' <<<"$OUT"; }
check "report of the $N-node screen: a row per node" \
	[ "$(screen_table | grep -cE '^\| n[0-9]+ \| (ok|outlier|failed) ')" -eq "$N" ]
check "... and the Hardware table names every node" \
	[ "$(awk '/^## Hardware: / { on = 1; next } /^## / { on = 0 } on' <<<"$OUT" | grep -oE '^\| n[0-9]+ ' | sort -u | wc -l)" -eq "$N" ]
done_testing
