#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
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
# several tasks of one srun: each says which it is
run env SLURM_PROCID=3 numaplan-stream --size 1000 --threads 2 --json
check "SLURM_PROCID=3: every placement entry says rank 3" jqe \
	'(.placement | length) == 2 and all(.placement[]; .rank == 3)' <<<"$OUT"

# Non-temporal stores (x86-64): same results, so validation must pass.
if [ "$(uname -m)" = x86_64 ]; then
	run numaplan-stream --size 100001 --threads 2 --stores nt --json
	check "--stores nt: exit 0, validated, stores nt" bash -c '[ "$1" -eq 0 ] &&
		jq -e ".validated == true and .stores == \"nt\" and .triad_mbps > 0" <<<"$2" >/dev/null' _ "$RC" "$OUT"
else
	skip "--stores nt is x86-64 only"
fi
# best: the kind chosen is the faster of the kernel's own trial figures
if [ "$(uname -m)" = x86_64 ]; then
	run numaplan-stream --size 100001 --threads 2 --stores best --json
	check "--stores best: exit 0, validated, the faster of its trial's Triads used (normal or nt)" bash -c '[ "$1" -eq 0 ] &&
		jq -e ".validated == true and .stores_asked == \"best\" and .stores_trial.triads == 3 and
		       .stores == (if .stores_trial.nt_triad_mbps > .stores_trial.normal_triad_mbps then \"nt\" else \"normal\" end)" <<<"$2" >/dev/null' _ "$RC" "$OUT"
	run numaplan-stream --size 100001 --threads 1 --stores best
	check "... and the report says which, with both trial figures" \
		grep -qE "^  the faster in a trial of each \(best of 3 Triads\): normal [0-9.]+ MB/s, non-temporal [0-9.]+ MB/s$" <<<"$OUT"
else
	run numaplan-stream --size 1000 --stores best --json
	check "--stores best without streaming stores: normal, no trial" jqe '.stores == "normal" and .stores_trial == null' <<<"$OUT"
fi
run numaplan-stream --size 1000 --json
check "default stores are normal, asked as such, no trial" jqe '.stores == "normal" and .stores_asked == "normal" and .stores_trial == null' <<<"$OUT"

# Transparent huge pages.  The expectation comes from the system's mode,
# read here: in "madvise" mode only advised memory gets huge pages (and
# khugepaged collapses only advised ranges), in "never" mode none, in
# "always" mode any.  3 x 4 Mi doubles = 96 MiB, 48 huge pages.
thp=$(sed -n 's/.*\[\(always\|madvise\|never\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
HN=4194304
run numaplan-stream --size $HN --threads 1 --json
check "hugepages: THP mode '${thp:-unknown}' as in sysfs, arrays_kb = 3 x $HN x 8 / 1024" \
	jqe ".hugepages.thp == \"${thp:-unknown}\" and .hugepages.arrays_kb == $((3 * HN * 8 / 1024))
	     and (.hugepages.huge_kb|type) == \"number\" and .hugepages.huge_kb <= .hugepages.arrays_kb" <<<"$OUT"
yes_huge=$OUT
run numaplan-stream --size $HN --threads 1 --json --no-hugepages
no_huge=$OUT
check "--no-hugepages: exit 0, validated, not advised" bash -c '[ "$1" -eq 0 ] &&
	jq -e ".validated == true and .hugepages.advised == false" <<<"$2" >/dev/null' _ "$RC" "$no_huge"
case $thp in
madvise)
	check "THP madvise: the arrays are advised and huge pages back them (huge_kb > 0)" \
		jqe '.hugepages.advised == true and .hugepages.huge_kb > 0' <<<"$yes_huge"
	check "THP madvise, --no-hugepages: no huge pages (huge_kb 0)" \
		jqe '.hugepages.huge_kb == 0' <<<"$no_huge";;
never)
	check "THP never: no huge pages either way" bash -c '
		jq -e ".hugepages.huge_kb == 0 and .hugepages.advised == false" <<<"$1" >/dev/null &&
		jq -e ".hugepages.huge_kb == 0" <<<"$2" >/dev/null' _ "$yes_huge" "$no_huge";;
*)	skip "THP mode '${thp:-unknown}': huge_kb is up to the kernel";;
esac
run numaplan-stream --size 100000 --threads 1
check "report: a Huge pages line" grep -Eq '^Huge pages: [0-9.]+ of [0-9.]+ MiB \(THP [a-z]+, (not )?advised\)$' <<<"$OUT"

# Build flags: the JSON says how the binary was compiled; the expected
# flags come from the build tree's Makefile.
kflags=$(sed -n 's/^KERNEL_CFLAGS = //p' "$NP_BUILDDIR/kernels/Makefile" 2>/dev/null)
run numaplan-stream --size 1000 --json
check "build: compiler and cflags, which end with KERNEL_CFLAGS '$kflags'" bash -c '
	jq -e "(.build.compiler|type) == \"string\" and (.build.cflags|endswith(\$k))" --arg k "$2" <<<"$1" >/dev/null' _ "$OUT" "$kflags"

