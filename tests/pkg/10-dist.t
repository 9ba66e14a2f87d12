#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The release tarball: `make distcheck` (the tarball built out of tree with a
# read-only source, `make check` there, install, uninstall), and every file
# of the git tree in it, with the packaging files of the same version.
# distcheck's make check runs the unit programs and a script of each
# script group that reads the source tree (NP_DISTCHECK_TESTS=LIST to
# change; '' runs all of make check): what proves the tarball is that it
# builds, tests and installs out of tree from a read-only copy, and that
# every file git tracks is in it (below).  The groups themselves ran from
# the same sources before this one (tests/README.md: the budget).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/pkg-lib.sh"

log=$PKGDIR/distcheck.log
start=$SECONDS
rm -f "$TARBALL"
tests=${NP_DISTCHECK_TESTS-'$(check_PROGRAMS) lib/60-version.t cli/10-topo.t kernels/05-probe.t'}
if [ -n "$tests" ]; then
	make -j"$(nproc)" -C "$NP_BUILDDIR" distcheck TESTS="$tests" >"$log" 2>&1
else
	make -j"$(nproc)" -C "$NP_BUILDDIR" distcheck >"$log" 2>&1
fi
rc=$?
diag "make distcheck: $((SECONDS - start)) s (log: $log)"
check "make distcheck passes" [ "$rc" -eq 0 ]
# which of distcheck's own tests failed, by name (a tail alone showed
# only the summary once, when one failed on a CI machine and not here)
[ "$rc" -eq 0 ] || { grep -E '^(FAIL|ERROR|XPASS):' "$log" | head -20; tail -25 "$log"; } | sed 's/^/# /'
for f in $(grep -lE '^(not ok|Bail out)' "$NP_BUILDDIR"/numaplan-*/_build/sub/tests/*/*.log 2>/dev/null | head -5); do
	diag "$f:"; grep -E -B2 -A12 '^(not ok|Bail out)' "$f" | head -40 | sed 's/^/#   /'
done
check "it leaves numaplan-$NP_VERSION.tar.gz" [ -f "$TARBALL" ]
[ -f "$TARBALL" ] || { done_testing; exit 1; }
# distcheck's own make check: tests ran and none failed
tests_run=$(grep -E '^# (PASS|TOTAL):' "$log" | awk '/TOTAL/ { t += $3 } END { print t + 0 }')
check "distcheck ran make check from the tarball ($tests_run tests)" [ "$tests_run" -gt 0 ]

list=$(tar tzf "$TARBALL" | sed "s|^numaplan-$NP_VERSION/||" | grep -v '/$' | sort)
# every file git tracks is in the tarball (a test, a topology, a page
# missing from EXTRA_DIST fails here, not at a site); CI's own files and
# .gitignore are the exceptions
if git -C "$NP_SRCDIR" rev-parse >/dev/null 2>&1; then
	missing=$(git -C "$NP_SRCDIR" ls-files | grep -vE '^(\.gitignore|\.ci/.*)$' | sort | comm -23 - <(echo "$list"))
	check "every file in git is in the tarball" [ -z "$missing" ]
	[ -z "$missing" ] || echo "$missing" | head -20 | sed 's/^/#   missing: /'
else
	skip "not a git checkout"
fi
for f in configure numaplan.spec debian/rules debian/control INSTALL.md contrib/spack/package.py \
	plugin/numaplan.conf.in tests/pkg/spack-check.py; do
	check "the tarball has $f" grep -qx "$f" <<<"$list"
done
# rpmbuild -ta takes the one file matching *.spec, at any depth, and
# refuses a tarball with two
check "exactly one *.spec in it, numaplan.spec (rpmbuild -ta refuses more)" \
	[ "$(grep -E '\.spec$' <<<"$list")" = numaplan.spec ]
check "no build product in it (.o, .so, config.status)" \
	bash -c '! grep -qE "\.(o|lo|la|so)$|(^|/)config\.status$" <<<"$1"' _ "$list"

# the packaging in the tarball describes this version
spec=$(tar xzOf "$TARBALL" "numaplan-$NP_VERSION/numaplan.spec")
check "numaplan.spec: Version: $NP_VERSION" grep -qE "^Version:[[:space:]]+$NP_VERSION\$" <<<"$spec"
changelog=$(tar xzOf "$TARBALL" "numaplan-$NP_VERSION/debian/changelog" | head -1)
check "debian/changelog: numaplan ($NP_VERSION-N)" grep -qE "^numaplan \($NP_VERSION-[0-9]+\) " <<<"$changelog"
recipe=$(tar xzOf "$TARBALL" "numaplan-$NP_VERSION/contrib/spack/package.py")
check "Spack recipe: version(\"$NP_VERSION\")" grep -qF "version(\"$NP_VERSION\"" <<<"$recipe"
done_testing
