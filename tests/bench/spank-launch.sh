#!/bin/bash
# spank-launch.sh - what numaplan.so adds to step launch, on the vcluster.
#
#   tests/bench/spank-launch.sh [STEPS_PER_ROUND [ROUNDS]]   (default 20 x 5)
#
# Times `srun -n2 true` inside one allocation (so job allocation is not
# counted) under five plugstack settings, round-robin so that drift hits
# all of them alike:
#   off      no plugin in plugstack.conf
#   idle     plugin loaded, step without --numa-plan
#   cached   --numa-plan=compact, live discovery cached (cache=DIR, the
#            default behaviour; the untimed warm-up step writes the file)
#   live     --numa-plan=compact, live discovery every step (cache=none)
#   xml      --numa-plan=compact, topology= an XML of this machine
# and prints the mean launch time per step and the ratios to `off` (the
# goal: the plugin adds under 5%), cached/live and xml/live.  A benchmark,
# not a test: it asserts nothing.  Needs root, a running vcluster (contrib/vcluster) and
# the plugin built in $NP_BUILDDIR (default: the source tree).
set -u
NP_SRCDIR=$(cd "$(dirname "$0")/../.." && pwd)
: "${NP_BUILDDIR:=$NP_SRCDIR}"
VC=$NP_SRCDIR/contrib/vcluster/vcluster
per=${1:-20}
rounds=${2:-5}
case "$per$rounds" in *[!0-9]*|'') echo "usage: $0 [STEPS_PER_ROUND [ROUNDS]]" >&2; exit 2;; esac

if [ "${NP_BENCH_INNER:-}" != 1 ]; then
	export NP_PLUGIN=${NP_PLUGIN:-$NP_BUILDDIR/plugin/.libs/numaplan.so}
	[ -r "$NP_PLUGIN" ] || { echo "spank-launch: no plugin at $NP_PLUGIN (build it, or set NP_PLUGIN)" >&2; exit 1; }
	"$VC" status >/dev/null 2>&1 || { echo "spank-launch: the vcluster is not up ($VC up)" >&2; exit 1; }
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
	exit $rc
fi

# ---- inside the allocation
now() { date +%s%N; }
declare -A total
configs=(off idle cached live xml)
for c in "${configs[@]}"; do total[$c]=0; done

setup() {
	case $1 in
	off) "$VC" plugstack --off >/dev/null ;;
	idle) "$VC" plugstack '' >/dev/null ;;
	cached) "$VC" plugstack "cache=$NP_BENCH_TMP/cache" >/dev/null ;;
	live) "$VC" plugstack "cache=none" >/dev/null ;;
	xml) "$VC" plugstack "topology=$NP_BENCH_TMP/topo.xml" >/dev/null ;;
	esac
}
steps() { # config: per steps, prints elapsed ns
	local opt=() i t0 t1
	case $1 in cached|live|xml) opt=(--numa-plan=compact);; esac
	srun -n2 "${opt[@]}" true || return 1 # warm-up, not timed
	t0=$(now)
	for ((i = 0; i < per; i++)); do
		srun -n2 "${opt[@]}" true || return 1
	done
	t1=$(now)
	echo $((t1 - t0))
}

for ((r = 1; r <= rounds; r++)); do
	for c in "${configs[@]}"; do
		setup "$c"
		ns=$(steps "$c") || { echo "spank-launch: a step failed under '$c'" >&2; exit 1; }
		total[$c]=$((total[$c] + ns))
	done
	echo "round $r/$rounds done" >&2
done

n=$((per * rounds))
ms() { awk -v t="$1" -v n="$n" 'BEGIN { printf "%.1f", t / n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
echo "step launch, srun -n2 true, $n steps per setting (mean ms per step):"
for c in "${configs[@]}"; do printf '  %-6s %8s ms\n' "$c" "$(ms "${total[$c]}")"; done
echo "ratios:"
printf '  plugin loaded, no option / no plugin : %s\n' "$(ratio "${total[idle]}" "${total[off]}")"
printf '  compact, live + cache    / no plugin : %s\n' "$(ratio "${total[cached]}" "${total[off]}")"
printf '  compact, live, no cache  / no plugin : %s\n' "$(ratio "${total[live]}" "${total[off]}")"
printf '  compact, topology= XML   / no plugin : %s\n' "$(ratio "${total[xml]}" "${total[off]}")"
printf '  live + cache / live, no cache        : %s\n' "$(ratio "${total[cached]}" "${total[live]}")"
printf '  topology= XML / live, no cache       : %s\n' "$(ratio "${total[xml]}" "${total[live]}")"
echo "goal: the plugin adds under 5% (ratios to 'no plugin' below 1.05)"
