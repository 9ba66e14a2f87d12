#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `make check` runs every test group that needs neither root nor a Slurm
# cluster: each .t of lib, cli, kernels and run (but the run tests that
# submit jobs to the vcluster) is listed in tests/Makefile.am, and each
# cmocka program is a test; tests/run-all knows every group.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
am=$S/tests/Makefile.am
listed=$(sed -n '/^tap_scripts = /,/^[^\t]/p' "$am" | tr ' \t\\' '\n\n\n' | grep '\.t$' | sort)
# the .t that need the vcluster say so (vcluster_ready, slurm-lib.sh)
want=$(cd "$S/tests" && for f in lib/*.t cli/*.t kernels/*.t run/*.t; do
	grep -qE 'vcluster_ready|slurm-lib\.sh' "$f" || echo "$f"; done | sort)
missing=$(comm -13 <(echo "$listed") <(echo "$want") | tr '\n' ' ')
[ -n "$missing" ] && diag "not in tap_scripts: $missing"
check "every .t of lib, cli, kernels, run that needs no cluster is in make check" test -z "$missing"
stale=$(cd "$S/tests" && for f in $listed; do [ -f "$f" ] || echo "$f"; done | tr '\n' ' ')
check "tap_scripts names no missing file${stale:+ ($stale)}" test -z "$stale"
check "the vcluster's run test stays out of make check" bash -c '! grep -q "run/10-slurm.t" <<<"$1"' _ "$listed"
check "the cmocka programs are tests too" grep -qE '^TESTS = \$\(check_PROGRAMS\)' "$am"
check "the .t scripts go through Automake's TAP driver" \
	bash -c 'grep -q "^T_LOG_DRIVER = " "$1" && grep -q "tap-driver.sh" "$1"' _ "$am"
check "tests/run-all runs the lib group by default" \
	grep -qE '^\[ \$\{#groups\[@\]\} -eq 0 \] && groups=\(.*\blib\b' "$S/tests/run-all"
done_testing
