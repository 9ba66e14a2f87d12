#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI 5's mapper (PRRTE) against numaplan's plans, without launching:
# for every stored topology and policy, the Open MPI 5 rankfile numaplan
# writes (-f ompi) is read by Open MPI 5.0's mpirun in the Debian 13 root,
# with PRRTE's topology taken from the same XML (PRTE_MCA_hwloc_use_topo_file)
# and --do-not-launch --display map (prrte-map.sh).  Each rank's binding as
# PRRTE maps it ("Bound: package[P][core:LIST]", hwloc logical core
# indexes) must be the cores of the plan's CPUs, which hwloc-calc turns
# from OS PU indexes into logical core indexes here, independently of
# numaplan's own rankfile writer.  Files whose logical order differs from
# the OS order (Intel's CPU n / n+56 siblings on the SPR node, POWER9's
# SMT4, the SGI UV's 24 sockets) are where a rankfile of OS indexes would
# bind the wrong cores.
#
# One quirk of the display, not of the binding: on a topology with one PU
# per core (SMT off: the E7-4870, Quartz, Milan and DGX-2 files) PRRTE
# 5.0's prte_hwloc_get_binding_info() prints the bound cpuset's bits as
# they are ("bits_as_cores"): OS PU indexes, still labelled "core".  There
# the expectation is the plan's OS PU indexes; elsewhere hwloc's logical
# core indexes, as PRRTE's prte_hwloc_build_map() computes them.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
[ -x "$D13BUILD/cli/numaplan" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
command -v hwloc-calc >/dev/null || { skip "hwloc-calc not installed (apt-get install hwloc)"; done_testing; exit 0; }
N=4
out=$D13DIR/prrte-map
rm -rf "$out"
mkdir -p "$out"
topo=$(realpath -- "$NP_SRCDIR/tests/topologies")
run d13run sh -c 'command -v mpirun && mpirun --version' 
check "Open MPI 5 in the root ($(sed -n 2p <<<"$OUT"))" grep -q "Open MPI) 5\." <<<"$OUT"

start=$SECONDS
d13run_np bash "$(realpath -- "$NP_SRCDIR/tests/deb13/prrte-map.sh")" "$D13NP" "$topo" "$out" "$N"
diag "maps: $((SECONDS - start)) s ($out)"

# "0-3,8" -> "0 1 2 3 8"
expand() { tr ',' '\n' <<<"$1" | awk -F- 'NF { b = $1; e = NF > 1 ? $2 : $1; for (i = b; i <= e; i++) print i }' | sort -n | tr '\n' ' '; }

cases=0 good=0 bad=()
for j in "$out"/*.json; do
	c=${j%.json} name=$(basename "$c")
	f=$(ls "$topo/${name%.*}.xml" "$topo/derived/${name%.*}.xml" 2>/dev/null | head -1)
	[ -f "$c.map" ] || { bad+=("$name: no map"); continue; }
	cases=$((cases + 1))
	if ! grep -qx "exit 0" "$c.map"; then
		bad+=("$name: mpirun refused the rankfile: $(grep -v '^exit' "$c.map" | grep -m1 -i 'error\|not\|invalid')")
		continue
	fi
	ok_case=yes
	npu=$(hwloc-calc -i "$f" -N pu all) ncore=$(hwloc-calc -i "$f" -N core all)
	for r in $(seq 0 $((N - 1))); do
		cpus=$(jq -r ".ranks[$r].cpus" "$j")
		if [ "$npu" = "$ncore" ]; then
			want=$cpus
		else
			want=$(hwloc-calc -i "$f" --pi --lo --intersect core $(expand "$cpus" | sed 's/[0-9]\+/pu:&/g'))
		fi
		line=$(grep -m1 "Process rank: $r Bound:" "$c.map")
		got=$(grep -o 'core:[0-9,-]*' <<<"$line" | sed 's/core://' | paste -sd, -)
		if [ "$(expand "$want")" != "$(expand "$got")" ]; then
			ok_case=no
			bad+=("$name rank $r: plan cores $want, PRRTE $got")
			break
		fi
	done
	[ $ok_case = yes ] && good=$((good + 1))
done
ntopo=$(ls "$topo"/*.xml "$topo"/derived/*.xml | wc -l)
check "a map for every topology and policy whose plan succeeds ($cases cases, $ntopo topologies x 7 policies)" \
	test "$cases" -ge $((ntopo * 7 * 9 / 10))
check "PRRTE binds every rank of every case to the plan's cores ($good of $cases)" test "$good" -eq "$cases"
for b in "${bad[@]:0:12}"; do diag "$b"; done
done_testing
