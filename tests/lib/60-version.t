#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One version everywhere a user or a package manager reads it: configure's
# (AC_INIT) is what `numaplan --version`, numaplan.pc, every man page's
# title line, the Debian changelog's latest entry, the Spack recipe and
# NEWS's latest entry say.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
B=$NP_BUILDDIR
v=$(sed -n 's/^AC_INIT(\[numaplan\], \[\([^]]*\)\].*/\1/p' "$S/configure.ac")
check "configure.ac names a version ($v)" eval '[[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]'
run "$B/cli/numaplan" --version
check "numaplan --version: numaplan $v" eval '[ "$(head -1 <<<"$OUT")" = "numaplan $v" ]'
check "numaplan.pc: Version: $v" grep -qx "Version: $v" "$B/lib/numaplan.pc"
bad=$(for m in "$S"/man/*.[0-9]; do
	grep -m1 '^\.TH ' "$m" | grep -q "\"numaplan $v\"" || echo "${m##*/}"
done)
check "every man page's title line says numaplan $v${bad:+ (not: $(echo $bad))}" test -z "$bad"
check "debian/changelog's latest entry is $v-N" \
	eval 'head -1 "$S/debian/changelog" | grep -qE "^numaplan \($v-[0-9]+\) "'
check "the Spack recipe's version is $v" grep -q "^    version(\"$v\")" "$S/contrib/spack/package.py"
check "NEWS's latest entry is $v" eval '[ "$(grep -m1 "^\* " "$S/NEWS")" = "* $v (December 2026)" ] ||
	grep -m1 "^\* " "$S/NEWS" | grep -q "^\* $v "'
done_testing
