#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Clear messages and non-zero exits: no Slurm, an unreachable controller,
# bad suites and options; nothing is left behind for bad input.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

NP=$(command -v numaplan)

# No Slurm: a PATH without sbatch
mkdir -p "$tmp/bin"
for p in bash sh env cat head awk date tee hostname numactl jq; do
	q=$(command -v $p) && ln -s "$q" "$tmp/bin/$p"
done
run env PATH="$tmp/bin" "$NP" run stream -o "$tmp/noslurm"
check "no Slurm: exit 1" [ "$RC" -eq 1 ]
check "... says sbatch is missing and suggests --local" \
	sh -c "echo \"\$0\" | grep -q 'Slurm is not available: sbatch not found in PATH.*--local'" "$ERR"
check "... and leaves no directory" [ ! -e "$tmp/noslurm" ]

# sbatch present but no controller behind it (a port nothing listens on)
printf 'ClusterName=none\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=9\n' >"$tmp/slurm.conf"
run env SLURM_CONF="$tmp/slurm.conf" numaplan run stream --repeat 1 --size 1000 -o "$tmp/noctl"
check "unreachable controller: exit 1" [ "$RC" -eq 1 ]
check "... reports sbatch's own error" grep -q 'sbatch failed.*Unable to contact slurm controller' <<<"$ERR"

run numaplan run --inline stream -o "$tmp/inl"
check "--inline outside an allocation: exit 1" [ "$RC" -ne 0 ]
check "... explains SLURM_JOB_ID" grep -q 'SLURM_JOB_ID is not set' <<<"$ERR"

run numaplan run
check "no suite: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'which suite'" "$ERR"
run numaplan run linpack
check "unknown suite: exit 2, listing the suites" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'unknown suite .linpack. (valid: stream osu himeno hpl wrf compare all screen)'" "$ERR"
run numaplan run stream --repeat 0
check "--repeat 0: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'bad value .0. for --repeat'" "$ERR"
run numaplan run stream --frobnicate
check "unknown option: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'unknown option .--frobnicate.'" "$ERR"
run numaplan run hpl --policy diagonal
check "unknown policy: exit 2 with the valid ones" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'unknown policy .diagonal. (valid: '" "$ERR"
run numaplan run stream --local --nodes 2
check "--local with 2 nodes: exit 2" [ "$RC" -eq 2 ]
run numaplan run stream --local --inline
check "--local with --inline: exit 2" [ "$RC" -eq 2 ]
run numaplan run compare --local -o "$tmp/nocmd"
check "compare without a command: exit 2" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'compare needs a command'" "$ERR"
run numaplan run stream -- ls
check "a command for another suite: exit 2" [ "$RC" -eq 2 ]
run numaplan run himeno --size XXL --dry-run -o "$tmp/h"
check "bad Himeno size: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'XS, S, M, L or XL'" "$ERR"
run numaplan run all --size 10 --dry-run
check "--size is ambiguous for all: exit 2" [ "$RC" -eq 2 ]
# values that are lines of the job script (#SBATCH ...): a newline would
# end the line and start one the shell runs
for o in --partition --time --nodelist --sbatch-arg; do
	run numaplan run stream --dry-run --topology "$EPYC" -o "$tmp/nl" "$o" $'p1\ntouch '"$tmp/ran"
	check "$o with a newline: exit 2, naming the option, nothing written" \
		eval '[ "$RC" -eq 2 ] && grep -q "bad value .p1.ntouch .* for $o: one line of text" <<<"$ERR" && [ ! -e "$tmp/nl" ]'
done
run numaplan run stream --dry-run --topology "$EPYC" -o "$tmp/nl" --srun-mpi 'pmix}; touch x #'
check "--srun-mpi that is not one word: exit 2, nothing written" \
	eval '[ "$RC" -eq 2 ] && grep -q "for --srun-mpi: one word" <<<"$ERR" && [ ! -e "$tmp/nl" ]'
run numaplan run stream --dry-run --topology "$EPYC" -o "$tmp/nl" --srun-mpi pmix_v4 --partition 'p 1' --sbatch-arg=--comment='a b'
check "... a word, and lines with spaces, are taken" eval '[ "$RC" -eq 0 ] && grep -qx "#SBATCH --comment=a b" "$tmp/nl/job.sh"'
rm -rf "$tmp/nl"
run numaplan run stream --dry-run --topology "$tmp/nonexistent.xml" -o "$tmp/t"
check "unreadable topology: exit 2 naming the file" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'nonexistent.xml'" "$ERR"
run numaplan run hpl --xhpl "$tmp/no-xhpl" --dry-run -o "$tmp/x"
check "missing --xhpl binary: exit 2" sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'not an executable'" "$ERR"

run numaplan run stream --dry-run --repeat 1 -o "$tmp/twice"
run numaplan run stream --dry-run --repeat 1 -o "$tmp/twice"
check "an output directory holding a run is not overwritten" \
	sh -c "[ $RC -eq 2 ] && echo \"\$0\" | grep -q 'already holds a run'" "$ERR"
run numaplan run --help
check "run --help: exit 0 with the usage" sh -c "[ $RC -eq 0 ] && echo \"\$0\" | grep -q 'usage: numaplan run SUITE'" "$OUT"
done_testing
