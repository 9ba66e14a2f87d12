#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside the devices guest (2 sockets x 1 NUMA node; eth0 on node 1, eth1
# on node 0, Soft-RoCE rxe_eth0 and rxe_eth1 on them; virtio GPUs 0000:61
# on node 1 and 0000:71 on node 0, Slurm's gres/gpu on their render
# nodes): the device steps 50-devices.t judges.  A real RDMA program from
# Debian (ib_write_bw of perftest) and numaplan-probe --open run under
# hca-near with the plan's variables, tasks hold their GPU's render node
# under gpu-near, and `numaplan audit` looks at each while it runs.
source "$NP_SRCDIR/tests/numavm/collect-lib.sh"
collect_facts
T=$NP_SRCDIR/tests/numavm

# ---- what the kernel and hwloc say about the devices ----
{
	for d in /sys/class/infiniband/*; do
		[ -e "$d" ] || continue
		n=$(cat "$d/parent" 2>/dev/null)
		echo "ibdev ${d##*/} parent ${n:--} sysfs $(readlink -f "$d") netdev_numa $(cat "/sys/class/net/$n/device/numa_node" 2>/dev/null || echo -)"
	done
	for d in /sys/class/drm/renderD* /sys/class/drm/card[0-9]; do
		[ -e "$d" ] || continue
		p=$(readlink -f "$d/device")
		echo "drm ${d##*/} pci ${p##*/} numa $(cat "$d/device/numa_node" 2>/dev/null || echo -)"
	done
} >"$O/devfacts"
HWLOC_VIRTUAL_LINUX_OSDEV=1 save hwloc_live lstopo-no-graphics --of xml -
# every I/O object: hwloc's default filter (numaplan's too) drops DRM nodes
HWLOC_VIRTUAL_LINUX_OSDEV=1 save hwloc_all lstopo-no-graphics --whole-io --of xml -
HWLOC_VIRTUAL_LINUX_OSDEV=1 save topo_live "$NUMAPLAN" topo --json

# ---- the node's topology file, as a site would write it ----
# hwloc hangs a Soft-RoCE device (no PCI parent: /sys/devices/virtual)
# off the machine root, and numaplan counts only NVIDIA, AMD and Intel
# functions as GPUs.  The file the plugin is given (topology=, root's)
# therefore makes two edits to the live export, and only these: each
# rxe_X moves under the PCI function of its netdev X (where a RoCE
# adapter's own device sits, beside its netdev), and the virtio GPUs'
# vendor id reads AMD's.  Bus ids, NUMA locality, DRM nodes are the live
# ones.
D=/run/numaplan-dev
XML=$D/node.xml
mkdir -m 0755 "$D"
python3 "$T/devices-xml.py" "$O/hwloc_live.out" "$XML" $(awk '$1 == "ibdev" { print $2 "=" $4 }' "$O/devfacts") \
	>"$O/xml_edit.out" 2>&1
echo $? >"$O/xml_edit.rc"
chmod 0644 "$XML"
cp "$XML" "$O/node.xml"
save topo_file "$NUMAPLAN" topo --topology "$XML" --json
cp "$NUMAVM_PLUGSTACK" "$O/plugstack.orig"
awk -v x="$XML" '/numaplan[.]so/ { print $0 " topology=" x; next } { print }' "$O/plugstack.orig" >"$NUMAVM_PLUGSTACK"

# one allocation: the whole node and both GPUs
out=$(timeout "$NP_SRUN_TIMEOUT" salloc --no-shell -N1 --exclusive --gres=gpu:2 -J numavm-devices 2>&1)
echo "$out" >"$O/alloc.out"
JOB=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$out")
[ -n "$JOB" ] || exit 1
trap 'scancel "$JOB" 2>/dev/null; cp "$O/plugstack.orig" "$NUMAVM_PLUGSTACK"' EXIT

# ---- hca-near: the plan ----
probe hca4 4 hca-near,verbose
probe gpu2 2 gpu-near,verbose '' --gpus=2

