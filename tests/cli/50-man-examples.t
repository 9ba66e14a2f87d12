#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The examples of numaplan(1) run as printed, and do what the text says.
# The command is read from the man page itself; what it must do is derived
# here from the topology (hwloc-calc, lstopo's distance matrix), not from
# numaplan's output.
source "$(dirname "$0")/../tap.sh"
MAN=$NP_SRCDIR/man/numaplan.1
EPYC_NAME=amd-epyc7551-2s-nps4-8numa-mlx5.xml
EPYC=$TOPO/$EPYC_NAME

# The EXAMPLES command line containing $1, continuation lines joined,
# roff escapes undone, the file name pointed at the stored topology.
example() {
	sed -n '/^\.SH EXAMPLES/,/^\.SH "SEE ALSO"/p' "$MAN" |
		awk -v want="$1" '/^\$ / { cmd = $0; while (cmd ~ /\\e$/ && (getline l) > 0) cmd = substr(cmd, 1, length(cmd) - 2) l; if (index(cmd, want)) print cmd }' |
		sed -e 's/^\$ //' -e 's/\\-/-/g' -e 's/  */ /g' -e "s|$EPYC_NAME|$EPYC|" | head -1
}

cmd=$(example 'ntasks 16 \-\-policy hca\-near')
check "numaplan(1) has the 16-rank hca-near example" test -n "$cmd"
# shellcheck disable=SC2086
run $cmd --format json
check "the example runs as printed" test "$RC" -eq 0

# What the documented rule gives on this topology: the adapter's node
# first (its 8 cores), then the nearest other node by the SLIT, ties to
# the lower OS index.
home=$(hwloc-calc --input "$EPYC" -I numa --po os=mlx5_0)
row=$(lstopo-no-graphics -p --input "$EPYC" --distances | awk -v h="$home" '/by physical indexes/ { m = 1; next } m && $1 == "index" { for (i = 2; i <= NF; i++) os[i] = $i; next } m && $1 == h { for (i = 2; i <= NF; i++) print os[i], $i; exit }')
spill=$(awk -v h="$home" '$1 != h' <<<"$row" | sort -k2,2n -k1,1n | head -1 | cut -d' ' -f1)
cores_home=$(hwloc-calc --input "$EPYC" -N core --pi "numa:$home")
cores_spill=$(hwloc-calc --input "$EPYC" -N core --pi "numa:$spill")
diag "adapter on NUMA $home ($cores_home cores); nearest other node $spill ($cores_spill cores); distances: $(paste -sd' ' <<<"$row")"
check "the topology is the one the example describes: node 5, 8 + 8 cores, spill node 4" \
	test "$home/$cores_home/$spill/$cores_spill" = "5/8/4/8"
check "ranks 0-7 on the adapter's node, ranks 8-15 all on node $spill" \
	test "$(jq -r '[.ranks[] | .mems] | join(" ")' <<<"$OUT")" = \
	"$(printf "$home %.0s" 1 2 3 4 5 6 7 8)$(printf "$spill %.0s" 1 2 3 4 5 6 7)$spill"
check "the man page says so" grep -q "ranks 8\\\\-15 all go to NUMA node $spill" "$MAN"

# The 8-rank example writes a rankfile; the mpirun line printed after it
# must be the one the file's header gives (FILE = rankfile).
cmd=$(example 'ntasks 8 \-\-policy hca\-near \-\-format ompi')
tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
(cd "$tmp" && eval "$cmd")
line=$(sed -n 's/^\$ \(mpirun .*rankfile.*\)$/\1/p' "$MAN" | sed 's/\\-/-/g' | head -1)
check "the 8-rank ompi example runs as printed and writes 8 ranks" test "$(grep -c '^rank ' "$tmp/rankfile")" = 8
check "its mpirun line is the one the rankfile's header gives" \
	grep -qxF "#   ${line//=rankfile /=FILE }" "$tmp/rankfile"
rm -rf "$tmp"
done_testing
