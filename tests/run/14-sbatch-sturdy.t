#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Sturdy Slurm handling on the vcluster (issue 23): an sbatch that writes
# to standard error, or prints no job id at all, still gives a run that
# succeeds and says what sbatch said; a waiting job shows why it waits;
# after Ctrl-C the runs are counted as planned; no job numaplan submitted
# is left in the queue.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

if ! vcluster_ready; then
	skip "vcluster is not up (contrib/vcluster/vcluster up --nodes 2)"
	done_testing; exit
fi
real=$(command -v sbatch)
filler=
cleanup() { [ -n "$filler" ] && scancel "$filler" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
# jobs in the queue whose batch script lies under this test's directory
left_behind() { squeue -h -o '%i %o' | grep -F "$tmp/" || true; }

# --- a warning on sbatch's standard error (a job_submit plugin's message,
# a duplicated plugstack line): before, it came first in "sbatch ... 2>&1"
# and the run said "sbatch printed no job id", exited 1, left the job queued
mkdir -p "$tmp/warn" "$tmp/noid"
cat >"$tmp/warn/sbatch" <<EOF
#!/bin/sh
echo "sbatch: warning: the site asks you to use --time" >&2
exec "$real" "\$@"
EOF
# --- an sbatch whose id goes to standard error: the job exists, its id
# was not printed where numaplan reads it
cat >"$tmp/noid/sbatch" <<EOF
#!/bin/sh
"$real" "\$@" 1>&2
EOF
chmod +x "$tmp/warn/sbatch" "$tmp/noid/sbatch"

run timeout 300 env PATH="$tmp/warn:$PATH" numaplan run stream --nodes 2 --repeat 1 --size 100000 -o "$tmp/w"
check "sbatch with a warning on stderr: the run succeeds" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -3 <<<"$OUT") $ERR"
check "... and shows the warning" grep -q 'sbatch said: sbatch: warning: the site asks you to use --time' <<<"$ERR"
check "... its job followed to COMPLETED" jqt '.jobs[0].state == "COMPLETED" and .failed_runs == 0' "$tmp/w/results.json"

run timeout 300 env PATH="$tmp/noid:$PATH" numaplan run compare --repeat 1 --threads 1 --policies none -o "$tmp/n" -- true
check "sbatch that prints no job id on stdout: the job is found by its script and followed" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR"
check "... and says so" grep -q "printed no job id; job [0-9]* runs $tmp/n/job.sh: following it" <<<"$ERR"
check "... to COMPLETED" jqt '.jobs[0].state == "COMPLETED"' "$tmp/n/results.json"

# --- a waiting job says why: a filler holds both nodes whole
filler=$(sbatch --parsable -N 2 --exclusive -J np-sturdy-filler -o /dev/null --wrap 'sleep 20')
run timeout 300 numaplan run stream --nodes 2 --repeat 1 --size 100000 -o "$tmp/p"
check "a run behind a filler job: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -12 <<<"$OUT") $ERR"
check "... its status shows the pending reason" grep -Eq 'job [0-9]+ PENDING \((Resources|Priority)\)' <<<"$OUT"
# the probe job's "1/1 topology probe" line is no step of the 6-step job
stale() { grep -E 'step [0-9]+/6 .*topology probe' <<<"$OUT"; }
check "... no line of the probe job in the run job's status" [ -z "$(stale)" ]
filler=

# --- Ctrl-C: 5 repetitions on 2 nodes; STREAM runs on each node by
# itself, so every experiment plans 5 x 2 = 10 runs, whatever ran
numaplan run stream --nodes 2 --repeat 5 --size 2000000 -o "$tmp/c" >"$tmp/c.out" 2>&1 &
pid=$!
for i in $(seq 240); do grep -Eq 'step ([3-9]|[1-9][0-9])/30 ' "$tmp/c.out" && break; sleep 0.5; done
kill -INT "$pid"
wait "$pid"
rc=$?
check "Ctrl-C: exit 130 (numaplan-run(1) EXIT STATUS)" [ "$rc" -eq 130 ]
[ "$rc" -eq 130 ] || diag "$(tail -5 "$tmp/c.out")"
check "... the job is cancelled" jqt '.jobs[0].state == "CANCELLED"' "$tmp/c/results.json"
check "... every experiment counts 10 planned runs" jqt 'all(.experiments[]; .runs_total == 10)' "$tmp/c/results.json"
check "... some ran, not all" jqt '([.experiments[].runs_ok] | add) as $ok | $ok > 0 and $ok < 60' "$tmp/c/results.json"
check "... results.json schema (runs stand for planned_runs)" schema_ok "$tmp/c/results.json"
check "... the summary says N/10" grep -Eq '^stream\.node +[a-z]+ +[0-9]+/10 ' "$tmp/c.out"

# a cancelled job leaves the queue when slurmctld has seen its steps end:
# wait for that (at most a minute), not for a fixed time
for i in $(seq 120); do [ -z "$(left_behind)" ] && break; sleep 0.5; done
check "no job of this test is left in the queue" [ -z "$(left_behind)" ]
[ -z "$(left_behind)" ] || diag "$(left_behind)"
done_testing
