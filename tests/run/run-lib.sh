# run-lib.sh - shared by the tests/run scripts: a scratch directory, the
# results.json schema check, and whether the vcluster can take jobs.

tmp=$(mktemp -d /tmp/np-run-test.XXXXXX)
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
	  (.jobs|type) == "array" and (.outliers|type) == "array" and
	  (.failed_experiments|type) == "number" and (.experiments|length) > 0 and
	  all(.experiments[];
	    (.name|type) == "string" and (.suite|type) == "string" and
	    (.kernel|type) == "string" and (.placement|type) == "object" and
	    (.nodes|type) == "number" and (.ntasks|type) == "number" and
	    (.threads|type) == "number" and (.status|IN("ok","partial","failed")) and
	    (.primary_metric|type) == "string" and (.stats|type) == "object" and
	    (.runs|type) == "array" and (.runs|length) == .runs_total and
	    all(.runs[]; (.rep|type) == "number" and (.node|type) == "string" and
	        (.status|IN("ok","failed")) and (.validated|type) == "boolean" and
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
