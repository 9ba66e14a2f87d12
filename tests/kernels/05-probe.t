#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan-probe without Slurm: what it reports must be what taskset,
# numactl and the environment set, read back independently from
# /proc/self/status where the kernel has its own view.
source "$(dirname "$0")/../tap.sh"

P=numaplan-probe
if ! command -v $P >/dev/null; then
	notok "numaplan-probe is built (PATH: $PATH)"
	done_testing; exit
fi
# the probe's environment must not leak in from the caller
unset NUMAPLAN_POLICY NUMAPLAN_CPUS NUMAPLAN_MEMS NUMAPLAN_HCA UCX_NET_DEVICES \
	CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES \
	GPU_DEVICE_ORDINAL ZE_AFFINITY_MASK NCCL_IB_HCA \
	SLURM_PROCID SLURM_LOCALID PMI_RANK PMI_FD PMI_PORT PMI_SIZE PMIX_RANK PMIX_NAMESPACE \
	MPI_LOCALRANKID OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_LOCAL_RANK

field() { # key, text line -> value
	echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"
}
# numa_allowed N: node N is in this shell's Mems_allowed_list
numa_allowed() {
	local l
	l=$(awk '/^Mems_allowed_list/ {print $2}' /proc/self/status)
	echo "$l" | tr ',' '\n' | awk -F- -v n="$1" '{ hi = NF > 1 ? $2 : $1; if (n >= $1 && n <= hi) f = 1 } END { exit !f }'
}

run $P
check "numaplan-probe exits 0" [ "$RC" -eq 0 ]
check "one line" [ "$(echo "$OUT" | wc -l)" -eq 1 ]
check "host is hostname(1)'s" [ "$(field host "$OUT")" = "$(hostname)" ]
check "rank and local rank 0 outside a launcher" \
	[ "$(field rank "$OUT") $(field local_rank "$OUT")" = "0 0" ]
# the kernel's own view of what a child of this shell may use
own_cpus=$(awk '/^Cpus_allowed_list/ {print $2}' /proc/self/status)
own_mems=$(awk '/^Mems_allowed_list/ {print $2}' /proc/self/status)
check "cpus match Cpus_allowed_list ($own_cpus)" [ "$(field cpus "$OUT")" = "$own_cpus" ]
check "mems_allowed matches Mems_allowed_list ($own_mems)" [ "$(field mems_allowed "$OUT")" = "$own_mems" ]
check "no policy set: mempolicy default, no nodes" \
	[ "$(field mempolicy "$OUT") $(field mems "$OUT")" = "default -" ]

run taskset -c 0 $P
check "taskset -c 0: cpus=0" [ "$(field cpus "$OUT")" = "0" ]
if [ "$(getconf _NPROCESSORS_ONLN)" -ge 2 ]; then
	run taskset -c 1 $P
	check "taskset -c 1: cpus=1" [ "$(field cpus "$OUT")" = "1" ]
	run taskset -c 1,0 $P
	check "taskset -c 1,0: cpus=0-1 (a range, in order)" [ "$(field cpus "$OUT")" = "0-1" ]
else
	skip "one CPU: no second affinity to test"
fi

if command -v numactl >/dev/null; then
	run numactl --membind=0 $P
	check "numactl --membind=0: bind on node 0" \
		[ "$(field mempolicy "$OUT") $(field mems "$OUT")" = "bind 0" ]
	run numactl --interleave=0 $P
	check "numactl --interleave=0: interleave on node 0" \
		[ "$(field mempolicy "$OUT") $(field mems "$OUT")" = "interleave 0" ]
	run numactl --preferred=0 $P
	check "numactl --preferred=0: preferred node 0" \
		[ "$(field mempolicy "$OUT") $(field mems "$OUT")" = "preferred 0" ]
	run numactl --localalloc $P
	check "numactl --localalloc: local" [ "$(field mempolicy "$OUT")" = "local" ]
	run numactl --membind=0 taskset -c 0 $P --json
	check "membind and taskset together, in JSON" \
		[ "$(echo "$OUT" | jq -r '"\(.cpus) \(.mempolicy) \(.mems)"')" = "0 bind 0" ]
else
	skip "numactl not installed"
fi

# JSON: one valid object with the documented fields and the environment
run env NUMAPLAN_POLICY=compact NUMAPLAN_CPUS=0 UCX_NET_DEVICES=mlx5_0:1 $P --json
check "--json exits 0" [ "$RC" -eq 0 ]
check "--json is one valid JSON object" eval '[ "$(echo "$OUT" | jq -s "length") " = "1 " ] && echo "$OUT" | jq -e "type == \"object\"" >/dev/null'
check "--json has host rank local_rank cpus mempolicy mems env" \
	eval 'echo "$OUT" | jq -e "has(\"host\") and has(\"rank\") and has(\"local_rank\") and has(\"cpus\") and has(\"mempolicy\") and has(\"mems\") and (.env | type == \"object\")" >/dev/null'
