#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# LICENSE says every source file carries an SPDX-License-Identifier line:
# the C sources and headers, the build files, the scripts and tests, the
# man pages, the packaging.  The line must be among a file's first three
# (after a #! or a man page's preprocessor line) and name BSD-3-Clause.
# Data (topologies, fuzz corpus, captured outputs, specs) is not source.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
# the source files: tracked ones in a checkout, else (a release tarball)
# every file under the source directory
list() {
	if [ -d "$S/.git" ] || [ -f "$S/.git" ]; then
		git -C "$S" ls-files
	else
		(cd "$S" && find . -type f ! -path './build*' | sed 's|^\./||')
	fi
}
is_source() { # path: 0 when the file is a source file by the rule above
	case $1 in
	tests/topologies/*|tests/xml/*|tests/fuzz/corpus/*|tests/run/data/*|tests/unit/data/*|tests/abi/*) return 1;;
	debian/source/*) return 1;;
	*.c|*.h|*/Makefile.am|Makefile.am|configure.ac|*.sh|*.t|*.py|*.spec.in|*.conf.in|*.pc.in|*.supp|*.dict) return 0;;
	man/*.[1-8]|debian/rules|debian/*.prerm|debian/*.postinst|debian/*.postrm) return 0;;
	esac
	[ -f "$S/$1" ] && head -c2 "$S/$1" | grep -q '^#!'
}
# a generated file of a tarball (configure, Makefile.in, ...) is not ours
generated() { case $1 in configure|*/Makefile.in|Makefile.in|aclocal.m4|build-aux/*|config.h.in*|numaplan.spec) return 0;; esac; return 1; }

n=0 missing=()
while IFS= read -r f; do
	generated "$f" && continue
	is_source "$f" || continue
	n=$((n + 1))
	head -3 "$S/$f" | grep -q 'SPDX-License-Identifier: BSD-3-Clause' || missing+=("$f")
done < <(list)
diag "$n source files"
check "there are source files to look at (found $n)" [ "$n" -gt 300 ]
check "every source file has an SPDX-License-Identifier: BSD-3-Clause line${missing:+ (missing: ${missing[*]:0:20})}" \
	[ ${#missing[@]} -eq 0 ]
check "LICENSE names the identifier it promises" grep -q 'SPDX-License-Identifier' "$S/LICENSE"
# the rule above against files known either way
check "the rule: lib/plan.c, tests/run-all, man/numaplan.1 and debian/rules are source" \
	eval 'is_source lib/plan.c && is_source tests/run-all && is_source man/numaplan.1 && is_source debian/rules'
check "the rule: a stored topology, a fuzz input and an accept spec are not" \
	eval '! is_source tests/topologies/x.xml && ! is_source tests/fuzz/corpus/a && ! is_source contrib/specs/smoke.accept'
done_testing
