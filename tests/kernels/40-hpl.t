#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan-hpl: HPL's acceptance test on 1x1, 1x2 and 2x1 grids at the sizes
# that hit block edges, the failure path on a singular matrix, the JSON
# fields, a grid-independent matrix and solution, and every bad argument.
# Expectations come from HPL's definitions (threshold 16, the Gflops
# formula, the matrix being a function of the seed only), not from output.
source "$(dirname "$0")/../tap.sh"

HPL=numaplan-hpl
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
if ! command -v $HPL >/dev/null; then
	skip "numaplan-hpl not built (needs MPICH and a BLAS)"
	done_testing; exit
fi
if ! command -v "$MPIEXEC" >/dev/null; then
	skip "$MPIEXEC not found"
	done_testing; exit
fi
# One BLAS thread per rank: two ranks on two cores must not oversubscribe.
export OPENBLAS_NUM_THREADS=1 BLIS_NUM_THREADS=1 OMP_NUM_THREADS=1

hpl() { # ranks, args...
	local n=$1; shift
	run "$MPIEXEC" -n "$n" $HPL "$@"
}
# The number after '=' on the residual line, and its verdict.
resid() { echo "$OUT" | sed -n 's/^||Ax-b||_oo.*N)= *\([^ ]*\) .*/\1/p'; }
verdict() { echo "$OUT" | sed -n 's/^||Ax-b||_oo.*\.\.\.\.\.\. \([A-Z]*\).*/\1/p'; }
below16() { awk -v r="$1" 'BEGIN { exit !(r != "" && r + 0 == r && r >= 0 && r < 16) }'; }
# The WR line must echo N NB P Q in HPL's column order.
wr_is() { # n nb p q
	echo "$OUT" | awk -v n="$1" -v nb="$2" -v p="$3" -v q="$4" \
		'$1 ~ /^W[RC]/ && $2 == n && $3 == nb && $4 == p && $5 == q { f = 1 }
		 END { exit !f }'
}

NB=32
for grid in "1 1 1" "2 1 2" "2 2 1"; do
	set -- $grid
	ranks=$1 P=$2 Q=$3
	for N in 1 $((NB - 1)) $((NB + 1)) 500; do
		hpl $ranks -N $N --nb $NB -P $P -Q $Q
		r=$(resid)
		if [ $RC -eq 0 ] && [ "$(verdict)" = PASSED ] && below16 "$r" &&
		   wr_is $N $NB $P $Q; then
			ok "N=$N NB=$NB ${P}x$Q: PASSED, residual $r < 16, exit 0"
		else
			notok "N=$N NB=$NB ${P}x$Q: rc=$RC verdict=$(verdict) residual=$r"
			diag "$OUT"; diag "$ERR"
		fi
	done
	check "${P}x$Q: one placement line per rank" \
		[ "$(echo "$OUT" | grep -c '^# placement: .*rank ')" -eq $ranks ]
done

# A block size that does not divide N and several blocks per process, so
# pivots cross process rows.
hpl 2 -N 203 --nb 7 -P 2 -Q 1
check "N=203 NB=7 2x1 (pivot rows across processes): PASSED" \
	eval '[ $RC -eq 0 ] && [ "$(verdict)" = PASSED ]'
hpl 2 -N 203 --nb 7 -P 1 -Q 2
check "N=203 NB=7 1x2: PASSED" eval '[ $RC -eq 0 ] && [ "$(verdict)" = PASSED ]'

# --- singular matrix: must fail, clearly, with a non-zero exit --------------
for grid in "1 1 1" "2 1 2" "2 2 1"; do
	set -- $grid
	hpl $1 -N 100 --nb 16 -P $2 -Q $3 --singular
	if [ $RC -ne 0 ] && { [ "$(verdict)" = FAILED ] ||
	                     echo "$ERR" | grep -qi singular; } &&
	   ! echo "$OUT" | grep -q PASSED; then
		ok "--singular ${2}x$3: fails (exit $RC)"
	else
		notok "--singular ${2}x$3: rc=$RC verdict=$(verdict)"; diag "$OUT"; diag "$ERR"
	fi
