#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A command after `--` is written into every launcher format (a rankfile's
# header comment, an srun, mpiexec or numactl line): a control byte in it
# would end the line (and start one of the command's making) or drive the
# terminal.  Such a command is refused: exit 2, nothing written (issue 22,
# item 9).
source "$(dirname "$0")/../tap.sh"
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml
plan() { numaplan plan --topology "$EPYC" -n 2 -p compact "$@"; }

evil=$'./a\nrank 5=evil slot=0'
for f in ompi ompi4 slurm mpich numactl; do
	run plan --format "$f" -- "$evil"
	check "--format $f, a newline in the command: exit 2, nothing on stdout" \
		eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -q "control character" <<<"$ERR"'
	check "... and no forged line anywhere" eval '! grep -q "evil" <<<"$OUT"'
	run plan --format "$f" -- $'./a\e]0;owned\a'
	check "--format $f, an escape sequence in the command: exit 2, no ESC byte written" \
		eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ] && ! grep -q $'"'"'\e'"'"' <<<"$OUT$ERR"'
done
# 2 ranks: the rankfile has exactly 2 rank lines
run plan --format ompi -- ./a 'two words' $'tab\there'
check "an ordinary command (spaces, a tab) is still written" \
	eval '[ "$RC" -eq 0 ] && [ "$(grep -c "^rank " <<<"$OUT")" -eq 2 ] && grep -q "'"'"'two words'"'"'" <<<"$OUT"'
run plan --format json -- "$evil"
check "--format json does not embed the command: a newline is no matter" \
	eval '[ "$RC" -eq 0 ] && jq -e .ranks <<<"$OUT" >/dev/null'
done_testing