check "--json: ranks are numbers, cpus is Cpus_allowed_list" \
	[ "$(echo "$OUT" | jq -r '"\(.rank|type) \(.local_rank|type) \(.cpus)"')" = "number number $own_cpus" ]
check "--json env: the set variables" \
	[ "$(echo "$OUT" | jq -r '"\(.env.NUMAPLAN_POLICY) \(.env.NUMAPLAN_CPUS) \(.env.UCX_NET_DEVICES)"')" = "compact 0 mlx5_0:1" ]
check "--json env: unset variables are null" \
	[ "$(echo "$OUT" | jq -r '.env.NUMAPLAN_HCA, .env.NUMAPLAN_MEMS')" = "$(printf 'null\nnull')" ]
check "--json: no pmix fields outside PMIx" eval '! echo "$OUT" | jq -e "has(\"pmix_rank\")" >/dev/null'
run env CUDA_VISIBLE_DEVICES=1,3 ROCR_VISIBLE_DEVICES=2 HIP_VISIBLE_DEVICES=0 \
	GPU_DEVICE_ORDINAL=5 ZE_AFFINITY_MASK=0.1 $P
check "text: the visible-devices variables it sees" \
	[ "$(field CUDA_VISIBLE_DEVICES "$OUT") $(field ROCR_VISIBLE_DEVICES "$OUT") $(field HIP_VISIBLE_DEVICES "$OUT") $(field GPU_DEVICE_ORDINAL "$OUT") $(field ZE_AFFINITY_MASK "$OUT")" = "1,3 2 0 5 0.1" ]
run env CUDA_VISIBLE_DEVICES=2 CUDA_DEVICE_ORDER=PCI_BUS_ID $P --json
check "--json: CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER, unset GPU variables null" \
	[ "$(echo "$OUT" | jq -r '"\(.env.CUDA_VISIBLE_DEVICES) \(.env.CUDA_DEVICE_ORDER) \(.env.ROCR_VISIBLE_DEVICES) \(.env.ZE_AFFINITY_MASK)"')" = "2 PCI_BUS_ID null null" ]
weird='a"b\c d'
run env NUMAPLAN_HCA="$weird" $P --json
check "--json escapes quotes, backslashes and spaces" [ "$(echo "$OUT" | jq -r .env.NUMAPLAN_HCA)" = "$weird" ]
run env NUMAPLAN_HCA=$'\xff' $P --json
check "--json stays valid with a non-UTF-8 value (null)" [ "$(echo "$OUT" | jq -c .env.NUMAPLAN_HCA)" = "null" ]

run env NUMAPLAN_POLICY=scatter UCX_NET_DEVICES=mlx5_1:1 $P
check "text output names the set variables" \
	[ "$(field NUMAPLAN_POLICY "$OUT") $(field UCX_NET_DEVICES "$OUT")" = "scatter mlx5_1:1" ]
check "text output leaves unset variables out" eval '! echo "$OUT" | grep -q NUMAPLAN_HCA='

# ranks from the launchers' variables
run env SLURM_PROCID=5 SLURM_LOCALID=2 $P
check "SLURM_PROCID/SLURM_LOCALID give rank 5 local 2" \
	[ "$(field rank "$OUT") $(field local_rank "$OUT")" = "5 2" ]
run env PMI_RANK=3 MPI_LOCALRANKID=1 $P --no-mpi
check "PMI_RANK/MPI_LOCALRANKID give rank 3 local 1" \
	[ "$(field rank "$OUT") $(field local_rank "$OUT")" = "3 1" ]
run env SLURM_PROCID=x $P
check "a malformed SLURM_PROCID counts as unknown (0)" [ "$(field rank "$OUT")" = "0" ]
# slurm_procid: Slurm's task id as it is, beside the rank MPI or PMIx give
run env SLURM_PROCID=5 PMI_RANK=3 $P --json --no-mpi
check "--json: slurm_procid is SLURM_PROCID's (5)" [ "$(jq -r .slurm_procid <<<"$OUT")" = 5 ]
run env PMI_RANK=3 $P --json --no-mpi
check "--json: no slurm_procid without SLURM_PROCID" [ "$(jq -r 'has("slurm_procid")' <<<"$OUT")" = false ]
run env SLURM_PROCID=x $P --json
check "--json: no slurm_procid for a malformed SLURM_PROCID" [ "$(jq -r 'has("slurm_procid")' <<<"$OUT")" = false ]
run $P --json --no-mpi
check "--json: no mpi_library without MPI" [ "$(jq -r 'has("mpi_library")' <<<"$OUT")" = false ]

