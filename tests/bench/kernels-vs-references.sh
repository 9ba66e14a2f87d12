#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kernels-vs-references.sh - numaplan's kernels against the reference codes
# that Debian does not ship: RIKEN's himenoBMTxps, the OSU Micro-Benchmarks,
# HPL 2.3 and McCalpin's stream.c.  Their source never enters this
# repository, so they were built and run by hand, interleaved with the
# kernels (A B A B ..., see BENCHMARKS.md for dates, commands and flags);
# this script
#   1. prints those recorded ratios (tests/bench/references.tsv), and
#   2. runs numaplan-himeno now at sizes S and M on 1 and 2 ranks and
#      prints its MFLOPS next to the recorded reference figure;
#   3. with NP_HIMENO_REF=DIR (your own build of himenoBMTxps: DIR/S-111/bmt,
#      DIR/S-211/bmt, DIR/M-111/bmt, DIR/M-211/bmt from paramset.sh SIZE PX
#      PY PZ and mpicc.mpich -O3 -march=native), runs the reference and
#      numaplan-himeno in interleaved pairs instead and prints the median
#      ratio of the pairs.
#
#   tests/bench/kernels-vs-references.sh [-s SECONDS] [-p PAIRS]
#
#   -s SECONDS  numaplan-himeno's --seconds in step 2 (default 20); in step
#               3 it is 60, as the reference's fixed target
#   -p PAIRS    pairs per case in step 3 (default 5)
#
# Needs mpiexec.mpich, jq and the kernels built in $NP_BUILDDIR.  A benchmark,
# not a test: it asserts nothing.  On a shared machine single figures move
# by tens of percent; only the interleaved ratios of step 3 (or of
# BENCHMARKS.md) compare the codes.
set -u
SECS=20 PAIRS=5
while getopts "s:p:h" opt; do
	case $opt in
	s) SECS=$OPTARG ;;
	p) PAIRS=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-s SECONDS] [-p PAIRS]" >&2; exit 2 ;;
	esac
done
for v in "$SECS" "$PAIRS"; do
	case $v in '' | *[!0-9]* | 0) echo "$0: '$v' is not a positive integer" >&2; exit 2 ;; esac
done
NP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${NP_BUILDDIR:=$NP_SRCDIR}"
K=$NP_BUILDDIR/kernels
REF=$NP_SRCDIR/tests/bench/references.tsv
die() { echo "$0: $*" >&2; exit 1; }
command -v mpiexec.mpich >/dev/null || die "mpiexec.mpich not found: apt-get install mpich"
command -v jq >/dev/null || die "jq not found: apt-get install jq"
[ -f "$REF" ] || die "$REF is missing"

echo "# kernels-vs-references: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "# 1. recorded by hand, interleaved pairs (BENCHMARKS.md): ratio = numaplan / reference"
echo "#    (latency: reference / numaplan, so that above 1 is better everywhere)"
awk -F'\t' '
	/^#/ || NF < 9 { next }
	!hdr { printf "%-10s %-8s %-34s %12s %12s %-6s %7s %13s %5s\n", "date", "kernel", "case",
	       "numaplan", "reference", "unit", "ratio", "pair range", "pairs"; hdr = 1 }
	{ printf "%-10s %-8s %-34s %12s %12s %-6s %7s %13s %5s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' "$REF"

[ -x "$K/numaplan-himeno" ] || die "$K/numaplan-himeno is not built (NP_BUILDDIR=$NP_BUILDDIR)"
export OMP_NUM_THREADS=1
himeno() { # size ranks seconds: MFLOPS or nothing
	local grid=1x1x1
	[ "$2" = 2 ] && grid=2x1x1
	mpiexec.mpich -n "$2" -bind-to core "$K/numaplan-himeno" --size "$1" --grid "$grid" \
		--seconds "$3" --json 2>/dev/null | jq -r 'select(.validated == true) | .mflops'
}
recorded() { # case: the recorded reference MFLOPS
	awk -F'\t' -v c="$1" '$2 == "himeno" && $3 == c { print $5; exit }' "$REF"
}
med() { printf '%s\n' "$@" | grep -v n/a | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.3f\n", a / b }'; }

echo
if [ -z "${NP_HIMENO_REF:-}" ]; then
	echo "# 2. numaplan-himeno now (--seconds $SECS), against the recorded reference MFLOPS"
	echo "#    (not measured side by side: indicative only; set NP_HIMENO_REF to measure)"
	printf '%-30s %12s %12s %7s\n' "case" "numaplan" "ref (rec.)" "ratio"
	for c in S:1 S:2 M:1 M:2; do
		sz=${c%:*} n=${c#*:}
		name="$sz $n rank$([ "$n" = 2 ] && echo s), grid $([ "$n" = 2 ] && echo 2x1x1 || echo 1x1x1)"
		m=$(himeno "$sz" "$n" "$SECS")
		r=$(recorded "$name")
		printf '%-30s %12.1f %12s %7s\n' "$name" "${m:-0}" "${r:-n/a}" "$(ratio "$m" "$r")"
	done
	exit 0
fi

echo "# 3. numaplan-himeno (--seconds 60) and $NP_HIMENO_REF/*/bmt, $PAIRS interleaved pairs per case"
printf '%-30s %12s %12s %7s %13s\n' "case" "numaplan" "reference" "ratio" "pair range"
for c in S:1 S:2 M:1 M:2; do
	sz=${c%:*} n=${c#*:}
	dir=$NP_HIMENO_REF/$sz-$([ "$n" = 2 ] && echo 211 || echo 111)
	name="$sz $n rank$([ "$n" = 2 ] && echo s), grid $([ "$n" = 2 ] && echo 2x1x1 || echo 1x1x1)"
	[ -x "$dir/bmt" ] || { printf '%-30s %s\n' "$name" "no $dir/bmt"; continue; }
	ratios=() as=() bs=()
	for ((i = 0; i < PAIRS; i++)); do
		a=$(himeno "$sz" "$n" 60)
		b=$(mpiexec.mpich -n "$n" -bind-to core "$dir/bmt" | awk '/MFLOPS measured/ { print $4 }')
		as+=("$a") bs+=("$b") ratios+=("$(ratio "$a" "$b")")
	done
	lo=$(printf '%s\n' "${ratios[@]}" | grep -v n/a | sort -g | head -1)
	hi=$(printf '%s\n' "${ratios[@]}" | grep -v n/a | sort -g | tail -1)
	printf '%-30s %12s %12s %7s %13s\n' "$name" "$(med "${as[@]}")" "$(med "${bs[@]}")" \
		"$(med "${ratios[@]}")" "$lo-$hi"
done
