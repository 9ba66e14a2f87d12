#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian 13 root (contrib/debian13/debian13): made or brought up to
# date from Debian's registry, with the release the platform table names
# (Slurm 24.11, hwloc 2.12, Open MPI 5.0, PMIx 5); and its mounts are safe:
# a run leaves nothing mounted on the host, a stale mount from a killed run
# is taken away before the next one, a symlink in the root never carries a
# mount outside it, and a system directory is never taken for the root,
# nor one another user could have made or could change (/tmp, /var/tmp, an
# ancestor of another user's or world-writable); its lock and logs are
# never written through a planted symlink, and a mount point whose name
# holds a newline is never unmounted by the pieces of its name.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (debootstrap, chroot, mount)"; done_testing; exit 0; }

start=$SECONDS
"$D13" root >"$D13DIR/logs/root.log" 2>&1
rc=$?
diag "debian13 root: $((SECONDS - start)) s (log: $D13DIR/logs/root.log)"
check "debian13 root makes or updates the root" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { tail -20 "$D13DIR/logs/root.log" | sed 's/^/# /'; done_testing; exit 1; }

# The versions, from dpkg inside the root: the platform the table promises
ver() { d13run dpkg-query -W -f='${Version}' "$1" 2>/dev/null; }
v=$(ver libslurm-dev); diag "Slurm $v"
check "Slurm 24.11 (libslurm-dev $v)" eval '[[ $v == 24.11.* ]]'
v=$(ver libhwloc-dev); diag "hwloc $v"
check "hwloc 2.12 (libhwloc-dev $v)" eval '[[ $v == 2.12.* ]]'
v=$(ver openmpi-bin); diag "Open MPI $v"
check "Open MPI 5.0 (openmpi-bin $v)" eval '[[ $v == 5.0.* ]]'
v=$(ver libpmix-dev); diag "PMIx $v"
check "PMIx 5 (libpmix-dev $v)" eval '[[ $v == 5.* ]]'
run d13run cat /etc/debian_version
check "the root is Debian 13 (debian_version $OUT)" eval '[[ $OUT == 13* || $OUT == trixie* ]]'
run d13run sh -c 'grep -h "^URIs:" /etc/apt/sources.list.d/*.sources; cat /etc/apt/sources.list 2>/dev/null | grep "^deb"'
check "apt's only source is http://deb.debian.org/debian" eval \
	'[ "$(sort -u <<<"$OUT")" = "URIs: http://deb.debian.org/debian" ]'

# ---- mounts
host_mounts() { awk -v r="$D13ROOT/" 'index($5 "/", r) == 1' /proc/self/mountinfo; }
run d13run sh -c 'test -r /proc/self/status && test -d /sys/fs/cgroup && test -c /dev/null && test -d /dev/pts && test -w /run && test -d "$0"' "$NP_SRCDIR"
check "inside: /proc, /sys (with its cgroups), /dev, /dev/pts, /run and the tree" [ $RC -eq 0 ]
check "a run leaves nothing mounted under the root on the host" [ -z "$(host_mounts)" ]
SLURM_CONF=/nonexistent NP_DEB13_PROBE=x run d13run sh -c 'echo "${SLURM_CONF-unset} ${NP_DEB13_PROBE-unset}"'
check "the caller's NP_* reach the root, its SLURM_CONF does not" [ "$OUT" = "unset x" ]

# a stale mount of a killed run (here made by hand on the host's side)
stale=$D13ROOT/mnt/np-stale-test
mkdir -p "$stale" && mount -t tmpfs np-stale "$stale"
check "(a stale mount made under the root)" eval 'host_mounts | grep -q np-stale-test'
run d13run true
check "the next run works despite the stale mount" [ $RC -eq 0 ]
check "and unmounted it" eval '! host_mounts | grep -q np-stale-test'
rmdir "$stale" 2>/dev/null

# a run killed while its command runs: its mounts went with it
d13run sleep 300 & pid=$!
sleep 2
pkill -KILL -P "$pid" 2>/dev/null; kill -KILL "$pid" 2>/dev/null
# the chroot'ed sleep is a grandchild: find it by its root
for p in $(pgrep -x sleep); do
	[ "$(readlink "/proc/$p/root")" = "$D13ROOT" ] && kill -KILL "$p"
done
wait "$pid" 2>/dev/null
check "a killed run leaves nothing mounted on the host" [ -z "$(host_mounts)" ]