# --touch: the page count follows from the size and the page size; every
# page is on a node this task may use (all of them on a one-node machine)
psz=$(getconf PAGESIZE)
run $P --touch 1M
check "--touch 1M exits 0" [ "$RC" -eq 0 ]
pages=$(field pages "$OUT")
total=$(echo "$pages" | tr ',' '\n' | awk -F: '{ s += $2 } END { print s + 0 }')
check "--touch 1M: $((1048576 / psz)) pages counted ($pages)" [ "$total" -eq $((1048576 / psz)) ]
check "--touch 1M: every page has a node ($pages)" eval '! echo "$pages" | grep -q "?:"'
check "--touch 1M: the nodes are allowed ones ($own_mems)" eval \
	'for n in $(echo "$pages" | tr "," "\n" | cut -d: -f1); do numa_allowed "$n" || exit 1; done'
run $P --touch=$((psz + 1)) --json
check "--touch=PAGESIZE+1 --json: 2 pages, pages_total 2, pages_unknown 0" \
	[ "$(echo "$OUT" | jq -r '"\([.pages[]] | add) \(.pages_total) \(.pages_unknown)"')" = "2 2 0" ]
run $P --json
check "without --touch: no pages field" eval '! echo "$OUT" | jq -e "has(\"pages\")" >/dev/null'
if command -v numactl >/dev/null; then
	run numactl --membind=0 $P --touch 256K
	check "numactl --membind=0 --touch 256K: pages=0:$((262144 / psz))" \
		[ "$(field pages "$OUT")" = "0:$((262144 / psz))" ]
else
	skip "numactl not installed"
fi
for bad in 0 -1 12Q 1T ''; do
	run $P --touch "$bad"
	check "--touch '$bad' exits 2 naming the value" eval '[ "$RC" -eq 2 ] && echo "$ERR" | grep -q -- "--touch '"'$bad'"'"'
done
run $P --touch
check "--touch without a size exits 2" [ "$RC" -eq 2 ]

# bad command lines
run $P --bogus
check "an unknown option exits 2 with a message" eval '[ "$RC" -eq 2 ] && echo "$ERR" | grep -q -- --bogus'
run $P --mpi
check "--mpi without MPI exits 2 naming numaplan-probe-mpi" eval '[ "$RC" -eq 2 ] && echo "$ERR" | grep -q numaplan-probe-mpi'
run $P --help
check "--help exits 0" eval '[ "$RC" -eq 0 ] && echo "$OUT" | grep -q -- --json'

# the MPI build
if command -v numaplan-probe-mpi >/dev/null; then
	run numaplan-probe-mpi
	check "numaplan-probe-mpi outside a launcher: rank 0, no MPI needed" \
		eval '[ "$RC" -eq 0 ] && [ "$(field rank "$OUT")" = 0 ]'
	# mpiexec.mpich starts MPICH's programs only (configure MPICC= may
	# have built it with Open MPI: tests/deb13/45-run-pmix.t runs that one)
	mpich=no
	{ grep -q '^MPI_LIBS = .*-lmpich' "$NP_BUILDDIR/kernels/Makefile" 2>/dev/null ||
	  ldd "$(command -v numaplan-probe-mpi)" 2>/dev/null | grep -q libmpich; } && mpich=yes
	if command -v mpiexec.mpich >/dev/null && [ $mpich = yes ]; then
		run timeout 60 mpiexec.mpich -n 3 numaplan-probe-mpi --json
		check "mpiexec -n 3: three lines in rank order with local ranks 0 1 2" \
			[ "$(echo "$OUT" | jq -r '"\(.rank) \(.local_rank)"' | tr '\n' ' ')" = "0 0 1 1 2 2 " ]
		check "mpiexec -n 3: every line names the MPI library it ran with (MPICH)" \
			[ "$(echo "$OUT" | jq -r 'select(.mpi_library // "" | test("MPICH")) | .rank' | wc -l)" -eq 3 ]
		run timeout 60 mpiexec.mpich -n 2 taskset -c 0 numaplan-probe-mpi
		check "under mpiexec, taskset -c 0 shows as cpus=0 in every rank" \
			[ "$(echo "$OUT" | sed -n 's/.* cpus=\([^ ]*\) .*/\1/p' | tr '\n' ' ')" = "0 0 " ]
	else
		skip "mpiexec.mpich not installed, or numaplan-probe-mpi not built with MPICH"
	fi
else
	skip "numaplan-probe-mpi not built"
fi
done_testing
