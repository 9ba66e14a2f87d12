#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# --dry-run writes the job script, plans and experiment list, and submits
# nothing; the experiment lists follow from the topology (EPYC 7551: 2
# sockets x 4 NUMA nodes of 8 cores, mlx5_0 local to NUMA 5).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

# an sbatch that records being called: a dry run must never call it
mkdir -p "$tmp/bin"
printf '#!/bin/sh\ntouch %s/sbatch-called\necho 1\n' "$tmp" >"$tmp/bin/sbatch"
chmod +x "$tmp/bin/sbatch"
export PATH="$tmp/bin:$PATH"

run numaplan run stream --dry-run --topology "$EPYC" --repeat 2 -o "$tmp/s"
check "stream --dry-run exits 0" [ "$RC" -eq 0 ]
check "job script written and valid bash" bash -n "$tmp/s/job.sh"
check "job script asks sbatch for one node" grep -q '^#SBATCH --nodes=1$' "$tmp/s/job.sh"
# 1 core + 1 L3 + 8 NUMA + 2 sockets + node + 8 x 8 matrix = 77
check "77 STREAM experiments on 8 NUMA nodes" [ "$(jq length "$tmp/s/experiments.json")" -eq 77 ]
check "the matrix binds CPUs of node 2 and memory of node 5" \
	grep -q 'stream.matrix.c2.m5 .*numactl --membind=5 ' "$tmp/s/job.sh"
# NUMA 0 holds 8 cores: an 8-thread run bound to them
check "stream.numa0 runs 8 threads" \
	[ "$(jq '.[] | select(.name == "stream.numa0") | .threads' "$tmp/s/experiments.json")" -eq 8 ]
check "2 repetitions of 77: 154 steps" [ "$(grep -c '^np_step ' "$tmp/s/job.sh")" -eq 154 ]
check "no results.json on a dry run" [ ! -e "$tmp/s/results.json" ]

run numaplan run hpl --dry-run --topology "$EPYC" --clock 2.2 -o "$tmp/h"
check "hpl --dry-run exits 0" [ "$RC" -eq 0 ]
# Rpeak, the seed study's way: 64 cores x 2.2 GHz x 8 FLOP/cycle (Zen 1)
check "Rpeak 1126.4 GFLOPS with its sources" \
	grep -q '64 cores .* x 2.200 GHz \[--clock\] x 8 FLOP/cycle .*EPYC.* = 1126.4 GFLOPS' <<<"$OUT"
# 64 ranks: P x Q near-square with P <= Q is 8 x 8
check "64 ranks on an 8 x 8 grid" grep -q 'numaplan-hpl -N [0-9]* --nb 192 -P 8 -Q 8 --json' "$tmp/h/job.sh"
check "a plan file per experiment" [ -s "$tmp/h/plans/hpl.1n.json" ]
check "the plan has 64 ranks" [ "$(jq '.ranks | length' "$tmp/h/plans/hpl.1n.json")" -eq 64 ]

run numaplan run osu --nodes 2 --dry-run --topology "$EPYC" -o "$tmp/o"
check "osu --dry-run exits 0" [ "$RC" -eq 0 ]
check "HCA-local latency from NUMA 5" \
	[ "$(jq '.[] | select(.name == "osu.latency.numa5") | .params.hca_local' "$tmp/o/experiments.json")" = true ]
check "NUMA 0 is not HCA-local" \
	[ "$(jq '.[] | select(.name == "osu.latency.numa0") | .params.hca_local' "$tmp/o/experiments.json")" = false ]
# mbw_mr on the HCA's node: its 8 cores make 8 pairs, 16 ranks over 2 nodes
check "mbw_mr on NUMA 5: 8 pairs" \
	[ "$(jq '.[] | select(.name == "osu.mbw_mr.numa5") | .ntasks' "$tmp/o/experiments.json")" -eq 16 ]
check "mbw_mr on socket 1: 32 pairs" \
	[ "$(jq '.[] | select(.name == "osu.mbw_mr.socket1") | .params.pairs' "$tmp/o/experiments.json")" -eq 32 ]
# intra-node pairs i <= j over 8 nodes: 36
check "36 intra-node NUMA pairs" \
	[ "$(jq '[.[] | select(.group == "intra")] | length' "$tmp/o/experiments.json")" -eq 36 ]

run numaplan run himeno --nodes 4 --dry-run --topology "$EPYC" -o "$tmp/m"
check "himeno on 4 nodes runs 1, 2 and 4 nodes" \
	[ "$(jq -c '[.[].nodes]' "$tmp/m/experiments.json")" = "[1,2,4]" ]
check "job script asks for 4 nodes" grep -q '^#SBATCH --nodes=4$' "$tmp/m/job.sh"

