# SPDX-License-Identifier: BSD-3-Clause
# slurm-lib.sh - sourced by the tests/slurm/*.t scripts (after tap.sh):
# the vcluster, plugstack switching, and probe output helpers.
#
# The tests need a running vcluster (tests/run-all brings it up) and the
# plugin built in $NP_BUILDDIR/plugin/.libs/numaplan.so; without either they
# report one skip and stop.  With NP_INSTALLED (tap.sh) they test the
# installed plugin NP_PLUGIN names and the installed programs instead, and
# the harness, a program of the build tree, is not there.

VC="$NP_SRCDIR/contrib/vcluster/vcluster"
if [ -n "${NP_INSTALLED:-}" ]; then
	PLUGIN_SO=${NP_PLUGIN:-NP_INSTALLED-needs-NP_PLUGIN}
	HARNESS=
else
	PLUGIN_SO="$NP_BUILDDIR/plugin/.libs/numaplan.so"
	HARNESS="$NP_BUILDDIR/plugin/numaplan-spank-harness"
fi
: "${NP_SRUN_TIMEOUT:=180}"

skip_all() { skip "$*"; done_testing; exit 0; }

need_tool() { command -v "$1" >/dev/null 2>&1 || skip_all "$1 not installed"; }

# The vcluster and the plugin, or skip the whole script.
need_vcluster() {
	need_tool jq
	[ -x "$VC" ] || skip_all "no contrib/vcluster/vcluster"
	[ -r "$PLUGIN_SO" ] || skip_all "plugin not built ($PLUGIN_SO)"
	command -v numaplan-probe >/dev/null 2>&1 || skip_all "numaplan-probe not built"
	"$VC" status >/dev/null 2>&1 || skip_all "vcluster not up (tests/run-all slurm brings it up)"
	eval "$("$VC" env)"
	export SLURM_CONF
	# the plugin of this build tree (installed: NP_PLUGIN's), whatever
	# NP_PLUGIN the caller had
	export NP_PLUGIN="$PLUGIN_SO"
	trap 'plugstack_reset' EXIT
}

# plugstack 'ARGS': load the plugin with these plugstack.conf arguments.
# srun/sbatch and every new slurmstepd read the file afresh.
plugstack() {
	"$VC" plugstack "$1" >/dev/null || { notok "vcluster plugstack '$1'"; return 1; }
}
plugstack_reset() { "$VC" plugstack '' >/dev/null 2>&1; }

# root_tmpdir NAME: a new directory for topology= files and cache= that
# only root can change, nor any directory above it, as the plugin requires
# (numaplan-spank(8), SECURITY); /tmp, world-writable, does not qualify.
root_tmpdir() {
	local base=/run/numaplan-tests d
	mkdir -p "$base" && chmod 0755 "$base" && d=$(mktemp -d "$base/$1.XXXXXX") &&
		chmod 0755 "$d" && echo "$d"
}

# Run srun/sbatch/salloc with a time limit, capture into $OUT $ERR $RC.
srun_() { run timeout "$NP_SRUN_TIMEOUT" srun "$@"; }

# Probe JSON lines ($OUT) sorted by rank, as one array.
probes() { echo "$OUT" | grep '^{' | jq -s 'sort_by(.rank)'; }
# pfield RANK EXPR: a jq expression on the probe object of that rank
pfield() { echo "$OUT" | grep '^{' | jq -r --argjson r "$1" "select(.rank == \$r) | $2"; }
nprobes() { echo "$OUT" | grep -c '^{'; }

# cpus_of "0-2,5" -> "0 1 2 5"
cpus_of() {
	local p lo hi i out=()
	IFS=, read -r -a parts <<<"$1"
	for p in "${parts[@]}"; do
		case $p in
		'') ;;
		*-*) lo=${p%-*}; hi=${p#*-}; for ((i = lo; i <= hi; i++)); do out+=("$i"); done;;
		*) out+=("$p");;
		esac
	done
	echo "${out[*]}"
}
# subset A B: every CPU of cpulist A is in cpulist B (and A is not empty)
subset() {
	local a b c
	a=$(cpus_of "$1"); b=" $(cpus_of "$2") "
	[ -n "$a" ] || return 1
	for c in $a; do case $b in *" $c "*) ;; *) return 1;; esac; done
	return 0
}
# disjoint A B: no CPU in common
disjoint() {
	local c b=" $(cpus_of "$2") "
	for c in $(cpus_of "$1"); do case $b in *" $c "*) return 1;; esac; done
	return 0
}

# The machine's PUs (OS indexes), and the NUMA node of a PU, from hwloc.
machine_pus() { hwloc-calc --physical-output --intersect pu all | tr ',' ' '; }
numa_of_pu() { hwloc-calc --physical-input --physical-output --intersect numa "pu:$1"; }

# Ask the vcluster's nodes to be idle again (a test leaves nothing behind).
wait_idle() {
	local n=60
	while [ $n -gt 0 ]; do
		[ -z "$(squeue -h -o %i 2>/dev/null)" ] && return 0
		sleep 0.5; n=$((n - 1))
	done
	return 1
}

# slurmd of every node still answering (no crash of the daemons)
nodes_alive() { ! sinfo -h -N -o '%T' | grep -qE 'down|drain|not_responding|fail'; }

# slurm_at_least MAJOR.MINOR: the running srun is that release or later.
# For the checks whose Slurm behaviour truly differs between releases
# (numaplan-spank(8), SLURM RELEASES), each saying why.
slurm_at_least() {
	local v want=$1
	v=$(srun --version | awk '{ print $2 }')
	[ "$(printf '%s\n%s\n' "$want" "$v" | sort -V | head -1)" = "$want" ]
}
