#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The site's view: the plugin's step records (record=DIR), numaplan steps
# over them, and the same numbers through a real node_exporter.
#
# On a cluster of two partitions (cpu = n2, which allows hca-near and
# spread; gpu = n1, compact enforced) the test runs steps whose outcome
# follows from the rules and the nodes, none of which has an HCA:
#   A  srun -p cpu -n2 probe                    planned, compact (the default), 2 tasks
#   B  srun -p cpu -n1 --numa-plan=hca-near     fallback to spread, reason no-hca
#   C  srun -p gpu -n1 --numa-plan=spread       refused: srun makes the job
#      (the partition known only once the step exists) and n1 fails its task
#   D  srun -p cpu -N1 -n1 --cpu-bind=cores     respected (an explicit --cpu-bind)
# and checks each record, then the summary and the metrics against those
# expectations, never against the program's own earlier output.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool prometheus-node-exporter
need_tool curl
need_tool promtool

dir=$(root_tmpdir records) || skip_all "cannot make a root-only directory"
exporter=
restore() {
	[ -n "$exporter" ] && kill "$exporter" 2>/dev/null
	plugstack_reset; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$dir"
}
trap restore EXIT
run "$VC" up --nodes 2 --partitions 'gpu=n1 cpu=n2'
check "vcluster up --partitions 'gpu=n1 cpu=n2'" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
probe=$(command -v numaplan-probe)
rec=$dir/steps
plugstack "cache=$dir record=$rec default=compact enforce[gpu] allow[cpu]=compact,hca-near,spread"

srun_ -p cpu -n2 "$probe" --json
check "A: -p cpu -n2 runs" [ "$RC" -eq 0 ]
srun_ -p cpu -n1 --numa-plan=hca-near true
check "B: -p cpu --numa-plan=hca-near runs (falls back)" [ "$RC" -eq 0 ]
srun_ -p gpu -n1 --numa-plan=spread touch "$dir/ran-c"
check "C: -p gpu --numa-plan=spread fails, no task ran" eval '[ "$RC" -ne 0 ] && [ ! -e "$dir/ran-c" ]'
srun_ -p cpu -n1 --cpu-bind=cores true
check "D: -p cpu --cpu-bind=cores runs" [ "$RC" -eq 0 ]
wait_idle
# slurmstepd appends at the step's very end, which srun and squeue need
# not wait for: the records are waited for, not assumed.  A step that ran
# over midnight (UTC) is in the next day's file: f is every day's.
f=$dir/all.jsonl
records() { cat "$rec"/steps-*.jsonl 2>/dev/null | wc -l; }
wait_records() { # N
	for _ in $(seq 1 600); do [ "$(records)" -ge "$1" ] && break; sleep 0.1; done
	cat "$rec"/steps-*.jsonl >"$f" 2>/dev/null
}
wait_records 4
check "a file per day (steps-$(date -u +%Y)-MM-DD.jsonl), root's, 0640 (it names users)" \
	eval '[ -n "$(ls "$rec")" ] && [ -z "$(ls "$rec" | grep -vE "^steps-[0-9]{4}-[0-9]{2}-[0-9]{2}\.jsonl$")" ] &&
	      [ -z "$(stat -c "%U %a" "$rec"/* | grep -v "^root 640$")" ]'
check "4 records, one per step and node, each a whole JSON line" \
	eval '[ "$(wc -l <"$f")" -eq 4 ] && jq -e . "$f" >/dev/null'
r() { jq -c --arg p "$1" --arg o "$2" 'select(.partition == $p and .outcome == $o)' "$f"; }
check "A: cpu, planned compact on n2, 2 tasks that verified, their CPUs disjoint" \
	eval '[ "$(r cpu planned | jq -r "[.node, .requested, .policy, .verify.ok, .verify.failed, (.tasks | length)] | @tsv")" = "n2	compact	compact	2	0	2" ] &&
	      [ "$(r cpu planned | jq -r ".tasks[].cpus" | sort -u | wc -l)" -eq 2 ]'
check "B: cpu, hca-near asked, spread applied, one fallback: no-hca" \
	eval '[ "$(r cpu fallback | jq -r "[.asked, .requested, .policy, (.fallbacks | map(.reason) | join(\",\"))] | @tsv")" = "hca-near	hca-near	spread	no-hca" ]'
check "C: gpu, refused, no task planned" \
	eval '[ "$(r gpu refused | jq -r "[.node, .refused, .asked, (.tasks | length)] | @tsv")" = "n1	true	spread	0" ]'
check "D: cpu, respected" eval '[ "$(r cpu respected | jq -r .node)" = n2 ]'
check "the partitions from Slurm's credential (per-partition rules: the job prolog kept them)" \
	eval '[ "$(jq -r .partition_from "$f" | sort -u)" = credential ]'
