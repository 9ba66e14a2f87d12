#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One task of a devices-collect.sh step (numavm guest), as an application
# would use the plan's variables:
#   ib_write_bw SECONDS   raw verbs: the device argument from NUMAPLAN_HCA
#                         (DEV:PORT); ranks 2k and 2k+1 a pair, 2k serves
#   ucx_perftest          UCX: UCX_NET_DEVICES, as UCX itself reads it
#   render own|other      hold the render node of the task's GPU
#                         (NUMAPLAN_GPUS) or of another one
r=${SLURM_PROCID:-0}
# the task's CPUs as the kernel has them, for the judge
echo "task rank=$r cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)" >&2
pair=$((r / 2)); port=$((18515 + SLURM_STEP_ID * 10 + pair))
# the client starts once its server listens (a minute at most)
listening() {
	local _
	for _ in $(seq 300); do ss -ltn 2>/dev/null | grep -q ":$port " && return 0; sleep 0.2; done
	return 1
}
case $1 in
ib_write_bw)
	dev=${NUMAPLAN_HCA%%,*}
	args=(-d "${dev%:*}" -i "${dev##*:}" -x 1 -F -s 65536 -D "$2" -p "$port")
	if [ $((r % 2)) -eq 0 ]; then exec ib_write_bw "${args[@]}"; fi
	listening; exec ib_write_bw "${args[@]}" 127.0.0.1;;
ucx_perftest)
	# UCX's UD transport does not reach over rxe here: RC for the
	# data, shared memory for UCX's own wire-up; GID 1 is the IPv4 one
	export UCX_TLS=rc_v,posix UCX_IB_GID_INDEX=1
	args=(-t tag_bw -s 1048576 -n 1000000 -p "$port")
	if [ $((r % 2)) -eq 0 ]; then exec ucx_perftest "${args[@]}"; fi
	listening; exec ucx_perftest 127.0.0.1 "${args[@]}";;
render)
	for d in /sys/class/drm/renderD*; do
		bus=$(basename "$(readlink -f "$d/device")")
		if { [ "$2" = own ] && [ "$bus" = "$NUMAPLAN_GPUS" ]; } ||
		   { [ "$2" = other ] && [ "$bus" != "$NUMAPLAN_GPUS" ]; }; then
			echo "rank $r NUMAPLAN_GPUS=$NUMAPLAN_GPUS opens /dev/dri/${d##*/} ($bus)"
			exec 3<"/dev/dri/${d##*/}" || exit 1
			exec sleep 600
		fi
	done
	echo "rank $r: no render node for NUMAPLAN_GPUS=$NUMAPLAN_GPUS ($2)" >&2; exit 1;;
esac
echo "devices-task.sh: unknown use $1" >&2; exit 2
