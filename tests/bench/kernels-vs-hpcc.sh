#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# kernels-vs-hpcc.sh - numaplan's HPL, STREAM and ping-pong kernels against
# Debian's hpcc (the HPC Challenge suite: HPL, STREAM, ping-pong) on this
# machine, at the same sizes, in one run.  Prints the figures side by side
# with the ratios and the goals:
#   numaplan-stream Triad       >= 1.0x  hpcc STREAM Triad (per-process x processes)
#   numaplan-hpl Gflops         >= 0.85x hpcc HPL Gflops (same N, NB, P x Q)
#   numaplan-osu 8-byte latency within 10% of hpcc's ping-pong latency
#
#   tests/bench/kernels-vs-hpcc.sh [-N N2] [-M N1] [-b NB] [-r REPEAT] [-n NICE] [-o DIR]
#
#   -N N2      HPL order for the two-rank runs, grid 1 x 2 (default 8000)
#   -M N1      HPL order for the one-rank runs, grid 1 x 1 (default 6000)
#   -b NB      HPL block size (default 192)
#   -r REPEAT  HPL runs per program and size; the best counts (default 5)
#   -n NICE    run every benchmark at this nice level (default -15, as root),
#              so that other work on a shared machine disturbs hpcc and the
#              kernels less; 0 to leave the priority alone
#   -o DIR     keep every input and output file there (default: a temp dir)
#
# Needs: hpcc (apt-get install hpcc, which brings Open MPI), MPICH's
# mpiexec.mpich, jq, and the kernels built in $NP_BUILDDIR (default: the
# source tree).  hpcc runs under Open MPI's launcher; the numaplan kernels
# are MPICH programs and run under mpiexec.mpich, never the mpirun/mpiexec
# alternatives, which hpcc's Open MPI takes over.
#
# Threads: the two-rank runs use one BLAS thread per rank and bind each rank
# to a core (both launchers); the one-rank HPL runs are not bound and let
# the BLAS use every core.  hpcc sizes its STREAM vectors from the HPL
# matrix (N2^2 / 2 ranks / 3 vectors); numaplan-stream gets the same
# per-thread vector length and as many threads as hpcc has processes.
set -u
N2=8000 N1=6000 NB=192 REPEAT=5 OUTDIR= NICE=-15
while getopts "N:M:b:r:n:o:h" opt; do
	case $opt in
	N) N2=$OPTARG ;;
	M) N1=$OPTARG ;;
	b) NB=$OPTARG ;;
	r) REPEAT=$OPTARG ;;
	n) NICE=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	h) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: $0 [-N N2] [-M N1] [-b NB] [-r REPEAT] [-n NICE] [-o DIR]" >&2; exit 2 ;;
	esac
done
for v in "$N2" "$N1" "$NB" "$REPEAT"; do
	case $v in '' | *[!0-9]*) echo "$0: '$v' is not a positive integer" >&2; exit 2 ;; esac
	[ "$v" -ge 1 ] || { echo "$0: '$v' must be at least 1" >&2; exit 2; }
done
case $NICE in -[0-9]* | [0-9]*) ;; *) echo "$0: -n '$NICE' is not a nice level" >&2; exit 2 ;; esac
[ "$NICE" -lt 0 ] && [ "$(id -u)" -ne 0 ] && NICE=0

NP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${NP_BUILDDIR:=$NP_SRCDIR}"
K=$NP_BUILDDIR/kernels
die() { echo "$0: $*" >&2; exit 1; }
command -v hpcc >/dev/null || die "hpcc not found: apt-get install hpcc"
command -v mpirun.openmpi >/dev/null || die "mpirun.openmpi not found (comes with hpcc)"
command -v mpiexec.mpich >/dev/null || die "mpiexec.mpich not found: apt-get install mpich"
command -v jq >/dev/null || die "jq not found: apt-get install jq"
for k in numaplan-hpl numaplan-stream numaplan-osu; do
	[ -x "$K/$k" ] || die "$K/$k is not built (NP_BUILDDIR=$NP_BUILDDIR)"
done
# The kernels must be MPICH programs even though Open MPI now owns mpicc.
for k in numaplan-hpl numaplan-osu; do
	ldd "$K/$k" | grep -q 'libmpich\.so' || die "$k is not linked with MPICH"
	ldd "$K/$k" | grep -q 'libmpi\.so\.[0-9]' && die "$k is linked with Open MPI"
