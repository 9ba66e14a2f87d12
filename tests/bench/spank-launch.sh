#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# spank-launch.sh - what numaplan.so adds to step launch, on the vcluster,
# side by side with no plugin, as ratios.
#
#   tests/bench/spank-launch.sh [STEPS_PER_BLOCK [ROUNDS]]   (default 4 x 25)
#
# Times `srun -n2 true` inside one allocation on one node (so job
# allocation is not counted) under five plugstack settings:
#   off      no plugin in plugstack.conf
#   idle     plugin loaded, step without --numa-plan
#   cached   --numa-plan=compact, cache=DIR: the node's cached topology
#            (the default behaviour; the warm-up step discovers and saves it),
#            each step recorded (record=DIR, the default)
#   unrecorded  the same with record=none: the step record's cost is the
#            ratio cached/unrecorded (goal: at most 1.02)
#   xml      --numa-plan=compact, topology= an XML of this machine
#   live     --numa-plan=compact, cache=none: live discovery every step
# A round times a block of STEPS_PER_BLOCK steps under every setting, in an
# order rotated from one round to the next; a setting's ratio to `off` is
# taken round by round (interleaved pairs: drift and other users' load hit
# both blocks of a pair alike), and the median over the rounds is printed
# with its quartiles and extremes.  Before the rounds every setting runs
# untimed, and the files are left older than 2 seconds: the steps timed are
# those of a node in service, whose cache file and topology= file have the
# checker's verdict remembered (numaplan-spank(8), TOPOLOGY FILES).
#
# A benchmark, not a test: it asserts nothing.  Needs root and the plugin
# built in $NP_BUILDDIR (default: the source tree); brings the vcluster
# (NP_VCLUSTER_ID) up when it is not, and down again after.
set -u
NP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${NP_BUILDDIR:=$NP_SRCDIR}"
VC=$NP_SRCDIR/contrib/vcluster/vcluster
per=${1:-4}
rounds=${2:-25}
case "$per$rounds" in *[!0-9]*|'') echo "usage: $0 [STEPS_PER_BLOCK [ROUNDS]]" >&2; exit 2;; esac
[ "$per" -gt 0 ] && [ "$rounds" -gt 0 ] || { echo "usage: $0 [STEPS_PER_BLOCK [ROUNDS]]" >&2; exit 2; }
configs=(off idle cached unrecorded xml live)

if [ "${NP_BENCH_INNER:-}" != 1 ]; then
	[ "$(id -u)" -eq 0 ] || { echo "spank-launch: skipped: needs root (the vcluster)"; exit 0; }
	export NP_PLUGIN=${NP_PLUGIN:-$NP_BUILDDIR/plugin/.libs/numaplan.so}
	[ -r "$NP_PLUGIN" ] || { echo "spank-launch: no plugin at $NP_PLUGIN (build it, or set NP_PLUGIN)" >&2; exit 1; }
	brought_up=
	if ! "$VC" status >/dev/null 2>&1; then
		"$VC" up --nodes 2 >/dev/null 2>&1 || { echo "spank-launch: cannot bring the vcluster up ($VC up)" >&2; exit 1; }
		brought_up=1
	fi
	eval "$("$VC" env)"; export SLURM_CONF
	# topology= and cache= must be root's alone, up to / (not under /tmp)
	mkdir -p /run/numaplan-tests && chmod 0755 /run/numaplan-tests
	tmp=$(mktemp -d /run/numaplan-tests/bench.XXXXXX); chmod 0755 "$tmp"
	lstopo-no-graphics --of xml >"$tmp/topo.xml" && chmod 0644 "$tmp/topo.xml" ||
		{ echo "spank-launch: lstopo-no-graphics failed" >&2; exit 1; }
	export NP_BENCH_INNER=1 NP_BENCH_TMP=$tmp
	salloc -Q -N1 -n2 bash "$0" "$per" "$rounds"
	rc=$?
	"$VC" plugstack '' >/dev/null
	rm -rf "$tmp"
	[ -n "$brought_up" ] && "$VC" down >/dev/null 2>&1
	exit $rc
fi

