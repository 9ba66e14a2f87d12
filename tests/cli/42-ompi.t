#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI rankfiles.  Open MPI 5 (PRRTE) reads slot lists as logical core
# indexes, or logical hardware-thread indexes under --map-by ...:hwtcpus;
# Open MPI 4 reads physical PU numbers with rmaps_rank_file_physical.
# The ranks' variables (the same for every rank here) ride on the mpirun
# line as -x (tests/cli/63-format-devices.t has ranks that differ).
# Expectations come from hwloc-calc's own logical/physical conversion and
# from Debian's Open MPI 4 mpirun, never from numaplan's output.
source "$(dirname "$0")/../tap.sh"
# Logical and OS numbers differ on both: a core's PUs are P#k and P#k+40
# (P#k+12), and the two packages interleave (P#0 package 0, P#1 package 1).
CLX=$TOPO/intel-clx6230-2s-snc2-4numa-memsidecache.xml
WSM=$TOPO/intel-wsm-2s-mlx4-3m2070-hp-sl390s.xml

# "0-3,8" -> "pu:0-3 pu:8" (hwloc-calc locations)
locs() { tr , '\n' <<<"$2" | sed "s/^/$1:/" | tr '\n' ' '; }
# any cpulist -> sorted, one index per comma
expand() { tr , '\n' <<<"$1" | awk -F- 'NF { hi = NF > 1 ? $2 : $1; for (i = $1; i <= hi; i++) print i }' | sort -n | paste -sd, -; }

# check_v5 WHAT MPIRUN-LINE XML PLAN-ARGS...: the header names the indexing
# and gives this mpirun line; every slot list binds exactly the plan's PUs
# when read as PRRTE reads it (logical objects -> their PUs), and is what
# hwloc-calc makes of the plan's PUs.
check_v5() {
	local what=$1 line=$2 xml=$3 json kind=core word=core bad=0 r slot want got back
	shift 3
	run numaplan plan --topology "$xml" "$@" -f json
	json=$OUT
	run numaplan plan --topology "$xml" "$@" -f ompi -- ./app
	if [[ $line == *:hwtcpus* ]]; then kind=pu; word=hardware-thread; fi
	grep -qxF "#   $line" <<<"$OUT" || { bad=1; diag "no line '$line' in: $(head -3 <<<"$OUT")"; }
	grep -q "slots are LOGICAL $word indexes" <<<"$OUT" || { bad=1; diag "header does not say $word"; }
	while read -r r slot; do
		want=$(jq -r ".ranks[$r].cpus" <<<"$json")
		got=$(hwloc-calc --input "$xml" --li --po -I pu $(locs "$kind" "$slot"))
		back=$(hwloc-calc --input "$xml" --pi --lo -I "$kind" $(locs pu "$want"))
		if [ "$(expand "$got")" != "$(expand "$want")" ] || [ "$(expand "$back")" != "$(expand "$slot")" ]; then
			bad=1
			diag "rank $r: slot=$slot binds $got, the plan says $want (logical $back)"
		fi
	done < <(sed -n 's/^rank \([0-9]*\)=[^ ]* slot=\(.*\)$/\1 \2/p' <<<"$OUT")
	[ "$(grep -c '^rank ' <<<"$OUT")" = "$(jq '.ranks | length' <<<"$json")" ] || bad=1
	check "$what" test "$RC" -eq 0 -a "$bad" -eq 0
}

check_v5 "ompi, CLX spread 8x2 cores: logical core indexes" \
	"mpirun -n 8 --map-by rankfile:file=FILE -x OMP_NUM_THREADS=2 -x OMP_PLACES=cores -x OMP_PROC_BIND=close ./app" "$CLX" -n 8 -c 2 -p spread
check_v5 "ompi, CLX numa 4: a NUMA node's 10 cores are one logical range" \
	"mpirun -n 4 --map-by rankfile:file=FILE ./app" "$CLX" -n 4 -p numa
check_v5 "ompi, CLX spread 13 --threads: logical hardware threads and :hwtcpus" \
	"mpirun -n 13 --map-by rankfile:file=FILE:hwtcpus --use-hwthread-cpus ./app" "$CLX" -n 13 -p spread --threads
