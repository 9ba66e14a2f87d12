#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan-osu: data check over every message size, OSU's header and
# columns, JSON, the failure path and bad arguments; the collectives
# allreduce and alltoall with OMB's definitions.
source "$(dirname "$0")/../tap.sh"

MPIEXEC=${MPIEXEC:-mpiexec.mpich}
if ! command -v numaplan-osu >/dev/null || ! command -v "$MPIEXEC" >/dev/null; then
	skip "numaplan-osu or $MPIEXEC missing"
	done_testing; exit
fi
T="timeout 300"
jqe() { jq -e "$@" >/dev/null; }
# Sizes OSU uses: 0 (latency only), then 1, 2, 4, ... 4 MiB.
sizes_json() { # first
	local s=$1 out="" ; while [ "$s" -le 4194304 ]; do out="$out,$s"; s=$(( s ? s * 2 : 1 )); done
	echo "[${out#,}]"
}
LAT_SIZES=$(sizes_json 0)
BW_SIZES=$(sizes_json 1)

run numaplan-osu --help
check "--help exits 0 and names the options" bash -c '[ "$1" -eq 0 ] &&
	for o in latency bw bibw mbw_mr allreduce alltoall -m -i -x -W -f -c --json; do grep -q -- "$o" <<<"$2" || exit 1; done' _ "$RC" "$OUT"

# Data check on every size up to 4 MiB (few iterations: correctness, not speed).
for t in latency bw bibw; do
	run $T "$MPIEXEC" -n 2 numaplan-osu $t -c -i 3 -x 1 --json
	want=$BW_SIZES; [ $t = latency ] && want=$LAT_SIZES
	check "$t -c: exit 0, validated" bash -c '[ "$1" -eq 0 ] && jq -e ".validated == true and .bad_bytes == 0 and .data_check == true" <<<"$2" >/dev/null' _ "$RC" "$OUT"
	check "$t -c: every size checked and passed" jqe "[.results[].size] == $want and all(.results[]; .valid == true)" <<<"$OUT"
	check "$t json: test name, positive values" jqe ".test == \"$t\" and all(.results[]; (.value|type) == \"number\" and .value > 0)" <<<"$OUT"
done
kflags=$(sed -n 's/^KERNEL_CFLAGS = //p' "$NP_BUILDDIR/kernels/Makefile" 2>/dev/null)
check "json: build flags end with the build tree's KERNEL_CFLAGS '$kflags'" \
	jq -e '(.build.compiler|type) == "string" and (.build.cflags|endswith($k))' --arg k "$kflags" <<<"$OUT"
run $T "$MPIEXEC" -n 4 numaplan-osu mbw_mr -c -m 1:4K -i 3 -x 1 --json
check "mbw_mr 4 ranks -c: exit 0, validated" bash -c '[ "$1" -eq 0 ] && jq -e ".validated == true" <<<"$2" >/dev/null' _ "$RC" "$OUT"
check "mbw_mr json: sizes 1..4096, value = rate * size / 1e6" jqe '
	[.results[].size] == [1,2,4,8,16,32,64,128,256,512,1024,2048,4096] and
	all(.results[]; .rate > 0 and ((.value - .rate * .size / 1e6) | fabs) <= 1e-6 * .value)' <<<"$OUT"
check "mbw_mr: placement for 4 ranks on stderr" test "$(grep -c '^# placement: host .* rank [0-3] thread 0 cpus ' <<<"$ERR")" -eq 4

# OSU's human format: "%-10s%18s" headers, "%-10d%18.2f" rows.
run $T "$MPIEXEC" -n 2 numaplan-osu latency -m 8 -i 50 -x 5
check "latency: OSU title" grep -q '^# OSU MPI Latency Test' <<<"$OUT"
check "latency: OSU column header" grep -qx '# Size          Latency (us)' <<<"$OUT"
check "latency: rows 0..8 in OSU's columns" bash -c '
	[ "$(grep -Ec "^[0-9]+ +[0-9]+\.[0-9]{2}$" <<<"$1")" -eq 5 ] &&
	grep -Eq "^0 {9}[ 0-9]{14}[0-9]\.[0-9]{2}$" <<<"$1"' _ "$OUT"
check "latency: placement lines for ranks 0 and 1" test "$(grep -c '^# placement: ' <<<"$OUT")" -eq 2
run $T "$MPIEXEC" -n 2 numaplan-osu bw -m 4:16 -i 5 -x 1 -W 8
check "bw: title, header, sizes 4 8 16" bash -c '
	grep -q "^# OSU MPI Bandwidth Test" <<<"$1" && grep -qx "# Size      Bandwidth (MB/s)" <<<"$1" &&
	[ "$(grep -Eo "^[0-9]+ " <<<"$1" | tr -d " " | tr "\n" " ")" = "4 8 16 " ]' _ "$OUT"
run $T "$MPIEXEC" -n 2 numaplan-osu bibw -m 1K -i 5 -x 1
check "bibw: title" grep -q '^# OSU MPI Bi-Directional Bandwidth Test' <<<"$OUT"
run $T "$MPIEXEC" -n 2 numaplan-osu mbw_mr -m 64 -i 5 -x 1 -W 16
check "mbw_mr: title, pairs/window line, header" bash -c '
	grep -q "^# OSU MPI Multiple Bandwidth / Message Rate Test" <<<"$1" &&
	grep -qx "# \[ pairs: 1 \] \[ window size: 16 \]" <<<"$1" &&
	grep -qx "# Size                  MB/s        Messages/s" <<<"$1"' _ "$OUT"
