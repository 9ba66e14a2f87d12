#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One copy of each symbol: the numaplan command loads libnumaplan.so, which
# carries the CPU sets and errors (common/Makefile.am); the program must not
# define any symbol the library exports, or its copy would interpose on the
# library's (the library's own calls would run the program's code), and
# every np_ call it makes that the library exports must come from there.
source "$(dirname "$0")/../tap.sh"

B=$NP_BUILDDIR
tmp=$(mktemp -d /tmp/np-onecopy-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT

bin=$B/cli/numaplan
# a libtool wrapper script stands for the program in .libs
[ -f "$bin" ] && [ "$(head -c 2 "$bin")" = "#!" ] && bin=$B/cli/.libs/numaplan
libdir=$B/lib/.libs
if [ ! -f "$bin" ] || [ ! -f "$libdir/libnumaplan.so" ]; then
	skip "numaplan or libnumaplan.so not built"; done_testing; exit
fi

# the library the program loads, as the dynamic linker finds it from the
# build tree
run env LD_LIBRARY_PATH="$libdir" ldd "$bin"
so=$(sed -n 's/^[[:space:]]*libnumaplan\.so[^ ]* => \([^ ]*\) .*/\1/p' <<<"$OUT")
check "numaplan loads libnumaplan.so${so:+ ($so)}" test -n "$so" -a -f "$so"
[ -n "$so" ] || { done_testing; exit; }

nm -D --defined-only "$so" | awk '{ print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
# every symbol the program defines itself, from its full symbol table
# (global ones: what the dynamic linker could bind the library's calls to)
nm --defined-only "$bin" | awk '$2 ~ /^[TDRBVWGSiu]$/ { print $3 }' | sort -u >"$tmp/defined"
check "the library exports its interface ($(wc -l <"$tmp/exported") symbols)" \
	test "$(wc -l <"$tmp/exported")" -ge 50
twice=$(comm -12 "$tmp/exported" "$tmp/defined" | tr '\n' ' ')
check "no symbol is defined both in numaplan and in libnumaplan.so${twice:+ (twice: $twice)}" \
	test -z "$twice"
nm -D --defined-only "$bin" | awk '{ print $3 }' | grep '^np_' >"$tmp/bin-exported"
check "numaplan offers no np_ symbol to the libraries it loads" test ! -s "$tmp/bin-exported"
# what it calls of the CPU sets and errors, it takes from the library
nm -D --undefined-only "$bin" | awk '{ print $2 }' | sed 's/@.*//' | grep '^np_' | sort -u >"$tmp/needs"
check "numaplan calls the library's CPU sets and errors ($(grep -cE '^np_(cpuset|error)_' "$tmp/needs") of them)" \
	grep -qE '^np_cpuset_new$' "$tmp/needs"
missing=$(comm -23 "$tmp/needs" "$tmp/exported" | tr '\n' ' ')
check "every np_ call numaplan leaves to the dynamic linker is the library's${missing:+ (not: $missing)}" \
	test -z "$missing"
done_testing