check "every record names the user (uid 0: root) and the plugin's time" \
	eval '[ "$(jq -r "select(.uid == 0 and .user == \"root\" and .plugin_seconds >= 0) | 1" "$f" | wc -l)" -eq 4 ]'

# numaplan steps: the summary of the same four
run numaplan steps --dir "$rec" --json
check "numaplan steps --json" [ "$RC" -eq 0 ]
check_jq "... 4 records of 4 steps, 1 refusal, no verify failure" \
	'.records == 4 and .steps == 4 and .refusals == 1 and .verify_failures == 0'
check_jq "... outcomes: cpu/compact/planned 1, cpu/spread/fallback 1, gpu/none/refused 1, cpu/none/respected 1" \
	'[.outcomes[] | "\(.partition)/\(.policy)/\(.outcome)=\(.records)"] | sort ==
	 ["cpu/compact/planned=1", "cpu/none/respected=1", "cpu/spread/fallback=1", "gpu/none/refused=1"]'
check_jq "... fallbacks: no-hca 1, on n2" '.fallbacks == [{"reason": "no-hca", "count": 1}] and .fallback_nodes == [{"node": "n2", "count": 1}]'
run numaplan steps --dir "$rec" --json --partition gpu
check_jq "--partition gpu: the refused step alone" '.records == 1 and .refusals == 1'
run numaplan steps --dir "$rec" --json --user nosuchuser
check_jq "--user nosuchuser: nothing" '.records == 0'
run numaplan steps --dir "$rec" --json --since 2099-01-01
check_jq "--since a later date: nothing" '.records == 0'
run numaplan steps --dir "$rec"
check "the text names the refusal and the fallback's reason" \
	eval 'grep -q "^Refused: 1 record" <<<"$OUT" && grep -qE "^  no-hca +1$" <<<"$OUT"'

# The metrics: promtool accepts them, and node_exporter serves them
mkdir -p "$dir/textfile"
run numaplan steps --dir "$rec" --prometheus --output "$dir/textfile/numaplan.prom"
check "--prometheus --output FILE" eval '[ "$RC" -eq 0 ] && [ -s "$dir/textfile/numaplan.prom" ] && ! ls "$dir/textfile" | grep -q XXXX'
run promtool check metrics <"$dir/textfile/numaplan.prom"
check "promtool check metrics accepts them" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$OUT $ERR"
port=$((19100 + ${NP_VCLUSTER_ID:-0}))
prometheus-node-exporter --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$dir/textfile" >"$dir/exporter.log" 2>&1 &
exporter=$!
scrape=
for _ in $(seq 1 300); do
	scrape=$(curl -sf "http://127.0.0.1:$port/metrics") && break
	sleep 0.1
