#!/bin/bash
# numaplan-stream: STREAM validation, rates, JSON fields, placement lines,
# the failure path and bad arguments.
source "$(dirname "$0")/../tap.sh"

if ! command -v numaplan-stream >/dev/null; then
	skip "numaplan-stream not built"
	done_testing; exit
fi

jqe() { jq -e "$@" >/dev/null; }

# Small arrays: seconds, not minutes (the default follows the LLC rule).
N=200000

run numaplan-stream --help
check "--help exits 0" test "$RC" -eq 0
check "--help names every option" bash -c '
	for o in --size --threads --json; do grep -q -- "$o" <<<"$1" || exit 1; done' _ "$OUT"

run numaplan-stream --size $N --threads 2
check "2 threads: exit 0" test "$RC" -eq 0
check "2 threads: Solution Validates" grep -q '^Solution Validates' <<<"$OUT"
check "2 threads: STREAM's column header" grep -qx 'Function    Best Rate MB/s  Avg time     Min time     Max time' <<<"$OUT"
check "2 threads: array size reported" grep -q "^Array size = $N (elements)" <<<"$OUT"
# Every kernel row: a positive finite rate and min <= avg <= max.
rows=$(grep -E '^(Copy|Scale|Add|Triad):' <<<"$OUT")
check "2 threads: four kernel rows" test "$(wc -l <<<"$rows")" -eq 4
check "2 threads: rates positive, min <= avg <= max" awk '
	{ rate=$2; avg=$3; mn=$4; mx=$5
	  if (!(rate > 0) || rate == "inf" || rate == "nan") exit 1
	  if (!(mn <= avg && avg <= mx)) exit 1 }' <<<"$rows"
pl=$(grep '^# placement:' <<<"$OUT")
check "2 threads: one placement line per thread" test "$(wc -l <<<"$pl")" -eq 2
check "placement lines name host, rank, thread, cpus, numa" bash -c '
	grep -Eq "^# placement: host [^ ]+ rank 0 thread 0 cpus [0-9][0-9,-]* numa ([0-9][0-9,-]*|\?)$" <<<"$1" &&
	grep -Eq "^# placement: host [^ ]+ rank 0 thread 1 cpus " <<<"$1"' _ "$pl"
# The CPUs must be the ones this process may use.
allowed=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
check "placement cpus = sched_getaffinity ($allowed)" grep -q " cpus $allowed numa " <<<"$pl"
run taskset -c 0 numaplan-stream --size 1000 --threads 1
check "taskset -c 0: placement says cpus 0" grep -q '^# placement: .* cpus 0 numa ' <<<"$OUT"

run numaplan-stream --size $N --threads 1 --json
check "json: exit 0" test "$RC" -eq 0
check "json: stdout is one JSON object" jqe 'type == "object"' <<<"$OUT"
check "json: rates are positive numbers" jqe '
	[.copy_mbps, .scale_mbps, .add_mbps, .triad_mbps] |
	all(type == "number" and . > 0)' <<<"$OUT"
check "json: validated true, threads 1, size $N" jqe \
	".validated == true and .threads == 1 and .size == $N" <<<"$OUT"
check "json: placement array with one entry of the documented types" jqe '
	(.placement | length) == 1 and
	(.placement[0] | (.host|type) == "string" and (.rank|type) == "number"
	 and (.thread|type) == "number" and (.cpus|type) == "string"
	 and (.numa|type) == "string")' <<<"$OUT"
check "json: placement lines went to stderr" grep -q '^# placement:' <<<"$ERR"

# Non-temporal stores (x86-64): same results, so validation must pass.
if [ "$(uname -m)" = x86_64 ]; then
	run numaplan-stream --size 100001 --threads 2 --stores nt --json
	check "--stores nt: exit 0, validated, stores nt" bash -c '[ "$1" -eq 0 ] &&
		jq -e ".validated == true and .stores == \"nt\" and .triad_mbps > 0" <<<"$2" >/dev/null' _ "$RC" "$OUT"
else
	skip "--stores nt is x86-64 only"
fi
run numaplan-stream --size 1000 --json
check "default stores are normal" jqe '.stores == "normal"' <<<"$OUT"

# The failure path: a spoiled element must fail validation and exit 1.
run numaplan-stream --size 1000 --corrupt
check "corrupt: exit 1" test "$RC" -eq 1
check "corrupt: reports the failed array" grep -q 'Failed Validation on array b' <<<"$OUT"
run numaplan-stream --size 1000 --corrupt --json
check "corrupt json: validated false, exit 1" bash -c '[ "$1" -eq 1 ] && jq -e ".validated == false" <<<"$2" >/dev/null' _ "$RC" "$OUT"

# Bad arguments: exit 2 and a message naming the bad value.
bad() { # expected-text args...
	local want=$1; shift
	run numaplan-stream "$@"
	if [ "$RC" -eq 2 ] && grep -qF -- "$want" <<<"$ERR"; then ok "bad args: $*"
	else notok "bad args: $* (rc $RC: $ERR)"; fi
}
bad "'-5'" --size -5
bad "'12abc'" --size 12abc
bad "'0'" --size 0
bad "'99999999999999999999999'" --size 99999999999999999999999
bad "'0'" --threads 0
bad "'two'" --threads two
bad "'--frobnicate'" --frobnicate
bad "'extra'" --size 10 extra
bad "--size" --size
bad "'fast'" --stores fast

done_testing
