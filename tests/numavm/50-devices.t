#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real kernel with two NICs and two GPUs on different NUMA nodes (numavm
# shape devices: eth0 on node 1, eth1 on node 0, Soft-RoCE on both; virtio
# GPUs on node 1 and node 0, Slurm's gres/gpu on their render nodes), the
# steps of tests/numavm/devices-collect.sh: a real RDMA program from Debian
# (ib_write_bw) and numaplan-probe --open under hca-near, tasks holding render nodes
# under gpu-near, and `numaplan audit` on each while it runs.
# Expectations from the shape (each node's CPUs, the node of each NIC and
# GPU) and the guest kernel's own sysfs (a render node's PCI function and
# its numa_node; an rxe device's parent netdev): a task's adapter and GPU
# are those on the NUMA node of its CPUs.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
for t in ib_write_bw python3; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t not installed (contrib/bootstrap installs perftest)"
done
numavm_collect devices "$NP_SRCDIR/tests/numavm/devices-collect.sh"

f() { cat "$DATA/$1" 2>/dev/null; }
rc() { cat "$DATA/$1.rc" 2>/dev/null; }
# the NUMA node of a cpulist, when it lies in one node; "" otherwise
node_of_cpus() { local n; n=$(nodes_of "$(expand "$1")"); [[ $n =~ ^[0-9]+$ ]] && echo "$n"; }
# the shape's facts: the NIC on each node, the GPUs' nodes
declare -A HCA_ON GPU_ON RENDER_OF
for nic in "${!NIC_NODE[@]}"; do HCA_ON[${NIC_NODE[$nic]}]=rxe_$nic; done
GPU_NODES=$("$NUMAVM" shape devices | awk '$1 == "gpu" { print $3 }' | sort | tr '\n' ' ' | sed 's/ $//')

# ---- the kernel, hwloc and Slurm ----
chk "kernel: rxe_eth0 and rxe_eth1 are software devices (/sys/devices/virtual), parents eth0 and eth1" eval \
	'grep -qx "ibdev rxe_eth0 parent eth0 sysfs /sys/devices/virtual/infiniband/rxe_eth0 netdev_numa ${NIC_NODE[eth0]}" "$DATA/devfacts" &&
	 grep -qx "ibdev rxe_eth1 parent eth1 sysfs /sys/devices/virtual/infiniband/rxe_eth1 netdev_numa ${NIC_NODE[eth1]}" "$DATA/devfacts"' ||
	diagm "$(f devfacts)"
