#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan audit JOBID and the GPUs gpu-near tasks hold open, live through
# Slurm's gres/gpu and the plugin.  The vcluster runs the emulated GPU
# topology (emulated-topology.sh gpus) with gres/gpu on four fake device
# files (as 89-gpu.t); its GPUs in bus order are 0000:05:00.0,
# 0000:45:00.0, 0000:85:00.0, 0000:c5:00.0.  Each node's mount namespace
# gets a sysfs class tree whose DRM render nodes renderD128..131 are those
# four PCI functions, and a /sys/dev/char that says which device numbers
# they are (1:5, 1:7, 1:8, 1:9: those of /dev/zero, full, random and
# urandom, which any kernel opens; a device is its number, not its name).
# Each task, in a /dev of its own, holds a render node: rank 0 the one of
# its own GPU (NUMAPLAN_GPUS), rank 1 another GPU's.  So rank 0 is a
# match, rank 1 a gpu-mismatch.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool unshare
need_tool nsenter
need_tool mknod

read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
VC_DIR=${SLURM_CONF%/etc/slurm.conf}
dir=$(root_tmpdir auditgpu) || skip_all "cannot make a root-only directory"
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/gpu.xml" gpus || skip_all "cannot generate the XML"
chmod 0644 "$dir/gpu.xml"
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/gpu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"

in_node() {
	local pid
	pid=$(head -n1 "$VC_DIR/run/slurmd-$1.pid" 2>/dev/null) && [ -n "$pid" ] || return 1
	nsenter -t "$pid" -m -- bash -c "$2"
}
jobs=
cleanup() {
	scancel --quiet $jobs 2>/dev/null
	for n in $(sinfo -h -N -o %N | sort -u); do
		in_node "$n" "umount /sys/dev/char 2>/dev/null; umount -R /sys/class 2>/dev/null;
			umount '$dir/real-$n' 2>/dev/null" 2>/dev/null
	done
	plugstack_reset
	"$VC" up --nodes 2 >/dev/null 2>&1
	rm -rf "$dir"
}
trap cleanup EXIT

run "$VC" up --nodes 2 --topology "$dir/gpu.xml" --gpus 4
check "vcluster up --gpus 4 with the GPU topology" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || { diag "$ERR"; done_testing; exit 1; }
mapfile -t nodes < <(sinfo -h -N -o %N | sort -u)
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
		mkdir -p '$dir/devchar-$n'
		cp -a /sys/dev/char/. '$dir/devchar-$n'/
		mount -t tmpfs -o mode=0755 npdevchar /sys/dev/char
		cp -a '$dir/devchar-$n'/. /sys/dev/char/
		k=128
		for bus in 0000:05:00.0 0000:45:00.0 0000:85:00.0 0000:c5:00.0; do
			mkdir -p /sys/class/.npfake/\$bus /sys/class/drm/renderD\$k
			echo 0x10de >/sys/class/.npfake/\$bus/vendor
			ln -s /sys/class/.npfake/\$bus /sys/class/drm/renderD\$k/device
			mi=\$(( k == 128 ? 5 : k == 129 ? 7 : k == 130 ? 8 : 9 ))
			printf 'MAJOR=1\\nMINOR=%s\\nDEVNAME=dri/renderD%s\\n' \$mi \$k >/sys/class/drm/renderD\$k/uevent
			rm -f /sys/dev/char/1:\$mi
			ln -s /sys/class/drm/renderD\$k /sys/dev/char/1:\$mi
			k=\$((k + 1))
		done
	" || skip_all "cannot give node $n a sysfs class tree of its own"
done

# rank 0 holds its own GPU's render node, rank 1 the next GPU's
cat >"$dir/task.sh" <<'EOF2'
#!/bin/bash
k=0
for bus in 0000:05:00.0 0000:45:00.0 0000:85:00.0 0000:c5:00.0; do
	[ "$bus" = "${NUMAPLAN_GPUS%%,*}" ] && break
	k=$((k + 1))
done
[ "$SLURM_PROCID" = 1 ] && k=$(((k + 1) % 4))
export node=/dev/dri/renderD$((128 + k))
exec unshare -m --propagation private bash -c '
	mount -t tmpfs -o mode=0755 nptaskdev /dev || exit 1
	mknod -m 0666 /dev/null c 1 3
	mkdir -p /dev/dri
	mknod -m 0666 "$node" c 1 $(( ${node#/dev/dri/renderD} == 128 ? 5 : ${node#/dev/dri/renderD} == 129 ? 7 :
		${node#/dev/dri/renderD} == 130 ? 8 : 9 )) && exec {fd}<"$node"
	exec sleep 300'
EOF2
chmod 0755 "$dir/task.sh"

plugstack "cache=$dir sysfs=$dir/sys"
job=$(sbatch --parsable -N1 -n2 --gres=gpu:2 -o "$dir/slurm-%j.out" \
	--wrap "srun -n2 --numa-plan=gpu-near,mem=none $dir/task.sh")
jobs="$jobs $job"
check "the job is submitted" [ -n "$job" ]
holds() { local in; in=$(cat); [ -n "$in" ] && jq -e "$@" <<<"$in" >/dev/null 2>&1; }
for i in $(seq 120); do
	run numaplan audit "$job" --json --traffic 0
	holds '[.devices[] | select(.gpu_open != "")] | length == 2' <<<"$OUT" && break
	sleep 1
done
task() { jq -c --arg r "$1" ".devices[] | select(.rank == \$r)" <<<"$OUT"; }
g0=$(task 0 | jq -r .gpu_planned); g1=$(task 1 | jq -r .gpu_planned)
check "each task planned one of the four GPUs by bus id (NUMAPLAN_GPUS), distinct" \
	eval '[[ "$g0" =~ ^0000:[048c]5:00\.0$ ]] && [[ "$g1" =~ ^0000:[048c]5:00\.0$ ]] && [ "$g0" != "$g1" ]'
check "rank 0 holds its own GPU's render node: match" \
	holds --arg g "$g0" '.gpu_open == $g and .gpu == "match"' <<<"$(task 0)"
check "rank 1 holds another GPU's: mismatch" holds '.gpu == "mismatch"' <<<"$(task 1)"
check "... one gpu-mismatch deviation, rank 1's, naming its plan" \
	holds --arg g "$g1" '[.deviations[] | select(.kind == "gpu-mismatch") | [.rank, .expected]] == [["1", "gpu " + $g]]' <<<"$OUT"
check "exit status 1" [ "$RC" -eq 1 ]
scancel "$job"
wait_idle
check "slurmd of every node still up" nodes_alive
done_testing
