#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside the 2s1n guest (2 sockets x 1 NUMA node of 4 cores, 2 L3 of 2
# cores per socket, SLIT 10/21): the steps 20-2s1n.t judges.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"

# numaplan audit on a running step of this real 2-node kernel: 2 tasks
# under numa, each with 16 MiB of its own (a bash variable) on its node;
# audited once as they are, then again after rank 0's pages were moved to
# the other node from outside (migratepages: its policy stays as planned),
# which is a deviation the audit must find, and the only one.
# Once a task has written its pid it forks nothing: it waits with bash's
# own read -t on a FIFO no one writes.  A child forked for sleep shares
# the parent's anonymous pages until it execs, so an audit that caught
# one after the migration saw a second far-pages deviation (CI, stop 42).
audit_far() {
	local i pid0
	rm -f "$O"/audit_far.pid.* "$O/audit_far.done"
	timeout "$NP_SRUN_TIMEOUT" srun --jobid="$JOB" -n 2 --numa-plan=numa bash -c \
		'v=$(head -c 16777216 /dev/zero | tr "\0" x); f=/tmp/np-audit-far.$SLURM_PROCID
		 rm -f "$f"; mkfifo "$f" && exec 3<>"$f" || exit 1
		 echo "$$" >"$0.pid.$SLURM_PROCID"
		 i=0; while [ ! -e "$0.done" ] && [ $((i += 1)) -le 200 ]; do read -r -t 1 -u 3 _; done
		 echo "${#v}"' "$O/audit_far" \
		>"$O/audit_far_step.out" 2>"$O/audit_far_step.err" &
	for i in $(seq 120); do
		[ -s "$O/audit_far.pid.0" ] && [ -s "$O/audit_far.pid.1" ] && break
		sleep 1
	done
	pid0=$(cat "$O/audit_far.pid.0" 2>/dev/null)
	save audit_before "$NUMAPLAN" audit "$JOB" --json
	save audit_migrate migratepages "${pid0:-0}" 0 1
	save audit_moved_maps grep -E "N[0-9]+=" "/proc/${pid0:-0}/numa_maps"
	save audit_far "$NUMAPLAN" audit "$JOB" --json
	touch "$O/audit_far.done"
	wait
}
# the directory numavm was started from lies under a path the guest
# covers with its own tmpfs (20-2s1n.t starts it from a directory under
# /tmp): kept, read-only; the rest of /tmp the guest's own, and writable
private_paths() {
	save keep_marker cat marker
	save keep_touch touch marker
	save keep_other sh -c 'ls -d /tmp/numavm-other.* 2>/dev/null; true'
	save keep_tmp mktemp /tmp/numavm-guest.XXXXXX
}

private_paths
collect_facts
alloc_node || exit 1
probe compact8 8 compact 2M
probe spread4 4 spread 4M
probe l3_4 4 l3 4M
probe numa2 2 numa 8M
maps maps_numa2 2 numa
probe socket4 4 socket
probe numa1i 1 numa,mem=interleave 16M
stream stream4 4 2 l3
audit_far
exit 0
