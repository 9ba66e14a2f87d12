#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Portable acceptance: symbolic domains (hca-local, hca-remote, socket-local,
# socket-remote) resolve per node type, so one spec judges nodes whose NUMA
# numbering differs (NPS4 and NPS1 EPYCs); thresholds against a stored
# baseline (--baseline, --tolerance) in the direction of each suite's
# figure.  Results come from dry runs on stored topologies with outputs
# written by hand, collected with --collect.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

E7551=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml       # NPS4, mlx5_0 on NUMA 5 (socket 1)
E7402=$TOPO/amd-epyc7402-2s-nps1-8mi50-mlx5.xml       # NPS1, mlx5_0 on NUMA 1 (socket 1)
SPR=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml # SNC4, first HCA (mlx5_2) on NUMA 1
alias_of() { # experiments.json name -> its aliases, comma-separated
	jq -r --arg n "$2" '.[] | select(.name == $n) | .aliases | join(",")' "$1"
}

# --- the names, reasoned from each file's locality and SLIT ---------------
run numaplan run osu --nodes 2 --dry-run --topology "$E7551" -o "$tmp/o7551"
X=$tmp/o7551/experiments.json
check "7551: NUMA 5 holds the HCA: osu.latency.numa5 is osu.latency.hca-local" \
	[ "$(alias_of "$X" osu.latency.numa5)" = osu.latency.hca-local ]
# SLIT from NUMA 5: 16 to 4, 6, 7 and 32 to 0-3; the first of the farthest is 0
check "7551: the farthest from NUMA 5 (32) first is NUMA 0: hca-remote" \
	[ "$(alias_of "$X" osu.bw.numa0)" = osu.bw.hca-remote ]
check "7551: NUMA 1-4, 6, 7 have no symbolic name" \
	[ "$(jq '[.[] | select(.name|test("^osu\\.latency\\.numa[1-467]$")) | .aliases | length] | add' "$X")" -eq 0 ]
check "7551: mbw_mr on socket 1 (the HCA's) is socket-local" \
	[ "$(alias_of "$X" osu.mbw_mr.socket1)" = osu.mbw_mr.socket-local ]
check "7551: intra-node NUMA 0 to NUMA 5: hca-local-hca-remote" \
	[ "$(alias_of "$X" osu.intra.numa0-numa5)" = osu.intra.hca-local-hca-remote ]
run numaplan run stream --dry-run --topology "$E7551" -o "$tmp/s7551"
X=$tmp/s7551/experiments.json
check "7551 stream: socket 0 is socket-remote, socket 1 socket-local" \
	[ "$(alias_of "$X" stream.socket0)/$(alias_of "$X" stream.socket1)" = stream.socket-remote/stream.socket-local ]

run numaplan run osu --nodes 2 --dry-run --topology "$E7402" -o "$tmp/o7402"
X=$tmp/o7402/experiments.json
check "7402 NPS1: osu.latency.numa1 is hca-local, numa0 hca-remote" \
	[ "$(alias_of "$X" osu.latency.numa1)/$(alias_of "$X" osu.latency.numa0)" = osu.latency.hca-local/osu.latency.hca-remote ]
run numaplan run stream --dry-run --topology "$SPR" -o "$tmp/sspr"
X=$tmp/sspr/experiments.json
# SNC4: SLIT 12 inside a socket, 21 across: from NUMA 1 the first at 21 is NUMA 4
check "SPR SNC4: stream.numa1 hca-local, stream.numa4 hca-remote" \
	[ "$(alias_of "$X" stream.numa1)/$(alias_of "$X" stream.numa4)" = stream.hca-local/stream.hca-remote ]
run numaplan run stream --dry-run --topology "$TOPO/arm-kunpeng920-2s-4numa.xml" -o "$tmp/sk"
check "no adapter (Kunpeng): no symbolic name at all" \
	[ "$(jq '[.[].aliases | length] | add' "$tmp/sk/experiments.json")" -eq 0 ]

# --- one spec, two node types ------------------------------------------------
# Latency from the HCA's NUMA node 1.0 us, from any other 2.0 us.
fake_osu() { # dir
	local d=$1 n lat
	mkdir -p "$d/raw"
	for n in $(jq -r '.[] | select(.name|test("^osu\\.latency\\.numa")) | .name' "$d/experiments.json"); do
		lat=2.0
		jq -e --arg n "$n" '.[] | select(.name == $n) | .params.hca_local' "$d/experiments.json" >/dev/null && lat=1.0
		printf '{"test":"latency","unit":"us","results":[{"size":0,"value":%s},{"size":8,"value":%s}]}\n' \
			"$lat" "$lat" >"$d/raw/$n.r1.n1.out"
		echo "rc=0 start=1.0 end=2.0" >"$d/raw/$n.r1.rc"
	done
}
for t in 7551 7402; do
	run numaplan run osu --nodes 2 --repeat 1 --dry-run --topology "$(eval echo \$E$t)" -o "$tmp/r$t"
	fake_osu "$tmp/r$t"
	run numaplan run --collect "$tmp/r$t"
done
cat >"$tmp/portable.spec" <<'EOF'
check osu.latency.hca-local   lat_8B_us <= 1.5 us
check osu.latency.hca-remote  lat_8B_us >= 1.5 us
EOF
for t in 7551 7402; do
	run numaplan accept --spec "$tmp/portable.spec" --results "$tmp/r$t" --json "$tmp/a$t.json"
	check "EPYC $t: the portable spec passes" [ "$RC" -eq 0 ]
