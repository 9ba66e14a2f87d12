#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# topology=, cache= and sysfs= are followed by root, under one rule: the
# file (or directory), and every directory on the way from /, must be
# root's alone (owned by root, not writable by group or others; no
# exception for the sticky /tmp), and a symbolic link on the way is
# followed only when root owns it.  Before: a topology= file a user owns,
# or in a directory a user can write, was loaded; a user-owned symlink in
# a parent of cache= made root create the directory and write the cache
# file where the link pointed; a sysfs= tree under /tmp was believed.
# Each case is one a careless admin could configure.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
dir=$(root_tmpdir own) || skip_all "cannot make a root-only directory"
tmpdir=$(mktemp -d /tmp/numaplan-own.XXXXXX); chmod 0755 "$tmpdir"
trap 'plugstack_reset; rm -rf "$dir" "$tmpdir"' EXIT
node=$(sinfo -h -N -o %N | sort | head -1)
nobody=65534
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" || skip_all "cannot generate the XML"
chmod 0644 "$dir/emu.xml"
# the emulated adapter's live state (ADAPTER STATES): ACTIVE, as in the XML
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/emu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
sys=sysfs=$dir/sys
marker=$dir/ran

hca_step() { srun_ -N1 -n1 -w "$node" --numa-plan=hca-near,mem=none,verbose numaplan-probe --json; }
uses_file() { [ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]; }
# refused PATH WHY: under on_error=warn one warning naming the topology
# file and what is wrong on its way; under on_error=fail the step fails
refused() {
	local f=$1 why=$2 ok=1
	plugstack "topology=$f on_error=warn cache=none $sys"
	hca_step
	[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] || ok=
	[ "$(grep -c "^numaplan: $node: warning: cannot load the topology ($f): " <<<"$ERR")" -eq 1 ] || ok=
	grep -qF "$why" <<<"$ERR" || ok=
	plugstack "topology=$f on_error=fail cache=none $sys"
	srun_ -N1 -n1 -w "$node" --numa-plan=compact sh -c "touch $marker"
	[ "$RC" -ne 0 ] && [ ! -e "$marker" ] && grep -qF "$why" <<<"$ERR" || ok=
	rm -f "$marker"
	[ -n "$ok" ]
}

plugstack "topology=$dir/emu.xml cache=none $sys"
hca_step
check "control: a root-only file in a root-only directory is used" uses_file

# ---- topology=: the file
cp "$dir/emu.xml" "$dir/users.xml"; chown $nobody "$dir/users.xml"
check "a file owned by a user: refused" refused "$dir/users.xml" "$dir/users.xml is not owned by root"
cp "$dir/emu.xml" "$dir/gw.xml"; chmod 0664 "$dir/gw.xml"
check "a group-writable file: refused" refused "$dir/gw.xml" "$dir/gw.xml is group- or world-writable"
cp "$dir/emu.xml" "$dir/private.xml"; chmod 0600 "$dir/private.xml"
plugstack "topology=$dir/private.xml cache=none $sys"; hca_step
check "a file only root may read: used" uses_file

# ---- topology=: the directories on the way
mkdir -m 0755 "$dir/udir"; cp "$dir/emu.xml" "$dir/udir/emu.xml"; chown $nobody "$dir/udir"
check "root's file in a directory a user owns: refused, naming the directory" \
	refused "$dir/udir/emu.xml" "$dir/udir is not owned by root"
mkdir -m 0777 "$dir/wdir"; chmod 0777 "$dir/wdir"; cp "$dir/emu.xml" "$dir/wdir/emu.xml"
check "root's file in a world-writable directory: refused, naming it" \
	refused "$dir/wdir/emu.xml" "$dir/wdir is group- or world-writable"
cp "$dir/emu.xml" "$tmpdir/emu.xml"
check "root's file under /tmp (world-writable, sticky): refused, naming /tmp" \
	refused "$tmpdir/emu.xml" "/tmp is group- or world-writable"

# ---- topology=: symbolic links
mkdir -m 0755 "$dir/real"; cp "$dir/emu.xml" "$dir/real/emu.xml"
ln -s real "$dir/rlink"; ln -s "$dir/real/emu.xml" "$dir/rfile.xml"
plugstack "topology=$dir/rlink/emu.xml cache=none $sys"; hca_step
check "a root-owned symlink to a directory on the way: followed" uses_file
plugstack "topology=$dir/rfile.xml cache=none $sys"; hca_step
check "a root-owned symlink as the file (one per node, say): followed" uses_file
ln -s real "$dir/ulink"; chown -h $nobody "$dir/ulink"
check "a user-owned symlink on the way: refused, naming it" \
	refused "$dir/ulink/emu.xml" "$dir/ulink is a symbolic link not owned by root"