# holders GLOB N: wait (2 minutes at most) until N processes hold a file
# matching GLOB open; their count
holders() {
	local n=0 end=$((SECONDS + 120))
	while [ $SECONDS -lt $end ]; do
		# one find, not a program per process: a TCG guest forks slowly
		n=$(find /proc/[0-9]*/fd -lname "$1*" 2>/dev/null | cut -d/ -f3 | sort -u | wc -l)
		[ "$n" -ge "$2" ] && break
		sleep 0.5
	done
	echo "$n"
}
# step_bg NAME SRUN-ARGS...: a step in the background, its tasks' output
# in NAME.T.out; the step's pid in BG
step_bg() {
	local name=$1; shift
	timeout "$NP_SRUN_TIMEOUT" srun --jobid="$JOB" --output="$O/$name.%t.out" --error="$O/$name.%t.err" "$@" \
		>"$O/$name.out" 2>"$O/$name.err" &
	BG=$!
}
step_end() { # NAME: cancel the job's steps but the audit's, wait for the step
	local s
	for s in $(squeue -h -s -j "$JOB" -o '%i' | grep -v '\.extern$\|\.batch$'); do scancel "$s"; done
	wait "$BG"; echo $? >"$O/$1.rc"
}
audit() { save "$1" "$NUMAPLAN" audit "$JOB" --json --traffic "${2:-1}"; }
rxe_state() { cat "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null; }
wait_state() { # DEV WORD: up to 60s
	local _
	for _ in $(seq 300); do case $(rxe_state "$1") in *"$2"*) return 0;; esac; sleep 0.2; done
	return 1
}

# ibbw_end: end the ib_write_bw step now, the way its -D ends: perftest's
# duration is its SIGALRM timer (warm-up, sample, margin, then the
# report), and a SIGALRM moves a client from sampling to its final
# margin.  90 seconds cover the audit on a loaded host; waiting them out
# kept the clients polling their queues under TCG for a minute after the
# audit had sampled, which the whole host paid for.  Signalled again every
# few seconds until the clients are gone (a client still warming up needs
# two); the step then ends 0 with each client's report, as after -D.
ibbw_end() {
	local p t0=$SECONDS i
	for i in $(seq 20); do
		p=$(pgrep -f -- '^ib_write_bw .* 127[.]0[.]0[.]1$')
		[ -n "$p" ] || break
		# shellcheck disable=SC2086
		kill -ALRM $p 2>/dev/null
		sleep 3
	done
	wait "$BG"; echo $? >"$O/ibbw_step.rc"
	echo "ibbw ended $((SECONDS - t0)) s after the audit, $i SIGALRM round(s)" >>"$O/waits"
}

# ---- a raw-verbs program: ib_write_bw, its device argument from the plan ----
# Pairs of ranks on one adapter (rxe between two adapters of one host
# does not reach: it receives on the netdev a packet came in by, lo):
# the even rank serves, the odd one connects.
step_bg ibbw -n4 --numa-plan=hca-near,verbose bash "$T/devices-task.sh" ib_write_bw 90
echo "ibbw holders $(holders /dev/infiniband/uverbs 4)" >>"$O/waits"
audit audit_ibbw 2
ibbw_end

# ---- the port of node 0's adapter taken DOWN during the job ----
# every task an ib_write_bw server that holds its adapter open
step_bg ibhold -n4 --numa-plan=hca-near,verbose bash "$T/devices-task.sh" ib_hold
echo "ibhold holders $(holders /dev/infiniband/uverbs 4)" >>"$O/waits"
ip link set eth1 down
wait_state rxe_eth1 DOWN; rxe_state rxe_eth1 >"$O/rxe_eth1_down"
audit audit_down 0
ip link set eth1 up
wait_state rxe_eth1 ACTIVE; rxe_state rxe_eth1 >"$O/rxe_eth1_again"
step_end ibhold_step

# ---- UCX ----
# ucx_perftest (UCX 1.13) does not run over rxe in this guest: with rc_v
# its UD wire-up times out, with rc_verbs alone its endpoints are
# "unreachable".  numaplan-probe --open stands in for a UCX program: it
# opens what UCX_NET_DEVICES selects, as UCX reads it; with the plan's
# value, then with the user's (the plugin keeps a user's value)
step_bg probeopen -n4 --numa-plan=hca-near,verbose bash "$T/devices-task.sh" probe
echo "probeopen holders $(holders /dev/infiniband/uverbs 4)" >>"$O/waits"
audit audit_probe 0
step_end probeopen_step
step_bg probewrong -n4 --numa-plan=hca-near,verbose --export=ALL,UCX_NET_DEVICES=rxe_eth0:1 \
	bash "$T/devices-task.sh" probe
echo "probewrong holders $(holders /dev/infiniband/uverbs 4)" >>"$O/waits"
audit audit_probe_wrong 0
step_end probewrong_step

# ---- GPUs: each task holds a render node, gpu-near from Slurm's allocation ----
step_bg gpuown -n2 --gpus=2 --numa-plan=gpu-near,verbose bash "$T/devices-task.sh" render own
echo "gpuown holders $(holders /dev/dri/renderD 2)" >>"$O/waits"
audit audit_gpu_own 0
step_end gpuown_step
step_bg gpuother -n2 --gpus=2 --numa-plan=gpu-near,verbose bash "$T/devices-task.sh" render other
echo "gpuother holders $(holders /dev/dri/renderD 2)" >>"$O/waits"
audit audit_gpu_other 0
step_end gpuother_step
exit 0
