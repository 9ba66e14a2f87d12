#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# No circles between the files of a layer.  The graph is the linker's: an
# arrow from a.c to b.c when a.o leaves undefined a function or variable
# that b.o defines (nm of the built objects), inside each of lib/, common/, sysread/,
# slurmcmd/, plugin/, cli/, bench/ (its rooms together) and kernels/.  A cycle
# (a calls b, b calls a, or longer) is named with the symbols of each arrow.
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
B=$NP_BUILDDIR
tmp=$(mktemp -d /tmp/np-cycles-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT

# "NODE OBJECT" for every object built from a source of the tree that is
# there now (a build directory can keep objects of removed files); NODE is
# the source without .c.  libtool and per-program objects are
# TARGET-NAME.o, in the directory or its .libs/.
objects() { # layer
	local src rel d b o
	find "$S/$1" -name '*.c' | sort | while IFS= read -r src; do
		rel=${src#"$S"/}; d=${rel%/*}; b=${rel##*/}; b=${b%.c}
		for o in "$B/$d/$b.o" "$B/$d"/*-"$b.o" "$B/$d/.libs/$b.o" "$B/$d/.libs"/*-"$b.o"; do
			[ -f "$o" ] && echo "$d/$b $o"
		done
	done
}
# "U NODE SYMBOL" and "D NODE SYMBOL" lines of the objects
symbols() { # objects-file
	local node o
	while read -r node o; do
		nm "$o" | awk -v n="$node" '$1 == "U" { print "U", n, $2 }
			NF == 3 && $2 ~ /^[TDBRGSVW]$/ { print "D", n, $3 }'
	done <"$1" | sort -u
}
# "FROM TO SYMBOL": FROM uses SYMBOL, which TO defines (not FROM itself)
arrows() { # symbols-file
	awk '$1 == "D" { def[$3] = def[$3] " " $2 } $1 == "U" { use[NR] = $2 " " $3 }
	     END { for (i in use) { split(use[i], a, " "); n = split(def[a[2]], d, " ")
	           for (k = 1; k <= n; k++) if (d[k] != a[1]) print a[1], d[k], a[2] } }' "$1" | sort -u
}
# One line per cycle found, "a -> b -> a (a->b: sym; b->a: sym)"; tsort
# names the files of each cycle it meets, in order, and the arrows file
# gives the symbols between consecutive ones.
cycles() { # arrows-file
	local members
	awk '{ print $1, $2 }' "$1" | sort -u | tsort 2>&1 >/dev/null |
		awk '/input contains a loop/ { if (c) print c; c = ""; next }
		     { sub(/^tsort: /, ""); c = c (c ? " " : "") $0 } END { if (c) print c }' |
		while read -r -a members; do
			local i n=${#members[@]} line="" why=""
			for ((i = 0; i < n; i++)); do
				local a=${members[i]} b=${members[(i + 1) % n]} syms
				line+="$a -> "
				syms=$(awk -v a="$a" -v b="$b" '$1 == a && $2 == b { print $3 }' "$1" | paste -sd, -)
				why+="${why:+; }${a##*/}->${b##*/}: ${syms:-?}"
			done
			echo "${line}${members[0]} ($why)"
		done
}

# ---- the checker itself, on graphs whose answer is known
printf '%s\n' "x/a x/b f_b" "x/b x/c f_c" "x/c x/a f_a" "x/c x/d f_d" >"$tmp/ring"
cycles "$tmp/ring" >"$tmp/ring.out"
check "a 3-file ring is found once, with its 3 files and their symbols" \
	test "$(wc -l <"$tmp/ring.out")" -eq 1 -a -n "$(grep -F 'a->b: f_b' "$tmp/ring.out" |
		grep -F 'b->c: f_c' | grep -F 'c->a: f_a')"
printf '%s\n' "x/a x/b f_b" "x/b x/c f_c" "x/a x/c f_c" "x/c x/d f_d" >"$tmp/dag"
cycles "$tmp/dag" >"$tmp/dag.out"
check "a graph without a cycle gives none" test ! -s "$tmp/dag.out"
printf '%s\n' "D x/a f_a" "U x/b f_a" "D x/b f_b" "U x/a f_b" "U x/a printf" "D x/c f_c" "U x/c f_c" >"$tmp/syms"
arrows "$tmp/syms" >"$tmp/two"
check "symbols to arrows: a<->b both ways, none to libc or to the file itself" \
	test "$(cat "$tmp/two" | tr '\n' ' ')" = "x/a x/b f_b x/b x/a f_a "

# ---- the tree
for layer in lib common sysread slurmcmd plugin cli bench kernels; do
	objects "$layer" >"$tmp/$layer.objs"
	nsrc=$(find "$S/$layer" -name '*.c' | wc -l)
	nfound=$(awk '{ print $1 }' "$tmp/$layer.objs" | sort -u | wc -l)
	# every source has its object: a source left out would hide its arrows
	check "$layer/: an object for each of its $nsrc sources ($nfound found)" test "$nfound" -eq "$nsrc"
	symbols "$tmp/$layer.objs" >"$tmp/$layer.syms"
	arrows "$tmp/$layer.syms" >"$tmp/$layer.arrows"
	cycles "$tmp/$layer.arrows" >"$tmp/$layer.cycles"
	if [ -s "$tmp/$layer.cycles" ]; then
		notok "$layer/: no cycle among its files ($(awk '{ print $1, $2 }' "$tmp/$layer.arrows" | sort -u | wc -l) arrows)"
		sed 's/^/#   cycle: /' "$tmp/$layer.cycles"
	else
		ok "$layer/: no cycle among its files ($(awk '{ print $1, $2 }' "$tmp/$layer.arrows" | sort -u | wc -l) arrows)"
	fi
done
# the graph is the real one: arrows the code is known to have
grep -q '^lib/plan lib/plan_pool np_pool_' "$tmp/lib.arrows"
check "lib/: plan.c -> plan_pool.c (np_pool_*) is among the arrows" test $? -eq 0
grep -q '^bench/run/run_results bench/run/run_stats np_runs_stats$' "$tmp/bench.arrows"
check "bench/: run/run_results.c -> run/run_stats.c (np_runs_stats) is among the arrows" test $? -eq 0
done_testing
