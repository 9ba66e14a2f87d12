#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan run screen's hardware check (numaplan check on every node,
# first): the experiment and its step, then --collect of outputs that
# numaplan check wrote for 4 sysfs trees built here: n3's ports at EDR
# where the other nodes' are at HDR (no fault n3 can see alone), n2's THP
# and NVMe drive's width unlike the others', n4's HCA trained at x8, n3's
# GPU idle at Gen1 (no fault).  Each must be named, with
# the majority's value where it is a difference, in results.json, in the
# report's Hardware section (before the figures), beside an outlier's
# figures, and by accept's "check: no KIND" lines.  The live check on the
# vcluster is run/19-screen-check-live.t.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"
source "$NP_SRCDIR/tests/cli/check-tree.sh"

GRACE=$TOPO/arm-nvidia-gh200-grace-1numa.xml
S='.summary.screen'
H="$S.hardware"

# ---- the experiment --------------------------------------------------------
D=$tmp/dry
run numaplan run screen --dry-run --topology "$GRACE" --nodes 4 -o "$D"
check "dry run: exit 0" [ "$RC" -eq 0 ]
check "screen.check is the first experiment, one task per node, each node on its own" \
	jqt '.[0] | .name == "screen.check" and .kernel == "screen-check" and .group == "check" and
	     .ntasks == 4 and .nodes == 4 and .sets == "0 1 2 3"' "$D/experiments.json"
check "its step, the first: numaplan check --json --site on each node, exit 1 (findings) a result" \
	grep -q "^np_step 1 screen.check 1 4 -- np_sets screen.check .* bash -c 'numaplan check --json --site; \[ \$? -le 1 \]'$" \
	"$D/job.sh"

# ---- four nodes' checks, collected ------------------------------------------
# the trees: every file numaplan check reads, as a healthy node shows them
tree() { # dir thp rate hca-width gpu-speed nvme-lanes
	tree_pci "$1" pci0000:00/0000:00:03.1 0x060400 0x1022 16.0 16 16.0 16
	tree_pci "$1" pci0000:00/0000:00:03.1/0000:41:00.0 0x020700 0x15b3 16.0 "$4" 16.0 16
	tree_pci "$1" pci0000:00/0000:00:01.1 0x060400 0x1022 "$5" 16 32.0 16
	tree_pci "$1" pci0000:00/0000:00:01.1/0000:01:00.0 0x030200 0x10de "$5" 16 32.0 16
	tree_pci "$1" pci0000:00/0000:00:05.1 0x060400 0x1022 16.0 "$6" 16.0 4
	tree_pci "$1" pci0000:00/0000:00:05.1/0000:61:00.0 0x010802 0x144d 16.0 "$6" 16.0 "$6"
	tree_put "$1" devices/system/cpu/present 0-71
	tree_put "$1" devices/system/cpu/online 0-71
	tree_put "$1" devices/system/cpu/smt/control notsupported
	tree_put "$1" kernel/mm/transparent_hugepage/enabled "$2"
	tree_put "$1" devices/system/cpu/cpufreq/boost 1
	tree_put "$1" devices/system/cpu/cpu0/cpufreq/scaling_governor performance
	tree_put "$1" devices/system/edac/mc/mc0/ce_count 0
	tree_put "$1" devices/system/edac/mc/mc0/ue_count 0
	tree_ib "$1" mlx5_0 MT4123 20.31.1014 1 "4: ACTIVE" "$3"
	tree_ib "$1" mlx5_1 MT4123 20.31.1014 1 "4: ACTIVE" "$3"
}
HDR="200 Gb/sec (4X HDR)" EDR="100 Gb/sec (4X EDR)" MADV="always [madvise] never"
# n3's GPU idle at Gen1 (its speed is no fault, nor a difference: widths
# are compared); n2's NVMe drive a x2 one where the others' are x4
tree "$tmp/n1" "$MADV" "$HDR" 16 32.0 4
tree "$tmp/n2" "[always] madvise never" "$HDR" 16 32.0 2
tree "$tmp/n3" "$MADV" "$EDR" 16 2.5 4
tree "$tmp/n4" "$MADV" "$HDR" 8 32.0 4
for n in n1 n2 n3 n4; do
	numaplan check --json --sysfs "$tmp/$n" --topology "$GRACE" >"$tmp/$n.check"
	echo "$? $n" >>"$tmp/check.rc"
