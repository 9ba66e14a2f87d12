#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The layers, read from the #include lines: no include runs back up from
# the library or the common helpers to their users.
#   include/  the public headers: each other and standard C headers only
#   common/   its own headers, and the public types it uses
#             (<numaplan/{api,error,cpuset}.h>); nothing of lib or a front end
#             (the option parser, common/optparse.h, included)
#   sysread/  (libnpsys, every read of /sys, /proc and /dev, and the readers
#             over it) its own headers, common/ and the public headers
#   lib/      its own headers, common/, sysread/, the public headers; no
#             front end
#   kernels/  common/, sysread/ and the public types, never the planner's
#             modules
#   plugin/ cli/ bench/ kernels/ tests: nothing private of lib/, nor
#             the library's hwloc view of the sets
#   slurmcmd/ (libnpslurm, Slurm's commands) its own headers, common/ and
#             the public error type; nothing of lib or a front end
#   bench/    (libnpbench) nothing of the commands above it
#   cli/      the numaplan command: of bench/, its interface bench/bench.h
# Read twice: from the #include lines of the sources, and from the include
# graph of the build, which sees what an #include "x.h" found through an
# -I of a Makefile.am (the compiler's own record: the dependency files
# automake keeps in $NP_BUILDDIR/*/.deps, one an object).
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
# in the directory itself (when own is set: "x.h" or "OWN/x.h"), under
# common/, or under the room $also names (when set)
also=
quoted_outside() { # own-dir-or-empty files...
	local own=$1 l f; shift
	includes "$@" | grep -E ': "' | while IFS= read -r l; do
		f=${l#*: \"}; f=${f%\"}
		case $f in
		config.h) continue;;
		common/*) [ -f "$S/$f" ] && continue;;
		"${also:-/}"/*) [ -f "$S/$f" ] && continue;;
		"$own"/*) [ -n "$own" ] && [ -f "$S/$f" ] && continue;;
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
none_of "common/: of the public headers, only the types it uses (api, error, cpuset)" < <(
	includes "$S"/common/*.[ch] | grep -E ': <numaplan' | grep -vE '<numaplan/(api|error|cpuset)\.h>')
none_of "sysread/: its quoted includes are its own or common/ headers" < <(quoted_outside sysread "$S"/sysread/*.[ch])
also=sysread
none_of "lib/: its quoted includes are lib/, common/ or sysread/ headers (no front end)" < <(
	quoted_outside lib "$S"/lib/*.[ch])
none_of "kernels/: its quoted includes are its own, common/ or sysread/ headers" < <(quoted_outside kernels "$S"/kernels/*.[ch])
also=
none_of "common/optparse: of the public headers, only the error type (below every front end)" < <(
	includes "$S"/common/optparse.h "$S"/common/optparse.c "$S"/common/optvalue.c | grep -E ': <numaplan' |
	grep -vE '<numaplan/error\.h>')
none_of "slurmcmd/: its quoted includes are its own or common/ headers" < <(quoted_outside slurmcmd "$S"/slurmcmd/*.[ch])
none_of "slurmcmd/: of the public headers, only the error type" < <(
	includes "$S"/slurmcmd/*.[ch] | grep -E ': <numaplan' | grep -vE '<numaplan/error\.h>')
none_of "kernels/: no planner header (they link libnpcommon, not libnumaplan)" < <(
	includes "$S"/kernels/*.[ch] | grep -E ': <numaplan' | grep -vE '<numaplan/(api|error|cpuset)\.h>')
none_of "front ends and tests include nothing private of lib/, nor its hwloc view of the sets" < <(
	for d in sysread plugin cli bench bench/run bench/tables bench/report bench/accept bench/suites slurmcmd kernels tests/unit tests/bench; do includes "$S"/$d/*.[ch]; done |
	grep -E '"(topo_internal|plan_internal|plan_pool|cpuset_hwloc)\.h"|"lib/')
none_of "common/ and lib/ have no front end on their include path" < <(
	grep -HE '^[A-Za-z_]*CPPFLAGS.*-I\$\(top_srcdir\)/(plugin|cli|bench|kernels)' \
		"$S"/common/Makefile.am "$S"/sysread/Makefile.am "$S"/lib/Makefile.am "$S"/include/Makefile.am "$S"/slurmcmd/Makefile.am)

# ---- the include graph of the build: "SOURCE<TAB>OBJECT<TAB>HEADER" for
# every header each object was compiled with, after -I and #include_next,
# as the compiler wrote it (-MD, automake's depcomp) into the object's
# .deps/NAME.Po or .Plo.  Paths are made relative to the source tree (a
# header the build made, relative to the build tree); system headers stay
# absolute.  A dependency path is relative to the directory make compiled
# in: the object's own Makefile's, which the rule's target says.
B=$(cd "$NP_BUILDDIR" && pwd -P)
SP=$(cd "$S" && pwd -P)
layers="common sysread lib slurmcmd bench cli plugin kernels tests"
deps_graph() {
	local dirs d files
	dirs=$B; for d in "$B"/*/; do [ -f "$d/Makefile" ] && dirs="$dirs ${d%/}"; done
	mapfile -t files < <(for d in $layers; do
		[ -d "$B/$d" ] && find "$B/$d" -path '*/.deps/*' \( -name '*.Po' -o -name '*.Plo' \); done | sort)
	awk -v dirs="$dirs" -v B="$B/" -v S="$SP/" '
	function norm(p,   n, a, i, k, out, r) {
		n = split(p, a, "/"); k = 0
		for (i = 1; i <= n; i++) {
			if (a[i] == "." || (a[i] == "" && i > 1)) continue
			if (a[i] == ".." && k > 0 && out[k] != ".." && !(k == 1 && out[1] == "")) { k--; continue }
			out[++k] = a[i]
		}
		r = out[1]; for (i = 2; i <= k; i++) r = r "/" out[i]
		return r
	}
	function rel(p) {
		if (index(p, B) == 1) return substr(p, length(B) + 1)
		if (index(p, S) == 1) return substr(p, length(S) + 1)
		return p
	}
	function base(p) { sub(/.*\//, "", p); return p }
	function dir(p) { if (p !~ /\//) return ""; sub(/\/[^\/]*$/, "", p); return p }
	function abs(C, p) { return p ~ /^\// ? norm(p) : norm(C "/" p) }
	function flush(   n, w, t, objdir, obj, C, td, i, nd, cand, src) {
		if (rule == "") return
		gsub(/\\/, " ", rule); sub(/^[ \t]+/, "", rule)
		n = split(rule, w, /[ \t]+/)
		t = w[1]; sub(/:$/, "", t)
		objdir = dir(dir(cur))
		obj = norm(objdir "/" base(t))
		C = ""
		if (t !~ /^\.\.\//) {
			td = dir(t)
			if (td == "") C = objdir
			else if (substr(objdir, length(objdir) - length(td)) == "/" td)
				C = substr(objdir, 1, length(objdir) - length(td) - 1)
		} else {
			nd = split(dirs, cand, " ")
			for (i = 1; i <= nd; i++) if (norm(cand[i] "/" t) == obj) C = cand[i]
		}
		if (C == "") { print "?\t" rel(obj) "\t" cur; rule = ""; return }
		src = rel(abs(C, w[2]))
		for (i = 3; i <= n; i++) if (w[i] != "") print src "\t" rel(obj) "\t" rel(abs(C, w[i]))
		rule = ""
	}
	# a dependency file of an object not compiled yet holds "# dummy"
	FNR == 1 { flush(); cur = FILENAME; inrule = ($0 !~ /^# dummy/); rule = "" }
	inrule { rule = rule " " $0; if ($0 !~ /\\$/) { inrule = 0; flush() } }
	END { flush() }
	' "${files[@]}" /dev/null
}
# the objects the build holds (libtool's .libs/ copies are its .lo's)
objects=$(for d in $layers; do [ -d "$B/$d" ] && (cd "$B" && find "$d" \( -name '*.o' -o -name '*.lo' \) -not -path '*/.libs/*'); done | sort)
graph=$(deps_graph)
unread=$(awk -F'\t' '$1 == "?" {print $3}' <<<"$graph")
# only the objects that are there: a dependency file outlives its source
graph=$(awk -F'\t' 'NR == FNR {have[$0] = 1; next} $1 != "?" && have[$2]' <(echo "$objects") - <<<"$graph")
check "the build has objects ($(grep -c . <<<"$objects") under $B)" test -n "$objects"
nodeps=$(comm -23 <(echo "$objects") <(cut -f2 <<<"$graph" | sort -u))
if [ -n "$nodeps" ]; then
	diag "objects with no include graph (configured with --disable-dependency-tracking?):"
	head -10 <<<"$nodeps" | sed 's/^/#   /'
fi
check "every object has its include graph in .deps ($(cut -f2 <<<"$graph" | sort -u | grep -c .) objects)" \
	test -n "$objects" -a -z "$nodeps" -a -z "$unread"
# (plugin/ and kernels/ are built only where Slurm and the compilers are)
absent=$(for d in common sysread lib slurmcmd bench cli; do grep -q "^$d/" <<<"$graph" || echo "$d/"; done | tr '\n' ' ')
check "the include graph holds every layer's objects${absent:+ (none of: $absent)}" test -z "$absent"
# the project's headers only: "SOURCE: HEADER" once a pair
proj=$(awk -F'\t' '$3 !~ /^\// {print $1 "\t" $3}' <<<"$graph" | sort -u)
# edges SOURCE-RE HEADER-RE [outside]: the pairs whose header matches
# (outside: does not match) HEADER-RE, of the sources matching SOURCE-RE
edges() {
	awk -F'\t' -v s="$1" -v h="$2" -v out="${3:-}" '$1 ~ s && (out ? $2 !~ h : $2 ~ h) {print $1 ": " $2}' <<<"$proj"
}
none_of "include graph, common/: its own headers and the public types it uses (api, error, cpuset)" < <(
	edges '^common/' '^(common/|include/numaplan/(api|error|cpuset)\.h$|config\.h$)' outside)
none_of "include graph, sysread/: its own and common/ headers, the public headers" < <(
	edges '^sysread/' '^(sysread/|common/|include/|config\.h$)' outside)
none_of "include graph, lib/: its own, common/, sysread/ and the public headers; no front end" < <(
	edges '^lib/' '^(lib/|common/|sysread/|include/|config\.h$)' outside)
none_of "include graph, common/optparse: common/ headers, the public error type (and the api.h it takes)" < <(
	edges '^common/opt(parse|value)\.c$' '^(common/|include/numaplan/(api|error)\.h$|config\.h$)' outside)
none_of "include graph, kernels/: its own, common/ and sysread/ headers, the public types (api, error, cpuset); no planner" < <(
	edges '^kernels/' '^(kernels/|common/|sysread/(kfile|affinity|devnode|open_devices)\.h$|include/numaplan/(api|error|cpuset)\.h$|config\.h$)' outside)
none_of "include graph, slurmcmd/: its own and common/ headers, the public error type (and the api.h it takes)" < <(
	edges '^slurmcmd/' '^(slurmcmd/|common/|include/numaplan/(api|error)\.h$|config\.h$)' outside)
none_of "include graph, plugin/: nothing of slurmcmd/, bench/, cli/ or kernels/ (slurmstepd runs no Slurm command)" < <(
	edges '^plugin/' '^(slurmcmd|bench|cli|kernels)/')
none_of "include graph, bench/: nothing of the commands above it (cli/, plugin/, kernels/)" < <(
	edges '^bench/' '^(cli|plugin|kernels)/')
none_of "include graph: front ends and tests include no lib/ header (all private: $(cd "$S" && echo lib/*.h))" < <(
	edges '^(plugin|cli|bench|kernels|tests)/' '^lib/')

# bench's rooms, in order: each includes only the rooms before it (and
# bench/'s own helpers): run/ (and the interface a suite implements,
# run/suite.h), tables/ (what reports are made of), suites/, report/,
# accept/.  An include back up the list would close a cycle; a room not in
# the list has no place yet and is named.
bench_rooms="run tables suites report accept"
bench_rank() { # room -> its place in bench_rooms (1...), or nothing
	local r i=0; for r in $bench_rooms; do i=$((i + 1)); [ "$r" = "$1" ] && { echo $i; return; }; done
}
none_of "include graph, bench/: each room includes only the rooms before it ($bench_rooms)" < <(
	edges '^bench/[a-z_]+/' '^bench/[a-z_]+/' | while IFS= read -r l; do
		s=${l%%: *}; h=${l#*: }; s=${s#bench/}; s=${s%%/*}; h=${h#bench/}; h=${h%%/*}
		rs=$(bench_rank "$s"); rh=$(bench_rank "$h")
		if [ -z "$rs" ] || [ -z "$rh" ]; then echo "$l (a room not in: $bench_rooms)"
		elif [ "$rh" -gt "$rs" ]; then echo "$l"; fi
	done)
check "include graph, bench/: the rooms are there (an edge from suites/ to run/ seen)" \
	eval 'edges "^bench/suites/" "^bench/run/suite\\.h$" | grep -q .'

# cli/ takes of bench/ only its interface, bench/bench.h (np_cmd_run,
# _report, _accept, _steps), by that path: bench's own folder is on no
# other room's include path, so a private header of libnpbench cannot be
# reached as "x.h" (the audit took bench_util.h and the Slurm adapter that
# way until both moved below it).
none_of "include graph, cli/: of bench/, only bench/bench.h" < <(
	edges '^cli/' '^bench/' | grep -v ': bench/bench\.h$')
none_of "no room but bench/ (and the unit tests) has bench/ on its include path" < <(
	grep -HE '^[A-Za-z_]*CPPFLAGS.*-I\$\(top_srcdir\)/bench' "$S"/*/Makefile.am | grep -vE "^$S/(bench|tests)/")
done_testing
