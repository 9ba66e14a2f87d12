#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real kernel on 2 sockets x 1 NUMA node (numavm shape 2s1n: 4 cores per
# socket in 2 L3 domains, SLIT 10/21), Slurm and the plugin inside: the
# policies that tell L3 domains, NUMA nodes and sockets apart, checked task
# by task against the shape.  Started from a directory under /tmp, which
# the guest covers with a tmpfs of its own: that directory must still be
# seen there, read-only, and nothing else of the host's /tmp.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
portable_stream
# started from a directory under /tmp, where the guest has a tmpfs of its
# own: numavm keeps the directory it was started from (numaplan-numavm(8))
kept=$(mktemp -d /tmp/numavm-keep.XXXXXX)
other=$(mktemp /tmp/numavm-other.XXXXXX)
CLEANUP+=("$kept" "$other")
token=$RANDOM$RANDOM
echo "$token" >"$kept/marker"
cd "$kept" || exit 1
numavm_collect 2s1n "$NP_SRCDIR/tests/numavm/2s1n-collect.sh"
cd / || exit 1

chk "the guest reads the host's file in the directory numavm was started from ($kept, under /tmp)" \
	[ "$(cat "$DATA/keep_marker.out")" = "$token" ]
chk "that directory is read-only in the guest (the file is there, touch fails)" \
	eval '[ "$(cat "$DATA/keep_marker.out")" = "$token" ] && [ "$(cat "$DATA/keep_touch.rc")" != 0 ]'
chk "the rest of /tmp is the guest's own: another host file there is not seen" \
	eval '[ ! -s "$DATA/keep_other.out" ]'
chk "the guest's /tmp is writable" [ "$(cat "$DATA/keep_tmp.rc")" = 0 ]
chk "the host's file is unchanged" [ "$(cat "$kept/marker")" = "$token" ]

check_guest_is_shape
check_guest_slurm
check_topo_live

model_compact 8;  check_plan "compact -n8" compact8 8 bind
# spread, top down: 2 ranks per package (one node each), one on each of
# its L3 domains; consecutive ranks alternate packages
model_spread 4;   check_plan "spread -n4" spread4 4 bind
chk "spread -n4: ranks 0-3 on the L3 domains 0, 2, 1, 3 (packages alternate, then L3s)" \
	[ "$(for r in 0 1 2 3; do for l in "${!L3_CPUS[@]}"; do
		case " ${L3_CPUS[l]} " in *" ${GOT_CPUS[r]:-x} "*) echo -n "$l ";; esac; done; done)" = "0 2 1 3 " ]
model_l3 4;       check_plan "l3 -n4" l3_4 4 bind
model_numa 2;     check_plan "numa -n2" numa2 2 bind
                  check_maps "numa -n2" maps_numa2 2 bind
model_socket 4;   check_plan "socket -n4 (two ranks per socket)" socket4 4 bind
model_numa 1;     check_plan "numa -n1 mem=interleave (both nodes)" numa1i 1 interleave
model_l3 4;       check_stream "numaplan-stream -n4 -c2 under l3" stream4 4

# numaplan audit JOBID on a running step (2s1n-collect.sh, audit_far):
# rank 0 is planned on NUMA 0, rank 1 on NUMA 1; as started nothing
# deviates, after rank 0's pages moved to NUMA 1 exactly that does
jqq() { jq -e "$@" >/dev/null 2>&1; }
# each task is one bash that forks nothing once it has written its pid
PID0=$(cat "$DATA/audit_far.pid.0" 2>/dev/null)
chk "audit of a step as started: 2 tasks, 2 processes, no deviation" \
	jqq '.summary.tasks == 2 and .summary.processes == 2 and .summary.deviations == 0' "$DATA/audit_before.out" ||
	diagm "$(cat "$DATA/audit_before.out" "$DATA/audit_before.err")"
chk "migratepages moved rank 0's pages to NUMA 1 (exit 0)" [ "$(cat "$DATA/audit_migrate.rc")" = 0 ]
chk "audit after: one deviation, far-pages of rank 0 (the migrated pid), found on NUMA 1, planned on NUMA 0" \
	jqq --argjson pid "${PID0:-0}" '(.deviations | length) == 1 and .deviations[0].kind == "far-pages" and
	     .deviations[0].rank == "0" and .deviations[0].pid == $pid and
	     (.deviations[0].expected | test("NUMA 0")) and (.deviations[0].found | test("on NUMA 1"))' \
	"$DATA/audit_far.out" ||
	diagm "$(cat "$DATA/audit_far.out" "$DATA/audit_far.err" "$DATA/audit_moved_maps.out")"
done_testing
