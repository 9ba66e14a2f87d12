#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan audit JOBID and the adapters and GPUs the tasks hold open, live
# through Slurm and the plugin.  This machine has no RDMA adapter nor GPU,
# so each node of the vcluster (its own mount namespace) gets a sysfs
# class tree with two adapters, mlx5_0 (/dev/infiniband/uverbs0) and
# mlx5_1 (uverbs1), and a GPU renderD128 at PCI 0000:00:02.0, and each
# task, in a mount namespace of its own, holds character devices.  A
# device is its number, not its name (numaplan-audit(1), DEVICES): the
# nodes' /sys/dev/char says that 1:5, 1:7 and 1:8 (the numbers of
# /dev/zero, /dev/full and /dev/random, which any kernel opens) are
# infiniband/uverbs0, infiniband/uverbs1 and dri/renderD128.  The plan is
# the plugin's hca-near on an emulated topology whose only adapter is
# mlx5_0 (emulated-topology.sh): NUMAPLAN_HCA is mlx5_0:1 for every task, so:
#   a task holding uverbs0           -> match
#   a task holding uverbs1           -> nic-mismatch (open mlx5_1)
#   a task holding both              -> nic-extra
#   a task holding nothing           -> none-open, exit status 3
#   mlx5_0's port DOWN               -> port-down for each task
#   renderD128 held, no GPU planned  -> shown as 0000:00:02.0, not judged
#   a regular file named /dev/kfd    -> not a device, not shown
#   uverbs1's number named uverbs0   -> mlx5_1, nic-mismatch (a user
#                                       namespace's rebound /dev)
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool unshare
need_tool nsenter
need_tool mknod

read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
VC_DIR=${SLURM_CONF%/etc/slurm.conf}
mapfile -t nodes < <(sinfo -h -N -o %N | sort -u)
[ ${#nodes[@]} -ge 1 ] || skip_all "no node"
dir=$(root_tmpdir auditdev) || skip_all "cannot make a root-only directory"
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" || skip_all "cannot generate the XML"
chmod 0644 "$dir/emu.xml"
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/emu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"

jobs=
# in node $1's mount namespace (its slurmd's), run the shell text $2
in_node() {
	local pid
	pid=$(head -n1 "$VC_DIR/run/slurmd-$1.pid" 2>/dev/null) && [ -n "$pid" ] || return 1
	nsenter -t "$pid" -m -- bash -c "$2"
}
cleanup() {
	scancel --quiet $jobs 2>/dev/null
	for n in "${nodes[@]}"; do
		in_node "$n" "umount /sys/dev/char 2>/dev/null; umount -R /sys/class 2>/dev/null;
			umount '$dir/real-$n' 2>/dev/null" 2>/dev/null
	done
	plugstack_reset
	rm -rf "$dir"
}
trap cleanup EXIT

# /sys/class of each node: a tmpfs holding every real class (bound back
# from a copy of the mount) and the fake adapters and GPU
for n in "${nodes[@]}"; do
	mkdir -p "$dir/real-$n"
	in_node "$n" "
		set -e
		mount --bind /sys/class '$dir/real-$n'
		mount -t tmpfs -o mode=0755 npclass /sys/class
		for c in '$dir/real-$n'/*; do
			mkdir /sys/class/\${c##*/}
			mount --bind \"\$c\" /sys/class/\${c##*/}
		done
		mkdir -p /sys/class/infiniband_verbs/uverbs0 /sys/class/infiniband_verbs/uverbs1
		echo mlx5_0 >/sys/class/infiniband_verbs/uverbs0/ibdev
		echo mlx5_1 >/sys/class/infiniband_verbs/uverbs1/ibdev
		for a in mlx5_0 mlx5_1; do
			mkdir -p /sys/class/infiniband/\$a/ports/1/counters
			echo '4: ACTIVE' >/sys/class/infiniband/\$a/ports/1/state
			echo 0 >/sys/class/infiniband/\$a/ports/1/counters/port_xmit_data
			echo 0 >/sys/class/infiniband/\$a/ports/1/counters/port_rcv_data
		done
		mkdir -p /sys/class/.npfake/pci0000:00/0000:00:02.0 /sys/class/drm/renderD128
		ln -s /sys/class/.npfake/pci0000:00/0000:00:02.0 /sys/class/drm/renderD128/device
		# the devices by number: /sys/dev/char, its own entries kept
		mkdir -p '$dir/devchar-$n'
		cp -a /sys/dev/char/. '$dir/devchar-$n'/
		mount -t tmpfs -o mode=0755 npdevchar /sys/dev/char
		cp -a '$dir/devchar-$n'/. /sys/dev/char/
		for d in 1:5:infiniband_verbs/uverbs0:infiniband/uverbs0 1:7:infiniband_verbs/uverbs1:infiniband/uverbs1 \
			1:8:drm/renderD128:dri/renderD128; do
			IFS=: read -r ma mi class name <<<\"\$d\"
			printf 'MAJOR=%s\\nMINOR=%s\\nDEVNAME=%s\\n' \$ma \$mi \$name >/sys/class/\$class/uevent
			rm -f /sys/dev/char/\$ma:\$mi
			ln -s /sys/class/\$class /sys/dev/char/\$ma:\$mi
		done
	" || skip_all "cannot give node $n a sysfs class tree of its own"
done
check "the nodes' fake sysfs names uverbs1 mlx5_1" \
	[ "$(in_node "${nodes[0]}" 'cat /sys/class/infiniband_verbs/uverbs1/ibdev')" = mlx5_1 ]
check "... and /sys/dev/char says 1:7 is infiniband/uverbs1" \
	in_node "${nodes[0]}" 'grep -qx DEVNAME=infiniband/uverbs1 /sys/dev/char/1:7/uevent'
check "... and the host's sysfs is untouched" \
	eval '[ ! -e /sys/class/infiniband_verbs/uverbs1 ] && ! grep -q DEVNAME=infiniband /sys/dev/char/1:7/uevent'


# Each task holds the files of its rank's variable (H0, H1, ...: device
# paths, each the device of its name; "PATH@NAME" a node at PATH with the
# number of device NAME; "file:PATH" a regular file), in a /dev of its
# own, then waits.
cat >"$dir/task.sh" <<'EOF'
#!/bin/bash
eval "files=\${H$SLURM_PROCID}"
export files
# a file in the test's directory once every file is open: the audit is
# run after that, not while a task is still opening its files
export ready=$(dirname "$(readlink -f "$0")")/ready.$SLURM_JOB_ID.$SLURM_PROCID
exec unshare -m --propagation private bash -c '
	num() { case $1 in uverbs0) echo 1 5;; uverbs1) echo 1 7;; renderD128) echo 1 8;; *) echo 1 3;; esac; }
	mount -t tmpfs -o mode=0755 nptaskdev /dev || exit 1
	mknod -m 0666 /dev/null c 1 3
	mkdir -p /dev/infiniband /dev/dri
	for f in $files; do
		case $f in
		file:*) : >"${f#file:}"; exec {fd}<"${f#file:}";;
		*@*) mknod -m 0666 "${f%@*}" c $(num "${f#*@}") && exec {fd}<"${f%@*}";;
		*) mknod -m 0666 "$f" c $(num "${f##*/}") && exec {fd}<"$f";;
		esac
	done
	: >"$ready"
	exec sleep 300'
