#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# plans-dump.sh NUMAPLAN TOPODIR OUTDIR - what one numaplan build makes of
# every stored topology (TOPODIR/*.xml and TOPODIR/derived/*.xml): the
# topology's JSON, its fingerprint, and plans under every policy, with and
# without --threads, and with each memory kind, one file per case; a
# refused plan leaves its message and exit status.  50-hwloc-plans.t runs
# it on the host (hwloc 2.9) and in the Debian 13 root (hwloc 2.12) and
# compares the two directories.
np=$1 td=$2 out=$3
mkdir -p "$out" || exit 1
for f in "$td"/*.xml "$td"/derived/*.xml; do
	[ -f "$f" ] || continue
	b=$(basename "$f" .xml)
	"$np" topo --topology "$f" --json >"$out/$b.topo" 2>&1
	"$np" topo --topology "$f" --fingerprint >"$out/$b.fingerprint" 2>&1
	for p in none compact spread numa socket l3 hca-near gpu-near; do
		for th in "" --threads; do
			"$np" plan --topology "$f" -n 6 -c 2 -p $p $th --format json >"$out/$b.$p$th" 2>&1
			echo "exit $?" >>"$out/$b.$p$th"
		done
	done
	for m in hbm ddr cxl gpu interleave:hbm; do
		"$np" plan --topology "$f" -n 4 -p numa --mem $m --format json >"$out/$b.mem-$m" 2>&1
		echo "exit $?" >>"$out/$b.mem-$m"
	done
done
