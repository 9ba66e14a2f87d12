#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The site's own binaries and MPI: --osu-dir runs the site's OSU
# Micro-Benchmarks (here fake osu_* scripts printing OMB's exact output
# format, in OMB's install layout) under the suite's placements and reads
# their standard output; --mpi picks srun's PMI; --job-setup prepares the
# site's environment in the job.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

fake_omb "$tmp/omb"
OMB=$tmp/omb
P2P=$OMB/libexec/osu-micro-benchmarks/mpi/pt2pt
COLL=$OMB/libexec/osu-micro-benchmarks/mpi/collective

med() { jq --arg n "$2" --arg m "$3" '.experiments[] | select(.name == $n) | .stats[$m].median' "$1/results.json"; }

# --- on this machine: intra-node latency and the collectives ---------------
run numaplan run osu --local --osu-dir "$OMB" --osu-max 16 --iterations 7 --repeat 1 -o "$tmp/l"
check "--osu-dir with OMB's install layout: exit 0" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$OUT $ERR"
check "intra-node latency at 8 bytes from osu_latency's row: 1.40 us" [ "$(med "$tmp/l" osu.intra.numa0-numa0 lat_8B_us)" = 1.4 ]
check "... smallest and largest size: 1.10 and 1.50" \
	[ "$(med "$tmp/l" osu.intra.numa0-numa0 lat_small_us),$(med "$tmp/l" osu.intra.numa0-numa0 lat_large_us)" = 1.1,1.5 ]
check "allreduce's 8-byte row: 3.50 us" [ "$(med "$tmp/l" osu.allreduce.1n lat_8B_us)" = 3.5 ]
check "alltoall in OMB 5's format: 6.25 us" [ "$(med "$tmp/l" osu.alltoall.1n lat_8B_us)" = 6.25 ]
check "the series has every size osu_latency printed" \
	jqt '.experiments[] | select(.name == "osu.intra.numa0-numa0") | [.series_stats[].size] == [1,2,4,8,16]' "$tmp/l/results.json"
check "the results name the program each figure came from" \
	jqt --arg p "$P2P/osu_latency" '.experiments[] | select(.name == "osu.intra.numa0-numa0") |
	    .params.impl == "omb" and .params.program == $p' "$tmp/l/results.json"
check "OMB got the suite's -m and -i" [ "$(cat "$tmp/args.osu_latency")" = "-m 16 -i 7" ]
check "software: MPI ranks started by mpiexec.mpich (--local)" \
	jqt '.software["mpi launch"] == "mpiexec.mpich"' "$tmp/l/results.json"

FAKE_FAIL=1 run numaplan run osu --local --osu-dir "$OMB" --repeat 1 -o "$tmp/f"
check "OMB's DATA VALIDATION ERROR: exit 1" [ "$RC" -eq 1 ]
check "... the run is failed, saying why, never averaged" \
	jqt '.experiments[] | select(.name == "osu.intra.numa0-numa0") | .status == "failed" and
	     (.runs[0].error | test("validation failed|exit 1"))' "$tmp/f/results.json"

# --- the job script: every OSU experiment runs the site's program ----------
run numaplan run osu --nodes 2 --dry-run --osu-dir "$OMB" --topology "$EPYC" -o "$tmp/d"
check "dry run with --osu-dir: exit 0" [ "$RC" -eq 0 ]
check "osu.bw.numa5 runs the site's osu_bw (no --json)" \
	grep -qE "^np_step .* osu.bw.numa5 .* $P2P/osu_bw$" "$tmp/d/job.sh"
check "osu.mbw_mr.socket1 runs osu_mbw_mr, osu.allreduce.2n osu_allreduce" \
	sh -c "grep -qE 'osu.mbw_mr.socket1 .* $P2P/osu_mbw_mr\$' '$tmp/d/job.sh' &&
	       grep -qE 'osu.allreduce.2n .* $COLL/osu_allreduce\$' '$tmp/d/job.sh'"
check "no numaplan-osu left in the job" sh -c "! grep -q '^np_step.*numaplan-osu' '$tmp/d/job.sh'"
# the collectives: every core of the node, 64 on the EPYC, on 2 nodes
check "osu.alltoall.2n: 128 ranks" \
	jqt '.[] | select(.name == "osu.alltoall.2n") | .ntasks == 128 and .nodes == 2' "$tmp/d/experiments.json"

mv "$COLL/osu_alltoall" "$tmp/"
run numaplan run osu --local --osu-dir "$OMB" --repeat 1 -o "$tmp/m"
check "a missing osu_alltoall: exit 2 naming it" eval '[ "$RC" -eq 2 ] && grep -q "osu_alltoall" <<<"$ERR"'
check "... and nothing is left behind" [ ! -e "$tmp/m" ]
mv "$tmp/osu_alltoall" "$COLL/"

# --- the site's MPI: srun --mpi and the job's environment ------------------
run numaplan run osu --nodes 2 --dry-run --mpi pmix --topology "$EPYC" -o "$tmp/p"
check "--mpi pmix: the job's MPI steps use srun --mpi=pmix" \
	sh -c "grep -q 'NP_SRUN_MPI=\${NP_SRUN_MPI:-pmix}' '$tmp/p/job.sh' && grep -q -- '--mpi=\"\$NP_SRUN_MPI\"' '$tmp/p/job.sh'"
run numaplan run osu --nodes 2 --dry-run --mpi pmix_v4 --topology "$EPYC" -o "$tmp/p4"
check "--mpi pmix_v4 is accepted" [ "$RC" -eq 0 ]
run numaplan run osu --nodes 2 --dry-run --mpi openmpi --topology "$EPYC" -o "$tmp/p5"
check "--mpi openmpi: exit 2 with the valid types" \
	eval '[ "$RC" -eq 2 ] && grep -q "pmix, pmix_vN, pmi2" <<<"$ERR"'
run numaplan run osu --nodes 2 --dry-run --topology "$EPYC" --job-setup 'module load openmpi/4.1' -o "$tmp/js"
check "--job-setup: in the job before any step" \
	[ "$(grep -n -e '^module load openmpi/4.1$' -e '^np_step ' "$tmp/js/job.sh" | head -1 | cut -d: -f2-)" = "module load openmpi/4.1" ]
run numaplan run compare --local --repeat 1 --threads 1 --policies none --job-setup 'export NP_SITE=yes' \
	-o "$tmp/jl" -- sh -c 'test "$NP_SITE" = yes'
check "--job-setup reaches the steps (--local)" [ "$RC" -eq 0 ]
check "... and is recorded" jqt '.software["job setup"] == "export NP_SITE=yes"' "$tmp/jl/results.json"
done_testing
