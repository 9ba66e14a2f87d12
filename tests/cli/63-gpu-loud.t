#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Silent cases made loud (issue 20, items 7 and 9), from the command line:
# a GPU node whose every adapter is down, --rails N past the usable
# adapters, a rank's first rail under --rails, ports of portless adapters
# in the table, ranks a --cpuset keeps away from their GPU, and Cray
# MPICH's NIC policy for ranks that span NUMA nodes.  Expectations come
# from the XML (port states, osdev types, localities read with hwloc-calc),
# never from numaplan's own output.
source "$(dirname "$0")/../tap.sh"
SPR=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml
TIOGA=$TOPO/amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml
LASSEN=$TOPO/ibm-power9-2s-4v100-4mlx5-lassen.xml
DGX2=$TOPO/nvidia-dgx2-16v100-nvlink.xml
FAKE="$NP_SRCDIR/tests/slurm/fake-sysfs.sh"
tmp=$(mktemp -d /tmp/numaplan-cli-loud.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# NUMA nodes (OS indexes, "0,1") of a cpulist such as "0-31,64-95", by hwloc
numas_of() { # xml cpulist
	local a=() p
	for p in ${2//,/ }; do a+=("pu:$p"); done
	hwloc-calc --input "$1" --pi --physical-output --intersect numa "${a[@]}"
}

# ---- every adapter of a GPU node down --------------------------------------
# The SPR file's four mlx5 (INDEX.md) with every Port1State set to 1 (DOWN)
sed 's/name="Port1State" value="4"/name="Port1State" value="1"/' "$SPR" >"$tmp/spr-down.xml"
check "the copy has no ACTIVE port left (Port1State 4)" bash -c '! grep -q "Port1State\" value=\"4\"" "$1"' _ "$tmp/spr-down.xml"
run numaplan plan --topology "$tmp/spr-down.xml" -n 4 -p gpu-near -f json
check "all DOWN, gpu-near: exit 0, still gpu-near, no rank has an adapter" \
	eval '[ "$RC" -eq 0 ] && jq -e ".policy == \"gpu-near\" and all(.ranks[]; .hca == null and (.gpus | length) == 1)" <<<"$OUT" >/dev/null'
check "all DOWN, gpu-near: a warning naming each adapter and why" \
	eval 'for d in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do grep -q "warning: gpu-near: no usable adapter on this node (.*$d: port 1 DOWN" <<<"$ERR" || exit 1; done'
check_jq "all DOWN, gpu-near: the JSON note says it too" '.note | test("no usable adapter on this node")'
run numaplan plan --topology "$tmp/spr-down.xml" -n 4 -p gpu-near --no-fallback
check "all DOWN, gpu-near --no-fallback: exit 2, nothing on stdout, the adapters and what to do" \
	eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "gpu-near: no usable adapter on .*mlx5_0: port 1 DOWN.*bring a link up, or allow the fallback" <<<"$ERR"'
# Slingshot: links down through a sysfs tree (offline an interface is up)
bash "$FAKE" "$TIOGA" "$tmp/sys"
for i in hsi0 hsi1 hsi2 hsi3; do bash "$FAKE" link "$tmp/sys" "$i" down; done
run numaplan plan --topology "$TIOGA" --sysfs "$tmp/sys" -n 8 -p gpu-near
check "Tioga, every hsi link down: exit 0 and a warning naming the four links" \
	eval '[ "$RC" -eq 0 ] && [ "$(grep -o "hsi[0-3]: link down" <<<"$ERR" | sort -u | wc -l)" -eq 4 ]'
run numaplan plan --topology "$TIOGA" --sysfs "$tmp/sys" -n 8 -p gpu-near --no-fallback
check "Tioga, every link down, --no-fallback: exit 2" eval '[ "$RC" -eq 2 ] && grep -q "hsi0: link down" <<<"$ERR"'
run numaplan plan --topology "$DGX2" -n 4 -p gpu-near --no-fallback
# (4 ranks for 16 GPUs brings gpu-near's note on what each rank takes;
# nothing may be said of adapters)
check "DGX-2 (no adapter at all): gpu-near plans, no adapter warning, even with --no-fallback" \
	eval '[ "$RC" -eq 0 ] && ! grep -qiE "adapter|link|hca" <<<"$ERR"'

# ---- --rails N past the usable adapters ----------------------------------
# As stored the SPR file has mlx5_0 ACTIVE, the three others DOWN
run numaplan plan --topology "$SPR" -n 4 -p gpu-near --rails 4 -f json
check "SPR --rails 4: each rank gets the one usable adapter" \
	eval '[ "$RC" -eq 0 ] && jq -e "all(.ranks[]; .hcas == [\"mlx5_0:1\"])" <<<"$OUT" >/dev/null'
check "SPR --rails 4: a warning with the value, the count and the adapters not usable" \
	grep -q "warning: rails=4 (adapters per rank): only 1 usable adapter on this node (mlx5_0; not usable: .*mlx5_3: port 1 DOWN), each rank gets 1" <<<"$ERR"
run numaplan plan --topology "$SPR" -n 4 -p hca-near --rails 2 --no-fallback
check "SPR --rails 2 --no-fallback: exit 2, says how many to ask for" \
	eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "rails=2 (adapters per rank): only 1 usable adapter on .*; ask for rails=1 or fewer" <<<"$ERR"'
run numaplan plan --topology "$TIOGA" -n 8 -p gpu-near --rails 4
check "Tioga (4 Slingshot NICs) --rails 4: no warning" eval '[ "$RC" -eq 0 ] && [ -z "$ERR" ]'
run numaplan plan --topology "$TIOGA" -n 8 -p gpu-near --rails 5
check "Tioga --rails 5: warned, only 4" grep -q "rails=5 (adapters per rank): only 4 usable adapters on this node (hsi2, hsi1, hsi3, hsi0), each rank gets 4" <<<"$ERR"
run numaplan plan --topology "$DGX2" -n 4 -p gpu-near --rails 2
check "DGX-2 --rails 2: warned that there is no adapter" grep -q "rails=2 (adapters per rank): no adapter on this node" <<<"$ERR"

# ---- a rank's first rail does not depend on --rails -------------------------
# Lassen: each socket's two V100s tie between the socket's two HCAs
# (10-topo: "numa"); with 2 ranks, rank 1 holds the socket-1 GPUs and the
# tie goes to the first in locality-then-name order, mlx5_2, as with rails=1.
run numaplan plan --topology "$LASSEN" -n 2 -p gpu-near --rails 3 -f json
check_jq "Lassen -n 2 --rails 3: rank 0 first mlx5_0, rank 1 first mlx5_2" '[.ranks[].hca] == ["mlx5_0","mlx5_2"]'
check_jq "Lassen -n 2 --rails 3: three rails each, the socket's two first" \
	'[.ranks[].hcas | length] == [3,3] and (.ranks[1].hcas[0:2] | sort) == ["mlx5_2:1","mlx5_3:1"]'
firsts() { numaplan plan --topology "$1" -n "$2" -p "$3" ${4:+--rails "$4"} -f json 2>/dev/null | jq -c '[.ranks[].hca]'; }
bad=""
for f in "$LASSEN" "$TIOGA" "$TOPO/amd-mi300a-4apu-cpx-24gpu-4slingshot-tuolumne.xml" \
	 "$TOPO/ibm-power9-2s-4v100-gpunuma-6numa-sierra.xml" "$TOPO/arm-thunderx2-2s-4mlx5-ulna.xml"; do
	for pol in gpu-near hca-near; do
		for n in 1 2 3 4 5 6 8; do
			one=$(firsts "$f" "$n" "$pol")
			for r in 2 3 4; do
				[ "$(firsts "$f" "$n" "$pol" "$r")" = "$one" ] || bad+=" $(basename "$f"):$pol:-n$n:--rails$r"
			done
		done
	done
done
check "every rank's first rail with --rails 2..4 is its rails=1 adapter (5 multi-rail nodes)" test -z "$bad"
[ -z "$bad" ] || diag "differ:$bad"

# ---- ports of portless adapters in the table -------------------------------
# Tioga's hsiN are Network OS devices (osdev_type 2): no ports
check "Tioga's adapters are network interfaces in the XML" \
	test "$(grep -c 'name="hsi[0-3]" osdev_type="2"' "$TIOGA")" -eq 4
run numaplan plan --topology "$TIOGA" -n 8 -p gpu-near --rails 2
check "table, Slingshot --rails 2: adapters by name, no :0" \
	eval '[ "$(grep -cE "^[0-7] .* hsi[0-3],hsi[0-3] \((local|remote)\)" <<<"$OUT")" -eq 8 ] && ! grep -q "hsi[0-3]:" <<<"$OUT"'
run numaplan plan --topology "$LASSEN" -n 2 -p hca-near --rails 2
check "table, InfiniBand --rails 2: ports still shown" grep -q " mlx5_0:1,mlx5_1:1 (local)" <<<"$OUT"
run numaplan plan --topology "$TIOGA" -n 8 -p gpu-near --rails 2 -f json
check_jq "JSON, Slingshot: hcas without ports" 'all(.ranks[]; all(.hcas[]; test(":") | not))'

# ---- ranks a --cpuset keeps away from their GPU ---------------------------
# SPR: socket 0 is PUs 0-55 (NUMA 0-3); the H100s on NUMA 1 and 3 go to
# ranks 0 and 1, the socket-1 GPUs db:00.0 and cb:00.0 (NUMA 5, 7; in
# whichever order) to ranks 2 and 3: their PUs (hwloc-calc pci=...) are all
# outside the cpuset.
for g in 0000:db:00.0 0000:cb:00.0; do
	check "hwloc: GPU $g has no PU in 0-55" \
		bash -c '[ "$(hwloc-calc --input "$1" --physical-output --intersect pu "pci=$2" | tr , "\n" | awk "\$1 <= 55" | wc -l)" -eq 0 ]' _ "$SPR" "$g"
done
run numaplan plan --topology "$SPR" -n 4 -p gpu-near --cpuset 0-55 -f json
check "--cpuset 0-55: a warning naming ranks 2 and 3 and their GPUs, not ranks 0 and 1" \
	eval 'grep -q "warning: .*gpu-near: the allowed CPUs keep 2 ranks away from their GPU: rank 2 (.*are not allowed), rank 3 (.*are not allowed); allow the CPUs near the GPUs" <<<"$ERR" &&
	      grep -q "near its GPU 0000:db:00.0 are not allowed" <<<"$ERR" && grep -q "near its GPU 0000:cb:00.0 are not allowed" <<<"$ERR" &&
	      ! grep -q "rank [01] (cpus" <<<"$ERR"'
check_jq "--cpuset 0-55: gpu_local false for ranks 2 and 3 only" '[.ranks[].gpu_local] == [true,true,false,false]'
run numaplan plan --topology "$SPR" -n 4 -p gpu-near
check "no --cpuset: no such warning" eval '[ "$RC" -eq 0 ] && ! grep -q "away from" <<<"$ERR"'

# ---- Cray MPICH: ranks spanning NUMA nodes ----------------------------------
# Tioga: 4 NUMA nodes of 16 cores; -c 32 spans two, -c 8 fits in one
run numaplan plan --topology "$TIOGA" -n 2 -c 32 -p gpu-near -f json
check "links up, -c 32: the ranks span NUMA nodes (hwloc)" \
	eval 'for c in $(jq -r ".ranks[].cpus" <<<"$OUT"); do [ "$(numas_of "$TIOGA" "$c" | tr , "\n" | wc -l)" -ge 2 ] || exit 1; done'
check_jq "links up, -c 32: USER with the mapping (MPICH ignores the rank's CPUs)" \
	'all(.ranks[]; .env.MPICH_OFI_NIC_POLICY == "USER" and (.env.MPICH_OFI_NIC_MAPPING | length) > 0)'
run numaplan plan --topology "$TIOGA" --sysfs "$tmp/sys" -n 2 -c 32 -p gpu-near -f json
check_jq "links down, -c 32: no mapping, every rank MPICH_OFI_NIC_POLICY=BLOCK" \
	'all(.ranks[]; .env.MPICH_OFI_NIC_POLICY == "BLOCK" and (.env | has("MPICH_OFI_NIC_MAPPING") | not))'
r0=$(jq -r '.ranks[0].cpus' <<<"$OUT")
check "links down, -c 32: a warning naming rank 0, its cpus and NUMA nodes" \
	grep -qF "Cray MPICH: rank 0's cpus $r0 span NUMA nodes $(numas_of "$TIOGA" "$r0" | sed 's/^0,1$/0-1/')" <<<"$ERR"
run numaplan plan --topology "$TIOGA" --sysfs "$tmp/sys" -n 8 -c 8 -p gpu-near -f json
check "links down, -c 8: every rank within one NUMA node (hwloc)" \
	eval 'for c in $(jq -r ".ranks[].cpus" <<<"$OUT"); do [ "$(numas_of "$TIOGA" "$c" | tr , "\n" | wc -l)" -eq 1 ] || exit 1; done'
check_jq "links down, -c 8: no MPICH variable (NUMA would do)" 'all(.ranks[]; .env | has("MPICH_OFI_NIC_POLICY") | not)'
# hca-near on a plain interface of a Slingshot node: no mapping either
run numaplan plan --topology "$TIOGA" -n 2 -c 32 -p hca-near --hca ens2 -f json
check_jq "hca-near --hca ens2 -c 32 on Tioga: BLOCK" 'all(.ranks[]; .env.MPICH_OFI_NIC_POLICY == "BLOCK")'
run numaplan plan --topology "$TIOGA" -n 2 -c 32 -p compact -f json
check_jq "compact sets no MPICH variable" 'all(.ranks[]; .env | has("MPICH_OFI_NIC_POLICY") | not)'
run numaplan plan --topology "$LASSEN" -n 1 -c 40 -p hca-near -f json
check "Lassen -n 1 -c 40 (both sockets, no Slingshot): no MPICH variable" \
	eval '[ "$RC" -eq 0 ] && jq -e "all(.ranks[]; .env | has(\"MPICH_OFI_NIC_POLICY\") | not)" <<<"$OUT" >/dev/null'
done_testing
