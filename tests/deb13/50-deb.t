#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian packages on Debian 13: made from the tarball of the root's
# build (make dist) with dpkg-buildpackage -b inside the root, installed
# there with apt-get, the plugin in Debian 13 Slurm's plugin directory and
# tied to Slurm 24.11 by its dependency; then the installed plugin loaded by
# slurmd 24.11 on a vcluster in the root and tests/slurm/20-compact.t run
# against the installed files (NP_INSTALLED=/usr).  Purged at the end, so
# the next build's tests never see them.  The unit tests are not run again
# by dh_auto_test (DEB_BUILD_OPTIONS=nocheck): 30-groups.t ran them on the
# same source.  The script runs itself again inside the root.
source "$(dirname "$0")/../tap.sh"
if [ -z "${NP_DEB13_INSIDE:-}" ]; then
	source "$(dirname "$0")/deb13-lib.sh"
	[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
	[ -f "$D13BUILD/Makefile" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
	if ip link show "np-br${NP_VCLUSTER_ID:-0}" >/dev/null 2>&1; then
		notok "a vcluster with id ${NP_VCLUSTER_ID:-0} is up on the host (vcluster down first)"
		done_testing; exit 1
	fi
	exec "$D13" run --bind "$D13DIR" -- env NP_DEB13_INSIDE=1 NP_SRCDIR="$D13SRC" NP_BUILDDIR="$D13BUILD" \
		D13DIR="$D13DIR" bash "$D13SRC/tests/deb13/50-deb.t"
fi

# ---- inside the root
export DEBIAN_FRONTEND=noninteractive
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
PLUGINDIR=/usr/lib/$MULTIARCH/slurm-wlm
PLUGIN=$PLUGINDIR/numaplan.so
VC=$NP_SRCDIR/contrib/vcluster/vcluster
VERSION=$(sed -n 's/^AC_INIT(\[numaplan\], \[\([^]]*\)\].*/\1/p' "$NP_SRCDIR/configure.ac")
work=$D13DIR/deb
log=$D13DIR/logs/deb.log
: >"$log"
purge() {
	local p installed=()
	for p in $(dpkg-query -W -f='${Package}\n' 'libnumaplan*' 'numaplan*' 2>/dev/null); do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok' && installed+=("$p")
	done
	[ ${#installed[@]} -eq 0 ] || apt-get purge -y -q "${installed[@]}" >>"$log" 2>&1
}
cleanup() { NP_VCLUSTER_ID=${NP_VCLUSTER_ID:-0} "$VC" down >>"$log" 2>&1; purge; }
trap cleanup EXIT
purge    # an interrupted run's

rm -rf "$work"; mkdir -p "$work"
start=$SECONDS
make -C "$NP_BUILDDIR" dist-gzip >>"$log" 2>&1
check "make dist in the root's build" [ -f "$NP_BUILDDIR/numaplan-$VERSION.tar.gz" ]
mv "$NP_BUILDDIR/numaplan-$VERSION.tar.gz" "$work/" 2>/dev/null
ln -s "numaplan-$VERSION.tar.gz" "$work/numaplan_$VERSION.orig.tar.gz"
tar xzf "$work/numaplan-$VERSION.tar.gz" -C "$work"
(cd "$work/numaplan-$VERSION" && DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=$(nproc)" \
	dpkg-buildpackage -b -us -uc) >>"$log" 2>&1
rc=$?
diag "make dist and dpkg-buildpackage -b: $((SECONDS - start)) s (log: $log)"
check "dpkg-buildpackage -b -us -uc inside Debian 13" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { tail -20 "$log" | sed 's/^/# /'; done_testing; exit 1; }
slurmdeb=$(ls "$work"/numaplan-slurm_"$VERSION"-*.deb 2>/dev/null | head -1)
check "numaplan-slurm built" [ -n "$slurmdeb" ]
check "numaplan-slurm holds the plugin in Debian 13 Slurm's plugin directory $PLUGINDIR" \
	eval 'dpkg-deb -c "$slurmdeb" | grep -c " \./${PLUGIN#/}$" >/dev/null'
dep=$(dpkg-deb -f "$slurmdeb" Depends)
diag "numaplan-slurm Depends: $dep"
check "numaplan-slurm depends on Slurm 24.11's plugins, not 24.12's" \
	eval 'grep -qF "slurm-wlm-basic-plugins (>= 24.11~)" <<<"$dep" && grep -qF "slurm-wlm-basic-plugins (<< 24.12~)" <<<"$dep"'

(cd "$work" && apt-get install -y -q ./*.deb) >>"$log" 2>&1
check "apt-get install ./*.deb in the root" [ $? -eq 0 ]
check "dpkg -S $PLUGIN: numaplan-slurm" [ "$(dpkg -S "$PLUGIN" 2>/dev/null | cut -d: -f1)" = numaplan-slurm ]
# Slurm's own plugins are in the same directory: the plugin is where
# slurmd 24.11 looks without a PluginDir setting
check "Slurm 24.11's plugins are in that directory too (no PluginDir needed)" [ -f "$PLUGINDIR/select_cons_tres.so" ]
run /usr/bin/numaplan --version
sed 's/^/# /' <<<"$OUT"
check "installed numaplan --version: package $VERSION-1, hwloc 2.12, Slurm 24.11" \
	eval 'grep -q "(package $VERSION-1)" <<<"$OUT" && grep -qE "hwloc 2\.12\.[0-9]+, Slurm 24\.11\.[0-9]+" <<<"$OUT"'

# the installed plugin in slurmd 24.11: the vcluster's plugstack names it
export NP_VCLUSTER_ID=${NP_VCLUSTER_ID:-0}
env -u NP_BUILDDIR NP_PLUGIN="$PLUGIN" "$VC" up --nodes 2 >>"$log" 2>&1
check "vcluster up in the root with the installed plugin" [ $? -eq 0 ]
eval "$("$VC" env)"
check "plugstack.conf loads $PLUGIN" grep -q "^optional $PLUGIN" "$(dirname "$SLURM_CONF")/plugstack.conf"
out=$(NP_INSTALLED=/usr NP_PLUGIN="$PLUGIN" bash "$NP_SRCDIR/tests/slurm/20-compact.t" 2>&1)
diag "tests/slurm/20-compact.t against the installed packages:"
while IFS= read -r line; do
	case $line in
	"ok "[0-9]*"# SKIP"*) skip "installed 20-compact: ${line#*# SKIP }";;
	"ok "[0-9]*) ok "installed 20-compact: $(sed 's/^ok [0-9]* *-\{0,1\} *//' <<<"$line")";;
	"not ok "[0-9]*) notok "installed 20-compact: $(sed 's/^not ok [0-9]* *-\{0,1\} *//' <<<"$line")";;
	"#"*) echo "$line";;
	esac
done <<<"$out"
check "20-compact.t ran tests" eval 'grep -qE "^ok [0-9]+ " <<<"$out"'
done_testing