done

if [ -z "$OUTDIR" ]; then
	OUTDIR=$(mktemp -d /tmp/kernels-vs-hpcc.XXXXXX)
fi
mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)
LOG=$OUTDIR/commands.log
: >"$LOG"
start=$(date +%s)

# Run a command, logging it; stdout to $1.
logrun() { # outfile cmd...
	local out=$1; shift
	echo "nice -n $NICE $*" >>"$LOG"
	nice -n "$NICE" "$@" >"$out" 2>>"$OUTDIR/stderr.log"
}

OMPI="mpirun.openmpi --allow-run-as-root --oversubscribe"
MPICH=mpiexec.mpich

# hpccinf.txt: the Debian example with our N (REPEAT times), NB and grid.
hpccinf() { # dir n p q
	local ns=() i
	for ((i = 0; i < REPEAT; i++)); do ns+=("$2"); done
	mkdir -p "$1"
	cat >"$1/hpccinf.txt" <<EOF
HPLinpack benchmark input file
Innovative Computing Laboratory, University of Tennessee
HPL.out      output file name (if any)
8            device out (6=stdout,7=stderr,file)
$REPEAT            # of problems sizes (N)
${ns[*]}         Ns
1            # of NBs
$NB          NBs
0            PMAP process mapping (0=Row-,1=Column-major)
1            # of process grids (P x Q)
$3            Ps
$4            Qs
16.0         threshold
1            # of panel fact
2            PFACTs (0=left, 1=Crout, 2=Right)
1            # of recursive stopping criterium
4            NBMINs (>= 1)
1            # of panels in recursion
2            NDIVs
1            # of recursive panel fact.
1            RFACTs (0=left, 1=Crout, 2=Right)
1            # of broadcast
1            BCASTs (0=1rg,1=1rM,2=2rg,3=2rM,4=Lng,5=LnM)
1            # of lookahead depth
1            DEPTHs (>=0)
2            SWAP (0=bin-exch,1=long,2=mix)
64           swapping threshold
0            L1 in (0=transposed,1=no-transposed) form
0            U  in (0=transposed,1=no-transposed) form
1            Equilibration (0=no,1=yes)
8            memory alignment in double (> 0)
##### This line (no. 32) is ignored (it serves as a separator). ######
0                      		Number of additional problem sizes for PTRANS
1200 10000 30000        	values of N
0                       	number of additional blocking sizes for PTRANS
40 9 8 13 13 20 16 32 64       	values of NB
EOF
}
median_wr() { # hpccoutf: median Gflops over the PASSED WR lines
	awk '/^WR/ { g = $7 } /\.\.\.\.\.\. PASSED/ && g != "" { print g + 0; g = "" }' "$1" |
		sort -g | awk '{ v[NR] = $1 } END { if (NR) printf "%.4f\n", v[int((NR + 1) / 2)] }'
}
summary() { # hpccoutf key
	sed -n "s/^$2=//p" "$1" | head -1
}
best_wr() { # hpccoutf: best Gflops over the PASSED WR lines
	awk '/^WR/ { g = $7 } /\.\.\.\.\.\. PASSED/ && g != "" { if (g + 0 > best) best = g + 0; g = "" }
	     END { if (best > 0) printf "%.4f\n", best }' "$1"
}

echo "# kernels-vs-hpcc: $(date -u '+%Y-%m-%d %H:%M UTC'), output in $OUTDIR"
echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs," \
     "$(free -g | awk '/^Mem:/ {print $2}') GiB"

# ---- hpcc, two ranks (1 x 2): HPL, StarSTREAM/SingleSTREAM, ping-pong ----
echo "# hpcc 1x2 N=$N2 NB=$NB (HPL x$REPEAT, STREAM, ping-pong, and hpcc's other tests)..."
H2=$OUTDIR/hpcc-1x2
hpccinf "$H2" "$N2" 1 2
(cd "$H2" && logrun "$H2/stdout" env OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 \
	$OMPI --bind-to core -x OPENBLAS_NUM_THREADS -x OMP_NUM_THREADS -np 2 hpcc) ||
	die "hpcc 1x2 failed (see $H2)"
