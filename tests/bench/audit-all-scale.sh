#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# audit-all-scale.sh - how long `numaplan audit --all` takes as the running
# jobs grow, on a vcluster of NP_AUDIT_NODES nodes (default 32): jobs of
# one task each (sleep, bound by the plugin), NP_AUDIT_JOBS at a time
# (default "16 32 64"), each count audited NP_AUDIT_REPEAT times (default
# 3) with --traffic 0 and the default --parallel 8; the median.  Figures,
# not assertions: the seconds per job should stay flat when the time
# grows linearly.  Needs root; brings the vcluster (NP_VCLUSTER_ID) up
# with that many nodes, and back to 2 nodes (or down) after.
set -u
SRC=${NP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
: "${NP_BUILDDIR:=$SRC}"
VC=$SRC/contrib/vcluster/vcluster
nodes=${NP_AUDIT_NODES:-32}
counts=${NP_AUDIT_JOBS:-16 32 64}
repeat=${NP_AUDIT_REPEAT:-3}
[ "$(id -u)" -eq 0 ] || { echo "audit-all-scale: skipped: needs root (the vcluster)"; exit 0; }
export NP_PLUGIN=${NP_PLUGIN:-$NP_BUILDDIR/plugin/.libs/numaplan.so}
PATH=$NP_BUILDDIR/cli:$PATH
was_up=; "$VC" status >/dev/null 2>&1 && was_up=1
"$VC" up --nodes "$nodes" >/dev/null 2>&1 || { echo "audit-all-scale: vcluster up --nodes $nodes failed" >&2; exit 1; }
eval "$("$VC" env)"; export SLURM_CONF
"$VC" plugstack "default=compact record=none" >/dev/null
jobs=()
cleanup() {
	[ ${#jobs[@]} -gt 0 ] && scancel --quiet "${jobs[@]}" 2>/dev/null
	rm -f "$out"
	"$VC" plugstack '' >/dev/null 2>&1
	if [ -n "$was_up" ]; then "$VC" up --nodes 2 >/dev/null 2>&1; else "$VC" down >/dev/null 2>&1; fi
}
trap cleanup EXIT
running() { squeue -h -t RUNNING -o %A | wc -l; }
out=$(mktemp)

echo "numaplan audit --all --traffic 0 (--parallel 8) on $nodes vcluster nodes, median of $repeat"
printf '%8s %10s %14s  %s\n' jobs seconds s_per_job "the last pass's verdicts"
for want in $counts; do
	while [ ${#jobs[@]} -lt "$want" ]; do
		j=$(sbatch --parsable -N1 -n1 -o /dev/null --wrap "srun -n1 sleep 900") || break
		jobs+=("$j")
	done
	for _ in $(seq 300); do [ "$(running)" -ge "$want" ] && break; sleep 1; done
	# every job's step started: its task is there to audit
	sleep 5
	times=()
	for _ in $(seq "$repeat"); do
		t0=${EPOCHREALTIME/./}
		numaplan audit --all --traffic 0 >"$out" 2>&1
		times+=($(( ${EPOCHREALTIME/./} - t0 )))
	done
	med=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	# (every job should be OK: a NOT AUDITED one took no time to judge)
	printf '%8d %10.2f %14.3f  %s\n' "$(running)" "$(awk -v u="$med" 'BEGIN { print u / 1e6 }')" \
		"$(awk -v u="$med" -v n="$(running)" 'BEGIN { print u / 1e6 / n }')" \
		"$(sed -n 's/^audit --all: [0-9]* running job(s): \(.*\) ([0-9.]* s)$/\1/p' "$out")"
done
