#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The binary interface is held: libabigail's abidiff compares the built
# libnumaplan.so with the last release's (tests/abi/libnumaplan.so.X.Y.Z.abi,
# recorded by tests/abi/update-baseline), and the -version-info must say
# what changed, by libtool's rules (lib/Makefile.am): calls only added,
# CURRENT grew; anything removed or changed (a struct grown included),
# CURRENT grew and the soname changed.  The Debian package of the library
# is named after the soname.  Nothing here is skipped: without
# abigail-tools, or without a library to compare, the test fails.  A
# build made without -g has no types to compare: the library is built
# again with -g (the build's own configure options, CFLAGS plus -g) in a
# scratch directory, and that one is compared.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
B=$NP_BUILDDIR
tmp=$(mktemp -d /tmp/np-abi-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT

nots=$(for t in abidw abidiff; do command -v $t >/dev/null || echo $t; done | tr '\n' ' ')
check "abidw and abidiff are installed${nots:+ (not: $nots- apt-get install abigail-tools)}" test -z "$nots"
[ -z "$nots" ] || { done_testing; exit 1; }

# ---- the release: libtool names the file CURRENT-AGE.AGE.REVISION
mapfile -t bases < <(find "$S/tests/abi" -maxdepth 1 -name 'libnumaplan.so.*.abi' | sort)
check "one release baseline in tests/abi (${#bases[@]})" test "${#bases[@]}" -eq 1
[ "${#bases[@]}" -eq 1 ] || { done_testing; exit 1; }
base=${bases[0]}
IFS=. read -r bmaj bage brev < <(basename "$base" .abi | sed 's/^libnumaplan\.so\.//')
bcur=$((bmaj + bage))
check "the baseline's soname is its file name's (libnumaplan.so.$bmaj)" \
	grep -q "^<abi-corpus .*soname='libnumaplan.so.$bmaj'" "$base"

# ---- this build
la=$B/lib/libnumaplan.la
cur=$(sed -n "s/^current=//p" "$la") age=$(sed -n "s/^age=//p" "$la") rev=$(sed -n "s/^revision=//p" "$la")
check "the build's -version-info ($cur:$rev:$age; the release's $bcur:$brev:$bage)" \
	test -n "$cur" -a -n "$age" -a -n "$rev"
maj=$((cur - age))
so=$B/lib/.libs/libnumaplan.so.$maj.$age.$rev
run readelf -d "$so"
check "built libnumaplan.so.$maj.$age.$rev, soname libnumaplan.so.$maj" \
	grep -qF "Library soname: [libnumaplan.so.$maj]" <<<"$OUT"
abidw --no-corpus-path --no-comp-dir-path --out-file "$tmp/built.abi" "$so"
if ! grep -q '<function-decl ' "$tmp/built.abi"; then
	# no debug information: the same library again, with -g
	cflags=$(make_var "$B/lib" CFLAGS)
	diag "$so has no debug information (CFLAGS: $cflags): building common/ and lib/ again with -g"
	args=(); eval "args=($("$B/config.status" --config 2>/dev/null))"
	mkdir -p "$tmp/g"
	if (cd "$tmp/g" && "$S/configure" "${args[@]}" --disable-dependency-tracking "CFLAGS=$cflags -g" &&
	    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j4 -C common &&
	    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j4 -C lib libnumaplan.la) >"$tmp/g.log" 2>&1; then
		so=$tmp/g/lib/.libs/libnumaplan.so.$maj.$age.$rev
		abidw --no-corpus-path --no-comp-dir-path --out-file "$tmp/built.abi" "$so" 2>>"$tmp/g.log"
	else
		tail -15 "$tmp/g.log" | sed 's/^/#   /'
	fi
	check "built with -g in a scratch directory: libnumaplan.so.$maj.$age.$rev has types to compare" \
		grep -q '<function-decl ' "$tmp/built.abi"
	grep -q '<function-decl ' "$tmp/built.abi" || { done_testing; exit 1; }
fi

# ---- what changed: abidiff's status is a bit set (1 error, 2 usage,
# 4 change, 8 incompatible change); additions alone vanish with
# --no-added-syms
abidiff "$base" "$tmp/built.abi" >"$tmp/diff" 2>&1
rc=$?
check "abidiff compares the two (status $rc)" test $((rc & 3)) -eq 0
if [ "$rc" -eq 0 ]; then
	change=none
elif abidiff --no-added-syms "$base" "$tmp/built.abi" >/dev/null 2>&1; then
	change=added
else
	change=changed
fi
diag "ABI since libnumaplan.so.$bmaj.$bage.$brev: $change"
[ "$change" = none ] || sed -n '1,4s/^/# /p' "$tmp/diff"
case $change in
none)
	ok "the interface is the release's: any -version-info will do";;
added)
	check "calls added: CURRENT grew ($bcur -> $cur)" test "$cur" -gt "$bcur";;
changed)
	check "calls removed or types changed: CURRENT grew ($bcur -> $cur)" test "$cur" -gt "$bcur"
	check "... and the soname changed (libnumaplan.so.$bmaj -> libnumaplan.so.$maj)" test "$maj" -gt "$bmaj";;
esac
[ "$change" = none ] || [ "$cur" -gt "$bcur" ] || sed -n '1,60s/^/# /p' "$tmp/diff"

# ---- the packages name the soname
check "debian/control: the library's package is libnumaplan$maj" \
	grep -qx "Package: libnumaplan$maj" "$S/debian/control"
others=$(grep -E '^Package: libnumaplan[0-9]+$' "$S/debian/control" | grep -vx "Package: libnumaplan$maj")
check "... and no other soname's package" test -z "$others"
check "debian/libnumaplan$maj.install installs libnumaplan.so.*" \
	grep -q 'libnumaplan\.so\.\*' "$S/debian/libnumaplan$maj.install"
check "the spec's main package takes libnumaplan.so.*, whatever the soname" \
	grep -q '^%{_libdir}/libnumaplan\.so\.\*$' "$S/numaplan.spec.in"
done_testing
