#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# screen-scale.sh - how the time and memory (max RSS) of collecting,
# reporting and accepting a screen grow with the number of nodes:
# NP_SCALE_NODES (default 1000 10000) nodes' raw outputs, written in the
# kernels' documented JSON (as tests/run/11-screen.t does by hand), then
# `numaplan run --collect`, `numaplan report` (md, html) and `numaplan
# accept` on the results.json they make.  Figures, not assertions: the
# per-node column should stay flat when growth is linear.  Exit 1 is
# expected (one node in 200 fails STREAM's check).
set -u
: "${NP_BUILDDIR:?}"
SRC=${NP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PATH=$NP_BUILDDIR/cli:$PATH
GRACE=$SRC/tests/topologies/arm-nvidia-gh200-grace-1numa.xml
tmp=$(mktemp -d /tmp/np-screen-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

measure() { # label nodes command...: "label nodes seconds maxrss_kB per-node_ms exit"
	local label=$1 n=$2 s kb; shift 2
	/usr/bin/time -o "$tmp/time" -f '%e %M %x' "$@" >"$tmp/out" 2>&1
	read -r s kb x < <(tail -1 "$tmp/time")
	printf '%-16s %7s %9s %10s %12s %5s\n' "$label" "$n" "$s" "$kb" \
		"$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.3f", 1000 * s / n }')" "$x"
}

printf '%-16s %7s %9s %10s %12s %5s\n' step nodes seconds maxrss_kB ms_per_node exit
for n in ${NP_SCALE_NODES:-1000 10000}; do
	D=$tmp/s$n
	numaplan run screen --dry-run --topology "$GRACE" --nodes "$n" --array-above 0 --repeat 1 -o "$D" >/dev/null 2>&1 ||
		{ echo "screen --dry-run --nodes $n failed"; continue; }
	mkdir -p "$D/raw"
	for e in $(jq -r '.[].name' "$D/experiments.json"); do echo "rc=0 start=1.0 end=2.0" >"$D/raw/$e.r1.rc"; done
	# every node a little different, one in 50 slow, one in 200 failing STREAM's check
	awk -v n="$n" -v d="$D/raw" 'BEGIN {
		for (i = 1; i <= n; i++) {
			b = d "/screen.hpl.r1.n" i; g = (i % 50 == 0) ? 50 : 100 + i % 7
			printf "{\"gflops\":%d,\"seconds\":1,\"residual\":0.01,\"passed\":true}\n", g > (b ".out"); close(b ".out")
			print "rc=0" > (b ".rc"); close(b ".rc")
			b = d "/screen.stream.numa0.r1.n" i
			printf "{\"copy_mbps\":1,\"scale_mbps\":1,\"add_mbps\":1,\"triad_mbps\":%d,\"validated\":%s}\n",
				200000 + 100 * (i % 11), (i % 200 == 0) ? "false" : "true" > (b ".out"); close(b ".out")
			print "rc=0" > (b ".rc"); close(b ".rc")
			b = d "/screen.lat.numa0-numa0.r1.n" i
			printf "{\"test\":\"latency\",\"results\":[{\"size\":8,\"value\":%.2f}],\"validated\":true}\n",
				1 + (i % 5) / 100 > (b ".out"); close(b ".out")
			print "rc=0" > (b ".rc"); close(b ".rc")
		}
	}'
	measure collect "$n" numaplan run --collect "$D"
	measure "report md" "$n" numaplan report "$D" --format md
	measure "report html" "$n" numaplan report "$D" --format html
	cat >"$tmp/spec" <<EOF
check screen.hpl gflops each-node >= 60
check screen.stream.* triad_mbps >= 100 MB/s
EOF
	measure accept "$n" numaplan accept --spec "$tmp/spec" --results "$D"
	rm -rf "$D"
done