# ---- inside the allocation
setup() {
	case $1 in
	off) "$VC" plugstack --off >/dev/null ;;
	idle) "$VC" plugstack "record=$NP_BENCH_TMP/steps" >/dev/null ;;
	cached) "$VC" plugstack "cache=$NP_BENCH_TMP/cache record=$NP_BENCH_TMP/steps" >/dev/null ;;
	unrecorded) "$VC" plugstack "cache=$NP_BENCH_TMP/cache record=none" >/dev/null ;;
	xml) "$VC" plugstack "topology=$NP_BENCH_TMP/topo.xml cache=$NP_BENCH_TMP/cache record=$NP_BENCH_TMP/steps" >/dev/null ;;
	live) "$VC" plugstack "cache=none record=$NP_BENCH_TMP/steps" >/dev/null ;;
	esac
}
# CPU time: the node's processes (slurmd, slurmstepd, the tasks) are in
# the node's cgroup (numaplan-vcluster(8)); srun's is this shell's reaped
# children's.  Nothing below forks between the readings but srun itself.
id=${NP_VCLUSTER_ID:-0}; pfx=npvc; [ "$id" = 0 ] || pfx=npvc$id
node_cpu=/sys/fs/cgroup/cpuacct/$pfx-$SLURM_JOB_NODELIST/cpuacct.usage
[ -r "$node_cpu" ] || node_cpu=
tms=$(mktemp) retries=$(mktemp)
cpu_ns() { CPU_NS=0; [ -n "$node_cpu" ] && read -r CPU_NS <"$node_cpu"; }
child_ms() { # user + system of this shell's children, in ms: "0m1.234s 0m0.056s"
	local u s x m t=0
	times >"$tms"
	{ read -r _; read -r u s; } <"$tms"
	for x in "$u" "$s"; do
		x=${x%s}; m=${x%%m*}; x=${x#*m}
		t=$((t + m * 60000 + 10#${x%.*} * 1000 + 10#${x#*.}))
	done
	CHILD_MS=$t
}
block() { # setting steps: sets WALL (us), NODE (ns), SRUN (ms)
	local i t0 o=() c0 s0
	case $1 in cached|unrecorded|xml|live) o=(--numa-plan=compact);; esac
	child_ms; s0=$CHILD_MS; cpu_ns; c0=$CPU_NS; t0=${EPOCHREALTIME/./}
	for ((i = 0; i < $2; i++)); do
		srun -n2 "${o[@]}" true 2>>"$retries.$1" || return 1
	done
	WALL=$((${EPOCHREALTIME/./} - t0)); cpu_ns; NODE=$((CPU_NS - c0)); child_ms; SRUN=$((CHILD_MS - s0))
}

# warm-up: the cache file is written, then every file is older than 2 s
# and the next load of each has the checker's verdict remembered
for c in "${configs[@]}"; do setup "$c"; block "$c" 1 || exit 1; done
sleep 2.5
for c in "${configs[@]}"; do setup "$c"; block "$c" 1 || exit 1; done
rm -f "$retries".*

data=$(mktemp)
for ((r = 0; r < rounds; r++)); do
	for ((j = 0; j < ${#configs[@]}; j++)); do
		c=${configs[$(((j + r) % ${#configs[@]}))]}
		setup "$c"
		block "$c" "$per" || { echo "spank-launch: a step failed under '$c'" >&2; exit 1; }
		echo "$r $c $WALL $NODE $SRUN" >>"$data"
	done
	[ $(((r + 1) % 5)) -eq 0 ] && echo "round $((r + 1))/$rounds done" >&2
done

echo "step launch, srun -n2 true on one node: $rounds rounds x $per steps per setting,"
echo "settings interleaved (order rotated every round); ratio to 'off' per round"
for c in "${configs[@]}"; do
	printf '%s %s\n' "$c" "$(grep -c 'temporarily disabled' "$retries.$c" 2>/dev/null || true)"
done >"$retries"
awk -v per="$per" -v cpu="$([ -n "$node_cpu" ] && echo 1 || echo 0)" '
function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t } }
function q(a, n, p,   x, i) { x = 1 + (n - 1) * p; i = int(x); return i >= n ? a[n] : a[i] + (x - i) * (a[i+1] - a[i]) }
function stats(a, n) { sort(a, n); return sprintf("%5.3f  [%5.3f .. %5.3f]  (%5.3f .. %5.3f)", q(a, n, .5), q(a, n, .25), q(a, n, .75), a[1], a[n]) }
function med(a, n) { sort(a, n); return q(a, n, .5) }
FILENAME == ARGV[1] { busy[$1] = $2; next }
{ t[$1, $2] = $3 / per / 1000; c[$1, $2] = ($4 / 1e6 + $5) / per; sr[$1, $2] = $5 / per; nd[$1, $2] = $4 / 1e6 / per; r[$1] = 1 }
END {
	split("off idle cached unrecorded xml live", cs, " ")
	label["off"] = "no plugin"
	label["idle"] = "plugin loaded, no --numa-plan"
	label["cached"] = "compact, cache= (cached topology)"
	label["unrecorded"] = "the same, record=none"
	label["xml"] = "compact, topology= XML"
	label["live"] = "compact, cache=none (live every step)"
	print "wall time per step (ms), and its ratio to off: median  [quartiles]  (min .. max)"
	for (k = 1; k <= 6; k++) {
		x = cs[k]; n = 0; m = 0
		for (i in r) { v[++m] = t[i, x]; if (x != "off") ratio[++n] = t[i, x] / t[i, "off"] }
		printf "  %-10s %-38s %7.1f   %s\n", x, label[x], med(v, m), x == "off" ? "1" : stats(ratio, n)
		delete v; delete ratio
	}
	split("cached/live xml/live cached/xml cached/unrecorded", ps, " ")
	for (k = 1; k <= 4; k++) {
		split(ps[k], ab, "/"); n = 0
		for (i in r) ratio[++n] = t[i, ab[1]] / t[i, ab[2]]
		printf "  %-46s %7s   %s\n", ps[k], "", stats(ratio, n)
		delete ratio
	}
	if (cpu) {
		print "CPU time per step (ms): srun + on the node slurmd, slurmstepd and tasks, and the ratio to off"
		for (k = 1; k <= 6; k++) {
			x = cs[k]; n = 0; m = 0
			for (i in r) { v[++m] = c[i, x]; a1[m] = sr[i, x]; a2[m] = nd[i, x]; if (x != "off") ratio[++n] = c[i, x] / c[i, "off"] }
			printf "  %-10s %5.1f + %5.1f = %5.1f %24s %s\n", x, med(a1, m), med(a2, m), med(v, m), "", x == "off" ? "1" : stats(ratio, n)
			delete v; delete ratio; delete a1; delete a2
		}
	}
	printf "srun waits for the node (\"step creation temporarily disabled\"):"
	for (k = 1; k <= 6; k++) printf " %s %d", cs[k], busy[cs[k]]
	printf "\n"
}' "$retries" "$data"
echo "goal: the plugin adds at most 5% with the cache (median 'cached' wall ratio at most 1.05),"
echo "and the step record at most 2% (median 'cached/unrecorded' at most 1.02)"
rm -f "$data" "$tms" "$retries" "$retries".*
