#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# libnumaplan held as one library: what it exports is exactly what its
# installed headers declare, as built and as `make install` puts it; the
# headers, numaplan.pc and the library work for a program that knows only
# them; the SPANK plugin and the kernels do not need libnumaplan.so.
source "$(dirname "$0")/../tap.sh"

CC=${CC:-gcc}
B=$NP_BUILDDIR
tmp=$(mktemp -d /tmp/np-lib-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT

# The functions the public headers declare, as the compiler reads them:
# -aux-info writes every prototype with the header it comes from.
declared() { # includedir
	printf '#include <numaplan.h>\n' >"$tmp/decl.c"
	$CC -I"$1" -fsyntax-only -aux-info "$tmp/decl.aux" "$tmp/decl.c" || return 1
	grep -F "/* $1/numaplan" "$tmp/decl.aux" | grep -F ' extern ' |
		sed -E 's|^/\*[^*]*\*/ extern ||; s/^([^(]*[ *])([A-Za-z_][A-Za-z0-9_]*) \(.*/\2/' | sort -u
}
# The symbols the library defines for the dynamic linker.
exported() { # library
	nm -D --defined-only "$1" | awk '$2 ~ /^[TtDdRrBbVvWwiu]$/ { print $3 }' | sort -u
}
# ok when the two lists are equal; the difference is printed otherwise
same_lists() { # what exported-list declared-list
	local extra missing
	extra=$(comm -23 "$2" "$3" | tr '\n' ' ')
	missing=$(comm -13 "$2" "$3" | tr '\n' ' ')
	[ -n "$extra" ] && diag "$1: exported but declared in no public header: $extra"
	[ -n "$missing" ] && diag "$1: declared but not exported: $missing"
	if [ -z "$extra$missing" ]; then ok "$1: exported symbols = public declarations ($(wc -l <"$2"))"
	else notok "$1: exported symbols = public declarations"; fi
}

declared "$NP_SRCDIR/include" >"$tmp/declared"
check "the public headers declare the interface ($(wc -l <"$tmp/declared") functions)" \
	test "$(wc -l <"$tmp/declared")" -ge 50
grep -q '^np_topo_load$' "$tmp/declared" && grep -q '^np_bind_apply$' "$tmp/declared"
check "... np_topo_load and np_bind_apply among them" test $? -eq 0

so=$B/lib/.libs/libnumaplan.so
exported "$so" >"$tmp/built"
same_lists "built $so" "$tmp/built" "$tmp/declared"

# ---- installed (DESTDIR, never the real prefix)
dest=$tmp/dest
if make -s -C "$B/include" install DESTDIR="$dest" >"$tmp/install.log" 2>&1 &&
   make -s -C "$B/lib" install DESTDIR="$dest" >>"$tmp/install.log" 2>&1; then
	ok "make install DESTDIR= of include/ and lib/"
else
	notok "make install DESTDIR= of include/ and lib/"; sed 's/^/# /' "$tmp/install.log" | tail -20
	done_testing; exit 1
fi
inc=$(dirname "$(find "$dest" -name numaplan.h -path '*/include/numaplan.h' | head -1)")
ilib=$(find "$dest" -name 'libnumaplan.so.*' -type f | head -1)
pcdir=$(dirname "$(find "$dest" -name numaplan.pc | head -1)")
check "installed: <numaplan.h>, libnumaplan.so and numaplan.pc" \
	test -n "$inc" -a -n "$ilib" -a -f "$pcdir/numaplan.pc"
(cd "$NP_SRCDIR/include" && find . -name '*.h' | sort) >"$tmp/src-headers"
(cd "$inc" && find . -type f | sort) >"$tmp/inst-headers"
check "installed headers: every header of include/ and nothing else ($(wc -l <"$tmp/src-headers"))" \
	cmp -s "$tmp/src-headers" "$tmp/inst-headers"
declared "$inc" >"$tmp/declared-inst"
check "installed headers declare what the source headers declare" \
	cmp -s "$tmp/declared" "$tmp/declared-inst"
exported "$ilib" >"$tmp/installed"
same_lists "installed $(basename "$ilib")" "$tmp/installed" "$tmp/declared-inst"

# ---- a program that knows only the installed headers and numaplan.pc
pc() { PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest pkg-config "$@" numaplan; }
run pc --modversion
check "pkg-config numaplan: version $OUT is the package's" \
	grep -q "^AC_INIT(\[numaplan\], \[$OUT\]" "$NP_SRCDIR/configure.ac"
cat >"$tmp/user.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <numaplan.h>

int main(void)
{
	np_load_opts_t lo = { .xml_path = NULL };
	np_plan_opts_t po = NP_PLAN_OPTS_INIT;
	np_error_t err = { 0 };
	np_topo_t *t;
	np_plan_t *p;
	char *cpus;

	if (np_get_api_version() != NUMAPLAN_API_VERSION)
		return 3;
	printf("api %#08x\n", np_get_api_version());
	if (np_topo_load(&t, &lo, &err) < 0 || np_plan_compute(t, &po, &p, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	cpus = np_cpuset_format(p->ranks[0].cpus);
	printf("rank 0 cpus %s\n", cpus ? cpus : "?");
	free(cpus);
	np_plan_free(p);
	np_topo_free(t);
	return 0;
}
C
# shellcheck disable=SC2046
run $CC -std=c11 -Wall -Wextra -Werror -pedantic -H $(pc --cflags) -o "$tmp/user" "$tmp/user.c" $(pc --libs)
check "a C11 program builds with pkg-config's flags alone (-pedantic -Werror)" test "$RC" -eq 0
[ "$RC" -ne 0 ] && diag "$ERR"
check "... and includes no hwloc or jansson header" bash -c '! grep -qE "hwloc|jansson" <<<"$1"' _ "$ERR"
want=$(sed -n 's/^#define NUMAPLAN_API_VERSION \(0x[0-9a-f]*\).*/\1/p' "$inc/numaplan/api.h")
run env LD_LIBRARY_PATH="$(dirname "$ilib")" "$tmp/user"
check "it runs on the installed library: np_get_api_version() = NUMAPLAN_API_VERSION ($want)" \
	bash -c '[ "$1" -eq 0 ] && [ "$(printf "%#08x" "$2")" = "$(sed -n "s/^api //p" <<<"$3")" ]' _ "$RC" "$want" "$OUT"
check "... and plans this machine (a compact rank has CPUs)" grep -qE '^rank 0 cpus [0-9]' <<<"$OUT"
run env LD_LIBRARY_PATH="$(dirname "$ilib")" ldd "$tmp/user"
check "... the installed copy, not another" grep -qF "$dest" <<<"$OUT"
if command -v g++ >/dev/null; then
	run g++ -std=c++11 -Wall -Werror -fsyntax-only -x c++ -I"$inc" - <<<'#include <numaplan.h>
int main() { return np_get_api_version() ? 0 : 1; }'
	check "the headers compile as C++ (extern \"C\")" test "$RC" -eq 0
else
	skip "g++ not installed"
fi

# ---- the plugin carries its own planner; the kernels carry none
plugin=$B/plugin/.libs/numaplan.so
if [ -f "$plugin" ]; then
	run readelf -d "$plugin"
	check "numaplan.so (SPANK) does not need libnumaplan.so" bash -c '! grep -q "NEEDED.*libnumaplan" <<<"$1"' _ "$OUT"
	exported "$plugin" | grep -vE '^(plugin_name|plugin_type|plugin_version|spank_plugin_version|slurm_spank_[a-z_]+)$' >"$tmp/plugin-extra"
	check "numaplan.so exports the SPANK entry points only" test ! -s "$tmp/plugin-extra"
else
	skip "SPANK plugin not built"
fi
for k in numaplan-stream numaplan-himeno numaplan-osu numaplan-hpl numaplan-probe numaplan-probe-mpi; do
	f=$B/kernels/$k
	[ -f "$f" ] || { skip "$k not built"; continue; }
	# a libtool wrapper script stands for the program in .libs
	[ "$(head -c 2 "$f")" = "#!" ] && f=$B/kernels/.libs/$k
	run readelf -d "$f"
	check "$k does not link the planner" bash -c '! grep -q "NEEDED.*libnumaplan" <<<"$1"' _ "$OUT"
done
done_testing