run numaplan run compare --dry-run --policies none,spread --threads 1,4 --topology "$EPYC" -o "$tmp/c" -- sleep 1
check "compare: 2 policies x 2 thread counts" [ "$(jq length "$tmp/c/experiments.json")" -eq 4 ]
check "unbound run has --cpu-bind=none" grep -q 'compare.none.t4 .*--cpu-bind=none' "$tmp/c/job.sh"

run numaplan run stream --dry-run --local --topology "$EPYC" -o "$tmp/l"
check "--local --dry-run writes numactl lines, no srun" \
	sh -c "grep -q 'numactl --physcpubind=' '$tmp/l/job.sh' && ! grep -q '^np_step.* srun ' '$tmp/l/job.sh'"
run numaplan run hpl --dry-run --local --topology "$EPYC" -o "$tmp/lh"
check "--local MPI uses mpiexec.mpich with a bind list" \
	grep -q 'mpiexec.mpich -n 64 -bind-to user:' "$tmp/lh/job.sh"

# Without --topology a dry run cannot ask the nodes: it plans on this
# machine and says so, on stderr and in run.json (numaplan-run(1), TOPOLOGY).
run numaplan run stream --dry-run -o "$tmp/here"
check "dry run without --topology: exit 0, with a loud note" \
	eval '[ "$RC" -eq 0 ] && grep -q "note: --dry-run plans on THIS machine.s topology" <<<"$ERR"'
check "... recorded as 'local (dry run, stated)'" \
	jqt '.node_types[0].source | startswith("local (dry run, stated): this machine")' "$tmp/here/run.json"
check "... and named in the job script" grep -q '^# Planned on the topology of local (dry run, stated)' "$tmp/here/job.sh"
run numaplan run stream --dry-run --topology "$EPYC" -o "$tmp/f"
check "with --topology: no note, the file is the source" \
	eval '! grep -q "note:" <<<"$ERR" && jqt --arg f "$EPYC" ".node_types[0].source == \"file \" + \$f + \" (--topology)\"" "$tmp/f/run.json"'
run numaplan run stream --plan-only --local -o "$tmp/pl"
check "--plan-only --local: refused (nothing to ask)" [ "$RC" -eq 2 ]
run numaplan run stream --shared --exclusive --dry-run --topology "$EPYC" -o "$tmp/se"
check "--shared --exclusive: refused" [ "$RC" -eq 2 ]
check "--bind-via masks asks for whole nodes by default" grep -qx '#SBATCH --exclusive' "$tmp/s/job.sh"
check "... and each masked step takes the whole node, without -c" \
	grep -q 'srun -N 1 -n 1 --ntasks-per-node=1 ${NP_MASKS:+--whole --cpu-bind=mask_cpu:' "$tmp/s/job.sh"
run numaplan run stream --dry-run --shared --topology "$EPYC" -o "$tmp/sh"
check "--shared: no --exclusive" sh -c "! grep -q -- '--exclusive' '$tmp/sh/job.sh'"
run numaplan run stream --dry-run --bind-via plugin --topology "$EPYC" -o "$tmp/bp"
check "--bind-via plugin: a planner policy for every step (numa for stream.numa3)" \
	grep -q 'stream.numa3 .*srun .* --numa-plan=numa ' "$tmp/bp/job.sh"
# --iterations is Himeno's and OSU's in `all`; --himeno-seconds is Himeno's
# alone and goes before it
run numaplan run all --dry-run --nodes 2 --topology "$EPYC" --iterations 50 --himeno-seconds 7 -o "$tmp/hs"
check "all --iterations 50 --himeno-seconds 7: Himeno sized to 7 s, OSU 50 iterations" \
	eval '[ "$RC" -eq 0 ] && grep -q "himeno.2n .*numaplan-himeno --json --size M --seconds 7\$" "$tmp/hs/job.sh" &&
	      ! grep -q "numaplan-himeno.* --iterations" "$tmp/hs/job.sh" && grep -q "numaplan-osu latency .*-i 50" "$tmp/hs/job.sh"'
run numaplan run himeno --dry-run --topology "$EPYC" --himeno-seconds 0 -o "$tmp/hs0"
check "--himeno-seconds 0: refused (exit 2), nothing written" eval '[ "$RC" -eq 2 ] && [ ! -e "$tmp/hs0" ]'
# Slurm's own binding has no masks, so no need of whole nodes; the start
# says how it binds, not "masks"
run numaplan run stream --dry-run --bind-via slurm --topology "$EPYC" -o "$tmp/bs"
check "--bind-via slurm: srun --cpu-bind=cores, no --exclusive, and the start says so" \
	eval 'grep -q "stream.numa3 .*srun .* --cpu-bind=cores " "$tmp/bs/job.sh" &&
	      ! grep -q -- "--exclusive" "$tmp/bs/job.sh" && grep -qx "  binding: Slurm.s own, srun --cpu-bind=cores" <<<"$OUT" &&
	      ! grep -q "masks" <<<"$OUT"'

check "sbatch was never called" [ ! -e "$tmp/sbatch-called" ]
done_testing
