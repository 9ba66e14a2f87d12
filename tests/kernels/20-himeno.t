#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan-himeno: gosa against an independent reference, gosa invariance
# over every decomposition of 1, 2 and 4 ranks, JSON, output, bad args.
source "$(dirname "$0")/../tap.sh"

MPIEXEC=${MPIEXEC:-mpiexec.mpich}
if ! command -v numaplan-himeno >/dev/null || ! command -v "$MPIEXEC" >/dev/null; then
	skip "numaplan-himeno or $MPIEXEC missing"
	done_testing; exit
fi
# One thread per rank: the machine may have only 2 cores, and 4 ranks
# already oversubscribe it.
export OMP_NUM_THREADS=1
T="timeout 300"
jqe() { jq -e "$@" >/dev/null; }
# relclose A B TOL: |A-B| <= TOL*|B|
relclose() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
	d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(d <= t * m && b == b) }'; }

run numaplan-himeno --help
check "--help exits 0 and names the options" bash -c '[ "$1" -eq 0 ] &&
	for o in --size --grid --iterations --seconds --json; do grep -q -- "$o" <<<"$2" || exit 1; done' _ "$RC" "$OUT"

# Independent reference: the same problem in double precision.  With the
# benchmark's coefficients (a = c = 1, b = 0, a[3] = 1/6, bnd = 1, no
# source) the 19-point stencil is the 7-point average; p starts as
# (i / (mx-1))^2 and the outer layer stays fixed.  XS is 32 x 32 x 64.
# With a second argument B the cross-term coefficients are b = B (the
# original's b[0..2] terms: mixed differences over (i,j), (j,k), (i,k)).
reference_gosa() {
	python3 - "$1" "${2:-0}" <<'PY'
import sys
N = int(sys.argv[1]); B = float(sys.argv[2]); mx, my, mz = 32, 32, 64
den = float((mx - 1) ** 2)
p = [[[i * i / den] * mz for j in range(my)] for i in range(mx)]
g = 0.0
for n in range(N):
    g = 0.0
    w = [[row[:] for row in plane] for plane in p]
    for i in range(1, mx - 1):
        pi, pm, pp = p[i], p[i - 1], p[i + 1]
        for j in range(1, my - 1):
            r, rm, rp, ri_m, ri_p = pi[j], pi[j - 1], pi[j + 1], pm[j], pp[j]
            wr = w[i][j]
            for k in range(1, mz - 1):
                s0 = ri_p[k] + rp[k] + r[k + 1] + ri_m[k] + rm[k] + r[k - 1]
                if B:
                    s0 += B * (pp[j + 1][k] - pp[j - 1][k] - pm[j + 1][k] + pm[j - 1][k])
                    s0 += B * (rp[k + 1] - rm[k + 1] - rp[k - 1] + rm[k - 1])
                    s0 += B * (ri_p[k + 1] - ri_m[k + 1] - ri_p[k - 1] + ri_m[k - 1])
                ss = s0 / 6.0 - r[k]
                g += ss * ss
                wr[k] = r[k] + 0.8 * ss
    p = w
print("%.12e" % g)
PY
}

run $T numaplan-himeno --size XS --iterations 3 --json
check "1 rank, 3 iterations: exit 0" test "$RC" -eq 0
check "json: documented fields and types" jqe '
	(.mflops|type) == "number" and .mflops > 0 and
	(.gosa|type) == "number" and .gosa > 0 and
	.iterations == 3 and (.seconds|type) == "number" and .seconds > 0 and
	.grid == "1x1x1" and .size == "XS" and .validated == true and
	(.placement|length) == 1' <<<"$OUT"
kflags=$(sed -n 's/^KERNEL_CFLAGS = //p' "$NP_BUILDDIR/kernels/Makefile" 2>/dev/null)
check "json: build flags end with the build tree's KERNEL_CFLAGS '$kflags'; huge_pages_kb" bash -c '
	jq -e "(.build.compiler|type) == \"string\" and (.build.cflags|endswith(\$k))
	       and (.huge_pages_kb|type) == \"number\"" --arg k "$2" <<<"$1" >/dev/null' _ "$OUT" "$kflags"
