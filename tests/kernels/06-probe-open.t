#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan-probe --open: it opens the adapters and GPUs its environment
# selects, as UCX and the GPU runtimes read the variables, and reports
# what it then holds.  This machine has neither, so each run is in a mount
# namespace of its own (root only) where /sys/class, /proc/driver and /dev
# are small trees written here:
#   mlx5_0 = /dev/infiniband/uverbs0, mlx5_1 = uverbs1
#   NVIDIA: 0000:3b:00.0 with minor 1, 0000:af:00.0 with minor 0
#           (so CUDA's index 1, bus order, is /dev/nvidia0)
#   AMD:    renderD129 at 0000:c1:00.0, renderD128 at 0000:05:00.0
#           (so ROCr's index 0 is renderD128)
# The device files are character devices (1,3: the null device), so
# opening them does nothing.
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
		printf "Model: A\nDevice Minor: 1\n" >/proc/driver/nvidia/gpus/0000:3b:00.0/information
		printf "Model: B\nDevice Minor: 0\n" >/proc/driver/nvidia/gpus/0000:af:00.0/information
		mount -t tmpfs -o mode=0755 npdev /dev
		mknod -m 0666 /dev/null c 1 3
		mkdir /dev/infiniband /dev/dri
		for f in infiniband/uverbs0 infiniband/uverbs1 nvidia0 nvidia1 dri/renderD128 dri/renderD129 kfd; do
			mknod -m 0666 /dev/$f c 1 3
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
run in_tree env UCX_NET_DEVICES=mlx5_0:1 CUDA_VISIBLE_DEVICES=1 $P --open --json
check "CUDA_VISIBLE_DEVICES=1: the second NVIDIA GPU by bus id, 0000:af:00.0, whose minor is 0" \
	eval '[ "$(devs)" = "[[\"rdma\",\"mlx5_0\",\"\"],[\"nvidia\",\"nvidia0\",\"0000:af:00.0\"]]" ]'
run in_tree env UCX_NET_DEVICES=mlx5_0 ROCR_VISIBLE_DEVICES=0 $P --open
check "ROCR_VISIBLE_DEVICES=0: /dev/kfd and the first AMD GPU by bus id, renderD128 at 0000:05:00.0" \
	grep -q " devices=rdma:mlx5_0,kfd:kfd,drm:0000:05:00.0 " <<<"$OUT"
run in_tree env UCX_NET_DEVICES=mlx5_0 CUDA_VISIBLE_DEVICES=GPU-1234 $P --open
check "a GPU UUID is not read: exit 1, said so" eval '[ "$RC" -eq 1 ] && grep -q "not a GPU index" <<<"$ERR"'
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