H2OUT=$H2/hpccoutf.txt
hpcc_hpl2=$(best_wr "$H2OUT")
hpcc_star=$(summary "$H2OUT" StarSTREAM_Triad)
hpcc_single=$(summary "$H2OUT" SingleSTREAM_Triad)
hpcc_vec=$(summary "$H2OUT" STREAM_VectorSize)
hpcc_lat_min=$(summary "$H2OUT" MinPingPongLatency_usec)
hpcc_lat_avg=$(summary "$H2OUT" AvgPingPongLatency_usec)

# ---- numaplan-hpl 1 x 2, same N, NB, grid, right after hpcc's -------------
best_json() { # key files...: largest value of key among passed runs
	local key=$1; shift
	cat "$@" | jq -s --arg k "$key" '[.[] | select(.passed == true) | .[$k]] | max // empty'
}
median_json() { # key files...: median over passed runs
	local key=$1; shift
	cat "$@" | jq -s --arg k "$key" '[.[] | select(.passed == true) | .[$k]] | sort |
		if length == 0 then empty else .[(length - 1) / 2 | floor] end'
}
echo "# numaplan-hpl 1x2 N=$N2 (x$REPEAT)..."
for ((i = 1; i <= REPEAT; i++)); do
	logrun "$OUTDIR/hpl-1x2-$i.json" $MPICH -n 2 -bind-to core \
		-genv OPENBLAS_NUM_THREADS 1 -genv OMP_NUM_THREADS 1 \
		"$K/numaplan-hpl" -N "$N2" --nb "$NB" -P 1 -Q 2 --json
done
np_hpl2=$(best_json gflops "$OUTDIR"/hpl-1x2-*.json)

# ---- numaplan-stream: same per-thread vector length as hpcc's per process --
# Ordinary stores, as hpcc's STREAM; also non-temporal stores when this
# numaplan-stream has them (--stores nt), reported on rows of their own.
echo "# numaplan-stream, 2 threads x $hpcc_vec and 1 thread x $hpcc_vec elements..."
stores=normal
"$K/numaplan-stream" --help 2>/dev/null | grep -q -- '--stores' && stores="normal nt"
for st in $stores; do
	sopt=()
	[ "$st" = nt ] && sopt=(--stores nt)
	for ((i = 1; i <= 2; i++)); do
		logrun "$OUTDIR/stream-$st-2t-$i.json" env OMP_PROC_BIND=spread OMP_PLACES=cores \
			"$K/numaplan-stream" --size $((2 * hpcc_vec)) --threads 2 "${sopt[@]}" --json
		logrun "$OUTDIR/stream-$st-1t-$i.json" "$K/numaplan-stream" --size "$hpcc_vec" \
			--threads 1 "${sopt[@]}" --json
	done
done
best_stream() { cat "$@" 2>/dev/null | jq -s '[.[] | select(.validated == true) | .triad_mbps] | max // empty'; }
np_stream2=$(best_stream "$OUTDIR"/stream-normal-2t-*.json)
np_stream1=$(best_stream "$OUTDIR"/stream-normal-1t-*.json)
np_stream2nt=$(best_stream "$OUTDIR"/stream-nt-2t-*.json)
np_stream1nt=$(best_stream "$OUTDIR"/stream-nt-1t-*.json)

# ---- numaplan-osu latency, 8 bytes as hpcc's ping-pong -----------------------
echo "# numaplan-osu latency, 2 ranks..."
for ((i = 1; i <= 3; i++)); do
	logrun "$OUTDIR/osu-latency-$i.json" $MPICH -n 2 -bind-to core \
		"$K/numaplan-osu" latency -m 0:64 --json
done
np_lat=$(cat "$OUTDIR"/osu-latency-*.json |
	jq -s '[.[] | .results[] | select(.size == 8) | .value] | min // empty')

# ---- hpcc, one rank (1 x 1), BLAS on all cores: HPL --------------------------
echo "# hpcc 1x1 N=$N1 NB=$NB (HPL x$REPEAT and hpcc's other tests)..."
H1=$OUTDIR/hpcc-1x1
hpccinf "$H1" "$N1" 1 1
(cd "$H1" && logrun "$H1/stdout" env -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS \
	$OMPI --bind-to none -np 1 hpcc) || die "hpcc 1x1 failed (see $H1)"
hpcc_hpl1=$(best_wr "$H1/hpccoutf.txt")

