#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What is said once is said in one place: the suites in one list
# (NP_SUITES of bench/Makefile.am, from which the build makes the
# registry's table), and the command line in one parser (cli/, no getopt
# in a front end).  Asked of what was built: make's value of NP_SUITES,
# the numaplan command, and the linker's view of its objects; not of the
# C sources' text.
source "$(dirname "$0")/../tap.sh"

B=$NP_BUILDDIR
tmp=$(mktemp -d /tmp/np-one-list.XXXXXX) || { echo "Bail out! cannot make a scratch directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT

# the list: the words of NP_SUITES as make has them, suites/suite_NAME -> NAME
listed=$(make_var "$B/bench" NP_SUITES | tr ' \t' '\n\n' | sed -n 's|^suites/suite_||p')
check "NP_SUITES lists suites (${listed//$'\n'/ })" test -n "$listed"

# the built command lists the suites of the list, in its order
run numaplan run --help
help=$(sed -n '/^suites:/,/^options:/p' <<<"$OUT" | awk 'NR > 1 && /^  [a-z]/ {print $1}')
check "numaplan run --help exits 0" test "$RC" -eq 0
check "numaplan run --help lists NP_SUITES in order (${help//$'\n'/ })" test -n "$help" -a "$help" = "$listed"

# the registry's table is the one the build made from the list
gen=$B/bench/suites/suite_list.h
check "the build made the registry's table from NP_SUITES (bench/suites/suite_list.h)" \
	test "$(sed -n 's/^NP_SUITE(\(.*\))$/\1/p' "$gen" 2>/dev/null)" = "$listed"
check "... and the registry was compiled with it (its .deps)" \
	grep -qE '(^|[ /])suites/suite_list\.h:' "$B/bench/suites/.deps/suite_registry.Plo"

# the suites libnpbench defines (np_suite_NAME, data, one object each),
# as the linker sees them: those of the list, no other
lib=$B/bench/.libs/libnpbench.a
defs=$(nm -A --defined-only "$lib" 2>/dev/null | awk '$(NF-1) ~ /^[DdRr]$/ && $NF ~ /^np_suite_[a-z0-9_]+$/ {
	o = $1; sub(/:[^:]*$/, "", o); sub(/.*:/, "", o); n = $NF; sub(/^np_suite_/, "", n); print n, o }' | sort)
check "libnpbench.a defines suites ($(grep -c . <<<"$defs"))" test -n "$defs"
missing=$(comm -13 <(sort <<<"$listed") <(cut -d' ' -f1 <<<"$defs") | grep . | tr '\n' ' ')
check "every suite built into libnpbench is in NP_SUITES${missing:+ (not: $missing)}" test -z "$missing"
stale=$(comm -23 <(sort <<<"$listed") <(cut -d' ' -f1 <<<"$defs") | grep . | tr '\n' ' ')
check "every NP_SUITES line is a suite built into libnpbench${stale:+ (not: $stale)}" test -z "$stale"
own=$(awk 'NF == 2 && $2 != "suite_" $1 ".o" {print $1 " in " $2}' <<<"$defs" | tr '\n' ' ')
check "each suite is defined by its own file (suite_NAME.o)${own:+: $own}" test -z "$own"

# each suite the command lists is one it runs: a dry run, offline (the
# topology from a file, an sbatch that records being called), writes the
# job and names the suite in run.json.  What a suite needs beyond that:
mkdir -p "$tmp/bin" "$tmp/wrf"
printf '#!/bin/sh\ntouch %s/sbatch-called\necho 1\n' "$tmp" >"$tmp/bin/sbatch"
printf '#!/bin/sh\n' >"$tmp/wrf/wrf.exe"
: >"$tmp/wrf/namelist.input"
chmod +x "$tmp/bin/sbatch" "$tmp/wrf/wrf.exe"
needs() { # suite: its own arguments for a dry run
	case $1 in
	wrf) echo --wrf-dir "$tmp/wrf";;
	screen) echo --nodes 2;;
	compare) echo -- true;;
	esac
}
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml
for n in $help; do
	# shellcheck disable=SC2046 # needs() gives words without blanks
	PATH="$tmp/bin:$PATH" run numaplan run "$n" --dry-run -q --topology "$EPYC" -o "$tmp/out-$n" $(needs "$n")
	[ "$RC" -eq 0 ] || diag "numaplan run $n: $RC: ${ERR:0:300}"
	check "numaplan run $n --dry-run: a job for suite $n" \
		eval '[ "$RC" -eq 0 ] && [ -s "$tmp/out-$n/job.sh" ] && [ "$(jq -r .suite "$tmp/out-$n/run.json")" = "$n" ]'
done
check "... and none called sbatch" test ! -e "$tmp/sbatch-called"
run numaplan run np-no-such-suite --dry-run --topology "$EPYC" -o "$tmp/out-none"
check "an unknown suite is refused (exit 2), naming it" \
	eval '[ "$RC" -eq 2 ] && grep -q "np-no-such-suite" <<<"$ERR"'
valid=$(sed -n 's/.*(valid: \(.*\)).*/\1/p' <<<"$ERR")
check "... and the valid choices: NP_SUITES (${valid:-none named})" test "$valid" = "${listed//$'\n'/ }"
check "... and makes nothing" test ! -e "$tmp/out-none"

# one command-line parser: no front end opens its own getopt loop.  The
# linker's view: no object of cli/ or libnpbench, nor the numaplan
# program (libtool's real one in .libs, where shared), calls getopt.
prog=$B/cli/.libs/numaplan
[ -f "$prog" ] || prog=$B/cli/numaplan
objs=("$prog" "$lib" "$B"/cli/*.o)
run nm -A -u "${objs[@]}"
[ "$RC" -eq 0 ] || sed 's/^/#   /' <<<"$ERR"
check "nm reads the numaplan program and the objects of cli/ and bench/ (${#objs[@]})" test "$RC" -eq 0
calls=$(grep -E '[[:space:]]getopt(_long(_only)?)?(@.*)?$' <<<"$OUT" | sed "s|^$B/||" | tr -s ' \n' ' ')
check "no getopt in cli/ or libnpbench (common/optparse.h serves every command)${calls:+: $calls}" test -z "$calls"
done_testing