done
check "(numaplan check alone: n1 n2 n3 clean, n4's link a fault)" \
	[ "$(tr '\n' ' ' <"$tmp/check.rc")" = "0 n1 0 n2 0 n3 1 n4 " ]

D=$tmp/judge
run numaplan run screen --dry-run --topology "$GRACE" --nodes 4 --repeat 1 -o "$D"
mkdir -p "$D/raw"
put() { # experiment node text
	printf '%s\n' "$3" >"$D/raw/$1.r1.$2.out"
	echo "rc=0" >"$D/raw/$1.r1.$2.rc"
}
for e in $(jq -r '.[].name' "$D/experiments.json"); do echo "rc=0 start=1.0 end=2.0" >"$D/raw/$e.r1.rc"; done
hpl() { echo "{\"gflops\":$1,\"seconds\":1,\"residual\":0.01,\"passed\":true}"; }
st() { echo "{\"copy_mbps\":1,\"scale_mbps\":1,\"add_mbps\":1,\"triad_mbps\":$1,\"validated\":true}"; }
lat() { echo "{\"test\":\"latency\",\"results\":[{\"size\":8,\"value\":$1}],\"validated\":true}"; }
for n in n1 n2 n3 n4; do
	put screen.check $n "$(cat "$tmp/$n.check")"
	put screen.stream.numa0 $n "$(st 200000)"
	put screen.lat.numa0-numa0 $n "$(lat 1.0)"
done
# n3 slow in HPL too (100 104 50 98: the judge test of run/11-screen.t)
put screen.hpl n1 "$(hpl 100)"; put screen.hpl n2 "$(hpl 104)"; put screen.hpl n3 "$(hpl 50)"; put screen.hpl n4 "$(hpl 98)"
run numaplan run --collect "$D"
R=$D/results.json
check "collect: exit 0 (a finding is no failed run), results.json with the documented fields" \
	eval '[ "$RC" -eq 0 ] && schema_ok "$R"'
check "screen.check: 4 runs ok, no figure ranks the nodes (no outlier of it)" \
	jqt '.experiments[] | select(.name == "screen.check") | .status == "ok" and .runs_ok == 4 and .outliers == []' "$R"
check "each run keeps the whole check, and counts its faults (n4: 1)" \
	jqt '[.experiments[] | select(.name == "screen.check") | .runs[] | {(.node): [.values.faults, (.check.findings | length > 0)]}] | add ==
	     {"n1": [0, true], "n2": [0, true], "n3": [0, true], "n4": [1, true]}' "$R"
check "hardware: the 4 nodes checked, n2 n3 n4 at fault" \
	jqt "$H.checked == [\"n1\",\"n2\",\"n3\",\"n4\"] and $H.faulty == [\"n2\",\"n3\",\"n4\"] and $H.nodes.n1.status == \"ok\" and $H.nodes.n1.findings == []" "$R"