done
check "... judging NUMA 5 as hca-local on the 7551" \
	jqt '.checks[0].experiment == "osu.latency.numa5=latency.hca-local"' "$tmp/a7551.json"
check "... and NUMA 1 on the 7402" \
	jqt '.checks[0].experiment == "osu.latency.numa1=latency.hca-local"' "$tmp/a7402.json"
# the shipped example spec names symbolic domains and still parses
run numaplan accept --spec "$NP_SRCDIR/contrib/specs/epyc-edr-node.accept" --results "$tmp/r7551"
check "contrib/specs/epyc-edr-node.accept checks osu.latency.hca-local (NUMA 5 on the stored EPYC)" \
	grep -q 'osu.latency.hca-local .*osu.latency.numa5=latency.hca-local' <<<"$OUT"

# --- thresholds against a baseline ------------------------------------------
# stream.node Triad (more is better) and osu latency (less is better).
fake_stream() { # dir triad
	mkdir -p "$1/raw"
	printf '{"copy_mbps":1,"scale_mbps":1,"add_mbps":1,"triad_mbps":%s,"validated":true}\n' "$2" \
		>"$1/raw/stream.node.r1.n1.out"
	echo "rc=0 start=1.0 end=2.0" >"$1/raw/stream.node.r1.rc"
}
mk() { # name triad latency-of-hca-local
	local d=$tmp/$1
	run numaplan run stream --repeat 1 --dry-run --topology "$E7551" -o "$d"
	fake_stream "$d" "$2"
	run numaplan run --collect "$d"
	run numaplan run osu --nodes 2 --repeat 1 --dry-run --topology "$E7551" -o "$d-osu"
	fake_osu "$d-osu"
	sed -i "s/\"value\":1.0/\"value\":$3/g" "$d"-osu/raw/osu.latency.numa5.r1.n1.out
	run numaplan run --collect "$d-osu"
}
mk base 100000 1.00
mk ok   96000  1.04      # -4% and +4%: within 5%
mk bad  94000  1.06      # -6% and +6%
run numaplan accept --baseline "$tmp/base" --results "$tmp/ok" --tolerance 5% --json "$tmp/b-ok.json"
check "stream -4% against a baseline, 5% tolerance: exit 0" [ "$RC" -eq 0 ]
check "... the required figure is 95% of the baseline's 100000" \
	jqt '.checks[] | select(.experiment == "stream.node") | .required == 95000 and .op == ">=" and .baseline == 100000' \
	"$tmp/b-ok.json"
check "... experiments that failed in the baseline are not compared" grep -q 'without a figure' <<<"$OUT"
run numaplan accept --baseline "$tmp/base" --results "$tmp/bad" --tolerance 5%
check "stream -6%: exit 1" [ "$RC" -eq 1 ]
check "... the row says -6.0% vs baseline" grep -q '^FAIL .*stream.node .*-6.0% vs baseline' <<<"$OUT"
run numaplan accept --baseline "$tmp/base" --results "$tmp/bad" --tolerance 10
check "the same at 10% (a bare number is a percentage): exit 0" [ "$RC" -eq 0 ]
run numaplan accept --baseline "$tmp/base-osu" --results "$tmp/ok-osu" --tolerance 5% --json "$tmp/l-ok.json"
check "latency +4% (less is better): exit 0" [ "$RC" -eq 0 ]
check "... required is at most 105% of the baseline's 1 us" \
	jqt '.checks[] | select(.experiment == "osu.latency.numa5") | .op == "<=" and (.required - 1.05 | fabs) < 1e-9' \
	"$tmp/l-ok.json"
run numaplan accept --baseline "$tmp/base-osu" --results "$tmp/bad-osu" --tolerance 5%
check "latency +6%: exit 1" [ "$RC" -eq 1 ]
# across node types: the 7402's hca-local (NUMA 1) against the 7551's (NUMA 5)
run numaplan accept --baseline "$tmp/r7551" --results "$tmp/r7402" --json "$tmp/x.json"
check "a 7402 against a 7551 baseline: hca-local meets hca-local (default 5%)" \
	jqt '.checks[] | select(.experiment == "osu.latency.numa1") | .baseline == 1 and .result == "PASS"' "$tmp/x.json"
check "... and a baseline experiment missing from the results fails" \
	jqt '[.checks[] | select(.reason == "not in the results")] | length > 0 and (.[0].result == "FAIL")' "$tmp/x.json"
printf 'check stream.node triad_mbps >= 0.9 x baseline\n' >"$tmp/xb.spec"
run numaplan accept --spec "$tmp/xb.spec" --baseline "$tmp/base" --results "$tmp/bad" --json "$tmp/xb.json"
check "spec 'x baseline': 94000 >= 0.9 x 100000" \
	jqt '[.checks[] | select(.check|test("x baseline"))][0] | .required == 90000 and .result == "PASS"' "$tmp/xb.json"
run numaplan accept --spec "$tmp/xb.spec" --results "$tmp/bad"
check "'x baseline' without --baseline: exit 2, naming the line" \
	eval '[ "$RC" -eq 2 ] && grep -q "xb.spec:1: .x baseline. needs --baseline" <<<"$ERR"'
run numaplan accept --baseline "$tmp/base" --results "$tmp/ok" --tolerance 120%
check "--tolerance 120%: exit 2" eval '[ "$RC" -eq 2 ] && grep -q "tolerance" <<<"$ERR"'
run numaplan accept --baseline "$tmp/nothing" --results "$tmp/ok"
check "--baseline of no results: exit 2" [ "$RC" -eq 2 ]
done_testing