EOF
chmod 0755 "$dir/task.sh"

plugstack "topology=$dir/emu.xml sysfs=$dir/sys"
# submit "H0=... H1=...": two tasks on one node, hca-near
submit() {
	sbatch --parsable -N1 -n2 --exclusive -o "$dir/slurm-%j.out" \
		--wrap "export $1; srun -n2 --whole --numa-plan=hca-near,mem=none $dir/task.sh"
}
# holds FILTER: jq -e FILTER of stdin, false on empty input (which jq
# 1.6 takes for true)
holds() {
	local in
	in=$(cat)
	[ -n "$in" ] && jq -e "$1" <<<"$in" >/dev/null 2>&1
}
# audit_until JOB JQ: once both tasks have opened their files (their ready
# files), audit --json until JQ holds of its output (the job
# may wait for the previous one's node, the tasks need a moment to start),
# at most 120 s; $OUT $ERR $RC of the last
audit_until() {
	local i
	for i in $(seq 120); do
		[ "$(ls "$dir"/ready."$1".* 2>/dev/null | wc -l)" -ge 2 ] || { sleep 1; continue; }
		run numaplan audit "$1" --json --traffic 0
		holds "$2" <<<"$OUT" && return 0
		sleep 1
	done
	return 1
}
task() { jq -c --arg r "$1" ".devices[] | select(.rank == \$r)" <<<"$OUT"; }

# ---- rank 0 holds its adapter, rank 1 the other one and the GPU
job=$(submit "H0=/dev/infiniband/uverbs0 H1='/dev/infiniband/uverbs1 /dev/dri/renderD128 file:/dev/kfd'")
jobs="$jobs $job"
check "the job is submitted" [ -n "$job" ]
check "audit sees both tasks' devices" \
	audit_until "$job" '[.devices[] | select(.nic_open != "")] | length == 2'
check "rank 0: planned mlx5_0:1 (the plugin's hca-near), holds mlx5_0: match" \
	holds '.nic_planned == "mlx5_0:1" and .nic_open == "mlx5_0" and .nic == "match"' <<<"$(task 0)"
check "rank 1: holds mlx5_1: mismatch" \
	holds '.nic_open == "mlx5_1" and .nic == "mismatch"' <<<"$(task 1)"
check "... one deviation, nic-mismatch, expected adapter mlx5_0, found open mlx5_1" \
	holds '[.deviations[] | select(.kind == "nic-mismatch")] == [.deviations[]] and .summary.deviations == 1 and
		.deviations[0].rank == "1" and .deviations[0].expected == "adapter mlx5_0" and
		.deviations[0].found == "open mlx5_1"' <<<"$OUT"