run $T "$MPIEXEC" -n 2 numaplan-osu latency -m 2K:2K -i 5 -x 1 --json
check "-m MIN:MAX with suffix: one size 2048" jqe '[.results[].size] == [2048]' <<<"$OUT"

# The failure path: a spoiled received byte must be caught.
for t in latency bw bibw; do
	run $T "$MPIEXEC" -n 2 numaplan-osu $t -c --corrupt -m 64 -i 3 -x 1
	check "$t -c --corrupt: exit 1 with a data-check message" bash -c '
		[ "$1" -eq 1 ] && grep -q "data check FAILED" <<<"$2" && grep -q "Fail$" <<<"$3"' _ "$RC" "$ERR" "$OUT"
done
run $T "$MPIEXEC" -n 2 numaplan-osu mbw_mr -c --corrupt -m 64 -i 3 -x 1 --json
check "mbw_mr -c --corrupt: exit 1, validated false" bash -c '[ "$1" -eq 1 ] && jq -e ".validated == false" <<<"$2" >/dev/null' _ "$RC" "$OUT"

# Collectives.  OMB's sizes for them: 1 byte to 1 MiB; allreduce sums
# floats, so its sizes start at 4 bytes (one float): 4, 8, ... 2^20.
sizes_to() { # first last
	local s=$1 out=""; while [ "$s" -le "$2" ]; do out="$out,$s"; s=$((s * 2)); done; echo "[${out#,}]"
}
run $T "$MPIEXEC" -n 2 numaplan-osu allreduce -c -i 3 -x 1 --json
check "allreduce -c: exit 0, validated" bash -c '[ "$1" -eq 0 ] && jq -e ".validated == true and .bad_bytes == 0" <<<"$2" >/dev/null' _ "$RC" "$OUT"
check "allreduce: default sizes 4 B .. 1 MiB (19 sizes)" jqe "[.results[].size] == $(sizes_to 4 1048576)" <<<"$OUT"
check "allreduce json: test, unit us, no window" jqe '.test == "allreduce" and .unit == "us" and .window == 1 and .ranks == 2' <<<"$OUT"
# the figure is the mean of the ranks' latencies: between the fastest and the slowest
check "allreduce: min <= average <= max, 3 timed iterations each" 	jqe 'all(.results[]; .min <= .value and .value <= .max and .min > 0 and .iterations == 3)' <<<"$OUT"
run $T "$MPIEXEC" -n 3 numaplan-osu alltoall -c -m 1:64K -i 3 -x 1 --json
check "alltoall 3 ranks -c: exit 0, every block checked" bash -c '[ "$1" -eq 0 ] && jq -e ".validated == true and all(.results[]; .valid)" <<<"$2" >/dev/null' _ "$RC" "$OUT"
check "alltoall: sizes 1 B .. 64 KiB" jqe "[.results[].size] == $(sizes_to 1 65536)" <<<"$OUT"
check "alltoall: min <= average <= max" jqe 'all(.results[]; .min <= .value and .value <= .max)' <<<"$OUT"
run $T "$MPIEXEC" -n 2 numaplan-osu allreduce -m 2:16 -i 5 -x 1
check "allreduce human: OMB's title and 'Avg Latency(us)' header" bash -c '
	grep -q "^# OSU MPI Allreduce Latency Test" <<<"$1" && grep -qx "# Size       Avg Latency(us)" <<<"$1"' _ "$OUT"
check "allreduce -m 2:16: sizes below a float skipped: 4 8 16" 	[ "$(grep -Eo '^[0-9]+ ' <<<"$OUT" | tr -d ' ' | tr '\n' ' ')" = "4 8 16 " ]
run $T "$MPIEXEC" -n 2 numaplan-osu alltoall -m 8 -i 5 -x 1 -f
check "alltoall -f: OMB's full header" bash -c '
	grep -q "^# OSU MPI All-to-All Personalized Exchange Latency Test" <<<"$1" &&
	grep -qx "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations" <<<"$1"' _ "$OUT"
check "alltoall -f: rows 1..8 with 5 iterations" 	[ "$(grep -Ec '^[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +5$' <<<"$OUT")" -eq 4 ]
for t in allreduce alltoall; do
	run $T "$MPIEXEC" -n 3 numaplan-osu $t -c --corrupt -m 64 -i 3 -x 1
	check "$t -c --corrupt: exit 1 with a data-check message" bash -c '
		[ "$1" -eq 1 ] && grep -q "data check FAILED" <<<"$2" && grep -q "Fail$" <<<"$3"' _ "$RC" "$ERR" "$OUT"
done

# Bad arguments and rank counts: exit 2, a message naming the problem.
bad() { # n expected-text args...
	local n=$1 want=$2; shift 2
	run $T "$MPIEXEC" -n "$n" numaplan-osu "$@"
	if [ "$RC" -eq 2 ] && grep -qF -- "$want" <<<"$ERR"; then ok "bad args ($n ranks): $*"
	else notok "bad args ($n ranks): $* (rc $RC: $ERR)"; fi
}
bad 2 "which test" -m 8
bad 2 "'pingpong'" pingpong
bad 2 "'abc'" latency -m abc
bad 2 "'8:4'" bw -m 8:4
bad 2 "'0'" bw -i 0
bad 2 "'-1'" bw -x -1
bad 2 "'0'" bibw -W 0
bad 2 "-W" latency -W 4
bad 2 "'-q'" latency -q
bad 2 "'extra'" latency extra
bad 1 "exactly 2 ranks" latency
bad 3 "even number of ranks" mbw_mr
bad 1 "at least 2 ranks" allreduce
bad 1 "at least 2 ranks" alltoall
bad 2 "no window" allreduce -W 4
bad 2 "-f" latency -f
bad 2 "at least 4" allreduce -m 2

done_testing
