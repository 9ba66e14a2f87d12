#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan-probe --open: it opens the adapters and GPUs its environment
# selects, as UCX and the GPU runtimes read the variables, and reports
# what it then holds.  This machine has neither, so each run is in a mount
# namespace of its own (root only) where /sys/class, /proc/driver and /dev
# are small trees written here:
#   mlx5_0 = /dev/infiniband/uverbs0, mlx5_1 = uverbs1
#   NVIDIA: 0000:3b:00.0 with minor 8, 0000:af:00.0 with minor 7
#           (so CUDA's index 1, bus order, is /dev/nvidia7); their UUIDs
#           GPU-2f5255ea-7ffa-... (the captured H200's) and
#           GPU-2f5255ea-0000-..., in the driver's "GPU UUID:" lines
#   AMD:    renderD129 at 0000:c1:00.0, renderD128 at 0000:05:00.0
#           (so ROCr's index 0 is renderD128)
# A device is its number, not its name (numaplan-audit(1), DEVICES): the
# files are the character devices 1,5 1,7 1,8 1,9 (those of /dev/zero,
# full, random, urandom: any kernel opens them, and opening does
# nothing), which /sys/dev/char, a tree of its own too, says are uverbs0,
# uverbs1, renderD128 and kfd; with NP_NVIDIA set, /proc/devices says the
# NVIDIA driver's major is 1 and sysfs does not know 1,7 and 1,8: they are
# its minors 7 and 8.
source "$(dirname "$0")/../tap.sh"

P=numaplan-probe
command -v $P >/dev/null || { notok "numaplan-probe is built (PATH: $PATH)"; done_testing; exit; }
unset UCX_NET_DEVICES CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER ROCR_VISIBLE_DEVICES ZE_AFFINITY_MASK \
	NUMAPLAN_HCA NUMAPLAN_GPUS SLURM_PROCID PMI_RANK PMI_FD PMI_PORT PMIX_RANK
[ "$(id -u)" -eq 0 ] || { skip "needs root (a mount namespace)"; done_testing; exit 0; }
command -v unshare >/dev/null && command -v jq >/dev/null || { skip "needs unshare and jq"; done_testing; exit 0; }
unshare -m --propagation private true 2>/dev/null || { skip "cannot make a mount namespace"; done_testing; exit 0; }

run $P --hold x
check "--hold x: exit 2, says what it takes" eval '[ "$RC" -eq 2 ] && grep -q "seconds from 0 to 86400" <<<"$ERR"'
run $P --hold 86401
check "--hold 86401: exit 2" [ "$RC" -eq 2 ]