check "rank 1's render node is named by its PCI function; no GPU planned, not judged" \
	holds '.gpu_open == "0000:00:02.0" and .gpu == "-"' <<<"$(task 1)"
check "a regular file named /dev/kfd is no device" holds '.kfd == false' <<<"$(task 1)"
check "exit status 1" [ "$RC" -eq 1 ]
run numaplan audit "$job" --traffic 0
check "text: the deviation's row" grep -qE "^n[0-9]+ +[0-9]+ +1 +[0-9]+ +[0-9]+ +nic-mismatch +adapter mlx5_0 +open mlx5_1 " <<<"$OUT"
check "text: a line per task, planned and open" \
	eval 'grep -qE "^  n[0-9]+ step [0-9]+ rank 0: nic planned mlx5_0:1, open mlx5_0 \(match\)" <<<"$OUT" &&
		grep -qE "^  n[0-9]+ step [0-9]+ rank 1: nic planned mlx5_0:1, open mlx5_1 \(mismatch\); gpu planned -, open 0000:00:02.0 \(-\)" <<<"$OUT"'
check "text: the adapters' ports, both ACTIVE" \
	eval '[ "$(grep -cE "^  n[0-9]+ mlx5_[01]:1 ACTIVE" <<<"$OUT")" -eq 2 ]'
# the port of the planned adapter goes down while the job runs
node=$(squeue -h -j "$job" -o %N)
in_node "$node" "echo '1: DOWN' >/sys/class/infiniband/mlx5_0/ports/1/state"
run numaplan audit "$job" --json --traffic 0
check "mlx5_0's port DOWN: a port-down deviation for each task" \
	holds '[.deviations[] | select(.kind == "port-down") | .found] == ["mlx5_0:1 DOWN", "mlx5_0:1 DOWN"]' <<<"$OUT"
in_node "$node" "echo '4: ACTIVE' >/sys/class/infiniband/mlx5_0/ports/1/state"
scancel "$job"

# ---- rank 0 holds nothing yet, rank 1 its adapter and the other
job=$(submit "H0= H1='/dev/infiniband/uverbs0 /dev/infiniband/uverbs1'")
jobs="$jobs $job"
check "audit sees rank 1's adapters" \
	audit_until "$job" '[.devices[] | select(.rank == "1" and .nic_open == "mlx5_0,mlx5_1")] | length == 1'
check "rank 0 holds nothing: none-open, not a match" holds '.nic == "none-open" and .nic_open == ""' <<<"$(task 0)"
check "rank 1 holds both: extra, a deviation" \
	eval 'holds ".nic == \"extra\"" <<<"$(task 1)" && holds "[.deviations[].kind] == [\"nic-extra\"]" <<<"$OUT"'
scancel "$job"

# ---- a /dev of a user namespace, rebound: rank 0's file is named uverbs0
# and is uverbs1 (1:7), rank 1's named uverbs1 and is uverbs0 (1:5)
job=$(submit "H0=/dev/infiniband/uverbs0@uverbs1 H1=/dev/infiniband/uverbs1@uverbs0")
jobs="$jobs $job"
check "audit sees both rebound files" \
	audit_until "$job" '[.devices[] | select(.nic_open != "")] | length == 2'
check "rank 0's file named uverbs0 is uverbs1 by its number: mlx5_1, mismatch" \
	holds '.nic_open == "mlx5_1" and .nic == "mismatch"' <<<"$(task 0)"
check "rank 1's file named uverbs1 is uverbs0 by its number: mlx5_0, match" \
	holds '.nic_open == "mlx5_0" and .nic == "match"' <<<"$(task 1)"
check "... one deviation, rank 0's nic-mismatch, found open mlx5_1" \
	holds '[.deviations[] | [.kind, .rank, .found]] == [["nic-mismatch", "0", "open mlx5_1"]]' <<<"$OUT"
scancel "$job"

# ---- every task holds its adapter, or none: exit 0, then 3
job=$(submit "H0=/dev/infiniband/uverbs0 H1=/dev/infiniband/uverbs0")
jobs="$jobs $job"
audit_until "$job" '[.devices[] | select(.nic == "match")] | length == 2'
check "both tasks hold mlx5_0: no deviation, exit 0" eval '[ "$RC" -eq 0 ] && holds ".summary.deviations == 0" <<<"$OUT"'
scancel "$job"
job=$(submit "H0= H1=")
jobs="$jobs $job"
audit_until "$job" '[.devices[] | select(.nic == "none-open")] | length == 2'
check "no task holds its adapter yet: exit 3, 2 unverified" \
	eval '[ "$RC" -eq 3 ] && holds ".summary.device_unverified == 2 and .summary.deviations == 0" <<<"$OUT"'
run numaplan audit "$job" --traffic 0
check "text: says none is open, and not verified" \
	eval 'grep -qE "rank 0: nic planned mlx5_0:1, open none \(none-open\)" <<<"$OUT" && grep -q "not verified" <<<"$OUT"'
scancel "$job"
wait_idle
done_testing
