#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `make check` runs every test group that needs neither root nor a Slurm
# cluster: each .t of lib, cli, kernels and run (but the run tests that
# submit jobs to the vcluster), and each cmocka program, through a driver
# that reads TAP; tests/run-all runs these groups and the rest.  Asked of
# the built tree (make's own TESTS, check_PROGRAMS and T_LOG_DRIVER, in
# $NP_BUILDDIR/tests) and of run-all itself, never read off Makefile.am:
# what make runs is what counts, however the list is spelled.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
B=$NP_BUILDDIR
tmp=$(mktemp -d /tmp/np-make-check.XXXXXX) || { echo "Bail out! cannot make a scratch directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
words() { tr ' \t' '\n\n' | sed '/^$/d'; }

tests=$(make_var "$B/tests" TESTS | words | sort)
check "make check has tests ($(wc -w <<<"$tests") in TESTS of $B/tests)" test -n "$tests"

# Which .t need the vcluster is the scripts' own word (test metadata): a
# script that waits for it calls vcluster_ready; one that takes Slurm's
# helpers sources tests/slurm/slurm-lib.sh (cli/62-gpu-select.t does, for
# its root-only part, and may run in make check all the same).
waits() { grep -qE '^[[:space:]]*(if[[:space:]]+(![[:space:]]+)?)?vcluster_ready\b' "$1"; }
takes_slurm() { grep -qE '^[[:space:]]*(source|\.)[[:space:]].*slurm-lib\.sh' "$1"; }
want=$(cd "$S/tests" && for f in lib/*.t cli/*.t kernels/*.t run/*.t; do
	waits "$f" || takes_slurm "$f" || echo "$f"; done | sort)
missing=$(comm -13 <(echo "$tests") <(echo "$want") | tr '\n' ' ')
check "every .t of lib, cli, kernels, run that needs no cluster is in make check${missing:+ (not: $missing)}" \
	test -z "$missing"
stale=$(grep '\.t$' <<<"$tests" | while read -r f; do [ -f "$S/tests/$f" ] || echo "$f"; done | tr '\n' ' ')
check "make check names no missing .t${stale:+ ($stale)}" test -z "$stale"
check "the vcluster's run test (run/10-slurm.t) stays out of make check" \
	bash -c '! grep -qx "run/10-slurm.t" <<<"$1"' _ "$tests"
vc=$(grep '\.t$' <<<"$tests" | while read -r f; do
	[ -f "$S/tests/$f" ] && waits "$S/tests/$f" && echo "$f"; done | tr '\n' ' ')
check "no .t that waits for the vcluster is in make check${vc:+ ($vc)}" test -z "$vc"

# the cmocka programs: each is a check program (every tests/unit/test_*.c
# names one), and each check program is a test
progs=$(make_var "$B/tests" check_PROGRAMS | words | sort)
check "the cmocka programs are check programs ($(wc -w <<<"$progs"))" test -n "$progs"
unbuilt=$(cd "$S/tests" && for c in unit/test_*.c; do
	grep -qx "${c%.c}" <<<"$progs" || echo "${c%.c}"; done | tr '\n' ' ')
check "every tests/unit/test_*.c is a check program${unbuilt:+ (not: $unbuilt)}" test -z "$unbuilt"
untested=$(comm -23 <(echo "$progs") <(echo "$tests") | tr '\n' ' ')
check "every check program is a test of make check${untested:+ (not: $untested)}" test -z "$untested"

# the driver make runs a .t through, and the cmocka programs (no
# extension) through: each must read TAP, a "not ok" failing the test
# whatever the script's exit status.  Run as make runs it, from the tests
# directory of the build, on two scratch scripts.
tdrv=$(make_var "$B/tests" T_LOG_DRIVER)
tcomp=$(make_var "$B/tests" T_LOG_COMPILER)
drv=$(make_var "$B/tests" LOG_DRIVER)
diag "T_LOG_DRIVER: $tdrv"
check "make runs the .t through Automake's TAP driver" grep -q 'tap-driver\.sh' <<<"$tdrv"
check "... and the cmocka programs too (LOG_DRIVER)" grep -q 'tap-driver\.sh' <<<"$drv"
printf 'echo "ok 1 - one"\necho "not ok 2 - two"\necho "1..2"\nexit 0\n' >"$tmp/fails.t"
printf 'echo "ok 1 - one"\necho "1..1"\n' >"$tmp/passes.t"
verdict() { # script: the :global-test-result: make's .t driver gives it
	(cd "$B/tests" && eval "$tdrv --test-name np-probe --log-file '$tmp/probe.log' --trs-file '$tmp/probe.trs' \
		--color-tests no --enable-hard-errors yes --expect-failure no -- $tcomp '$1'") >/dev/null 2>&1
	sed -n 's/^:global-test-result: //p' "$tmp/probe.trs" 2>/dev/null
}
check "... which fails a .t that says \"not ok\" and exits 0" test "$(verdict "$tmp/fails.t")" = FAIL
check "... and passes one whose every line is ok" test "$(verdict "$tmp/passes.t")" = PASS

# tests/run-all runs every group by default, those of make check included
# (NP_RUNALL_LIST=1: the groups it would run, nothing run)
dflt=$(NP_RUNALL_LIST=1 bash "$S/tests/run-all" </dev/null 2>/dev/null)
diag "run-all by default: ${dflt//$'\n'/ }"
short=$(for g in unit lib cli kernels run; do grep -qx "$g" <<<"$dflt" || echo "$g"; done | tr '\n' ' ')
check "tests/run-all runs the lib group, and every group of make check, by default${short:+ (not: $short)}" \
	test -n "$dflt" -a -z "$short"
check "... and only the groups named, when named" test "$(NP_RUNALL_LIST=1 bash "$S/tests/run-all" lib cli | tr '\n' ' ')" = "lib cli "
done_testing
