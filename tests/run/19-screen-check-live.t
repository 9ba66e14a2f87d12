#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan run screen on the vcluster, 4 nodes, with the hardware check
# live on each: the nodes read their adapters where the numaplan plugin
# would (plugstack.conf sysfs=DIR/%n, one tree per node), and n3's tree
# has both ports at EDR where the others' are at HDR.  The screen must
# name n3, and no other node, with the majority's rate, in results.json,
# in the report and in accept.  The rest of each check is the live /sys of
# this one machine, alike on every node.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"
source "$NP_SRCDIR/tests/cli/check-tree.sh"
S='.summary.screen'
H="$S.hardware"

if ! vcluster_ready; then
	skip "vcluster is not up"
	done_testing; exit
fi
VC=$NP_SRCDIR/contrib/vcluster/vcluster
restore() { "$VC" plugstack '' >/dev/null 2>&1; "$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$tmp"; }
trap restore EXIT
run "$VC" up --nodes 4
check "vcluster up --nodes 4" [ "$RC" -eq 0 ]
eval "$("$VC" env)"

HDR="200 Gb/sec (4X HDR)" EDR="100 Gb/sec (4X EDR)"
for n in n1 n2 n3 n4; do
	rate=$HDR
	[ "$n" = n3 ] && rate=$EDR
	tree_ib "$tmp/sys/$n" mlx5_0 MT4123 20.31.1014 1 "4: ACTIVE" "$rate"
	tree_ib "$tmp/sys/$n" mlx5_1 MT4123 20.31.1014 1 "4: ACTIVE" "$rate"
done
run "$VC" plugstack "sysfs=$tmp/sys/%n"
check "plugstack.conf: numaplan.so sysfs=$tmp/sys/%n" [ "$RC" -eq 0 ]

D=$tmp/live
run timeout 900 numaplan run screen --repeat 1 --hpl-n 200 --nb 32 --stream-size 100000 --iterations 50 \
	--outlier 1000 --outlier-mad 0 -o "$D"
check "4-node screen through sbatch: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$(tail -5 <<<"$OUT") $ERR"
R=$D/results.json
check "the check ran first on every node, and passed (a finding is a result)" \
	eval 'head -1 "$D/progress.log" | grep -q "^1/[0-9]* screen.check rep 1 exit 0" &&
	      jqt ".experiments[0] | .name == \"screen.check\" and .runs_ok == 4" "$R"'
check "each node read its own tree (adapters_sysfs $tmp/sys/NODE), the rest from /sys" \
	jqt --arg d "$tmp/sys" '[.experiments[0].runs[] | .check.adapters_sysfs == ($d + "/" + .node) and .check.sysfs == "/sys"] |
	     length == 4 and all' "$R"
check "hardware: 4 nodes checked, n3 the one at fault" \
	jqt "$H.checked == [\"n1\",\"n2\",\"n3\",\"n4\"] and $H.faulty == [\"n3\"]" "$R"
check "n3: both ports at EDR, the majority HDR" \
	jqt "[$H.nodes.n3.findings[] | select(.severity == \"fail\") | [.kind, .object, .found, .expected, .from]] ==
	     [[\"port-rate\", \"mlx5_0:1\", \"$EDR\", \"$HDR\", \"majority\"], [\"port-rate\", \"mlx5_1:1\", \"$EDR\", \"$HDR\", \"majority\"]]" "$R"
[ "$(jq -c "$H.faulty" "$R")" = '["n3"]' ] || diag "hardware: $(jq -c "$H.nodes | map_values([.findings[] | select(.severity != \"unknown\")])" "$R")"
run numaplan report "$D" --format md
check "report: n3's ports in the Hardware section, before the figures" \
	eval 'grep -qF "| n3 | fail | port-rate | mlx5_0:1 | $EDR | $HDR |" <<<"$OUT" &&
	      [ "$(grep -n "^## Hardware" <<<"$OUT" | cut -d: -f1)" -lt "$(grep -n "^## Results" <<<"$OUT" | cut -d: -f1)" ]'
printf 'check: no port-rate\n' >"$tmp/rate.accept"
run numaplan accept --spec "$tmp/rate.accept" --results "$D"
check "accept, check: no port-rate: n3 fails, the 3 others pass" \
	eval '[ "$RC" -eq 1 ] && grep -qE "^FAIL +check: no port-rate +screen.check@n3 " <<<"$OUT" &&
	      grep -qE "^PASS +check: no port-rate +3 other nodes " <<<"$OUT"'
done_testing
