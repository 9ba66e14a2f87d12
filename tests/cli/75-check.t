#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan check on sysfs trees written here (check-tree.sh) and stored
# topologies: each kind found where the tree puts it and nowhere else,
# text and JSON, the exit status (1 on a warn or fail finding, 0 on a
# clean tree, 2 on bad input with nothing on standard output), --site
# reading the adapters from plugstack.conf's sysfs= with %n, and bytes of
# a planted file that must not reach the terminal.  Expected values are
# the ones written into the trees and the XML (local_memory), not
# numaplan's output.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-tree.sh"
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml
tmp=$(mktemp -d /tmp/numaplan-cli-check.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
jqe() { jq -e "$@" >/dev/null; }
finding() { # kind object -> its JSON
	jq -c --arg k "$1" --arg o "$2" '.findings[] | select(.kind == $k and .object == $o)' <<<"$OUT"
}

run numaplan check --help
check "--help: exit 0, usage on stdout naming the kinds" \
	eval '[ "$RC" -eq 0 ] && grep -q "^Usage: numaplan check" <<<"$OUT" && grep -q "pcie-link, memory-balance, cpu-offline, port-rate, ecc, settings" <<<"$OUT"'

# ---- a clean node: every value as it should be ---------------------------
clean=$tmp/clean
tree_pci "$clean" pci0000:00/0000:00:03.1 0x060400 0x1022 16.0 16 16.0 16
tree_pci "$clean" pci0000:00/0000:00:03.1/0000:41:00.0 0x020700 0x15b3 16.0 16 16.0 16
tree_pci "$clean" pci0000:00/0000:00:05.1 0x060400 0x1022 8.0 4 16.0 16
tree_pci "$clean" pci0000:00/0000:00:05.1/0000:61:00.0 0x010802 0x144d 8.0 4 8.0 4
tree_put "$clean" devices/system/cpu/present 0-127
tree_put "$clean" devices/system/cpu/online 0-127
tree_put "$clean" devices/system/cpu/smt/control on
tree_put "$clean" kernel/mm/transparent_hugepage/enabled "always [madvise] never"
tree_put "$clean" devices/system/cpu/cpufreq/boost 1
for c in 0 1 2 3; do tree_put "$clean" "devices/system/cpu/cpu$c/cpufreq/scaling_governor" performance; done
tree_put "$clean" devices/system/edac/mc/mc0/ce_count 0
tree_put "$clean" devices/system/edac/mc/mc0/ue_count 0
tree_ib "$clean" mlx5_0 MT4115 12.28.2006 1 "4: ACTIVE" "100 Gb/sec (4X EDR)"
tree_ib "$clean" mlx5_1 MT4115 12.28.2006 1 "4: ACTIVE" "100 Gb/sec (4X EDR)"
run numaplan check --topology "$EPYC" --sysfs "$clean"
check "a clean tree: exit 0, no fault" \
	eval '[ "$RC" -eq 0 ] && grep -qx "0 fault(s): 0 fail, 0 warn; 0 unknown; .* value(s) not shown (--all)" <<<"$OUT"'
check "... the settings shown: smt on, thp madvise, governor performance, boost on, NPS4 (AMD, 4 NUMA nodes a package)" \
	eval 'for s in "smt: on" "thp: madvise" "governor: performance" "boost: on" "nps: NPS4"; do
	        grep -qE "^info +settings +$s\$" <<<"$OUT" || exit 1; done'
check "... the values hidden without --all" eval '! grep -q "pcie-link\|port-rate\|memory-balance" <<<"$OUT"'
run numaplan check --topology "$EPYC" --sysfs "$clean" --all
check "--all: the links, the NUMA nodes, the ports too" \
	eval 'grep -qE "^info +pcie-link +0000:41:00.0: 16.0 GT/s x16$" <<<"$OUT" && grep -qE "^info +port-rate +mlx5_1:1: 100 Gb/sec \(4X EDR\)$" <<<"$OUT" && [ "$(grep -cE "^info +memory-balance +NUMA [0-7]:" <<<"$OUT")" -eq 8 ]'
run numaplan check --topology "$EPYC" --sysfs "$clean" --json
check "--json: schema, status ok, exit 0" \
	eval '[ "$RC" -eq 0 ] && jqe ".schema == \"numaplan-check/1\" and .status == \"ok\" and .counts.fail == 0 and .counts.warn == 0" <<<"$OUT"'
check "--json: the drive at 8.0 GT/s x4 is a value (8 x 4 = 32)" \
	jqe '.severity == "info" and .found == "8.0 GT/s x4" and .value == 32 and .expected == null' <<<"$(finding pcie-link 0000:61:00.0)"
check "--json: firmware of each adapter recorded" \
	jqe '.found == "12.28.2006"' <<<"$(finding settings "firmware mlx5_1")"
check "--json: NUMA 5 holds 34359214080 bytes (its local_memory)" \
	jqe '.value == 34359214080 and .severity == "info"' <<<"$(finding memory-balance "NUMA 5")"

# ---- a faulty node: one fault of each kind --------------------------------
bad=$tmp/bad
cp -a "$clean" "$bad"
tree_put "$bad" devices/pci0000:00/0000:00:03.1/0000:41:00.0/current_link_speed "8.0 GT/s PCIe"
tree_put "$bad" devices/pci0000:00/0000:00:03.1/0000:41:00.0/current_link_width 8
tree_put "$bad" devices/system/cpu/online 0-63,65-127
tree_put "$bad" class/infiniband/mlx5_1/ports/1/rate "56 Gb/sec (4X FDR)"
tree_put "$bad" devices/system/edac/mc/mc0/ce_count 7
tree_put "$bad" devices/system/cpu/cpu3/cpufreq/scaling_governor powersave
sed 's/allowed_nodeset="0x00000020" local_memory="34359214080"/allowed_nodeset="0x00000020" local_memory="30064771072"/' \
	"$EPYC" >"$tmp/short5.xml"
check "(the derived topology: NUMA 5 has 28 GiB)" grep -q 'local_memory="30064771072"' "$tmp/short5.xml"
run numaplan check --topology "$tmp/short5.xml" --sysfs "$bad"
check "faults: exit 1" [ "$RC" -eq 1 ]
check "pcie-link: the HCA at 8.0 GT/s x8 where it and its port can do 16.0 GT/s x16" \
	grep -qE "^fail +pcie-link +0000:41:00.0: 8.0 GT/s x8 \(expected 16.0 GT/s x16\)$" <<<"$OUT"
check "... with how to read it by hand (lspci -vv -s 0000:41:00.0)" grep -q "lspci -vv -s 0000:41:00.0" <<<"$OUT"
check "memory-balance: NUMA 5, 28.0 GiB where package 1's others have 32.0 GiB" \
	grep -qE "^fail +memory-balance +NUMA 5: 28.0 GiB \(expected 32.0 GiB\)$" <<<"$OUT"
check "cpu-offline: CPU 64" grep -qE "^fail +cpu-offline +CPU 64: offline \(expected online\)$" <<<"$OUT"
check "port-rate: mlx5_1:1 at FDR where mlx5_0:1 (the same model) is at EDR" \
	grep -qE "^fail +port-rate +mlx5_1:1: 56 Gb/sec \(4X FDR\) \(expected 100 Gb/sec \(4X EDR\)\)$" <<<"$OUT"
check "ecc: 7 corrected errors on mc0, a warning" \
	grep -qE "^warn +ecc +mc0: 7 corrected, 0 uncorrected \(expected 0 corrected\)$" <<<"$OUT"
check "settings: CPU 3 on another governor, a warning" \
	grep -qE "^warn +settings +governor: performance on 0-2, powersave on 3 " <<<"$OUT"
check "the count: 4 fail, 2 warn" grep -q "^6 fault(s): 4 fail, 2 warn; 0 unknown" <<<"$OUT"
check "nothing else is a fault" test "$(grep -cE '^(fail|warn) ' <<<"$OUT")" -eq 6
run numaplan check --topology "$tmp/short5.xml" --sysfs "$bad" --json
check "--json: status fail, counts 4 fail 2 warn, the kinds in order" \
	jqe '.status == "fail" and .counts.fail == 4 and .counts.warn == 2 and
	     ([.findings[] | select(.severity == "fail" or .severity == "warn") | .kind] ==
	      ["pcie-link", "memory-balance", "cpu-offline", "port-rate", "ecc", "settings"])' <<<"$OUT"

# ---- malformed and missing files: unknown, never a failure ----------------
odd=$tmp/odd
cp -a "$clean" "$odd"
tree_put "$odd" devices/pci0000:00/0000:00:03.1/0000:41:00.0/current_link_speed Unknown
rm "$odd/devices/system/edac/mc/mc0/ue_count"
tree_put "$odd" class/infiniband/mlx5_0/ports/1/rate "lots"
rm "$odd/kernel/mm/transparent_hugepage/enabled"
mkfifo "$odd/devices/system/cpu/smt/control.new" && mv -f "$odd/devices/system/cpu/smt/control.new" "$odd/devices/system/cpu/smt/control"
printf '12.28\033[2J\n' >"$odd/class/infiniband/mlx5_1/fw_ver"
run timeout 20 numaplan check --topology "$EPYC" --sysfs "$odd"
check "malformed, missing and planted files (a FIFO): unknowns, exit 0, no hang" \
	eval '[ "$RC" -eq 0 ] && grep -q "^0 fault(s): 0 fail, 0 warn; 6 unknown" <<<"$OUT"'
check "... each names its file and what is wrong with it" \
	eval 'grep -q "current_link_speed: malformed: .Unknown." <<<"$OUT" && grep -q "mc0/ue_count: missing" <<<"$OUT" &&
	      grep -q "ports/1/rate: malformed: .lots." <<<"$OUT" && grep -q "transparent_hugepage/enabled: missing" <<<"$OUT" &&
	      grep -q "smt/control: not a regular file" <<<"$OUT" && grep -q "mlx5_1/fw_ver: malformed" <<<"$OUT"'
check "... the escape byte of fw_ver never reaches the output" eval '! grep -q $'"'"'\033'"'"' <<<"$OUT"'
run numaplan check --topology "$EPYC" --sysfs "$odd" --json
check "... and the JSON is valid, with every finding" \
	jqe '.counts.unknown == 6 and ([.findings[] | select(.severity == "unknown")] | length) == 6' <<<"$OUT"

# ---- bad input: exit 2, nothing on standard output --------------------------
for args in "--sysfs $tmp/none" "--sysfs $EPYC" "--sysfs $clean --site" "--json --all" "--topology $tmp/none.xml" \
	    "--bogus" "extra"; do
	# shellcheck disable=SC2086
	run numaplan check $args
	check "check $args: exit 2, a message, no output" \
		eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "^numaplan check: " <<<"$ERR"'
done

# ---- --site: the adapters from plugstack.conf's sysfs=, %n the node --------
mkdir -p "$tmp/etc" "$tmp/sites"
printf 'ClusterName=x\nPlugStackConfig=%s/etc/plugstack.conf\n' "$tmp" >"$tmp/etc/slurm.conf"
printf 'required /usr/local/lib/slurm/numaplan.so default=compact sysfs=%s/sites/%%n\n' "$tmp" >"$tmp/etc/plugstack.conf"
tree_ib "$tmp/sites/n7" mlx5_0 MT4123 20.31.1014 1 "4: ACTIVE" "200 Gb/sec (4X HDR)"
tree_ib "$tmp/sites/n7" mlx5_1 MT4123 20.31.1014 1 "4: ACTIVE" "100 Gb/sec (4X EDR)"
run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME=n7 numaplan check --topology "$EPYC" --site --json
check "--site: the adapters from sysfs=$tmp/sites/%n of node n7, said on stderr" \
	grep -qF "numaplan check: adapters: directory $tmp/sites/n7 (sysfs= of numaplan.so in $tmp/etc/plugstack.conf)" <<<"$ERR"
check "... mlx5_1:1 at EDR beside mlx5_0:1 at HDR: exit 1, port-rate" \
	eval '[ "$RC" -eq 1 ] && jqe ".adapters_sysfs == \"$tmp/sites/n7\" and .sysfs == \"/sys\"" <<<"$OUT" &&
	      jqe ".severity == \"fail\" and .expected == \"200 Gb/sec (4X HDR)\"" <<<"$(finding port-rate mlx5_1:1)"'
run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME=.. numaplan check --topology "$EPYC" --site --json
check "--site, node name '..': the live /sys, as the plugin would not climb out of sites/" \
	eval 'grep -qF "adapters: the live /sys (sysfs=$tmp/sites/%n: no usable node name to expand %n)" <<<"$ERR" &&
	      jqe ".adapters_sysfs == \"/sys\"" <<<"$OUT"'
printf 'required /usr/local/lib/slurm/numaplan.so default=compact\n' >"$tmp/etc/plugstack.conf"
run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME=n7 numaplan check --topology "$EPYC" --site --json
check "--site without sysfs=: the live /sys, saying so" \
	eval 'grep -q "adapters: the live /sys (numaplan.so in .* has no sysfs=)" <<<"$ERR" && jqe ".adapters_sysfs == \"/sys\"" <<<"$OUT"'
done_testing
