#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The benchmark system as a module (bench/): the core knows no suite by
# name, the suites and their options come from one registry, a figure is
# printed the same way by run and report, results with missing keys do not
# crash, and a Slurm job is followed through squeue's JSON.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

B=$NP_SRCDIR/bench
core=$(ls "$B"/*.c "$B"/*.h | grep -v '/suite_[a-z]*\.c$')

# --- layout: every suite is described in its own file --------------------
check "the core names no suite or kernel (suite names appear only in suite_*.c)" \
	sh -c "! grep -nE '\"(stream|osu|himeno|hpl|xhpl|wrf|compare|cmd)\"' $(echo $core) && \
	       ! grep -nE 'strcmp\([^;]*\"all\"' $(echo $core)"
check "bench/ compares no JSON string that may be missing (strcmp(json_string_value ...))" \
	sh -c "! grep -n 'strcmp(json_string_value' '$B'/*.c"
check "bench/ uses the planner's API only: no hwloc" sh -c "! grep -niE 'hwloc[_.]' '$B'/*.c '$B'/*.h"
check "cli/ keeps the planner's commands only" \
	sh -c "! ls '$NP_SRCDIR'/cli | grep -E '^(run|report|accept|suite)_'"
# the escape of a quote inside single quotes, '\\'' in C, is written once
pat=$(printf '%s' "'\\\\''")
check "one shell quoting in the tree (common/text.c)" \
	[ "$(grep -lF -- "$pat" "$NP_SRCDIR"/{common,lib,plugin,cli,bench,kernels}/*.c)" = \
	  "$NP_SRCDIR/common/text.c" ]

# --- the registry: suites and options from numaplan-run(1) ----------------
MAN=$NP_SRCDIR/man/numaplan-run.1
run numaplan run --help
help=$OUT
# SYNOPSIS: SUITE is one of stream, osu, himeno, hpl, wrf, compare, all
suites=$(sed -n '/^\.IR SUITE " is one of"/{n;p}' "$MAN" | tr -d '",.' | sed 's/^BR //')
check "numaplan-run(1) names 8 suites" [ "$(wc -w <<<"$suites")" -eq 8 ]
for s in $suites; do
	check "--help lists the suite $s of numaplan-run(1)" grep -qE "^  $s +[A-Za-z]" <<<"$help"
done
ok_doc=1
for o in $(grep -oE -- '--[a-z][a-z-]+' <<<"$help" | sort -u); do
	grep -q -- "$(sed 's/-/\\\\-/g' <<<"$o")" "$MAN" || { diag "$o is not in numaplan-run(1)"; ok_doc=0; }
done
check "every option of --help is documented in numaplan-run(1)" [ $ok_doc -eq 1 ]
# defaults as numaplan-run(1) states them
has() { grep -qE -- "$1" <<<"$help"; }
check "--repeat default 5" has '--repeat N +.*\(default 5\)'
check "--outlier default 10" has '--outlier PCT +.*\(default 10\)'
check "hpl: --nb default 192" has '--nb NB +.*\(default 192\)'
check "hpl: --mem-fraction default 0.8" has '--mem-fraction F +.*\(default 0.8\)'
check "himeno: --himeno-size default M" has '--himeno-size XS..XL +.*\(default M\)'
check "compare: --policies default none,compact,spread" has '--policies LIST +.*\(default none,compact,spread\)'
check "hpl's --size is --hpl-n" has 'options of hpl \(--size means --hpl-n\)'
check "himeno's --size is the grid" has 'options of himeno \(--size means --himeno-size\)'
check "wrf has no size" has '^options of wrf:$'
# an option of two suites (himeno and osu) reaches both in 'all'
run numaplan run all --dry-run --topology "$EPYC" --nodes 2 --iterations 7 -o "$tmp/all"
check "all --iterations 7: himeno and osu commands both get it" \
	sh -c "grep -q 'numaplan-himeno .*--iterations 7' '$tmp/all/job.sh' && grep -q 'numaplan-osu latency .*-i 7' '$tmp/all/job.sh'"
run numaplan run himeno --size XXL --dry-run -o "$tmp/xxl"
check "a bad suite option is refused before the output directory exists" [ "$RC" -eq 2 ] && [ ! -e "$tmp/xxl" ]

# --- one number formatter: run's summary and the report agree --------------
# numaplan-report(1): three decimals below 10, so a median of 2.5 is 2.500
D=$tmp/fmt
run numaplan run stream --dry-run --repeat 2 -o "$D"
mkdir -p "$D/raw"
for r in 1 2; do
	printf '{"copy_mbps":1,"scale_mbps":1,"add_mbps":1,"triad_mbps":2.5,"validated":true}\n' \
		>"$D/raw/stream.node.r$r.n1.out"
	echo "rc=0 start=100.0 end=101.0" >"$D/raw/stream.node.r$r.rc"
done
run numaplan run --collect "$D"
run_med=$(awk '$1 == "stream.node" { print $4 }' <<<"$OUT")
rep_med=$(numaplan report "$D" | awk -F' [|] ' '$1 == "| stream.node" { print $7 }')
check "run prints the median 2.5 as 2.500" [ "$run_med" = 2.500 ]
check "report prints it the same: 2.500" [ "$rep_med" = 2.500 ]

# --- results with a key missing do not crash --------------------------------
D=$tmp/miss
run numaplan run compare --dry-run --repeat 1 --policies none,compact --threads 1 -o "$D" -- true
jq '(.[] | select(.name == "compare.none.t1") | .params) |= del(.policy)' "$D/experiments.json" >"$D/e.json" &&
	mv "$D/e.json" "$D/experiments.json"
run numaplan run --collect "$D"
check "--collect with a compare experiment lacking params.policy: no crash (exit 3: nothing ran, incomplete)" [ "$RC" -eq 3 ]
check "... and the comparison is still summarised" jqt '.summary.compare | length == 2' "$D/results.json"
jq 'del(.experiments[0].status, .experiments[0].kernel, .experiments[0].primary_metric, .experiments[0].name)' \
	"$D/results.json" >"$tmp/bad-results.json"
for f in md html csv json; do
	run numaplan report "$tmp/bad-results.json" --format $f
	check "report --format $f of results with keys missing: exit 0" [ "$RC" -eq 0 ]
done

# --- a Slurm job followed through scontrol show job ID ------------------------
# A fake Slurm whose scontrol prints the records Slurm printed (22.05 and
# 24.11, captured on the vcluster) or prints by its format (24.11): see
# tests/unit/data/slurm/README.  Like 22.05's, it refuses --json unless a
# JSON record is given (fake/record.json), as 24.11's scontrol prints it.
# The job is asked about by its id alone; squeue (the whole queue) must
# not be asked.  sbatch writes a warning on
# standard error before the id on standard output, as a job_submit
# plugin's message does.
SD=$NP_SRCDIR/tests/unit/data/slurm
mkdir -p "$tmp/fake"
cat >"$tmp/fake/sbatch" <<EOF
#!/bin/sh
case "\$*" in
*--parsable*) echo "sbatch: warning: a site message to users" >&2; cat "$tmp/fake/jobid";;
*) echo "slurm 22.05.8";;
esac
EOF
cat >"$tmp/fake/scontrol" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/scontrol-args"
case "\$*" in
*--json*)
	[ -f "$tmp/fake/record.json" ] && exec cat "$tmp/fake/record.json"
	echo "scontrol: unrecognized option '--json'" >&2; exit 1;;
esac
cat "$tmp/fake/record"
EOF
printf '#!/bin/sh\ntouch %s/squeue-called\nexit 1\n' "$tmp" >"$tmp/fake/squeue"
printf '#!/bin/sh\nexit 0\n' >"$tmp/fake/scancel"
chmod +x "$tmp/fake/"*
# the captured batch script that exited 3 (JobId=11)
echo 11 >"$tmp/fake/jobid"
cp "$SD/22.05/job-failed.txt" "$tmp/fake/record"
# (--topology: the fake Slurm runs no topology probe)
run env PATH="$tmp/fake:$PATH" numaplan run compare --repeat 1 --policies none --threads 1 --topology "$EPYC" -o "$tmp/sq" -- true
check "a job scontrol shows FAILED before any step ran: exit 3 (incomplete)" [ "$RC" -eq 3 ]
check "... sbatch's warning shown, the job id read past it" grep -q 'sbatch said: sbatch: warning: a site message' <<<"$ERR"
check "... reported with its exit code (3:0)" grep -q 'job 11 ended FAILED (exit code 3:0)' <<<"$ERR"
check "... recorded: id, state, exit code, elapsed 00:00:01" \
	jqt '.jobs == [{"id": "11", "state": "FAILED", "exit_code": "3:0", "elapsed": "00:00:01",
	                "script": .jobs[0].script}]' "$tmp/sq/results.json"
check "... asked about job 11 alone: as JSON, which this scontrol refuses, then as text" \
	[ "$(sort -u "$tmp/scontrol-args" | paste -sd'|')" = "--local --json show job 11|--local show job -o 11" ]
# Slurm 24.11's record of a job cancelled by signal 15 (JobId=4711)
echo 4711 >"$tmp/fake/jobid"
cp "$SD/24.11/job-cancelled.txt" "$tmp/fake/record"
run env PATH="$tmp/fake:$PATH" numaplan run compare --repeat 1 --policies none --threads 1 --topology "$EPYC" -o "$tmp/sq2" -- true
check "24.11 record: CANCELLED by signal 15 after 00:00:09" \
	jqt '.jobs[0] | .state == "CANCELLED" and .exit_code == "0:15" and .elapsed == "00:00:09"' \
	"$tmp/sq2/results.json"
# Slurm 24.11's JSON of a batch script that exited 3 after one second
# (job 2, captured): read as JSON, never asked as text
echo 2 >"$tmp/fake/jobid"
cp "$SD/24.11/captured-job-failed.json" "$tmp/fake/record.json"
: >"$tmp/scontrol-args"
run env PATH="$tmp/fake:$PATH" numaplan run compare --repeat 1 --policies none --threads 1 --topology "$EPYC" -o "$tmp/sq3" -- true
check "24.11 JSON: job 2 FAILED with exit code 3:0 after 00:00:01" \
	jqt '.jobs == [{"id": "2", "state": "FAILED", "exit_code": "3:0", "elapsed": "00:00:01",
	                "script": .jobs[0].script}]' "$tmp/sq3/results.json"
check "... asked as JSON only" [ "$(sort -u "$tmp/scontrol-args" | paste -sd'|')" = "--local --json show job 2" ]
check "squeue was never asked" [ ! -e "$tmp/squeue-called" ]
done_testing