done
hpl 1 -N 1 --singular
check "--singular N=1 (A = 0): fails" eval '[ $RC -ne 0 ] && ! echo "$OUT" | grep -q PASSED'
# The zeroed column is N/2 (documented); its pivot is the first zero one.
hpl 1 -N 64 --nb 8 --singular --json
check "--singular --json: passed false, residual null, zero pivot in column N/2" \
	eval '[ $RC -ne 0 ] && echo "$OUT" | jq -e ".passed == false and .residual == null and .zero_pivot_column == 32" >/dev/null'

# --- JSON -----------------------------------------------------------------
hpl 2 -N 300 --nb 40 -P 1 -Q 2 --json
check "--json exits 0" [ $RC -eq 0 ]
check "--json: stdout is a single JSON line" \
	eval '[ "$(echo "$OUT" | wc -l)" -eq 1 ] && echo "$OUT" | jq -e . >/dev/null'
check "--json: n nb p q are the integers asked for" \
	eval 'echo "$OUT" | jq -e ".n == 300 and .nb == 40 and .p == 1 and .q == 2 and
		([.n,.nb,.p,.q] | map(type == \"number\" and . == floor) | all)" >/dev/null'
check "--json: seconds, gflops, residual are numbers, passed is a boolean" \
	eval 'echo "$OUT" | jq -e "(.seconds|type) == \"number\" and (.gflops|type) == \"number\" and
		(.residual|type) == \"number\" and (.passed|type) == \"boolean\"" >/dev/null'
kflags=$(sed -n 's/^KERNEL_CFLAGS = //p' "$NP_BUILDDIR/kernels/Makefile" 2>/dev/null)
check "--json: build flags end with the build tree's KERNEL_CFLAGS '$kflags'" \
	eval 'echo "$OUT" | jq -e "(.build.compiler|type) == \"string\" and (.build.cflags|endswith(\$k))" --arg k "$kflags" >/dev/null'
# OpenBLAS's kernels: what the library itself says it chose (its verbose
# "Core: NAME" line), and OPENBLAS_CORETYPE followed
if echo "$OUT" | jq -e '.blas == "openblas"' >/dev/null; then
	core=$(OPENBLAS_VERBOSE=2 $HPL -N 64 --nb 8 2>&1 >/dev/null | sed -n 's/^Core: //p' | head -1)
	check "--json: blas_core '$core', as OpenBLAS's verbose line says, also in build.blas" \
		eval '[ -n "$core" ] && echo "$OUT" | jq -e --arg c "$core" ".blas_core == \$c and .build.blas == \"openblas, core \" + \$c" >/dev/null'
	if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
		run env OPENBLAS_CORETYPE=Haswell $HPL -N 64 --nb 8 --json
		check "OPENBLAS_CORETYPE=Haswell on an AVX2 CPU: blas_core Haswell" \
			eval '[ $RC -eq 0 ] && echo "$OUT" | jq -e ".blas_core == \"Haswell\"" >/dev/null'
		hpl 2 -N 300 --nb 40 -P 1 -Q 2 --json
	else
		skip "no AVX2 and FMA: OPENBLAS_CORETYPE=Haswell not tried"
	fi
else
	skip "built with BLIS: no blas_core"
fi
check "--json: passed is true and residual < 16" \
	eval 'echo "$OUT" | jq -e ".passed == true and .residual >= 0 and .residual < 16" >/dev/null'
# HPL's operation count, evaluated here from the reported time.
check "--json: gflops = (2/3 N^3 + 3/2 N^2) / seconds / 1e9" \
	eval 'echo "$OUT" | jq -e "(.seconds > 0) and
		(((2/3*300*300*300 + 1.5*300*300) / .seconds / 1e9 - .gflops) | fabs) <= 1e-6 * .gflops" >/dev/null'
check "--json: placement on stderr, one per rank" \
	[ "$(echo "$ERR" | grep -c '^# placement:')" -eq 2 ]

# --- the matrix does not depend on the grid; neither does x ---------------
declare -A SUM X1
for grid in "1 1 1" "2 1 2" "2 2 1"; do
	set -- $grid
	hpl $1 -N 257 --nb 24 -P $2 -Q $3 --seed 7 --json
	SUM[$2x$3]=$(echo "$OUT" | jq -r .checksum)
	X1[$2x$3]=$(echo "$OUT" | jq -r .x_norm_1)
done
check "same seed: same matrix checksum on 1x1, 1x2 and 2x1 (${SUM[1x1]})" \
	eval '[ -n "${SUM[1x1]}" ] && [ "${SUM[1x1]}" != null ] &&
	      [ "${SUM[1x1]}" = "${SUM[1x2]}" ] && [ "${SUM[1x1]}" = "${SUM[2x1]}" ]'
check "same seed: same ||x||_1 on 1x1, 1x2, 2x1 (to 1e-10 relative)" \
	awk -v a="${X1[1x1]}" -v b="${X1[1x2]}" -v c="${X1[2x1]}" \
	'function d(x, y) { return (x > y ? x - y : y - x) / x }
	 BEGIN { exit !(a > 0 && d(a, b) < 1e-10 && d(a, c) < 1e-10) }'
hpl 1 -N 257 --nb 64 --seed 7 --json
check "the block size does not change the matrix either" \
	[ "$(echo "$OUT" | jq -r .checksum)" = "${SUM[1x1]}" ]
hpl 1 -N 257 --nb 24 --seed 8 --json
check "another seed gives another matrix" \
	eval '[ $RC -eq 0 ] && [ "$(echo "$OUT" | jq -r .checksum)" != "${SUM[1x1]}" ]'

# --- help and bad arguments -----------------------------------------------
hpl 1 --help
check "--help exits 0 and documents -N, --nb, -P, -Q, --seed, --json" \
	eval '[ $RC -eq 0 ] && for o in -N --nb -P -Q --seed --json; do
		echo "$OUT" | grep -q -- "$o" || exit 1; done'

bad() { # what, ranks, args... : exit 2, a message naming the problem, no result
	local what=$1 n=$2; shift 2
	hpl $n "$@"
	if [ $RC -eq 2 ] && [ -n "$ERR" ] && ! echo "$OUT" | grep -q '^W[RC]' &&
	   ! echo "$ERR" | grep -qi 'segmentation\|abort'; then
		ok "bad argument rejected: $what ($(echo "$ERR" | head -1))"
	else
		notok "bad argument: $what: rc=$RC"; diag "$OUT"; diag "$ERR"
	fi
}
bad "negative N" 1 -N -5
bad "N zero" 1 -N 0
bad "N garbage" 1 -N abc
bad "N trailing garbage" 1 -N 12x
bad "N empty" 1 -N ""
bad "N fractional" 1 -N 1.5
bad "N overflow" 1 -N 99999999999999999999999
bad "NB zero" 1 --nb 0
bad "NB negative" 1 --nb -4
bad "NB garbage" 1 --nb x
bad "P zero" 1 -P 0
bad "Q garbage" 1 -Q two
bad "seed negative" 1 --seed -1
bad "seed garbage" 1 --seed 0x
bad "P x Q != ranks (2x2 on 2 ranks)" 2 -P 2 -Q 2
bad "P x Q != ranks (1x1 on 2 ranks)" 2 -P 1 -Q 1
bad "P does not divide ranks" 2 -P 3
bad "unknown option" 1 --bogus
bad "unknown short option" 1 -x
bad "missing value" 1 -N
bad "stray argument" 1 -N 10 extra
hpl 2 -P 2 -Q 2
check "P x Q != ranks: the message says so" \
	eval 'echo "$ERR" | grep -q "2 x 2" && echo "$ERR" | grep -q "2 are running"'
hpl 1 -N -5
check "negative N: the message names -N and the value" \
	eval 'echo "$ERR" | grep -q -- "-N" && echo "$ERR" | grep -q -- "-5"'

done_testing
