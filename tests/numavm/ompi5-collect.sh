#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Inside the intel2s guest (CPUs numbered as Intel 2-socket firmware does:
# packages alternate, SMT siblings half the machine apart): the kernel's
# own view of each CPU, then, in the Debian 13 root, `numaplan plan -f
# ompi` rankfiles run by Open MPI 5's mpirun with numaplan-probe in each
# rank.  60-ompi5.t judges it all on the host.
#   ompi5-collect.sh ROOT D13DIR
[ -n "${NUMAVM_GUEST:-}" ] && [ -d "${NUMAVM_OUT:-}" ] || { echo "ompi5-collect.sh runs inside a numavm guest (numavm run)" >&2; exit 1; }
ROOT=$1 D13DIR=$2
O=$NUMAVM_OUT
B=$D13DIR/build

# the kernel's numbering: package, core and SMT siblings of every CPU
for d in /sys/devices/system/cpu/cpu[0-9]*; do
	echo "cpu ${d##*cpu} package $(cat "$d/topology/physical_package_id") siblings $(cat "$d/topology/thread_siblings_list")"
done >"$O/facts"
for d in /sys/devices/system/node/node[0-9]*; do
	echo "node ${d##*node} cpulist $(cat "$d/cpulist")"
done >>"$O/facts"

# The root is read-only here (the host's, over 9p): everything written
# goes to tmpfs mounts in a mount namespace of this script's own, which
# go away with it.  The guest's /etc/hosts names this guest; the job's
# output directory is bound in at its own path, and so is the build.
# shellcheck disable=SC2016
inside='
set -e
R=$1 D=$2 O=$3; shift 3
mount -t proc proc "$R/proc"
mount --rbind /sys "$R/sys"
mount --rbind /dev "$R/dev"
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
mount -t tmpfs -o mode=0755 tmpfs "$R/run"
mount --bind /etc/hosts "$R/etc/hosts"
# the build: at its own path, bound where the read-only root has (or a
# tmpfs of ours takes) a directory for it, else at its nearest ancestor
# the root has (the host root`s debian13 run made that one: a tree it bound)
t=$D
until [ -d "$R$t" ] || mkdir -p "$R$t" 2>/dev/null; do t=$(dirname "$t"); done
[ "$t" != / ] || { echo "no mount point for $D in the root" >&2; exit 1; }
mount --bind "$t" "$R$t"
mkdir -p "$R$O" && mount --bind "$O" "$R$O"
exec chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@"'
in_root() { unshare --mount --propagation private -- /bin/bash -c "$inside" inside "$ROOT" "$D13DIR" "$O" "$@"; }

# one case: NAME PLAN-ARGS...: the JSON plan, the rankfile, and the
# rankfile's own mpirun line (its header) run with the probe
# shellcheck disable=SC2016
launch='
name=$1 np=$2 probe=$3 O=$4 lib=$5; shift 5
export LD_LIBRARY_PATH=$lib
"$np" plan "$@" --format json >"$O/$name.plan" 2>"$O/$name.plan.err" || exit 10
"$np" plan "$@" --format ompi >"$O/$name.rf" 2>"$O/$name.rf.err" || exit 11
line=$(sed -n "s/^#   mpirun //p" "$O/$name.rf" | head -1)
[ -n "$line" ] || exit 12
line=${line%./a.out}
line=${line//FILE/$O/$name.rf}
echo "mpirun $line" >"$O/$name.cmd"
# shellcheck disable=SC2086
exec timeout 200 mpirun --allow-run-as-root $line -x LD_LIBRARY_PATH "$probe" --json'
case_run() {
	local name=$1 t0 t1 _; shift
	read -r t0 _ </proc/uptime
	in_root /bin/bash -c "$launch" launch "$name" "$B/cli/.libs/numaplan" "$B/kernels/numaplan-probe" "$O" \
		"$B/lib/.libs" "$@" >"$O/$name.out" 2>"$O/$name.err"
	echo $? >"$O/$name.rc"
	read -r t1 _ </proc/uptime
	echo "$name $t0 $t1" >>"$O/timing"
}

in_root /bin/sh -c 'mpirun --version | head -1; hwloc-info --version 2>/dev/null' >"$O/versions" 2>&1
case_run compact4 -n 4 -p compact
case_run threads8 -n 8 -p compact --threads
case_run spread4 -n 4 -p spread
case_run numa2 -n 2 -p numa
case_run compact2c2 -n 2 -p compact -c 2
exit 0
