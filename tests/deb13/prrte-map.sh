#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# prrte-map.sh NUMAPLAN TOPODIR OUTDIR NTASKS - run inside the Debian 13
# root by 60-prrte-map.t: for every stored topology and policy, numaplan's
# plan (JSON) and its Open MPI 5 rankfile (-f ompi), then Open MPI 5's
# mpirun reading that rankfile with PRRTE's topology taken from the same
# XML (PRTE_MCA_hwloc_use_topo_file) and --do-not-launch --display map:
# PRRTE's own map of the rankfile, launching nothing.
np=$1 td=$2 out=$3 n=$4
host=$(hostname)
mkdir -p "$out" || exit 1
# PRRTE 5.0.7 refuses a rankfile path with a '-' in it ("unrecognized
# qualifier"): each rankfile is read from a copy named by a number
rfdir=$(mktemp -d /tmp/nprf.XXXXXX) || exit 1
k=0
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for f in "$td"/*.xml "$td"/derived/*.xml; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .xml)
	for p in compact spread numa socket l3 hca-near gpu-near; do
		c=$out/$b.$p
		"$np" plan --topology "$f" -n "$n" -p "$p" --hosts "$host" --format json >"$c.json" 2>"$c.err" || continue
		"$np" plan --topology "$f" -n "$n" -p "$p" --hosts "$host" --format ompi >"$c.rf" 2>>"$c.err" || continue
		k=$((k + 1))
		cp "$c.rf" "$rfdir/$k"
		PRTE_MCA_hwloc_use_topo_file=$f timeout 60 mpirun --allow-run-as-root --do-not-launch \
			--display map -np "$n" --map-by "rankfile:file=$rfdir/$k" true >"$c.map" 2>&1
		echo "exit $?" >>"$c.map"
	done
done
rm -rf "$rfdir"