check_v5 "ompi, WSM hca-near 6: logical cores" \
	"mpirun -n 6 --map-by rankfile:file=FILE -x UCX_NET_DEVICES=mlx4_0:1 -x OMPI_MCA_btl_openib_if_include=mlx4_0:1 -x NCCL_IB_HCA==mlx4_0:1 -x FI_VERBS_DEVICE_NAME=mlx4_0 -x PSM3_NIC=mlx4_0 ./app" "$WSM" -n 6 -p hca-near
check_v5 "ompi, WSM hca-near 6 --threads: hardware threads" \
	"mpirun -n 6 --map-by rankfile:file=FILE:hwtcpus --use-hwthread-cpus -x UCX_NET_DEVICES=mlx4_0:1 -x OMPI_MCA_btl_openib_if_include=mlx4_0:1 -x NCCL_IB_HCA==mlx4_0:1 -x FI_VERBS_DEVICE_NAME=mlx4_0 -x PSM3_NIC=mlx4_0 ./app" "$WSM" -n 6 -p hca-near --threads
# One PU of each core allowed: a core slot would bind both, so threads.
check_v5 "ompi, CLX --cpuset of first threads only: hardware threads, not cores" \
	"mpirun -n 4 --map-by rankfile:file=FILE:hwtcpus --use-hwthread-cpus ./app" "$CLX" --cpuset 0-39 -n 4 -p compact
check_v5 "ompi, overcommitted: overload-allowed on the mpirun line" \
	"mpirun -n 100 --map-by rankfile:file=FILE --bind-to core:overload-allowed ./app" "$CLX" -n 100 -p compact --overcommit

run numaplan plan --topology "$CLX" -n 8 -c 2 -p spread -f ompi4
check "ompi4: physical header and mpirun line" \
	bash -c 'grep -q "slots are PHYSICAL PU numbers" <<<"$1" && grep -qxF "#   mpirun -n 8 --rankfile FILE --mca rmaps_rank_file_physical 1 -x OMP_NUM_THREADS=2 -x OMP_PLACES=cores -x OMP_PROC_BIND=close ./a.out" <<<"$1"' _ "$OUT"
run numaplan plan --topology "$CLX" -n 8 -p spread --threads -f ompi4
check "ompi4 --threads: --use-hwthread-cpus (else a PU widens to its core)" \
	grep -qxF "#   mpirun -n 8 --rankfile FILE --mca rmaps_rank_file_physical 1 --use-hwthread-cpus ./a.out" <<<"$OUT"
# A NUMA node of the CLX is P#0,4,...,36,40,...: 69 characters with the host.
run numaplan plan --topology "$CLX" -n 4 -p numa -f ompi4
check "ompi4: a slot list Open MPI cannot read is refused (exit 2), not written" \
	bash -c '[ "$1" -eq 2 ] && [ -z "$2" ] && grep -q "rank 0: .* is 69 characters.*63" <<<"$3"' _ "$RC" "$OUT" "$ERR"

# --- Open MPI 4 for real ---------------------------------------------------
if ! command -v mpirun.openmpi >/dev/null; then
	skip "mpirun.openmpi not installed (Debian openmpi-bin)"
	skip "mpirun.openmpi not installed"
	skip "mpirun.openmpi not installed"
	done_testing
	exit
fi
# The format ompi4 and its mpirun line are Open MPI 4's (--rankfile,
# rmaps_rank_file_physical, the orte_* parameters below, its binding
# report): Open MPI 5 (Debian 13, tests/deb13) takes --rankfile only as a
# deprecated alias, has no orte_* parameters and reports bindings in
# another form.  These launches test Open MPI 4; Open MPI 5 launches the
# format ompi (issue 18, item 3).
ompi_major=$(mpirun.openmpi --version 2>/dev/null | sed -n '1s/.*(Open\(RTE\| MPI\)) \([0-9]*\)\..*/\2/p')
if [ "$ompi_major" != 4 ]; then
	for _ in 1 2 3; do skip "mpirun.openmpi is Open MPI ${ompi_major:-?}, not 4: the ompi4 format is Open MPI 4's"; done
	done_testing
	exit
