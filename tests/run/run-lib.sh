# SPDX-License-Identifier: BSD-3-Clause
# run-lib.sh - shared by the tests/run scripts: a scratch directory, the
# results.json schema check, and whether the vcluster can take jobs.

tmp=$(mktemp -d /tmp/np-run-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
DATA=$NP_SRCDIR/tests/run/data
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml

# The documented fields of results.json (numaplan-run(1), RESULTS), at the
# top, in every experiment, every run and every statistic.
schema_ok() { # file
	jq -e '
	  .schema == "numaplan-results/1" and (.suite|type) == "string" and
	  (.created|type) == "string" and (.mode|type) == "string" and
	  (.repeat|type) == "number" and (.software.numaplan|type) == "string" and
	  (.topology.cores|type) == "number" and (.rpeak|type) == "object" and
	  (.jobs|type) == "array" and (.outliers|type) == "array" and (.left_out|type) == "array" and
	  (.failed_experiments|type) == "number" and (.experiments|length) > 0 and
	  all(.experiments[];
	    (.name|type) == "string" and (.suite|type) == "string" and
	    (.kernel|type) == "string" and (.placement|type) == "object" and
	    (.nodes|type) == "number" and (.ntasks|type) == "number" and
	    (.threads|type) == "number" and (.status|IN("ok","partial","failed","misplaced")) and
	    (.primary_metric|type) == "string" and (.stats|type) == "object" and
	    (.runs|type) == "array" and ([.runs[] | .planned_runs // 1] | add) == .runs_total and
	    all(.runs[]; (.rep|type) == "number" and (.node|type) == "string" and
	        (.status|IN("ok","failed","misplaced")) and (.validated|type) == "boolean" and
	        (.values|type) == "object") and
	    all(.stats[]; .min <= .median and .median <= .max and .min <= .mean and
	        .mean <= .max and .n >= 1))' "$1" >/dev/null
}

# A vcluster that answers, with SLURM_CONF set; false (with a diag) if not.
vcluster_ready() {
	local vc=$NP_SRCDIR/contrib/vcluster/vcluster
	[ -x "$vc" ] || { diag "no contrib/vcluster"; return 1; }
	eval "$("$vc" env 2>/dev/null)"
	[ -n "${SLURM_CONF:-}" ] && timeout 20 sinfo -h >/dev/null 2>&1 || { diag "vcluster not up"; return 1; }
}

# jq -e without the printed value: a check on a JSON file
jqt() { jq -e "$@" >/dev/null; }

# fake_omb DIR: the OSU Micro-Benchmarks' six programs in OMB's install
# layout under DIR, printing OMB's exact output format with fixed figures
# (osu_latency 1.40 us at 8 bytes, osu_allreduce 3.50, osu_alltoall 6.25).
# fake_prog NAME DIR LINES...: an OMB program whose rank 0 prints the lines
# (the other ranks print nothing, as OMB's do), which records its arguments
# in $tmp/args.NAME, and fails OMB's way when FAKE_FAIL is set.
fake_prog() {
	local name=$1 dir=$2 f; shift 2
	f=$dir/$name
	{
		echo '#!/bin/sh'
		echo 'r=${PMI_RANK:-${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-0}}}'
		echo '[ "$r" = 0 ] || exit 0'
		echo "echo \"\$*\" >$tmp/args.$name"
		echo "cat <<'EOF'"
		printf '%s\n' "$@"
		echo "EOF"
		echo 'if [ -n "${FAKE_FAIL:-}" ]; then echo "DATA VALIDATION ERROR: $0 exited with status 1 on message size 8."; exit 1; fi'
	} >"$f"
	chmod +x "$f"
}
fake_omb() {
	local P2P=$1/libexec/osu-micro-benchmarks/mpi/pt2pt COLL=$1/libexec/osu-micro-benchmarks/mpi/collective
	mkdir -p "$P2P" "$COLL"
	# OMB 7.4: title, datatype, header padded to 20 columns; rows "%-10d%20.2f"
	fake_prog osu_latency "$P2P" "# OSU MPI Latency Test v7.4" "# Datatype: MPI_CHAR." \
		"# Size       Avg Latency(us)" \
		"1                       1.10" "2                       1.20" "4                       1.30" \
		"8                       1.40" "16                      1.50"
	fake_prog osu_bw "$P2P" "# OSU MPI Bandwidth Test v7.4" "# Datatype: MPI_CHAR." "# Size      Bandwidth (MB/s)" \
		"1                      10.00" "8                      80.00" "16                    160.00"
	fake_prog osu_bibw "$P2P" "# OSU MPI Bi-Directional Bandwidth Test v7.4" "# Datatype: MPI_CHAR." \
		"# Size      Bandwidth (MB/s)" "1                      20.00" "16                    320.00"
	fake_prog osu_mbw_mr "$P2P" "# OSU MPI Multiple Bandwidth / Message Rate Test v7.4" \
		"# [ pairs: 1 ] [ window size: 64 ]" "# Datatype: MPI_CHAR." \
		"# Size                  MB/s        Messages/s" \
		"1                       5.00        5000000.00" "16                     64.00        4000000.00"
	fake_prog osu_allreduce "$COLL" "# OSU MPI Allreduce Latency Test v7.4" "# Datatype: MPI_CHAR." \
		"# Size       Avg Latency(us)" "4                       3.00" "8                       3.50" \
		"16                      4.00"
	# OMB 5.x: no datatype line, the same columns
	fake_prog osu_alltoall "$COLL" "# OSU MPI All-to-All Personalized Exchange Latency Test v5.6.3" \
		"# Size       Avg Latency(us)" "1                       5.00" "8                       6.25" \
		"16                      7.00"
}