# a symlink inside the root pointing out of it never takes a mount there
hostdir=$(mktemp -d /var/tmp/np-deb13-bind.XXXXXX)
outside=$(mktemp -d /var/tmp/np-deb13-outside.XXXXXX)
echo keep >"$outside/file"
ln -s "$outside" "$D13ROOT$hostdir"
run "$D13" run --bind "$hostdir" -- true
check "a bind target that is a symlink in the root is refused" [ $RC -ne 0 ]
check "with a message naming the symlink" eval 'grep -q "symlink" <<<"$ERR"'
check "and the directory it points to is untouched" eval '[ "$(ls -A "$outside")" = file ] && ! grep -q "$outside" /proc/self/mountinfo'
rm -f "$D13ROOT$hostdir"; rmdir "$hostdir"; rm -rf "$outside"

# the root is never a system directory or a relative path
NP_DEBIAN13_ROOT=/ run "$D13" down
check "NP_DEBIAN13_ROOT=/ is refused" eval '[ $RC -ne 0 ] && grep -q "system directory" <<<"$ERR"'
NP_DEBIAN13_ROOT=/var/lib run "$D13" down
check "NP_DEBIAN13_ROOT=/var/lib is refused" [ $RC -ne 0 ]
NP_DEBIAN13_ROOT=relative/root run "$D13" down
check "a relative NP_DEBIAN13_ROOT is refused" eval '[ $RC -ne 0 ] && grep -q absolute <<<"$ERR"'
# a directory with files that debian13 did not make is never taken over
other=$(mktemp -d /var/lib/np-deb13-other.XXXXXX); echo precious >"$other/data"
NP_DEBIAN13_ROOT=$other run "$D13" run true
check "run in a directory without a root says so" eval '[ $RC -ne 0 ] && grep -q "no root" <<<"$ERR"'
check "and leaves its files" [ "$(cat "$other/data")" = precious ]
rm -rf "$other"

# a root another user could have made or could change is refused: under
# /tmp or /var/tmp (anyone makes names there), below a directory of
# another user's or a group- or world-writable one
run env NP_DEBIAN13_ROOT=/var/tmp/np-deb13-planted "$D13" status
check "a root under /var/tmp is refused, and says why" \
	eval '[ $RC -ne 0 ] && grep -q "refusing a root under /tmp, /var/tmp" <<<"$ERR"'
run env NP_DEBIAN13_ROOT=/tmp/np-deb13-planted "$D13" down
check "a root under /tmp is refused" eval '[ $RC -ne 0 ] && grep -q "refusing a root under" <<<"$ERR"'
top=$(mktemp -d /var/lib/np-deb13-top.XXXXXX)
chown nobody "$top"
run env NP_DEBIAN13_ROOT="$top/root" "$D13" down
check "a root below a directory of nobody's is refused, naming it" \
	eval '[ $RC -ne 0 ] && grep -q "$top belongs to uid $(id -u nobody), not root" <<<"$ERR"'
chown root "$top"; chmod 0777 "$top"
run env NP_DEBIAN13_ROOT="$top/root" "$D13" down
check "a root below a world-writable directory is refused" \
	eval '[ $RC -ne 0 ] && grep -q "$top is group- or world-writable (mode 777)" <<<"$ERR"'
chmod 0755 "$top"
# the lock and logs live in ROOT.state, root's alone: a symlink planted
# at its name is refused before anything is opened through it
victim=$(mktemp /var/lib/np-deb13-victim.XXXXXX); echo precious >"$victim"
mkdir "$top/root.target"; ln -s "$top/root.target" "$top/root.state"
run env NP_DEBIAN13_ROOT="$top/root" timeout 60 "$D13" root
check "a symlink at ROOT.state is refused (the lock and logs are never written through it)" \
	eval '[ $RC -ne 0 ] && grep -q "root.state is not a directory of root.s alone" <<<"$ERR" &&
	      [ -z "$(ls -A "$top/root.target")" ] && [ ! -e "$top/root" ]'
check "... and no file elsewhere was truncated" [ "$(cat "$victim")" = precious ]
rm -f "$victim"
# a mount point whose name holds a newline is never split into names:
# neither piece is unmounted (the second could be /proc)
mkdir -p "$top/root/a"$'\n'"proc"
mount -t tmpfs np-deb13-nl "$top/root/a"$'\n'"proc"
run env NP_DEBIAN13_ROOT="$top/root" "$D13" down
check "down refuses a mount point with a newline in its name, and says so" \
	eval '[ $RC -ne 0 ] && grep -q "has a newline in its name" <<<"$ERR"'
check "... it is still mounted, and /proc too" \
	eval 'grep -q "np-deb13-nl" /proc/self/mountinfo && [ -r /proc/self/status ]'
umount "$top/root/a"$'\n'"proc"
rm -rf "$top"
run "$D13" down
check "debian13 down with nothing mounted" [ $RC -eq 0 ]
done_testing
