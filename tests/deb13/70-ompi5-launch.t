#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI 5 launching numaplan's rankfiles for real: in the Debian 13
# root, `numaplan plan -f ompi` on this machine's live topology, Open MPI
# 5.0's mpirun --map-by rankfile:file=..., and numaplan-probe in each rank
# reporting the CPUs the kernel gave it (sched_getaffinity) and its PMIx
# rank; each must be the plan's.  The rankfile carries CPUs only: memory
# is left to the kernel (the probe's mempolicy "default"), as numaplan(1)
# says of the ompi format.  The host has few CPUs, so the cases are small;
# 60-prrte-map.t covers the stored topologies through PRRTE's mapper.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
[ -x "$D13BUILD/cli/numaplan" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
NP=$D13BUILD/cli/numaplan
PROBE=$D13BUILD/kernels/numaplan-probe
ncpu=$(nproc)
[ "$ncpu" -ge 2 ] || { skip "one CPU: nothing to place"; done_testing; exit 0; }

# one launch: plan (JSON and rankfile) and mpirun, all inside the root;
# prints the plan's CPUs per rank, then the probe's lines
launch() {
	d13run sh -c '
		set -e
		np=$1 probe=$2 n=$3; shift 3
		d=$(mktemp -d /tmp/npompi.XXXXXX)
		"$np" plan -n "$n" "$@" --format json >"$d/plan.json"
		"$np" plan -n "$n" "$@" --format ompi >"$d/rf"
		jq -r ".ranks[] | \"plan \(.rank) \(.cpus)\"" "$d/plan.json"
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			timeout 120 mpirun --allow-run-as-root -n "$n" --map-by "rankfile:file=$d/rf" "$probe" --json
		rm -rf "$d"' sh "$NP" "$PROBE" "$@"
}

cases=("2 -p compact" "2 -p spread" "1 -p compact -c 2" "$ncpu -p compact")
for c in "${cases[@]}"; do
	# shellcheck disable=SC2086
	run launch $c
	check "mpirun ran the rankfile of -n $c (exit $RC)" test "$RC" -eq 0
	[ "$RC" -eq 0 ] || { sed 's/^/# /' <<<"$ERR" | head -8; continue; }
	n=${c%% *}
	plan=$(grep '^plan ' <<<"$OUT" | sort -k2n | awk '{print $2 "=" $3}' | paste -sd' ')
	got=$(grep '^{' <<<"$OUT" | jq -r '"\(.rank)=\(.cpus)"' | sort -n | paste -sd' ')
	check "-n $c: each rank's affinity is its planned CPUs ($plan)" test -n "$plan" -a "$plan" = "$got"
	check "-n $c: $n ranks, each with its PMIx rank equal to its MPI rank" \
		test "$(grep '^{' <<<"$OUT" | jq -r 'select(.pmix_rank == .rank) | .rank' | wc -l)" -eq "$n"
done
done_testing