check "n3: both ports at EDR where the majority is HDR, named from the majority, a fail" \
	jqt "$H.nodes.n3 | .status == \"fail\" and ([.findings[] | [.kind, .object, .found, .expected, .from, .severity]] ==
	     [[\"port-rate\", \"mlx5_0:1\", \"$EDR\", \"$HDR\", \"majority\", \"fail\"],
	      [\"port-rate\", \"mlx5_1:1\", \"$EDR\", \"$HDR\", \"majority\", \"fail\"]])" "$R"
check "n2: its drive at x2 where the majority's are x4 (a fail), THP always where the others have madvise (a warning)" \
	jqt "$H.nodes.n2 | .status == \"fail\" and ([.findings[] | [.kind, .object, .found, .expected, .from, .severity]] ==
	     [[\"pcie-link\", \"0000:61:00.0\", \"16.0 GT/s x2\", \"x4\", \"majority\", \"fail\"],
	      [\"settings\", \"thp\", \"always\", \"madvise\", \"majority\", \"warn\"]])" "$R"
check "n4: its HCA at x8, its own finding, named once (not again against the majority)" \
	jqt "$H.nodes.n4 | .status == \"fail\" and ([.findings[] | [.kind, .object, .found, .expected, .from]] ==
	     [[\"pcie-link\", \"0000:41:00.0\", \"16.0 GT/s x8\", \"16.0 GT/s x16\", \"node\"]])" "$R"
check "n3 is still the one outlier of the figures; the check changes no node's status" \
	jqt "$S.outliers == [\"n3\"] and $S.failed == [] and $S.nodes.n4.status == \"ok\"" "$R"
check "each node's hardware lines beside its figures" \
	jqt "$S.nodes.n3.hardware == [\"port-rate mlx5_0:1: $EDR (majority $HDR)\", \"port-rate mlx5_1:1: $EDR (majority $HDR)\"]" "$R"

run numaplan report "$D" --format md
check "report: the Hardware section, before the figures (Results)" \
	eval '[ "$(grep -n "^## Hardware" <<<"$OUT" | cut -d: -f1)" -lt "$(grep -n "^## Results" <<<"$OUT" | cut -d: -f1)" ]'
check "... a row per finding: n3's ports, n2's THP, n4's link; n1 ok" \
	eval 'grep -qF "| n3 | fail | port-rate | mlx5_0:1 | $EDR | $HDR |" <<<"$OUT" &&
	      grep -qF "| n2 | warn | settings | thp | always | madvise |" <<<"$OUT" &&
	      grep -qF "| n2 | fail | pcie-link | 0000:61:00.0 | 16.0 GT/s x2 | x4 |" <<<"$OUT" &&
	      grep -qF "| n4 | fail | pcie-link | 0000:41:00.0 | 16.0 GT/s x8 | 16.0 GT/s x16 |" <<<"$OUT" &&
	      grep -qE "^\| n1 \| ok \|" <<<"$OUT"'
check "the outlier n3's row in the node table shows its hardware findings; n4 (ok) does not" \
	eval 'grep -E "^\| n3 \| outlier \|" <<<"$OUT" | grep -qF "hardware: port-rate mlx5_0:1: $EDR (majority $HDR)" &&
	      ! grep -E "^\| n4 \| ok \|" <<<"$OUT" | grep -q hardware'
run numaplan report "$D" --format html
check "html: the Hardware table before the plots" \
	eval '[ "$(grep -bo "<h2>Hardware" <<<"$OUT" | head -1 | cut -d: -f1)" -lt "$(grep -bo "<h2>Plots" <<<"$OUT" | cut -d: -f1)" ]'

# ---- accept -------------------------------------------------------------------
printf 'check: no port-rate\n' >"$tmp/rate.accept"
run numaplan accept --spec "$tmp/rate.accept" --results "$D"
check "check: no port-rate: n3 fails (2 findings, the first named), the 3 others pass; exit 1" \
	eval '[ "$RC" -eq 1 ] && grep -qE "^FAIL +check: no port-rate +screen.check@n3 +2 findings +0  mlx5_0:1: 100 Gb/sec \(4X EDR\) \(majority 200 Gb/sec \(4X HDR\)\)$" <<<"$OUT" &&
	      grep -qE "^PASS +check: no port-rate +3 other nodes +0 findings" <<<"$OUT" && [ "$(grep -c "^FAIL" <<<"$OUT")" -eq 1 ]'
printf '# both kinds on one line\ncheck: no pcie-link, no memory-balance\n' >"$tmp/two.accept"
run numaplan accept --spec "$tmp/two.accept" --results "$D" --json "$tmp/two.json"
check "check: no pcie-link, no memory-balance: n2 (its drive's width) and n4 (its link) fail, memory passes on all 4" \
	eval '[ "$RC" -eq 1 ] && grep -qE "^FAIL +check: no pcie-link +screen.check@n2 +1 finding " <<<"$OUT" &&
	      grep -qE "^FAIL +check: no pcie-link +screen.check@n4 +1 finding " <<<"$OUT" &&
	      grep -qE "^PASS +check: no pcie-link +2 other nodes +0 findings" <<<"$OUT" &&
	      grep -qE "^PASS +check: no memory-balance +4 nodes +0 findings" <<<"$OUT"'
check "... in accept's JSON too (line 2, the node, the count, the first finding)" \
	jqt '[.checks[] | select(.check == "check: no pcie-link" and .result == "FAIL")] ==
	     [{"result": "FAIL", "line": 2, "check": "check: no pcie-link", "experiment": "screen.check@n2", "measured": 1,
	       "required": 0, "op": "<=", "unit": "findings", "reason": "0000:61:00.0: 16.0 GT/s x2 (majority x4)"},
	      {"result": "FAIL", "line": 2, "check": "check: no pcie-link", "experiment": "screen.check@n4", "measured": 1,
	       "required": 0, "op": "<=", "unit": "findings",
	       "reason": "0000:41:00.0: 16.0 GT/s x8 (expected 16.0 GT/s x16)"}] and .accepted == false' "$tmp/two.json"
printf 'check: no memory-balance, no cpu-offline, no ecc\n' >"$tmp/pass.accept"
run numaplan accept --spec "$tmp/pass.accept" --results "$D"
check "no memory-balance, cpu-offline or ecc finding anywhere: accepted, exit 0" \
	eval '[ "$RC" -eq 0 ] && [ "$(grep -c "^PASS" <<<"$OUT")" -eq 3 ] && ! grep -q "^FAIL" <<<"$OUT"'
for bad in "check: no bogus" "check: pcie-link" "check:" "check: no pcie-link no ecc"; do
	printf '%s\n' "$bad" >"$tmp/bad.accept"
	run numaplan accept --spec "$tmp/bad.accept" --results "$D"
	check "spec '$bad': exit 2, the line named" eval '[ "$RC" -eq 2 ] && grep -q "bad.accept:1: " <<<"$ERR"'
done

# ---- a node whose check gave no result, results without a check --------------
D2=$tmp/nocheck
cp -a "$D" "$D2"
rm -f "$D2/results.json"
put2() { printf '%s\n' "$3" >"$D2/raw/$1.r1.$2.out"; echo "rc=$4" >"$D2/raw/$1.r1.$2.rc"; }
put2 screen.check n4 "bash: numaplan: command not found" 1
run numaplan run --collect "$D2"
check "n4's check failed (not found): n4 not checked, failed for it" \
	jqt "$H.checked == [\"n1\",\"n2\",\"n3\"] and ($H.nodes | has(\"n4\") | not) and $S.failed == [\"n4\"]" "$D2/results.json"
run numaplan accept --spec "$tmp/pass.accept" --results "$D2"
check "accept: n4 not checked fails every check: line" \
	eval '[ "$RC" -eq 1 ] && [ "$(grep -cE "^FAIL +check: no [a-z-]+ +screen.check@n4 +not checked" <<<"$OUT")" -eq 3 ]'
run numaplan report "$D2" --format md
check "report: n4 listed as not checked" grep -qE '^\| n4 \| not checked \|' <<<"$OUT"
rm -f "$D2/raw/screen.check."*
run numaplan run --collect "$D2"
run numaplan accept --spec "$tmp/pass.accept" --results "$D2"
check "a screen whose check never ran: every node fails it, not checked" \
	eval '[ "$RC" -eq 1 ] && [ "$(grep -cE "^FAIL +check: no [a-z-]+ +screen.check@n[1-4] +not checked" <<<"$OUT")" -eq 12 ]'
done_testing