# FLOPs: 34 per interior point of the 32 x 32 x 64 grid: 30*30*62*34.
check "json: flop_per_iteration = 30*30*62*34" jqe ".flop_per_iteration == $((30*30*62*34))" <<<"$OUT"
if command -v python3 >/dev/null; then
	ref=$(reference_gosa 3)
	got=$(jq -r .gosa <<<"$OUT")
	# Single-precision p: ss is a difference of O(1) values, so allow 1e-3.
	check "gosa after 3 iterations matches the double-precision reference ($got vs $ref)" relclose "$got" "$ref" 1e-3
else
	skip "python3 missing for the reference gosa"
fi

# Invariance: the same gosa for every decomposition of 1, 2 and 4 ranks.
ITER=10
g1=$($T numaplan-himeno --size XS --iterations $ITER --json 2>/dev/null | jq -r .gosa)
check "1 rank: gosa is a number ($g1)" relclose "$g1" "$g1" 0
for spec in 2:2x1x1 2:1x2x1 2:1x1x2 2:auto 4:4x1x1 4:2x2x1 4:2x1x2 4:1x2x2 4:1x1x4 4:auto; do
	n=${spec%%:*} g=${spec#*:}
	args=(--size XS --iterations $ITER --json)
	[ "$g" != auto ] && args+=(--grid "$g")
	run $T "$MPIEXEC" -n "$n" numaplan-himeno "${args[@]}"
	gn=$(jq -r .gosa <<<"$OUT" 2>/dev/null)
	grid=$(jq -r .grid <<<"$OUT" 2>/dev/null)
	if [ "$RC" -eq 0 ] && relclose "$gn" "$g1" 1e-5 &&
	   { [ "$g" = auto ] || [ "$grid" = "$g" ]; }; then
		ok "$n ranks, grid $grid: gosa $gn = 1-rank gosa $g1"
	else
		notok "$n ranks, grid $g: rc $RC gosa $gn vs $g1 (grid $grid) $ERR"
	fi
done
check "4 ranks: one placement per rank, ranks 0..3" bash -c '
	jq -e "[.placement[].rank] == [0,1,2,3]" <<<"$1" >/dev/null &&
	[ "$(grep -c "^# placement: host .* rank [0-3] thread 0 cpus " <<<"$2")" -eq 4 ]' _ "$OUT" "$ERR"

# --test-coefficients (b = 0.1): the diagonal neighbours enter the stencil,
# so a decomposition split along two dimensions needs correct edge halos
# (face-only exchanges leave them stale).  Decomposition changes only the
# order of the double-precision gosa sum, so the gosa agrees to about
# float precision; 1e-6 is far below the ~2e-5 that stale edges cause.
TB=0.1
run $T numaplan-himeno --size XS --iterations $ITER --json --test-coefficients
gb1=$(jq -r .gosa <<<"$OUT" 2>/dev/null)
check "test coefficients, 1 rank: exit 0, marked in JSON ($gb1)" bash -c '
	[ "$1" -eq 0 ] && jq -e ".test_coefficients == true and .validated == true" <<<"$2" >/dev/null' _ "$RC" "$OUT"
differ() { ! relclose "$@"; }
check "test coefficients change the gosa ($gb1 vs $g1)" differ "$gb1" "$g1" 1e-6
for g in 2x2x1 1x2x2 2x1x2; do
	run $T "$MPIEXEC" -n 4 numaplan-himeno --size XS --iterations $ITER --json --test-coefficients --grid "$g"
	gn=$(jq -r .gosa <<<"$OUT" 2>/dev/null)
	if [ "$RC" -eq 0 ] && relclose "$gn" "$gb1" 1e-6 && jqe ".grid == \"$g\"" <<<"$OUT"; then
		ok "test coefficients, 4 ranks, grid $g: gosa $gn = 1-rank gosa $gb1"
	else
		notok "test coefficients, 4 ranks, grid $g: rc $RC gosa $gn vs $gb1 $ERR"
	fi
done
if command -v python3 >/dev/null; then
	# The b terms' contribution alone: single-precision rounding of p
	# (~1e-4 of gosa) is nearly the same with and without them, so the
	# difference compares well with the reference's.
	run $T numaplan-himeno --size XS --iterations 3 --json --test-coefficients
	gb3=$(jq -r .gosa <<<"$OUT" 2>/dev/null)
	g03=$($T numaplan-himeno --size XS --iterations 3 --json 2>/dev/null | jq -r .gosa)
	rb3=$(reference_gosa 3 $TB)
	r03=$(reference_gosa 3)
	dg=$(awk -v a="$gb3" -v b="$g03" 'BEGIN { printf "%.6e", a - b }')
	dr=$(awk -v a="$rb3" -v b="$r03" 'BEGIN { printf "%.6e", a - b }')
	check "b terms change gosa as in the double-precision reference ($dg vs $dr, 20%)" relclose "$dg" "$dr" 0.2
else
	skip "python3 missing for the reference gosa"
fi
run numaplan-himeno --test-coefficients=1
check "--test-coefficients takes no argument" test "$RC" -eq 2

# Human output: the original's lines, and the decomposition.
run $T "$MPIEXEC" -n 2 numaplan-himeno --size XS --iterations 5 --grid 1x2x1
check "human output: exit 0" test "$RC" -eq 0
check "human output: Himeno's result lines" bash -c '
	grep -q "^Loop executed for 5 times" <<<"$1" && grep -Eq "^Gosa : [0-9.e+-]+ *$" <<<"$1" &&
	grep -Eq "^MFLOPS measured : [0-9.]+" <<<"$1" && grep -Eq "^cpu : [0-9.]+ sec\." <<<"$1" &&
	grep -q "^I-decomp = 1 J-decomp = 2 K-decomp =1" <<<"$1"' _ "$OUT"
check "human output: placement lines for ranks 0 and 1" bash -c '
	grep -q "^# placement: host .* rank 0 thread 0 cpus" <<<"$1" &&
	grep -q "^# placement: host .* rank 1 thread 0 cpus" <<<"$1"' _ "$OUT"

# --seconds: a rehearsal sizes the run.
run $T numaplan-himeno --size XS --seconds 0.3 --json
check "--seconds 0.3: at least one iteration, validated" jqe '.iterations >= 1 and .validated == true' <<<"$OUT"
run $T numaplan-himeno --size XS --seconds 0.3
check "--seconds: prints the rehearsal" grep -q 'Start rehearsal measurement process' <<<"$OUT"

# Two OpenMP threads in one rank give the same gosa too.
run $T numaplan-himeno --size XS --iterations $ITER --threads 2 --json
check "2 threads: same gosa, 2 placement entries" bash -c '
	g=$(jq -r .gosa <<<"$1") && awk -v a="$g" -v b="$2" "BEGIN{d=a-b; if(d<0)d=-d; exit !(d <= 1e-5*b)}" &&
	jq -e "(.placement|length) == 2 and .threads == 2" <<<"$1" >/dev/null' _ "$OUT" "$g1"

# Bad arguments: exit 2 and a message naming the bad value.
bad() { # n expected-text args...
	local n=$1 want=$2; shift 2
	run $T "$MPIEXEC" -n "$n" numaplan-himeno "$@"
	if [ "$RC" -eq 2 ] && grep -qF -- "$want" <<<"$ERR"; then ok "bad args ($n ranks): $*"
	else notok "bad args ($n ranks): $* (rc $RC: $ERR)"; fi
}
bad 1 "'XXL'" --size XXL
bad 1 "'2x2'" --grid 2x2
bad 1 "'2xx1'" --grid 2xx1
bad 1 "'0x1x1'" --grid 0x1x1
bad 2 "needs 4 ranks" --grid 2x2x1
bad 1 "'0'" --iterations 0
bad 1 "'-3'" --iterations -3
bad 1 "'soon'" --seconds soon
bad 1 "exclude each other" --iterations 5 --seconds 3
bad 1 "'--frobnicate'" --frobnicate

done_testing
