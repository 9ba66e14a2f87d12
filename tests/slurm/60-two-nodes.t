#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two nodes: srun -N2 -n4 --mpi=pmi2 numaplan-probe-mpi --numa-plan=compact:
# ranks on both nodes, each node's tasks bound by that node's own plan
# (local task i on the i-th PU), verbose lines with local task and global
# rank; and the same with a cyclic distribution.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || skip_all "needs a 2-node vcluster"
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
plugstack ''

check_layout() { # label: 4 ranks, 2 per node, local task i on PU i
	local r host lr
	check "$1: 4 probe lines" [ "$(nprobes)" -eq 4 ]
	check "$1: two hosts with two ranks each" \
		[ "$(echo "$OUT" | grep '^{' | jq -r .host | sort | uniq -c | awk '{print $1}' | tr -d '\n')" = 22 ]
	for r in 0 1 2 3; do
		host=$(pfield $r .host)
		lr=$(pfield $r .local_rank)
		check "$1: rank $r (on $host, local $lr) bound to PU ${pus[$lr]}" \
			eval '[ "$(pfield $r .cpus)" = "${pus[$lr]}" ] && [ "$(pfield $r .env.NUMAPLAN_CPUS)" = "${pus[$lr]}" ]'
		check "$1: rank $r verbose line" grep -q "^numaplan: $host task $lr (rank $r): cpus ${pus[$lr]} " <<<"$ERR"
	done
}

if command -v numaplan-probe-mpi >/dev/null 2>&1; then
	srun_ -N2 -n4 --mpi=pmi2 --numa-plan=compact,verbose numaplan-probe-mpi --json
	check "MPI (pmi2): srun exits 0" [ "$RC" -eq 0 ]
	check_layout "MPI"
else
	skip "numaplan-probe-mpi not built (no MPI)"
fi

srun_ -N2 -n4 -m cyclic --numa-plan=compact,verbose numaplan-probe --json
check "cyclic: srun exits 0" [ "$RC" -eq 0 ]
check_layout "cyclic"
check "cyclic: ranks 0 and 2 share a node" [ "$(pfield 0 .host)" = "$(pfield 2 .host)" ]

done_testing