fi
asroot=(); [ "$(id -u)" -eq 0 ] && asroot=(--allow-run-as-root)
tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# The header's own mpirun line, FILE replaced, reporting bindings.
run_header() { # rankfile, extra mpirun options...
	local rf=$1 line
	shift
	line=$(sed -n 's/^#   mpirun //p' "$rf")
	line=${line//FILE/$rf}
	# shellcheck disable=SC2086
	timeout 120 mpirun.openmpi "${asroot[@]}" "$@" $line 2>&1
}

# "[vm:1] MCW rank 3 bound to socket 0[core 1[hwt 0]]: [./B]" -> "3 <physical PUs>",
# from the map: every character but / [ ] is a PU in logical order.
reported() {
	sed -n 's/.*MCW rank \([0-9]*\) bound to .*: \(\[.*\]\)$/\1 \2/p' | while read -r r map; do
		lp=$(tr -d '/[]' <<<"$map" | grep -o . | grep -n . | sed -n 's/:B$//p' | awk '{ print $1 - 1 }' | paste -sd, -)
		echo "$r $(expand "$(hwloc-calc --li --po -I pu $(locs pu "$lp"))")"
	done | sort -n
}
planned() { jq -r '.ranks[] | "\(.rank) \(.cpus)"' | while read -r r c; do echo "$r $(expand "$c")"; done; }

n=$(nproc); [ "$n" -gt 4 ] && n=4
numaplan plan -n "$n" -p compact -f ompi4 -- true >"$tmp/rf"
numaplan plan -n "$n" -p compact -f json >"$tmp/plan.json"
out=$(run_header "$tmp/rf" --report-bindings)
check "ompi4 on this node: mpirun.openmpi binds each of $n ranks to its planned PUs" \
	test "$(reported <<<"$out")" = "$(planned <"$tmp/plan.json")"
[ "$(reported <<<"$out")" = "$(planned <"$tmp/plan.json")" ] || diag "$out"

numaplan plan -n $((2 * n)) -p compact --overcommit -f ompi4 -- true >"$tmp/rf"
numaplan plan -n $((2 * n)) -p compact --overcommit -f json >"$tmp/plan.json"
out=$(run_header "$tmp/rf" --report-bindings)
check "ompi4 overcommitted: $((2 * n)) ranks, two per core, as planned" \
	test "$(reported <<<"$out")" = "$(planned <"$tmp/plan.json")"

# The CLX topology through Open MPI's own reader: mpirun maps the rankfile
# against the XML (hwloc_base_topo_file) and tries to bind; every rank
# with no CPU on this node fails, and Open MPI names the cpuset it wanted.
numaplan plan --topology "$CLX" --hosts "$(hostname)" -n 8 -c 2 -p spread -f ompi4 -- true >"$tmp/rf"
numaplan plan --topology "$CLX" --hosts "$(hostname)" -n 8 -c 2 -p spread -f json >"$tmp/plan.json"
online=$(cat /sys/devices/system/cpu/online)
want=$(jq -r '.ranks[].cpus' <"$tmp/plan.json" | while read -r c; do
	e=$(expand "$c"); comm -12 <(tr , '\n' <<<"$e" | sort) <(expand "$online" | tr , '\n' | sort) | grep -q . || echo "$e"
done | sort)
got=$(run_header "$tmp/rf" --mca hwloc_base_topo_file "$CLX" --mca orte_base_help_aggregate 0 |
	sed -n 's/.*for bitmap "\([^"]*\)".*/\1/p' | while read -r b; do expand "$b"; done | sort)
if [ -z "$want" ]; then
	skip "every CLX rank has a CPU on this node: nothing to compare"
else
	check "ompi4 read by Open MPI 4 against the CLX XML: it binds the planned physical PUs ($(wc -l <<<"$want") ranks)" \
		test "$got" = "$want"
	[ "$got" = "$want" ] || diag "wanted: $(paste -sd' ' <<<"$want") got: $(paste -sd' ' <<<"$got")"
fi
done_testing