ln -s "$dir/real/emu.xml" "$dir/ufile.xml"; chown -h $nobody "$dir/ufile.xml"
check "a user-owned symlink as the file: refused" \
	refused "$dir/ufile.xml" "$dir/ufile.xml is a symbolic link not owned by root"
ln -s "$dir/udir" "$dir/to-udir"
check "a root-owned symlink into a user's directory: refused, naming that directory" \
	refused "$dir/to-udir/emu.xml" "$dir/udir is not owned by root"

# ---- sysfs=: the same rule, for the directory and the way to it
# sysfs_refused DIR WHY: under on_error=warn one warning naming sysfs= and
# what is wrong on its way, the task unbound; under on_error=fail the step
# fails
sysfs_refused() {
	local d=$1 why=$2 ok=1
	plugstack "topology=$dir/emu.xml sysfs=$d on_error=warn cache=none"
	hca_step
	[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] || ok=
	[ "$(grep -c "^numaplan: $node: warning: cannot read the adapters' state (plugstack.conf sysfs=$d): " <<<"$ERR")" -eq 1 ] || ok=
	grep -qF "$why" <<<"$ERR" || ok=
	plugstack "topology=$dir/emu.xml sysfs=$d on_error=fail cache=none"
	srun_ -N1 -n1 -w "$node" --numa-plan=compact sh -c "touch $marker"
	[ "$RC" -ne 0 ] && [ ! -e "$marker" ] && grep -qF "$why" <<<"$ERR" || ok=
	rm -f "$marker"
	[ -n "$ok" ]
}
cp -a "$dir/sys" "$tmpdir/sys"
check "a root-only sysfs= tree under /tmp (world-writable, sticky): refused, naming /tmp" \
	sysfs_refused "$tmpdir/sys" "/tmp is group- or world-writable"
mkdir -m 0755 "$dir/usys"; cp -a "$dir/sys" "$dir/usys/sys"; chown $nobody "$dir/usys"
check "sysfs= in a directory a user owns: refused, naming it" \
	sysfs_refused "$dir/usys/sys" "$dir/usys is not owned by root"
ln -s sys "$dir/rsys"
plugstack "topology=$dir/emu.xml sysfs=$dir/rsys cache=none"; hca_step
check "sysfs= through a root-owned symlink: followed, the adapter's state read" uses_file
ln -s sys "$dir/usyslink"; chown -h $nobody "$dir/usyslink"
check "sysfs= through a user-owned symlink: refused, naming it" \
	sysfs_refused "$dir/usyslink" "$dir/usyslink is a symbolic link not owned by root"

# ---- cache=: every component
topo_line() { grep "^numaplan: $node: topology: " <<<"$ERR"; }
cache_step() { srun_ -N1 -n1 -w "$node" --numa-plan=compact,verbose numaplan-probe --json; }
# The reported case: an admin's cache= path crosses a user's symlink; root
# must neither create nor write anything where it points.
mkdir -m 0755 "$dir/target"
mkdir -m 0755 "$dir/users"; chown $nobody "$dir/users"
ln -s "$dir/target" "$dir/users/link"; chown -h $nobody "$dir/users/link"
plugstack "cache=$dir/users/link/cache"
cache_step
check "cache= through a user's directory and symlink: the step runs, live" \
	eval '[ "$RC" -eq 0 ] && topo_line | grep -q "topology: live discovery; .*not saved: cache directory $dir/users/link/cache: $dir/users is not owned by root"'
check "cache= through a user's symlink: nothing created where it points" [ -z "$(ls -A "$dir/target")" ]
ln -s "$dir/target" "$dir/clink"; chown -h $nobody "$dir/clink"
plugstack "cache=$dir/clink/cache"
cache_step
check "cache= through a user-owned symlink in root's directory: not used, not written" \
	eval '[ "$RC" -eq 0 ] && topo_line | grep -q "not saved: cache directory $dir/clink/cache: $dir/clink is a symbolic link not owned by root" && [ -z "$(ls -A "$dir/target")" ]'
plugstack "cache=$tmpdir/cache"
cache_step
check "cache= under /tmp: not used, not written" \
	eval '[ "$RC" -eq 0 ] && topo_line | grep -q "not saved: cache directory $tmpdir/cache: /tmp is group- or world-writable" && [ ! -e "$tmpdir/cache" ]'
ln -s target "$dir/rclink"
plugstack "cache=$dir/rclink/cache"
cache_step
check "cache= through a root-owned symlink: written where it points" \
	eval '[ "$RC" -eq 0 ] && topo_line | grep -q "saved to $dir/rclink/cache/$node.xml" && [ -f "$dir/target/cache/$node.xml" ]'
cache_step
check "cache= through a root-owned symlink: read back" \
	eval '[ "$RC" -eq 0 ] && topo_line | grep -qx "numaplan: $node: topology: cache $dir/rclink/cache/$node.xml"'

check "the nodes are up" nodes_alive
done_testing
