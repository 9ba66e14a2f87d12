#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan accept: exit 0 for a spec the run meets, 1 for one it misses, 2
# for a bad spec (naming file and line, running nothing).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

run numaplan run stream --local --repeat 2 --size 100000 -o "$tmp/s"
check "a stream run to judge" [ "$RC" -eq 0 ]
run numaplan run hpl --local --repeat 1 --size 200 --nb 32 --clock 2.0 --flops-per-cycle 16 -o "$tmp/h"
check "an hpl run to judge" [ "$RC" -eq 0 ]
triad=$(jq '.experiments[] | select(.name == "stream.node") | .stats.triad_mbps.median' "$tmp/s/results.json")
gflops=$(jq '.experiments[0].stats.gflops.median' "$tmp/h/results.json")
diag "stream.node Triad median $triad MB/s, HPL $gflops Gflops (Rpeak 64)"

cat >"$tmp/meet.spec" <<EOF2
# thresholds below what was measured
peak tiny 1 MB/s
check stream.node  triad_mbps >= 1 GB/s
check stream.*     triad_mbps:min > 0
check stream.node  triad_mbps each-node >= 10 x tiny
check hpl.1n       gflops >= 0.000001 x rpeak
check hpl.1n       efficiency > 0
EOF2
run numaplan accept --spec "$tmp/meet.spec" --results "$tmp/s" --results "$tmp/h" --json "$tmp/meet.json"
check "a spec the run meets: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$OUT $ERR"
check "PASS table, no FAIL" sh -c "echo '$OUT' | grep -q '^PASS' && ! echo '$OUT' | grep -q '^FAIL'"
check "ACCEPTED" grep -q 'ACCEPTED' <<<"$OUT"
# 1 + 6 stream experiments + 1 node + 2 = 10 rows
check "one row per matching experiment (10)" jqt '(.checks | length == 10) and .accepted' "$tmp/meet.json"
check "GB/s converted to the MB/s of the figure" \
	jqt '.checks[0] | .required == 1000 and .unit == "MB/s"' "$tmp/meet.json"
check "x rpeak uses Rpeak 64 GFLOPS" jqt '.checks[] | select(.check|test("rpeak")) | (.required - 0.000064 | fabs) < 1e-12' "$tmp/meet.json"

# Exactly at the measured median passes >= and fails >.
cat >"$tmp/edge.spec" <<EOF2
check stream.node triad_mbps >= $triad MB/s
EOF2
run numaplan accept --spec "$tmp/edge.spec" --results "$tmp/s"
check "the measured median itself passes >=" [ "$RC" -eq 0 ]

cat >"$tmp/miss.spec" <<EOF2
check stream.node  triad_mbps >= 100 TB/s
check hpl.1n       efficiency >= 2
check himeno.2n    efficiency >= 0.95
check stream.core  triad_mbps >= 1 MB/s
EOF2
run numaplan accept --spec "$tmp/miss.spec" --results "$tmp/s" --results "$tmp/h" --json "$tmp/miss.json"
check "a spec the run misses: exit 1" [ "$RC" -eq 1 ]
check "NOT ACCEPTED, 3 of 4 failed" grep -q '3 of 4 checks failed: NOT ACCEPTED' <<<"$OUT"
check "a check with no experiment fails, saying so" grep -q 'FAIL .*himeno.2n .*no experiment matches' <<<"$OUT"
check "the passing check is still shown" grep -q '^PASS .*stream.core' <<<"$OUT"

# Bad specs: file:line and nothing run.
printf 'check stream.node triad_mbps => 1 GB/s\n' >"$tmp/bad1.spec"
run numaplan accept --spec "$tmp/bad1.spec" --results "$tmp/s"
check "bad operator: exit 2" [ "$RC" -eq 2 ]
check "... names file, line and the token" grep -q "bad1.spec:1: expected a comparison .* '=>'" <<<"$ERR"
printf '# ok\n\ncheck stream.node triad_mbps >= 1 furlongs\n' >"$tmp/bad2.spec"
run numaplan accept --spec "$tmp/bad2.spec" --results "$tmp/s"
check "unknown unit: exit 2 at line 3" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'bad2.spec:3: unknown unit'" "$ERR"
printf 'check hpl.1n gflops >= 0.5 x nopeak\n' >"$tmp/bad3.spec"
run numaplan accept --spec "$tmp/bad3.spec" --results "$tmp/s"
check "undefined peak: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'unknown peak'" "$ERR"
printf 'run stream --no-such-option\ncheck stream.node triad_mbps > 0\n' >"$tmp/bad4.spec"
run numaplan accept --spec "$tmp/bad4.spec" --output "$tmp/acc4" -- --local
check "a bad run line: exit 2 before running anything" sh -c "[ $RC -eq 2 ] && [ ! -e '$tmp/acc4/1-stream/results.json' ]"
check "... naming the run line" grep -q 'run line 1: unknown option' <<<"$ERR"
printf 'frobnicate\n' >"$tmp/bad5.spec"
run numaplan accept --spec "$tmp/bad5.spec" --results "$tmp/s"
check "unknown directive: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'unknown directive'" "$ERR"
run numaplan accept --spec "$tmp/none.spec" --results "$tmp/s"
check "missing spec file: exit 2" [ "$RC" -eq 2 ]
run numaplan accept --results "$tmp/s"
check "no --spec: exit 2" [ "$RC" -eq 2 ]

# Running what the spec asks (here locally) and judging it.
cat >"$tmp/runs.spec" <<EOF2
run stream --stream-size 100000
run compare --threads 1 --policies none -- true
check stream.node triad_mbps > 0
check compare.none.t1 wall_s < 60 s
EOF2
run numaplan accept --spec "$tmp/runs.spec" --output "$tmp/acc" -- --local --repeat 2 -q
check "accept runs the spec's runs and passes" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$OUT $ERR"
check "one run directory per run line" sh -c "[ -s '$tmp/acc/1-stream/results.json' ] && [ -s '$tmp/acc/2-compare/results.json' ]"
check "accept.json in the output" jqt '.accepted == true and .failures == 0' "$tmp/acc/accept.json"

run numaplan accept --spec "$NP_SRCDIR/contrib/specs/epyc-edr-node.accept" --results "$tmp/s"
check "the EPYC example spec parses (and fails here: exit 1)" [ "$RC" -eq 1 ]
done_testing
