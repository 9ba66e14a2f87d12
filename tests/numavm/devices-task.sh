#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One task of a devices-collect.sh step (numavm guest), as an application
# would use the plan's variables:
#   ib_write_bw SECONDS   raw verbs: the device argument from NUMAPLAN_HCA
#                         (DEV:PORT); ranks 2k and 2k+1 a pair, 2k serves
#   ib_hold               an ib_write_bw server on the plan's device that
#                         no client comes to: it holds the adapter open
#   probe                 numaplan-probe --open: what UCX_NET_DEVICES selects
#   render own|other      hold the render node of the task's GPU
#                         (NUMAPLAN_GPUS) or of another one, and the
#                         adapter of its plan (numaplan-probe --open)
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
ib_hold)
	dev=${NUMAPLAN_HCA%%,*}
	exec ib_write_bw -d "${dev%:*}" -i "${dev##*:}" -x 1 -F -p $((port + r));;
probe)
	p=$NP_BUILDDIR/kernels/.libs/numaplan-probe; [ -x "$p" ] || p=$NP_BUILDDIR/kernels/numaplan-probe
	exec "$p" --json --open --hold 600;;
render)
	for d in /sys/class/drm/renderD*; do
		bus=$(basename "$(readlink -f "$d/device")")
		if { [ "$2" = own ] && [ "$bus" = "$NUMAPLAN_GPUS" ]; } ||
		   { [ "$2" = other ] && [ "$bus" != "$NUMAPLAN_GPUS" ]; }; then
			echo "rank $r NUMAPLAN_GPUS=$NUMAPLAN_GPUS opens /dev/dri/${d##*/} ($bus)"
			exec 3<"/dev/dri/${d##*/}" || exit 1
			# no GPU runtime variable: the probe opens the adapter only
			p=$NP_BUILDDIR/kernels/.libs/numaplan-probe; [ -x "$p" ] || p=$NP_BUILDDIR/kernels/numaplan-probe
			exec env -u ROCR_VISIBLE_DEVICES -u HIP_VISIBLE_DEVICES -u CUDA_VISIBLE_DEVICES -u ZE_AFFINITY_MASK \
				-u GPU_DEVICE_ORDINAL "$p" --json --open --hold 600
		fi
	done
	echo "rank $r: no render node for NUMAPLAN_GPUS=$NUMAPLAN_GPUS ($2)" >&2; exit 1;;
esac
echo "devices-task.sh: unknown use $1" >&2; exit 2
