# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# collect-lib.sh - sourced by the scripts that run INSIDE a numavm guest
# (tests/numavm/*-collect.sh).  They only gather: what the guest kernel
# says about the machine, what Slurm and numaplan say, and what each task of
# each srun step saw from inside (numaplan-probe, /proc/self/numa_maps,
# numaplan-stream).  Everything lands in $NUMAVM_OUT, which `numavm run
# --collect DIR` copies out; the host-side test (check-lib.sh) then compares
# it with the shape.  Judging on the host keeps the slow TCG guest busy
# with the steps only (a bash model forking in the guest cost minutes).
#
# The guest's Slurm discovers the node live and loads the plugin; every
# step runs in one exclusive allocation of the whole node, so every step
# may use every CPU.

[ -n "${NUMAVM_GUEST:-}" ] && [ -d "${NUMAVM_OUT:-}" ] || { echo "collect-lib.sh runs inside a numavm guest (numavm run)" >&2; exit 1; }
: "${NP_SRUN_TIMEOUT:=240}"
O=$NUMAVM_OUT

# The build tree's binaries themselves, not libtool's wrapper scripts (a
# bash wrapper costs seconds per task under TCG).
bin_of() { # name dir -> path
	if [ -x "$NP_BUILDDIR/$2/.libs/$1" ]; then echo "$NP_BUILDDIR/$2/.libs/$1"
	elif [ -x "$NP_BUILDDIR/$2/$1" ]; then echo "$NP_BUILDDIR/$2/$1"
	else command -v "$1"; fi
}
PROBE=$(bin_of numaplan-probe kernels)
# numaplan-stream: only the portable build the host side made (check-lib.sh,
# portable_stream), never the build tree's: that one is built for the
# build host's CPU (-march=native), which TCG's -cpu max is not
STREAM=${NP_NUMAVM_STREAM:-}
NUMAPLAN=$(bin_of numaplan cli)
[ -d "$NP_BUILDDIR/lib/.libs" ] && export LD_LIBRARY_PATH="$NP_BUILDDIR/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# save NAME CMD...: stdout, stderr and status of a command, and its
# guest-clock time in $O/timing (where the group's time budget goes)
save() {
	local name=$1 t0 t1 _; shift
	read -r t0 _ </proc/uptime
	"$@" >"$O/$name.out" 2>"$O/$name.err"
	echo $? >"$O/$name.rc"
	read -r t1 _ </proc/uptime
	echo "$name $t0 $t1" >>"$O/timing"
}

# The NUMA nodes and CPUs as the guest kernel shows them, a line each:
# facts of collect_facts and of check-collect.sh, which
# check_guest_is_shape reads.
node_cpu_facts() {
	local n c d
	for d in /sys/devices/system/node/node[0-9]*; do
		n=${d##*node}
		echo "node $n cpulist $(cat "$d/cpulist")"
		echo "node $n distance $(cat "$d/distance")"
		echo "node $n memtotal_kb $(awk '/MemTotal/ {print $4}' "$d/meminfo")"
	done
	for d in /sys/devices/system/cpu/cpu[0-9]*; do
		c=${d##*cpu}
		echo "cpu $c package $(cat "$d/topology/physical_package_id")"
		echo "cpu $c l3 $(cat "$d/cache/index3/shared_cpu_list" 2>/dev/null || echo -)"
	done
}

# The machine as the guest kernel, Slurm and numaplan see it.
collect_facts() {
	local n c d
	{
		node_cpu_facts
		for d in /sys/class/net/*/device/numa_node; do
			[ -e "$d" ] && { n=${d#/sys/class/net/}; echo "net ${n%%/*} numa_node $(cat "$d")"; }
		done
		for d in /sys/class/infiniband/*/ports/*/state; do
			[ -e "$d" ] || continue
			n=${d#/sys/class/infiniband/}; c=${d%/state}
			echo "ib ${n%%/*} port ${c##*/} state $(cat "$d")"
		done
	} >"$O/facts"
	save scontrol_node scontrol -o show node
	save scontrol_config scontrol show config
	cp "$NUMAVM_PLUGSTACK" "$O/plugstack.conf"
	save topo "$NUMAPLAN" topo --json
}

JOB=
# An exclusive allocation of the whole node for all the steps.
alloc_node() {
	local out
	out=$(timeout "$NP_SRUN_TIMEOUT" salloc --no-shell -N1 --exclusive -J numavm-checks 2>&1)
	echo "$out" >"$O/alloc.out"
	JOB=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$out")
	[ -n "$JOB" ] || return 1
	trap 'scancel "$JOB" 2>/dev/null' EXIT
}

# probe NAME N PLAN [TOUCH [srun options...]]: N tasks of numaplan-probe
# --json (with --touch TOUCH) under --numa-plan=PLAN.
probe() {
	local name=$1 n=$2 plan=$3 touch=${4:-}; shift 3; [ $# -gt 0 ] && shift
	local args=(--json)
	[ -n "$touch" ] && args+=(--touch "$touch")
	save "$name" timeout "$NP_SRUN_TIMEOUT" srun --jobid="$JOB" -n "$n" "$@" --numa-plan="$plan" "$PROBE" "${args[@]}"
}

# maps NAME N PLAN: each task (bash) grows its heap by 2 MiB and prints its
# Cpus_allowed_list and its heap line of /proc/self/numa_maps: the kernel's
# own account of the affinity, the policy and the pages, independent of
# the probe.  (512 pages show an interleave; bash builds the string a
# chunk at a time, and 8 MiB took 20 s of emulated CPU for 4 tasks.)
maps() {
	save "$1" timeout "$NP_SRUN_TIMEOUT" srun --jobid="$JOB" -n "$2" --numa-plan="$3" bash -c \
		'v=$(head -c 2097152 /dev/zero | tr "\0" x)
		 echo "rank=$SLURM_PROCID len=${#v} cpus=$(sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" /proc/$$/status) $(grep " heap" /proc/$$/numa_maps)"'
}

# stream NAME N C PLAN: numaplan-stream --json per task, one file per rank
# (NAME.R.json), with 2 OpenMP threads.
stream() {
	if [ -z "$STREAM" ]; then
		echo "no portable numaplan-stream (NP_NUMAVM_STREAM, check-lib.sh portable_stream)" >"$O/$1.err"
		echo 127 >"$O/$1.rc"; return
	fi
	save "$1" timeout "$NP_SRUN_TIMEOUT" srun --jobid="$JOB" -n "$2" -c "$3" --numa-plan="$4" \
		--output="$O/$1.%t.json" --error="$O/$1.%t.err" "$STREAM" --size 20000 --threads 2 --json
}