# in_tree CMD...: run CMD in a namespace with the trees above
in_tree() {
	unshare -m --propagation private bash -c '
		set -e
		mount -t tmpfs -o mode=0755 npclass /sys/class
		mkdir -p /sys/class/infiniband_verbs/uverbs0 /sys/class/infiniband_verbs/uverbs1 /sys/class/drm/renderD128 \
			/sys/class/drm/renderD129 /sys/class/.pci/0000:05:00.0 /sys/class/.pci/0000:c1:00.0
		echo mlx5_0 >/sys/class/infiniband_verbs/uverbs0/ibdev
		echo mlx5_1 >/sys/class/infiniband_verbs/uverbs1/ibdev
		echo 0x1002 >/sys/class/.pci/0000:05:00.0/vendor
		echo 0x1002 >/sys/class/.pci/0000:c1:00.0/vendor
		ln -s /sys/class/.pci/0000:05:00.0 /sys/class/drm/renderD128/device
		ln -s /sys/class/.pci/0000:c1:00.0 /sys/class/drm/renderD129/device
		mount -t tmpfs -o mode=0755 npdriver /proc/driver
		mkdir -p /proc/driver/nvidia/gpus/0000:3b:00.0 /proc/driver/nvidia/gpus/0000:af:00.0
		printf "Model: A\nGPU UUID: \t GPU-2f5255ea-7ffa-c868-d750-837ad136ffc5\nDevice Minor: 8\n" \
			>/proc/driver/nvidia/gpus/0000:3b:00.0/information
		printf "Model: B\nGPU UUID: \t GPU-2f5255ea-0000-c868-d750-837ad136ffc5\nDevice Minor: 7\n" \
			>/proc/driver/nvidia/gpus/0000:af:00.0/information
		mount -t tmpfs -o mode=0755 npdevchar /sys/dev/char
		for d in 3:null 5:infiniband/uverbs0 7:infiniband/uverbs1 8:dri/renderD128 9:kfd; do
			[ -n "${NP_NVIDIA:-}" ] && case $d in 7:*|8:*) continue;; esac
			mkdir -p /sys/class/.dev/${d%%:*}
			printf "MAJOR=1\nMINOR=%s\nDEVNAME=%s\n" ${d%%:*} ${d#*:} >/sys/class/.dev/${d%%:*}/uevent
			ln -s /sys/class/.dev/${d%%:*} /sys/dev/char/1:${d%%:*}
		done
		if [ -n "${NP_NVIDIA:-}" ]; then
			printf "Character devices:\n  1 nvidia\n\nBlock devices:\n" >/proc/driver/devices
			mount --bind /proc/driver/devices /proc/devices
		fi
		mount -t tmpfs -o mode=0755 npdev /dev
		mknod -m 0666 /dev/null c 1 3
		mkdir /dev/infiniband /dev/dri
		for f in infiniband/uverbs0:5 infiniband/uverbs1:7 nvidia7:7 nvidia8:8 dri/renderD128:8 dri/renderD129:3 kfd:9; do
			mknod -m 0666 /dev/${f%:*} c 1 ${f#*:}
		done
		set +e
		exec "$@"' in_tree "$@"
}
devs() { jq -c '[.devices[] | [.kind, .name, .pci]]' <<<"$OUT"; }

run in_tree env UCX_NET_DEVICES=mlx5_1:1 $P --open --json
check "UCX_NET_DEVICES=mlx5_1:1: holds uverbs1, mlx5_1, and nothing else" \
	eval '[ "$RC" -eq 0 ] && [ "$(devs)" = "[[\"rdma\",\"mlx5_1\",\"\"]]" ] &&
		[ "$(jq -r ".devices[0].file" <<<"$OUT")" = /dev/infiniband/uverbs1 ]'
run in_tree $P --open --json
check "UCX_NET_DEVICES unset: every adapter, as UCX would" \
	[ "$(devs)" = '[["rdma","mlx5_0",""],["rdma","mlx5_1",""]]' ]
run in_tree env UCX_NET_DEVICES=eth0 $P --open
check "UCX_NET_DEVICES=eth0: no device file, nothing held, exit 1 with the reason" \
	eval '[ "$RC" -eq 1 ] && grep -q " devices=- " <<<"$OUT" && grep -q "eth0 is no RDMA adapter here" <<<"$ERR"'
export NP_NVIDIA=1
run in_tree env UCX_NET_DEVICES=mlx5_0:1 CUDA_VISIBLE_DEVICES=1 $P --open --json
unset NP_NVIDIA
check "CUDA_VISIBLE_DEVICES=1: the second NVIDIA GPU by bus id, 0000:af:00.0, whose minor is 7" \
	eval '[ "$(devs)" = "[[\"rdma\",\"mlx5_0\",\"\"],[\"nvidia\",\"nvidia7\",\"0000:af:00.0\"]]" ]'
run in_tree env UCX_NET_DEVICES=mlx5_0 ROCR_VISIBLE_DEVICES=0 $P --open
check "ROCR_VISIBLE_DEVICES=0: /dev/kfd and the first AMD GPU by bus id, renderD128 at 0000:05:00.0" \
	grep -q " devices=rdma:mlx5_0,kfd:kfd,drm:0000:05:00.0 " <<<"$OUT"
export NP_NVIDIA=1
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=GPU-2f5255ea-0000-c868-d750-837ad136ffc5 $P --open --json
check "CUDA_VISIBLE_DEVICES=GPU-UUID: the GPU whose driver file says it, 0000:af:00.0, minor 7" \
	eval '[ "$RC" -eq 0 ] && [ "$(devs)" = "[[\"rdma\",\"mlx5_0\",\"\"],[\"nvidia\",\"nvidia7\",\"0000:af:00.0\"]]" ]'
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=GPU-2f5255ea-7ffa $P --open --json
check "a UUID prefix that names one GPU, as CUDA takes it: 0000:3b:00.0, minor 8" \
	eval '[ "$RC" -eq 0 ] && [ "$(devs)" = "[[\"rdma\",\"mlx5_0\",\"\"],[\"nvidia\",\"nvidia8\",\"0000:3b:00.0\"]]" ]'
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=GPU-2f5255ea $P --open
check "a prefix of both UUIDs: exit 1, said so" \
	eval '[ "$RC" -eq 1 ] && grep -q "the UUID prefix names more than one GPU" <<<"$ERR"'
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=GPU-1234 $P --open
check "a UUID no GPU has: exit 1, said so" \
	eval '[ "$RC" -eq 1 ] && grep -q "no GPU of the driver .* has that UUID" <<<"$ERR"'
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=MIG-7c3a6bc2-5a66-5d1f-a5a4-4b4e2b2b1c1d $P --open
unset NP_NVIDIA
check "a MIG UUID: exit 1, said that only NVML maps it" \
	eval '[ "$RC" -eq 1 ] && grep -q "is a MIG instance, which only NVML maps" <<<"$ERR"'
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=first $P --open
check "neither an index nor a UUID: exit 1, said so" \
	eval '[ "$RC" -eq 1 ] && grep -q "is not a GPU index nor a GPU-UUID" <<<"$ERR"'
run in_tree env UCX_NET_DEVICES=mlx5_0 ROCR_VISIBLE_DEVICES=2 $P --open
check "an index past the vendor's GPUs: exit 1, said so" eval '[ "$RC" -eq 1 ] && grep -q "no such GPU here (2 of" <<<"$ERR"'
run $P
check "without --open: no devices field" eval '! grep -q "devices=" <<<"$OUT"'

# --hold: the report comes first, the devices stay open meanwhile
out=$(mktemp)
{ in_tree env UCX_NET_DEVICES=mlx5_1 $P --open --hold 20 >"$out"; } 2>/dev/null &
sub=$!
for i in $(seq 50); do [ -s "$out" ] && break; sleep 0.2; done
# the subshell's child: unshare, which became the probe
pid=$(pgrep -P "$sub" | head -n1)
check "--hold: the line is out before the wait" grep -q "devices=rdma:mlx5_1" "$out"
check "... and the process holds /dev/infiniband/uverbs1 meanwhile" \
	eval '[ -n "$pid" ] && ls -l /proc/$pid/fd | grep -q "/dev/infiniband/uverbs1\$"'
[ -n "$pid" ] && kill "$pid"
wait 2>/dev/null
rm -f "$out"
done_testing
