#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# What is said once is said in one place: the suites in one list
# (NP_SUITES of bench/Makefile.am, from which the build makes the
# registry's table), and the command line in one parser (cli/, no getopt
# in a front end).
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
am=$S/bench/Makefile.am
# the list: the words of NP_SUITES, suites/suite_NAME -> NAME
listed=$(sed -n '/^NP_SUITES = /,/^[^\t]/p' "$am" | tr ' \t\\' '\n\n\n' | sed -n 's|^suites/suite_||p')
# the suites defined: `const np_suite_t np_suite_NAME = {` in their files
defined=$(grep -hoE '^const np_suite_t np_suite_[a-z0-9_]+ *=' "$S"/bench/suites/*.c |
	sed -E 's/^const np_suite_t np_suite_([a-z0-9_]+).*/\1/' | sort)

check "NP_SUITES lists suites (${listed//$'\n'/ })" test -n "$listed"
missing=$(comm -13 <(sort <<<"$listed") <(echo "$defined") | tr '\n' ' ')
check "every suite defined is in NP_SUITES${missing:+ (not: $missing)}" test -z "$missing"
stale=$(comm -23 <(sort <<<"$listed") <(echo "$defined") | tr '\n' ' ')
check "every NP_SUITES line is a suite defined in its own file${stale:+ (not: $stale)}" test -z "$stale"
for n in $listed; do
	grep -qE "^const np_suite_t np_suite_$n *=" "$S/bench/suites/suite_$n.c" 2>/dev/null ||
		notok "suites/suite_$n.c defines np_suite_$n"
done
names=$(paste -sd'|' <<<"$listed")
check "the registry names no suite itself" \
	bash -c '! grep -nE "np_suite_($2)\b" "$1"' _ "$S/bench/suites/suite_registry.c" "$names"
check "no other list of suite files in bench/Makefile.am" \
	bash -c '! grep -vE "^\s*suites/suite_[a-z0-9_]+ *\\\\?$" "$1" | grep -qE "suites/suite_($2)\b"' _ "$am" "$names"

# the built command lists the suites of the list, in its order
help=$(numaplan run --help 2>/dev/null | sed -n '/^suites:/,/^options:/p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
check "numaplan run --help lists NP_SUITES in order" test "$help" = "$listed"

# one command-line parser: no front end opens its own getopt loop
getopts=$(grep -lE '\bgetopt(_long)?\b|<getopt\.h>' "$S"/launcher/*.c "$S"/bench/*.c "$S"/bench/*/*.c 2>/dev/null |
	sed "s|^$S/||" | tr '\n' ' ')
check "no getopt in launcher/ or bench/ (cli/optparse.h serves every command)${getopts:+: $getopts}" test -z "$getopts"
done_testing