# ---- numaplan-hpl 1 x 1, right after hpcc's ------------------------------------
echo "# numaplan-hpl 1x1 N=$N1 (x$REPEAT)..."
for ((i = 1; i <= REPEAT; i++)); do
	logrun "$OUTDIR/hpl-1x1-$i.json" env -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS \
		$MPICH -n 1 "$K/numaplan-hpl" -N "$N1" --nb "$NB" -P 1 -Q 1 --json
done
np_hpl1=$(best_json gflops "$OUTDIR"/hpl-1x1-*.json)

# ---- table ---------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print "n/a"; else printf "%.3f\n", a / b }'; }
verdict() { # ratio op goal
	awk -v r="$1" -v op="$2" -v g="$3" 'BEGIN {
		if (r == "n/a") { print "n/a"; exit }
		ok = (op == ">=") ? (r + 0 >= g + 0) : (r + 0 <= g + 0)
		print ok ? "MET" : "MISSED" }'
}
fmt() { awk -v v="$1" 'BEGIN { if (v == "") print "n/a"; else if (v + 0 < 10) printf "%.3f\n", v; else printf "%.1f\n", v }'; }
row() { # name hpcc numaplan ratio goal-op goal
	printf '%-34s %14s %14s %8s   %s %-5s %s\n' "$1" "$(fmt "$2")" "$(fmt "$3")" "$4" "$5" "$6" "$(verdict "$4" "$5" "$6")"
}
star_total=$(awk -v s="$hpcc_star" 'BEGIN { if (s != "") printf "%.1f\n", s * 2 * 1000 }')
single_mbps=$(awk -v s="$hpcc_single" 'BEGIN { if (s != "") printf "%.1f\n", s * 1000 }')
r_hpl2=$(ratio "$np_hpl2" "$hpcc_hpl2")
r_hpl1=$(ratio "$np_hpl1" "$hpcc_hpl1")
r_st2=$(ratio "$np_stream2" "$star_total")
r_st1=$(ratio "$np_stream1" "$single_mbps")
r_st2nt=$(ratio "$np_stream2nt" "$star_total")
r_st1nt=$(ratio "$np_stream1nt" "$single_mbps")
r_lat=$(ratio "$np_lat" "$hpcc_lat_avg")

echo
printf '%-34s %14s %14s %8s   %s\n' "metric" "hpcc" "numaplan" "ratio" "goal"
printf '%-34s %14s %14s %8s   %s\n' "----------------------------------" "--------------" "--------------" "--------" "-------------"
row "HPL Gflops 1x2 N=$N2 NB=$NB" "$hpcc_hpl2" "$np_hpl2" "$r_hpl2" ">=" 0.85
row "HPL Gflops 1x1 N=$N1 NB=$NB" "$hpcc_hpl1" "$np_hpl1" "$r_hpl1" ">=" 0.85
row "STREAM Triad MB/s, 2 x $hpcc_vec" "$star_total" "$np_stream2" "$r_st2" ">=" 1.0
row "STREAM Triad MB/s, 1 x $hpcc_vec" "$single_mbps" "$np_stream1" "$r_st1" ">=" 1.0
if [ -n "$np_stream2nt" ]; then
	row "  same, 2 x, numaplan --stores nt" "$star_total" "$np_stream2nt" "$r_st2nt" ">=" 1.0
	row "  same, 1 x, numaplan --stores nt" "$single_mbps" "$np_stream1nt" "$r_st1nt" ">=" 1.0
fi
row "ping-pong latency us, 8 B" "$hpcc_lat_avg" "$np_lat" "$r_lat" "<=" 1.10
echo
echo "# HPL medians (Gflops): 1x2 hpcc $(median_wr "$H2OUT") numaplan $(median_json gflops "$OUTDIR"/hpl-1x2-*.json);" \
     "1x1 hpcc $(median_wr "$H1/hpccoutf.txt") numaplan $(median_json gflops "$OUTDIR"/hpl-1x1-*.json)"
echo "# hpcc: HPL best of $REPEAT; StarSTREAM_Triad $hpcc_star GB/s per process x 2;" \
     "SingleSTREAM_Triad $hpcc_single GB/s; ping-pong min/avg $hpcc_lat_min/$hpcc_lat_avg us (Open MPI)"
echo "# numaplan: HPL best of $REPEAT (all PASSED runs); STREAM best of 2; osu latency best of 3 (MPICH)"
echo "# ratios: numaplan / hpcc (latency: lower is better, goal <= 1.10)"
echo "# commands: $LOG; elapsed $(( $(date +%s) - start )) s"