# GPU_ON[node] = the bus id of the render node whose PCI function the
# kernel puts on that node
while read -r _ name _ bus _ numa; do
	case $name in renderD*) GPU_ON[$numa]=$bus; RENDER_OF[${bus//[:.]/_}]=$name;; esac
done < <(grep '^drm ' "$DATA/devfacts")
chk "kernel: virtio-gpu gives each GPU a card and a render node; their PCI functions on nodes $GPU_NODES as the shape says" eval \
	'[ "$(grep -c "^drm renderD" "$DATA/devfacts")" = 2 ] && [ "$(grep -c "^drm card" "$DATA/devfacts")" = 2 ] &&
	 [ "$(grep "^drm renderD" "$DATA/devfacts" | awk "{ print \$6 }" | sort | tr "\n" " ")" = "$GPU_NODES " ]' ||
	diagm "$(f devfacts)"
# hwloc's own view (the live export, HWLOC_VIRTUAL_LINUX_OSDEV=1): where
# each OS device hangs, as "NAME package P" or "NAME root"
hwloc_where() { # EXPORT
	python3 - "$DATA/$1.out" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
def walk(o, pkg):
    if o.get("type") == "Package":
        pkg = o.get("os_index")
    if o.get("type") == "OSDev":
        print(o.get("name"), "package " + pkg if pkg is not None else "root", o.get("osdev_type"))
    for c in o.findall("object"):
        walk(c, pkg)
for o in root.findall("object"):
    walk(o, None)
PY
}
HW=$(hwloc_where hwloc_live)
HWALL=$(hwloc_where hwloc_all)
chk "hwloc (live): rxe_eth0 and rxe_eth1 are OpenFabrics OS devices at the machine root, with no locality (virtual devices)" eval \
	'grep -qx "rxe_eth0 root 3" <<<"$HW" && grep -qx "rxe_eth1 root 3" <<<"$HW"' || diagm "$HW"
chk "hwloc (live): their netdevs eth0 and eth1 sit in the package of their node" eval \
	'grep -qx "eth0 package ${NODE_SOCKET[${NIC_NODE[eth0]}]} 2" <<<"$HW" && grep -qx "eth1 package ${NODE_SOCKET[${NIC_NODE[eth1]}]} 2" <<<"$HW"' ||
	diagm "$HW"
bad=
for n in $GPU_NODES; do
	r=${RENDER_OF[${GPU_ON[$n]//[:.]/_}]:-none}
	grep -qx "$r package ${NODE_SOCKET[n]} 1" <<<"$HWALL" || bad="$bad $r (node $n);"
done
chk "hwloc (live, --whole-io): each render node is a GPU OS device in the package of its NUMA node" [ -z "$bad" ] ||
	diagm "missing:$bad"$'\n'"$HWALL"
chk "hwloc (live, its default I/O filter, numaplan's): no DRM node listed, the GPUs are bare PCI functions" \
	eval '! grep -Eq "^(renderD|card)[0-9]+ " <<<"$HW"' || diagm "$HW"
chk "Slurm: gres/gpu on the render nodes, Gres=gpu:2" eval \
	'grep -q "Gres=gpu:2" "$DATA/scontrol_node.out"' || diagm "$(f scontrol_node.out)"
chk "the topology file: rxe_X moved under the PCI function of X, the virtio GPUs' vendor made AMD's, nothing else" eval \
	'[ "$(rc xml_edit)" = 0 ] && [ "$(sort "$DATA/xml_edit.out" | tr "\n" "|")" = "0000:61:00.0: vendor 1af4 -> 1002|0000:71:00.0: vendor 1af4 -> 1002|rxe_eth0: moved under 0000:41:00.0 (beside eth0)|rxe_eth1: moved under 0000:51:00.0 (beside eth1)|" ]' ||
	diagm "$(f xml_edit.out)"

# ---- the plans ----
# plan_ok NAME N: each rank of probe step NAME is on one node, and its
# NUMAPLAN_HCA and UCX_NET_DEVICES are that node's adapter
bad=
while read -r r cpus hca ucx gpus; do
	n=$(node_of_cpus "$cpus")
	[ -n "$n" ] && [ "$hca" = "${HCA_ON[$n]}:1" ] && [ "$ucx" = "$hca" ] || bad="$bad rank $r cpus $cpus hca $hca ucx $ucx;"
done < <(jq -r '[.rank, .cpus, .env.NUMAPLAN_HCA, .env.UCX_NET_DEVICES, .env.NUMAPLAN_GPUS] | map(tostring) | join(" ")' "$DATA/hca4.out" 2>/dev/null)
chk "hca-near -n4: every rank's NUMAPLAN_HCA and UCX_NET_DEVICES are the rxe of its node's NIC" \
	eval '[ "$(rc hca4)" = 0 ] && [ "$(grep -c "^{" "$DATA/hca4.out")" = 4 ] && [ -z "$bad" ]' || diagm "$bad $(f hca4.err)"
bad=; seen=
while read -r r cpus gpus; do
	n=$(node_of_cpus "$cpus")
	[ -n "$n" ] && [ "$gpus" = "${GPU_ON[$n]:-}" ] || bad="$bad rank $r cpus $cpus NUMAPLAN_GPUS $gpus;"
	seen="$seen $gpus"
done < <(jq -r '[.rank, .cpus, .env.NUMAPLAN_GPUS] | map(tostring) | join(" ")' "$DATA/gpu2.out" 2>/dev/null)
chk "gpu-near -n2 --gpus=2 (Slurm's allocation): each rank on its GPU's node, NUMAPLAN_GPUS its bus id, one GPU each" \
	eval '[ "$(rc gpu2)" = 0 ] && [ -z "$bad" ] && [ "$(tr " " "\n" <<<"$seen" | sort -u | grep -c .)" = 2 ]' ||
	diagm "$bad $(f gpu2.err)"

# ---- audit ----
# task_nodes STEP: "RANK NODE" for each task of a devices-task.sh step,
# from the CPUs each task read from the kernel
task_nodes() {
	local e r c
	for e in "$DATA/$1".*.err; do
		read -r r c < <(sed -n 's/^task rank=\([0-9]*\) cpus=\(.*\)/\1 \2/p' "$e")
		[ -n "$r" ] && echo "$r $(node_of_cpus "$c")"
	done
}
# devices AUDIT: "RANK nic_planned nic_open nic gpu_planned gpu_open gpu" per task
devices() {
	jq -r '.devices[] | [.rank, .nic_planned, .nic_open, .nic, .gpu_planned, .gpu_open, .gpu] | map(if . == null or . == "" then "-" else tostring end) | join(" ")' \
		"$DATA/$1.out" 2>/dev/null | sort -n
}
kinds() { jq -r '[.deviations[] | "\(.rank):\(.kind)"] | sort | join(" ")' "$DATA/$1.out" 2>/dev/null; }
# expect_nics AUDIT STEP WANT_OPEN: each task of STEP planned its node's
# adapter; it holds WANT_OPEN (or its own when "own") and the verdict follows
expect_nics() {
	local audit=$1 step=$2 want=$3 r n planned open verdict exp_open exp_v bad='' count=0
	declare -A NODE
	while read -r r n; do NODE[$r]=$n; done < <(task_nodes "$step")
	while read -r r planned open verdict _; do
		count=$((count + 1))
		n=${NODE[$r]:-x}
		exp_open=${HCA_ON[$n]:-?}; [ "$want" = own ] || exp_open=$want
		exp_v=match; [ "$exp_open" = "${HCA_ON[$n]:-?}" ] || exp_v=mismatch
		[ "$planned" = "${HCA_ON[$n]:-?}:1" ] && [ "$open" = "$exp_open" ] && [ "$verdict" = "$exp_v" ] ||
			bad="$bad rank $r (node $n): planned $planned open $open $verdict, expected ${HCA_ON[$n]:-?}:1 $exp_open $exp_v;"
	done < <(devices "$audit")
	[ "$count" = 4 ] || bad="$bad $count tasks audited, 4 expected;"
	echo "$bad"
}
diag_audit() { diagm "rc $(rc "$1"); $(devices "$1"); deviations: $(kinds "$1"); $(head -c 600 "$DATA/$1.err")"; }
# a task's kernel-read CPUs must be there at all
chk "ib_write_bw step: each task read its CPUs (4 tasks)" [ "$(task_nodes ibbw | grep -c ' [0-9]')" = 4 ] ||
	diagm "$(cat "$DATA"/ibbw.*.err 2>/dev/null | head -20)"
bad=$(expect_nics audit_ibbw ibbw own)
chk "audit during ib_write_bw (device from NUMAPLAN_HCA): every task holds its node's adapter, match; exit 0" \
	eval '[ -z "$bad" ] && [ "$(rc audit_ibbw)" = 0 ]' || { diagm "$bad"; diag_audit audit_ibbw; }
chk "audit during ib_write_bw: both adapters' ports ACTIVE and sending (sent_pkts over the window)" eval \
	'[ "$(jq -r "[.ports[][] | select(.xmit_pkts > 0 and .state == \"ACTIVE\") | .adapter] | unique | join(\" \")" "$DATA/audit_ibbw.out")" = "rxe_eth0 rxe_eth1" ]' ||
	diagm "$(jq -c .ports "$DATA/audit_ibbw.out" 2>/dev/null)"
clients=$(grep -l '^ *65536 ' "$DATA"/ibbw.[13].out 2>/dev/null | wc -l)
chk "ib_write_bw, its duration ended by SIGALRM after the audit: the step ends 0, both clients report a bandwidth for 65536-byte writes" \
	eval '[ "$(rc ibbw_step)" = 0 ] && [ "$clients" = 2 ]' || diagm "rc $(rc ibbw_step) $(tail -3 "$DATA"/ibbw.*.out "$DATA"/ibbw.err 2>/dev/null | head -30)"
diagm "$(grep '^ibbw ended' "$DATA/waits" 2>/dev/null)"

# eth1 down: rxe_eth1's port DOWN; the ranks planned rxe_eth1 (node
# ${NIC_NODE[eth1]}) get port-down, the others nothing
want=$(task_nodes ibhold | awk -v n="${NIC_NODE[eth1]}" '$2 == n { print $1 ":port-down" }' | sort | tr '\n' ' ' | sed 's/ $//')
bad=$(expect_nics audit_down ibhold own)
chk "eth1 taken down during the job: rxe_eth1 DOWN; every ib_write_bw server still holds its own adapter; audit reports port-down for the ranks planned rxe_eth1 ($want) only, exit 1" \
	eval 'grep -q DOWN "$DATA/rxe_eth1_down" && [ -z "$bad" ] && [ -n "$want" ] && [ "$(kinds audit_down)" = "$want" ] && [ "$(rc audit_down)" = 1 ]' ||
	{ diagm "$bad"; diag_audit audit_down; }
chk "eth1 up again: rxe_eth1 ACTIVE" grep -q ACTIVE "$DATA/rxe_eth1_again"

bad=$(expect_nics audit_probe probeopen own)
chk "numaplan-probe --open (UCX_NET_DEVICES from the plan): every task holds its node's adapter, match; exit 0" \
	eval '[ -z "$bad" ] && [ "$(rc audit_probe)" = 0 ]' || { diagm "$bad"; diag_audit audit_probe; }
bad=$(expect_nics audit_probe_wrong probewrong rxe_eth0)
want=$(task_nodes probewrong | awk -v n="${NIC_NODE[eth1]}" '$2 == n { print $1 ":nic-mismatch" }' | sort | tr '\n' ' ' | sed 's/ $//')
chk "numaplan-probe --open, the user's UCX_NET_DEVICES=rxe_eth0:1: nic-mismatch for the ranks planned rxe_eth1 ($want) only; exit 1" \
	eval '[ -z "$bad" ] && [ -n "$want" ] && [ "$(kinds audit_probe_wrong)" = "$want" ] && [ "$(rc audit_probe_wrong)" = 1 ]' ||
	{ diagm "$bad"; diag_audit audit_probe_wrong; }

# GPUs: the task's render node (or the other GPU's)
expect_gpus() { # AUDIT STEP own|other
	local r n planned open verdict bad='' count=0 other
	declare -A NODE
	while read -r r n; do NODE[$r]=$n; done < <(task_nodes "$2")
	while read -r r _ _ _ planned open verdict; do
		count=$((count + 1))
		n=${NODE[$r]:-x}
		other=$(for b in "${GPU_ON[@]}"; do [ "$b" != "${GPU_ON[$n]:-}" ] && echo "$b"; done)
		if [ "$3" = own ]; then [ "$planned" = "${GPU_ON[$n]:-?}" ] && [ "$open" = "$planned" ] && [ "$verdict" = match ]
		else [ "$planned" = "${GPU_ON[$n]:-?}" ] && [ "$open" = "$other" ] && [ "$verdict" = mismatch ]; fi ||
			bad="$bad rank $r (node $n): planned $planned open $open $verdict;"
	done < <(devices "$1")
	[ "$count" = 2 ] || bad="$bad $count tasks audited, 2 expected;"
	echo "$bad"
}
bad=$(expect_gpus audit_gpu_own gpuown own)
chk "gpu-near, each task holds its own GPU's render node and its adapter: audit gpu match for both, exit 0" \
	eval '[ -z "$bad" ] && [ "$(rc audit_gpu_own)" = 0 ]' || { diagm "$bad"; diag_audit audit_gpu_own; }
bad=$(expect_gpus audit_gpu_other gpuother other)
chk "gpu-near, each task holds the other GPU's render node: gpu-mismatch for both, exit 1" \
	eval '[ -z "$bad" ] && [ "$(kinds audit_gpu_other)" = "0:gpu-mismatch 1:gpu-mismatch" ] && [ "$(rc audit_gpu_other)" = 1 ]' ||
	{ diagm "$bad"; diag_audit audit_gpu_other; }
done_testing
