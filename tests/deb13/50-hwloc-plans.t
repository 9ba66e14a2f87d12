#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every stored topology gives the same plan under hwloc 2.9 (the host,
# Debian 12) and hwloc 2.12 (the Debian 13 root, the build 20-build.t
# made there): the topology's JSON (NUMA nodes with their memory kind,
# subtype and tier, devices, GPUs, distances), its fingerprint, and plans
# under every policy, with --threads, and with each memory kind
# (plans-dump.sh), compared file by file.
#
# The differences there are, and why each is not a difference in a plan:
# - "source" (topo) and "topology" (plan) name the file: both builds are
#   given the same path (the root sees the tree where the host does), so
#   they are equal too; nothing is removed before comparing.
# - `numaplan --version` names the hwloc release (2.9.0 / 2.12.0): not
#   part of what is compared, and checked below to differ as it should.
# - hwloc 2.10+ guesses memory tiers and subtypes (HBM, DRAM, CXL-DRAM) in
#   a live discovery, hwloc 2.9 does not; but no release recomputes them
#   for an XML file (hwloc's topology.c skips the guess for the xml
#   component), and numaplan reads the kind from the subtype or, failing
#   that, from the attributes every hwloc 2 keeps (numaplan(1), MEMORY
#   KINDS).  The derived Xeon Max and CXL files exist twice, as each
#   release writes them; the Xeon Max pair must plan alike (checked
#   below), the CXL pair cannot: hwloc 2.9 has no CXLDevice, so its file
#   leaves the CXL nodes unknown and --mem cxl is refused there, under
#   both releases alike.
# - GPU memory NUMA nodes: Sierra's (hwloc 1.11 file) carry no subtype in
#   either release (unknown); hwloc 2.9 and 2.12 mark a live coherent
#   NVIDIA GPU's node GPUMemory alike (topology-linux.c, same code).
# Any other difference fails, with the files named.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
[ -x "$D13BUILD/cli/numaplan" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
[ -x "$NP_BUILDDIR/cli/numaplan" ] || { notok "no host build in $NP_BUILDDIR"; done_testing; exit 1; }

out=$D13DIR/hwloc-plans
rm -rf "$out"
mkdir -p "$out"
# absolute: chroot starts in the root's /
dump=$(realpath -- "$NP_SRCDIR/tests/deb13/plans-dump.sh")
topo=$(realpath -- "$NP_SRCDIR/tests/topologies")

run "$NP_BUILDDIR/cli/numaplan" --version
v29=$(tr '\n' ' ' <<<"$OUT")
run d13run "$D13BUILD/cli/numaplan" --version
v212=$(tr '\n' ' ' <<<"$OUT")
check "the host's build uses hwloc 2.9 ($v29)" grep -q "hwloc 2\.9\." <<<"$v29"
check "the root's build uses hwloc 2.12 ($v212)" grep -q "hwloc 2\.12\." <<<"$v212"

start=$SECONDS
bash "$dump" "$(command -v numaplan)" "$topo" "$out/hwloc29"
check "dumped every case under hwloc 2.9" test -n "$(ls -A "$out/hwloc29")"
d13run_np bash "$dump" "$D13NP" "$topo" "$out/hwloc212"
check "dumped every case under hwloc 2.12" test -n "$(ls -A "$out/hwloc212")"
diag "dumps: $((SECONDS - start)) s ($out)"

n29=$(ls "$out/hwloc29" | wc -l) n212=$(ls "$out/hwloc212" | wc -l)
check "the same cases both ways ($n29 / $n212)" test "$n29" -eq "$n212"
ntopo=$(ls "$topo"/*.xml "$topo"/derived/*.xml | wc -l)
check "every stored topology was dumped ($ntopo)" test "$(ls "$out/hwloc29"/*.topo | wc -l)" -eq "$ntopo"

diffs=()
for f in "$out/hwloc29"/*; do
	b=$(basename "$f")
	cmp -s "$f" "$out/hwloc212/$b" || diffs+=("$b")
done
check "every topology, fingerprint and plan is the same under hwloc 2.9 and 2.12 (${#diffs[@]} of $n29 differ)" \
	test "${#diffs[@]}" -eq 0
for b in "${diffs[@]:0:10}"; do
	diag "differs: $b"
	diff "$out/hwloc29/$b" "$out/hwloc212/$b" | head -6 | sed 's/^/#   /'
done

# the cases compared are real plans, not the same error twice
check "most plans succeeded ($(grep -l '^exit 0$' "$out/hwloc29"/* | wc -l) of $n29)" \
	test "$(grep -l '^exit 0$' "$out/hwloc29"/* | wc -l)" -gt $((n29 / 2))
# the Xeon Max pair (one file as 2.12 writes it, one as 2.9 does) plans alike
# under 2.12 too: HBM from the subtype, HBM from the bandwidth
a=$out/hwloc212/intel-xeonmax9480-2s-snc4-flat-16numa-hbm-hwloc212.mem-hbm
b=$out/hwloc212/intel-xeonmax9480-2s-snc4-flat-16numa-hbm-hwloc29.mem-hbm
check "hwloc 2.12: both Xeon Max files bind numa x 4 to HBM 8-9, 10-11, 12-13, 14-15" \
	bash -c '[ "$(sed "/^exit/d" "$1" | jq -c "[.ranks[].mems]")" = "[\"8-9\",\"10-11\",\"12-13\",\"14-15\"]" ] &&
		 [ "$(sed "/^exit/d" "$1" | jq -c "del(.topology)")" = "$(sed "/^exit/d" "$2" | jq -c "del(.topology)")" ]' _ "$a" "$b"
check "hwloc 2.12: CXL as 2.9 writes it is unknown, --mem cxl refused naming it" \
	grep -q "no CXL memory on this node (it has unknown on NUMA 8-9" \
	"$out/hwloc212/intel-spr8480-2s-snc4-10numa-cxl-hwloc29.mem-cxl"
done_testing