# Default size: STREAM's rule over the LLC domains of all threads' CPUs.
# A fake 64 KiB per domain keeps the arrays small.  Expected domains,
# independently from sysfs for the CPUs this process may use: distinct
# sharing sets of each CPU's outermost data/unified cache, or else (no
# cache data) distinct packages.
llc_domains() {
	local cpus cpu d idx lv best key keys="" pkgs=""
	cpus=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status |
	       tr , '\n' | awk -F- '{ e = NF > 1 ? $2 : $1; for (c = $1; c <= e; c++) print c }')
	for cpu in $cpus; do
		d=/sys/devices/system/cpu/cpu$cpu
		best=0 key=
		for idx in "$d"/cache/index*; do
			[ -r "$idx/type" ] || continue
			[ "$(cat "$idx/type")" = Instruction ] && continue
			lv=$(cat "$idx/level")
			[ "$lv" -gt "$best" ] && best=$lv && key="L$lv:$(cat "$idx/shared_cpu_list" 2>/dev/null || echo "cpu$cpu")"
		done
		[ -n "$key" ] && keys+="$key"$'\n'
		pkgs+="$(cat "$d/topology/physical_package_id" 2>/dev/null || echo 0)"$'\n'
	done
	if [ -n "$keys" ]; then
		# Only the outermost level counts.
		top=$(sed -n 's/^L\([0-9]*\):.*/\1/p' <<<"$keys" | sort -n | tail -1)
		grep "^L$top:" <<<"$keys" | sort -u | wc -l
	else
		sort -u <<<"${pkgs%$'\n'}" | wc -l
	fi
}
D=$(llc_domains)
want=$((D * 64 * 1024 * 4 / 8))        # 4x, in 8-byte elements; a multiple of 1024
T=$(nproc)
run env NUMAPLAN_STREAM_LLC_BYTES=64K numaplan-stream --threads "$T" --json
free_size=$(jq -r .size <<<"$OUT" 2>/dev/null)
check "default size, 64K fake LLC: $D domain(s) -> $want elements (got $free_size)" \
	jqe ".size == $want and .llc_domains == $D and .llc_bytes == $((D * 65536)) and .validated == true" <<<"$OUT"
# Bound threads: each thread sees only its own core, yet the size must
# cover every thread's caches, as without binding.
run env NUMAPLAN_STREAM_LLC_BYTES=64K OMP_PROC_BIND=true OMP_PLACES=cores numaplan-stream --threads "$T" --json
check "OMP_PROC_BIND=true OMP_PLACES=cores: same default size ($free_size)" \
	jqe ".size == $free_size and .validated == true" <<<"$OUT"
diag "bound placement: $(grep -o 'thread [0-9]* cpus [^ ]*' <<<"$ERR" | tr '\n' ';')"
run env NUMAPLAN_STREAM_LLC_BYTES=64K numaplan-stream --threads "$T"
check "human output names the LLC rule" grep -q "^Array size chosen as 4x the last-level cache in use ($D domain(s)" <<<"$OUT"
run env NUMAPLAN_STREAM_LLC_BYTES=64KiB numaplan-stream --threads "$T" --json
check "NUMAPLAN_STREAM_LLC_BYTES=64KiB is 64K (the byte-count syntax of every numaplan tool)" \
	jqe ".size == $free_size" <<<"$OUT"
# STREAM's rule with a size given: each array at least 4x the LLC in use
# ($D domain(s) of 64K: $want elements); one element short warns
run env NUMAPLAN_STREAM_LLC_BYTES=64K numaplan-stream --threads "$T" --size $((want - 1)) --json
check "--size one element under 4x the LLC: below_4x_llc, warned on stderr" \
	eval 'jqe ".below_4x_llc == true and .llc_bytes == $((D * 65536))" <<<"$OUT" &&
		grep -q "less than 4x the last-level cache in use" <<<"$ERR"'
run env NUMAPLAN_STREAM_LLC_BYTES=64K numaplan-stream --threads "$T" --size $((want - 1))
check "... and in the human header, as a WARNING line" grep -q "^WARNING: each array is less than 4x the last-level cache" <<<"$OUT"
run env NUMAPLAN_STREAM_LLC_BYTES=64K numaplan-stream --threads "$T" --size "$want" --json
check "--size of exactly 4x the LLC: no warning" \
	eval 'jqe ".below_4x_llc == false" <<<"$OUT" && ! grep -q "less than 4x" <<<"$ERR"'
run env NUMAPLAN_STREAM_LLC_BYTES=64Q numaplan-stream --threads 1
check "bad NUMAPLAN_STREAM_LLC_BYTES: exit 2, named, no output" bash -c '
	[ "$1" -eq 2 ] && grep -q "NUMAPLAN_STREAM_LLC_BYTES: .64Q." <<<"$2" && [ -z "$3" ]' _ "$RC" "$ERR" "$OUT"

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
