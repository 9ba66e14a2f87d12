#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# screen-live.sh - how the time and memory (max RSS) of `numaplan run
# screen`, `numaplan report` and `numaplan audit` grow with the number of
# live nodes: a vcluster (contrib/vcluster, as root; NP_VCLUSTER_ID picks
# which) of NP_LIVE_NODES nodes (default 8 16 32 64), a tiny screen of all
# of them, its report, and an audit of a job holding every node.  Skipped
# without root or the vcluster's programs.  The cluster is left with 2
# nodes, as the test groups expect it.  Figures, not assertions.
set -u
: "${NP_BUILDDIR:?}"
SRC=${NP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PATH=$NP_BUILDDIR/cli:$NP_BUILDDIR/kernels:$PATH
VC=$SRC/contrib/vcluster/vcluster
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null 2>&1; then
	echo "skipped: needs root and Slurm's daemons for the vcluster"
	exit 0
fi
tmp=$(mktemp -d /tmp/np-screen-live.XXXXXX)
chmod 0755 "$tmp"
trap '"$VC" up --nodes 2 >/dev/null 2>&1; rm -rf "$tmp"' EXIT
eval "$("$VC" env)"

measure() { # label nodes command...
	local label=$1 n=$2 s kb; shift 2
	/usr/bin/time -o "$tmp/time" -f '%e %M' "$@" >"$tmp/out" 2>&1
	read -r s kb < <(tail -1 "$tmp/time")
	printf '%-14s %6s %9s %10s %12s\n' "$label" "$n" "$s" "$kb" "$(awk -v s="$s" -v n="$n" 'BEGIN { printf "%.1f", 1000 * s / n }')"
}

printf '%-14s %6s %9s %10s %12s\n' step nodes seconds maxrss_kB ms_per_node
for n in ${NP_LIVE_NODES:-8 16 32 64}; do
	measure "vcluster up" "$n" "$VC" up --nodes "$n"
	measure screen "$n" numaplan run screen --repeat 1 --hpl-n 200 --nb 32 --stream-size 100000 \
		--iterations 50 -q -o "$tmp/s$n"
	measure "report md" "$n" numaplan report "$tmp/s$n" --format md
	measure "report html" "$n" numaplan report "$tmp/s$n" --format html
	job=$(sbatch --parsable -N "$n" --ntasks-per-node=1 -o /dev/null --wrap "srun sleep 120")
	for i in $(seq 60); do
		[ "$(squeue -h -j "$job" -s -o %i 2>/dev/null | grep -c '\.0$')" -ge 1 ] && break
		sleep 0.5
	done
	sleep 2
	measure audit "$n" numaplan audit "$job" --json
	scancel "$job" 2>/dev/null
	rm -rf "$tmp/s$n"
done