done
metric() { grep -E "^$1 " <<<"$scrape" | awk '{print $2}'; }
check "node_exporter serves the file" [ -n "$scrape" ]
check "numaplan_steps_total by partition, policy, outcome as run" \
	eval '[ "$(metric "numaplan_steps_total\\{outcome=\"planned\",partition=\"cpu\",policy=\"compact\"\\}")" = 1 ] &&
	      [ "$(metric "numaplan_steps_total\\{outcome=\"fallback\",partition=\"cpu\",policy=\"spread\"\\}")" = 1 ] &&
	      [ "$(metric "numaplan_steps_total\\{outcome=\"refused\",partition=\"gpu\",policy=\"none\"\\}")" = 1 ]'
check "numaplan_fallbacks_total{reason=no-hca} 1, refusals 1, verify failures 0" \
	eval '[ "$(metric "numaplan_fallbacks_total\\{reason=\"no-hca\"\\}")" = 1 ] &&
	      [ "$(metric numaplan_refusals_total)" = 1 ] && [ "$(metric numaplan_verify_failures_total)" = 0 ]'
check "numaplan_plugin_seconds: a histogram of the 4 records" \
	eval '[ "$(metric numaplan_plugin_seconds_count)" = 4 ] && [ "$(metric "numaplan_plugin_seconds_bucket\\{le=\"\\+Inf\"\\}")" = 4 ]'
check "the two alert rules of INSTALL.md (Watching a site): promtool check rules accepts them" \
	eval 'sed -n "/^\`\`\`yaml\$/,/^\`\`\`\$/p" "$NP_SRCDIR/INSTALL.md" | sed "1d;\$d" >"$dir/rules.yml" &&
	      [ "$(grep -c "alert:" "$dir/rules.yml")" -eq 2 ] && promtool check rules "$dir/rules.yml" >/dev/null 2>&1'
check "node_exporter read the file without error" \
	eval '[ "$(metric "node_textfile_scrape_error")" = 0 ]'

# record=none: nothing written; a record directory that is a link: not
# followed, the step runs, and slurmd's log says it once
plugstack "cache=$dir record=none default=compact"
srun_ -p cpu -n1 true
wait_idle
sleep 2
check "record=none: the step runs, no record added" eval '[ "$RC" -eq 0 ] && [ "$(records)" -eq 4 ]'
mkdir -p "$dir/elsewhere" && chmod 0777 "$dir/elsewhere" && ln -s "$dir/elsewhere" "$dir/link"
plugstack "cache=$dir record=$dir/link/steps default=compact"
srun_ -p cpu -n1 true
rc1=$RC
srun_ -p cpu -n1 true
wait_idle
for _ in $(seq 1 600); do [ "$(cat "$dir/record-failed" 2>/dev/null)" = 2 ] && break; sleep 0.1; done
check "a record directory through a user-writable link: the steps run, nothing written there" \
	eval '[ "$rc1" -eq 0 ] && [ "$RC" -eq 0 ] && [ -z "$(ls -A "$dir/elsewhere")" ]'
check "... the 2 failures counted in the cache directory" eval '[ "$(cat "$dir/record-failed" 2>/dev/null)" = 2 ]'
check "... and said once in slurmd's log" \
	eval '[ "$(cat "$(dirname "$SLURM_CONF")"/../log/slurmd-*.log 2>/dev/null | grep -c "step record not written.*$dir/link")" -eq 1 ]'
# A full disk and a read-only one: the steps run as ever, nothing half
# written, each failure counted; the first record written again says how
# many were lost.  The tmpfs are mounted in n2's own mount namespace (its
# mounts are private: numaplan-vcluster(8)), where its slurmstepd writes.
n2pid=$(pgrep -f "slurmd -f $SLURM_CONF -N n2\$" | head -1)
in_n2() { nsenter -t "$n2pid" -m -- "$@"; }
mounted=()
restore_mounts() { for m in "${mounted[@]}"; do in_n2 umount "$m" 2>/dev/null; done; }
trap 'restore_mounts; restore' EXIT
mkdir -p "$dir/full" "$dir/ro"
if [ -n "$n2pid" ] && in_n2 mount -t tmpfs -o size=64k,mode=0755 tmpfs "$dir/full" 2>/dev/null; then
	mounted+=("$dir/full")
	in_n2 mkdir -m 0755 "$dir/full/steps"
	in_n2 dd if=/dev/zero of="$dir/full/fill" bs=4k >/dev/null 2>&1
	plugstack "cache=$dir record=$dir/full/steps default=compact"
	srun_ -p cpu -n1 true
	wait_idle
	for _ in $(seq 1 600); do [ "$(cat "$dir/record-failed" 2>/dev/null)" = 3 ] && break; sleep 0.1; done
	check "a full disk: the step runs, no partial line left, the failure counted (3)" \
		eval '[ "$RC" -eq 0 ] && [ -z "$(in_n2 sh -c "cat $dir/full/steps/* 2>/dev/null")" ] && [ "$(cat "$dir/record-failed")" = 3 ]'
else
	skip "cannot mount a tmpfs in n2's namespace"
fi
if [ -n "$n2pid" ] && in_n2 mount -t tmpfs -o ro,mode=0755 tmpfs "$dir/ro" 2>/dev/null; then
	mounted+=("$dir/ro")
	plugstack "cache=$dir record=$dir/ro/steps default=compact"
	srun_ -p cpu -n1 true
	wait_idle
	want=$(( ${#mounted[@]} + 2 ))
	for _ in $(seq 1 600); do [ "$(cat "$dir/record-failed" 2>/dev/null)" = "$want" ] && break; sleep 0.1; done
	check "a read-only disk: the step runs, the failure counted ($want)" \
		eval '[ "$RC" -eq 0 ] && [ "$(cat "$dir/record-failed")" = "$want" ]'
else
	skip "cannot mount a read-only tmpfs in n2's namespace"
fi
lost=$(cat "$dir/record-failed" 2>/dev/null)
plugstack "cache=$dir record=$rec default=compact"
srun_ -p cpu -n1 true
wait_idle
for _ in $(seq 1 600); do [ ! -e "$dir/record-failed" ] && break; sleep 0.1; done
check "without per-partition rules the partition is the step's environment's, and says so" \
	eval '[ "$(tail -1 "$rec"/steps-$(date -u +%F).jsonl 2>/dev/null | jq -r "[.partition, .partition_from] | @tsv")" = "cpu	environment" ]'
check "written again: the count cleared, and slurmd's log says how many were lost ($lost)" \
	eval '[ "$RC" -eq 0 ] && [ ! -e "$dir/record-failed" ] &&
	      grep -q "step records in $rec written again, after $lost failed append" "$(dirname "$SLURM_CONF")"/../log/slurmd-n2.log'
check "slurmd of every node still up" nodes_alive
done_testing
