#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The layers, read from the #include lines: no include runs back up from
# the library or the common helpers to their users.
#   include/  the public headers: each other and standard C headers only
#   common/   its own headers, and the public types it implements
#             (<numaplan/{api,error,cpuset}.h>); nothing of lib or a front end
#   lib/      its own headers, common/, the public headers; no front end
#   cli/      the command-line parser: its own and common/ headers and the
#             public error type; nothing of lib or a front end
#   kernels/  common/ and the public types, never the planner's modules
#   plugin/ launcher/ bench/ kernels/ tests: nothing private of lib/, nor
#             common's hwloc view of the sets
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
# "FILE: INCLUDED" for every #include of the given files
includes() { grep -HE '^[[:space:]]*#[[:space:]]*include' "$@" |
	sed -E 's/^([^:]*):[[:space:]]*#[[:space:]]*include[[:space:]]*(.*)$/\1: \2/'; }
# ok when stdin is empty; else not ok, with its lines
none_of() { # what
	local bad; bad=$(cat)
	if [ -z "$bad" ]; then ok "$1"; else notok "$1"; sed 's/^/#   /' <<<"$bad"; fi
}
# the quoted includes of files that are not found where the layer allows:
# in the directory itself (when own is set) or under common/
quoted_outside() { # own-dir-or-empty files...
	local own=$1 l f; shift
	includes "$@" | grep -E ': "' | while IFS= read -r l; do
		f=${l#*: \"}; f=${f%\"}
		case $f in
		config.h) continue;;
		common/*) [ -f "$S/$f" ] && continue;;
		*/*) ;;
		*) [ -n "$own" ] && [ -f "$S/$own/$f" ] && continue;;
		esac
		echo "$l"
	done
}

none_of "include/: only <numaplan/*.h> and standard C headers" < <(
	includes "$S"/include/numaplan.h "$S"/include/numaplan/*.h |
	grep -vE ': <(numaplan/[a-z]+\.h|std[a-z]+\.h)>$')
none_of "common/: its quoted includes are common/ headers" < <(quoted_outside "" "$S"/common/*.[ch])
none_of "common/: of the public headers, only the types it implements (api, error, cpuset)" < <(
	includes "$S"/common/*.[ch] | grep -E ': <numaplan' | grep -vE '<numaplan/(api|error|cpuset)\.h>')
none_of "lib/: its quoted includes are lib/ or common/ headers (no front end)" < <(
	quoted_outside lib "$S"/lib/*.[ch])
none_of "cli/: its quoted includes are cli/ or common/ headers (below every front end)" < <(
	includes "$S"/cli/*.[ch] | grep -E ': "' | grep -vE ': "(cli|common)/[a-z_]+\.h"$')
none_of "cli/: of the public headers, only the error type" < <(
	includes "$S"/cli/*.[ch] | grep -E ': <numaplan' | grep -vE '<numaplan/error\.h>')
none_of "kernels/: no planner header (they link libnpcommon, not libnumaplan)" < <(
	includes "$S"/kernels/*.[ch] | grep -E ': <numaplan' | grep -vE '<numaplan/(api|error|cpuset)\.h>')
none_of "front ends and tests include nothing private of lib/, nor common's hwloc view" < <(
	for d in plugin launcher cli bench bench/run bench/report bench/accept bench/suites bench/slurm kernels tests/unit tests/bench; do includes "$S"/$d/*.[ch]; done |
	grep -E '"(topo_internal|plan_internal|plan_pool)\.h"|"common/cpuset_hwloc\.h"|"lib/')
none_of "common/ and lib/ have no front end on their include path" < <(
	grep -HE '^[A-Za-z_]*CPPFLAGS.*-I\$\(top_srcdir\)/(plugin|launcher|bench|kernels)' \
		"$S"/common/Makefile.am "$S"/lib/Makefile.am "$S"/include/Makefile.am)
done_testing
