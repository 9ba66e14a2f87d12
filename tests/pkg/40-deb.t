#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian packages, installed: the packages 35-deb-build.t made, `apt-get
# install ./*.deb`, and the Slurm end-to-end group (tests/slurm) run against the INSTALLED files -
# /usr/bin's programs, /usr/lib's library, the plugin in Debian Slurm's
# plugin directory - on the vcluster.  Then what INSTALL.md says about
# plugstack.conf and Slurm releases, on the installed plugin: the snippet
# is off until enabled; a plugin built for another Slurm release is skipped
# (optional) or stops every job (required); removing the package rolls it
# back.  The packages are purged at the end (NP_PKG_KEEP=1 keeps them).

source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/pkg-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (apt-get, the vcluster)"; done_testing; exit 0; }
for t in dpkg apt-get; do
	command -v "$t" >/dev/null || { skip "$t not installed (apt-get install dpkg-dev debhelper)"; done_testing; exit 0; }
done
for p in $DEBS; do
	[ -n "$(debfile "$p")" ] || { notok "no package $p in $DEB_WORK (35-deb-build.t makes them)"; done_testing; exit 1; }
done

VC=$NP_SRCDIR/contrib/vcluster/vcluster
export DEBIAN_FRONTEND=noninteractive

purge() {
	local p installed=()
	for p in $DEBS; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv 'not-installed' && installed+=("$p"); done
	[ ${#installed[@]} -eq 0 ] || apt-get purge -y -q "${installed[@]}" >>"$PKGDIR/apt.log" 2>&1
}
vc_was_up=no
tmp=
cleanup() {
	[ -n "$tmp" ] && rm -rf "$tmp"
	if [ -n "${SLURM_CONF:-}" ]; then
		if [ $vc_was_up = yes ]; then
			NP_PLUGIN= "$VC" plugstack '' >/dev/null 2>&1   # back to the build tree's plugin
		else
			"$VC" down >/dev/null 2>&1
		fi
	fi
	[ -n "${NP_PKG_KEEP:-}" ] || purge
}
trap cleanup EXIT
: >"$PKGDIR/apt.log"
purge    # a previous run's, if it was interrupted

work=$DEB_WORK
read -r smaj smin smic < <(slurm_version_parts)

# ---- installed
(cd "$work" && apt-get install -y -q ./*.deb) >>"$PKGDIR/apt.log" 2>&1
check "apt-get install ./*.deb" [ $? -eq 0 ]
for p in $DEBS; do
	check "$p $NP_VERSION installed" \
		[ "$(dpkg-query -W -f='${Status} ${Version}' "$p" 2>/dev/null)" = "install ok installed $NP_VERSION-1" ]
done
# what the installed-package tests run with: /usr's programs first, nothing
# of the build tree or of /usr/local (contrib/bootstrap's install) on PATH,
# and /usr's library before /usr/local/lib, which ld.so.conf puts first
inst_path="/usr/bin:$(tr ':' '\n' <<<"$PATH" | grep -v -e '^/usr/local/' -e "^$NP_BUILDDIR/" | paste -sd:)"
installed() {
	env NP_INSTALLED=/usr NP_PLUGIN="$DEB_PLUGIN" LD_LIBRARY_PATH=/usr/lib/$MULTIARCH PATH="$inst_path" "$@"
}
check "installed: numaplan and numaplan-probe are /usr/bin's" \
	[ "$(installed bash -c 'command -v numaplan numaplan-probe numaplan-probe-mpi' | tr '\n' ' ')" = "/usr/bin/numaplan /usr/bin/numaplan-probe /usr/bin/numaplan-probe-mpi " ]
check "installed: /usr/bin/numaplan loads /usr/lib/$MULTIARCH/libnumaplan.so.$NP_SOMAJOR" \
	grep -q "libnumaplan.so.$NP_SOMAJOR => /usr/lib/$MULTIARCH/libnumaplan.so.$NP_SOMAJOR " <<<"$(installed ldd /usr/bin/numaplan)"
diag "without LD_LIBRARY_PATH: $(ldd /usr/bin/numaplan | grep libnumaplan | sed 's/^[[:space:]]*//')"
check "installed: the plugin needs no libnumaplan.so (the planner is linked in)" \
	bash -c '! ldd "$1" | grep -q libnumaplan' _ "$DEB_PLUGIN"
check "installed: numaplan-slurm made the step records' directory /var/lib/numaplan/steps, root's, 0755" \
	[ "$(stat -c '%U %a' /var/lib/numaplan/steps 2>/dev/null)" = "root 755" ]
check "installed: dpkg -S $DEB_PLUGIN is numaplan-slurm" [ "$(dpkg -S "$DEB_PLUGIN" 2>/dev/null | cut -d: -f1)" = numaplan-slurm ]
want_slurm=none
[ -n "${smaj:-}" ] && want_slurm=$(printf '%d.%02d.%d' "$smaj" "$smin" "$smic")
run installed numaplan --version
check "installed: numaplan --version: $NP_VERSION (package $NP_VERSION-1), hwloc $(pkg-config --modversion hwloc), Slurm $want_slurm" \
	[ "$OUT" = "$(printf 'numaplan %s (package %s)\nbuilt against hwloc %s, Slurm %s' "$NP_VERSION" "$NP_VERSION-1" "$(pkg-config --modversion hwloc)" "$want_slurm")" ]
check "installed: the plugin runs the installed checker /usr/libexec/numaplan/numaplan-topo-check" \
	eval '[ -x /usr/libexec/numaplan/numaplan-topo-check ] && grep -qaF /usr/libexec/numaplan/numaplan-topo-check "$DEB_PLUGIN"'
run installed numaplan topo --topology "$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml"
check "installed: numaplan topo on a stored topology (the installed library and checker)" \
	eval '[ "$RC" -eq 0 ] && grep -q "^2 packages, 8 NUMA nodes" <<<"$OUT"'
check "installed: the snippet is off (every line a comment)" eval '! grep -qvE "^[[:space:]]*(#|$)" "$DEB_SNIPPET"'

# ---- going back to the previous build (INSTALL.md, "Rolling back"): the
# same five packages as a next Debian revision, $NP_VERSION-2 (repacked: the
# version fields and the exact-version dependencies change, which is all apt
# decides by), both revisions in a local repository, apt pointed at it alone
prev=$NP_VERSION-1 next=$NP_VERSION-2
rb=$PKGDIR/rollback; rm -rf "$rb"
mkdir -p "$rb/repo" "$rb/parts" "$rb/lists/partial" "$rb/cache/archives/partial"
for p in $DEBS; do
	f=$(debfile "$p"); cp "$f" "$rb/repo/"
	d=$rb/unpacked-$p; dpkg-deb -R "$f" "$d"
	sed -i -E "s/^Version: .*/Version: $next/; /^(Pre-)?Depends:/ s/\(= $prev\)/(= $next)/g" "$d/DEBIAN/control"
	dpkg-deb -b "$d" "$rb/repo/" >/dev/null
done
(cd "$rb/repo" && dpkg-scanpackages -m . >Packages 2>>"$PKGDIR/apt.log")
echo "deb [trusted=yes] file:$rb/repo ./" >"$rb/sources.list"
printf 'Dir::Etc::SourceList "%s";\nDir::Etc::SourceParts "%s";\nDir::State::Lists "%s";\nDir::Cache "%s";\n' \
	"$rb/sources.list" "$rb/parts" "$rb/lists" "$rb/cache" >"$rb/apt.conf"
rapt() { APT_CONFIG=$rb/apt.conf apt-get -q "$@" >>"$PKGDIR/apt.log" 2>&1; }
versions() { local p; for p in $DEBS; do dpkg-query -W -f='${Version} ' "$p" 2>/dev/null; done; }
all_at() { [ "$(versions)" = "$(for p in $DEBS; do printf '%s ' "$1"; done)" ]; }
rapt update
rapt install -y $DEBS
check "upgrade: every numaplan package at $next from the local repository" all_at "$next"
rapt install -y numaplan-slurm="$prev"
rc=$?
check "apt-get install numaplan-slurm=$prev alone fails (its exact-version dependency on libnumaplan$NP_SOMAJOR), changes nothing" \
	eval '[ "$rc" -ne 0 ] && all_at "$next"'
cmd=$(grep -m1 -E '^ +apt-get install --allow-downgrades ' "$NP_SRCDIR/INSTALL.md" | sed 's/^ *//')
check "INSTALL.md gives the rollback command" [ -n "$cmd" ]
V=$prev APT_CONFIG=$rb/apt.conf bash -c "${cmd/apt-get install/apt-get install -y -q}" >>"$PKGDIR/apt.log" 2>&1
rc=$?
check "INSTALL.md's rollback command (V=$prev) takes every numaplan package back to $prev" \
	eval '[ "$rc" -eq 0 ] && all_at "$prev"'

# ---- removal while plugstack.conf still loads the plugin (the prerm)
cp "$DEB_SNIPPET" "$PKGDIR/snippet.orig"
sed 's/^#optional /required /' "$PKGDIR/snippet.orig" >"$DEB_SNIPPET"
apt-get remove -y -q numaplan-slurm >"$PKGDIR/remove-required.log" 2>&1
rc=$?
check "apt-get remove numaplan-slurm with a 'required' line loading it: refused, the plugin stays" \
	eval '[ "$rc" -ne 0 ] && [ -f "$DEB_PLUGIN" ] && grep -q "NOT removed" "$PKGDIR/remove-required.log"'
dpkg --configure -a >>"$PKGDIR/apt.log" 2>&1
check "after the refusal numaplan-slurm is still installed and configured" \
	[ "$(dpkg-query -W -f='${Status}' numaplan-slurm 2>/dev/null)" = "install ok installed" ]
sed 's/^#optional /optional /' "$PKGDIR/snippet.orig" >"$DEB_SNIPPET"
apt-get remove -y -q numaplan-slurm >"$PKGDIR/remove-optional.log" 2>&1
rc=$?
check "apt-get remove numaplan-slurm with an 'optional' line loading it: removed, with a warning naming the line" \
	eval '[ "$rc" -eq 0 ] && [ ! -e "$DEB_PLUGIN" ] && grep -q "WARNING: plugstack.conf still loads numaplan.so" "$PKGDIR/remove-optional.log" && grep -qF "$DEB_SNIPPET:" "$PKGDIR/remove-optional.log"'
cp "$PKGDIR/snippet.orig" "$DEB_SNIPPET"
(cd "$work" && apt-get install -y -q "./$(basename "$(debfile numaplan-slurm)")") >>"$PKGDIR/apt.log" 2>&1
check "numaplan-slurm installed again" [ -f "$DEB_PLUGIN" ]

# ---- the vcluster with the installed plugin
if "$VC" status >/dev/null 2>&1; then
	vc_was_up=yes
else
	installed "$VC" up --nodes 2 >"$PKGDIR/vcluster-up.log" 2>&1 ||
		{ notok "vcluster up (see $PKGDIR/vcluster-up.log)"; done_testing; exit 1; }
fi
eval "$("$VC" env)"
export SLURM_CONF
conf=$(dirname "$SLURM_CONF")/plugstack.conf
tmp=$(mktemp -d /run/numaplan-pkg.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; } && chmod 0755 "$tmp"
srun_() { run installed timeout 120 srun "$@"; }

# the snippet as installed: off; the same with its optional line enabled: on
echo "include /etc/slurm/plugstack.conf.d/*.conf" >"$conf"
srun_ -N1 -n1 --numa-plan=help true
check "snippet as installed: plugin not loaded (--numa-plan unrecognized)" \
	eval '[ "$RC" -ne 0 ] && grep -q "unrecognized option" <<<"$ERR"'
mkdir -p "$tmp/conf.d"
sed 's/^#optional /optional /' "$DEB_SNIPPET" >"$tmp/conf.d/numaplan.conf"
echo "include $tmp/conf.d/*.conf" >"$conf"
srun_ -N1 -n1 --numa-plan=help true
check "snippet's optional line enabled: --numa-plan=help names $NP_VERSION, the package $NP_VERSION-1 and Slurm $want_slurm" \
	eval '[ "$RC" -eq 0 ] && grep -qx "Plugin: numaplan $NP_VERSION (package $NP_VERSION-1), built for Slurm $want_slurm" <<<"$OUT"'
srun_ -N1 -n2 --numa-plan=compact,verbose numaplan-probe --json
check "snippet's optional line enabled: a step bound by the installed plugin" \
	eval '[ "$RC" -eq 0 ] && [ "$(grep "^{" <<<"$OUT" | jq -r "select(.env.NUMAPLAN_POLICY == \"compact\") | .rank" | wc -l)" -eq 2 ] && grep -q "numaplan $NP_VERSION (package $NP_VERSION-1), built for Slurm $want_slurm" <<<"$ERR"'

# the vcluster finds the package's plugin by itself (no NP_PLUGIN, no build
# tree): make install's /usr/local/lib/slurm comes first in its search, so
# when that holds a plugin (contrib/bootstrap installs one) it is hidden
# under an empty tmpfs in a mount namespace of this command only
hide=
[ -e /usr/local/lib/slurm/numaplan.so ] && hide="mount -t tmpfs -o size=1m np-hide /usr/local/lib/slurm &&"
run unshare -m --propagation private sh -c "$hide"' exec env -u NP_PLUGIN -u NP_BUILDDIR "$1" plugstack ""' _ "$VC"
check "vcluster without NP_PLUGIN or a build tree: plugstack.conf loads $DEB_PLUGIN (Slurm's plugin directory)" \
	eval '[ "$RC" -eq 0 ] && grep -qx "optional $DEB_PLUGIN" "$conf"'
[ "$RC" -eq 0 ] || diag "$ERR"

# the slurm group, against the installed packages
installed "$VC" plugstack '' >/dev/null
check "vcluster plugstack.conf loads the installed plugin" grep -qx "optional $DEB_PLUGIN" "$conf"
# Scripts left out here for CI's budget (about 5 of the group's 8
# minutes; pkg ends a lane of tests/run-all): they drive
# the same installed plugin through code the others already reach
# (partition re-check, slurmctld load, audit's variants, the cache and
# shape checks, the SPANK harness, which loads the .so without slurmd, GPU
# partitions), and the whole group runs against the build tree and, with
# Slurm 24.11, in tests/deb13.  NP_PKG_SLURM_SKIP='' runs every script.
skip_list=${NP_PKG_SLURM_SKIP-88-partitions-hetjob 88-partitions 90-load 87-topology-check 88-audit-devices 88-audit-gpu 88-audit-user 88-audit-forged 88-audit 88-audit-all 10-harness 12-harness-partition-gpu 86-topology-shape 89-gpu-partitions 91-gpu-loud}
start=$SECONDS
for t in "$NP_SRCDIR"/tests/slurm/*.t; do
	case " $skip_list " in *" $(basename "$t" .t) "*) continue;; esac
	name=slurm/$(basename "$t" .t)
	tlog=$PKGDIR/installed-$(basename "$t" .t).log
	installed timeout "${NP_TEST_TIMEOUT:-900}" bash "$t" >"$tlog" 2>&1
	trc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			desc=${line#*ok }; desc=${desc#* - }
			case $line in ok*) ok "installed $name: $desc";; *) notok "installed $name: $desc";; esac;;
		"#"*) echo "$line";;
		esac
	done <"$tlog"
	if [ "$trc" -ne 0 ] && ! grep -q '^not ok' "$tlog"; then notok "installed $name exited $trc (see $tlog)"; fi
done
diag "slurm group against the installed packages: $((SECONDS - start)) s"
check "after the group, plugstack.conf still loads the installed plugin" grep -qx "optional $DEB_PLUGIN" "$conf"

# ---- a plugin built for another Slurm major release (INSTALL.md)
other=$((smaj - 1))
plugin_version "$DEB_PLUGIN" "$(printf '0x%02x%02x%02x' "$other" "${smin:-0}" 0)" >"$tmp/numaplan.so" && chmod 0644 "$tmp/numaplan.so"
echo "optional $tmp/numaplan.so" >"$conf"
srun_ -N1 -n1 true
check "built for Slurm $other.x, optional: Slurm refuses to load it, the job runs" \
	eval '[ "$RC" -eq 0 ] && grep -q "Incompatible Slurm plugin" <<<"$ERR"'
srun_ -N1 -n1 --numa-plan=compact true
check "built for Slurm $other.x, optional: --numa-plan is an unrecognized option" \
	eval '[ "$RC" -ne 0 ] && grep -q "unrecognized option .--numa-plan" <<<"$ERR"'
echo "required $tmp/numaplan.so" >"$conf"
srun_ -N1 -n1 true
check "built for Slurm $other.x, required: every srun fails" \
	eval '[ "$RC" -ne 0 ] && grep -q "Plug-in initialization failed" <<<"$ERR"'

# ---- rolling back: the package removed
echo "optional $DEB_PLUGIN" >"$conf"
apt-get remove -y -q numaplan-slurm >>"$PKGDIR/apt.log" 2>&1
check "apt-get remove numaplan-slurm: the plugin is gone, the snippet (a conffile) stays" \
	eval '[ ! -e "$DEB_PLUGIN" ] && [ -f "$DEB_SNIPPET" ]'
srun_ -N1 -n1 true
check "removed, optional line left: jobs run, Slurm logs the missing plugin" \
	eval '[ "$RC" -eq 0 ] && grep -q "numaplan.so" <<<"$ERR"'
run timeout 120 sbatch -N1 -n1 -o /dev/null --numa-plan=compact --wrap true
check "removed, optional line left: sbatch --numa-plan is refused as unrecognized" \
	eval '[ "$RC" -ne 0 ] && grep -q "unrecognized option" <<<"$ERR"'
echo "required $DEB_PLUGIN" >"$conf"
srun_ -N1 -n1 true
check "removed, required line left: every srun fails" [ "$RC" -ne 0 ]
echo "" >"$conf"
purge
check "apt-get purge: nothing of numaplan left in /usr, /etc and /var/lib (the step records)" \
	eval '[ ! -e /usr/bin/numaplan ] && [ ! -e "$DEB_SNIPPET" ] && [ ! -e /usr/lib/$MULTIARCH/libnumaplan.so.$NP_SOMAJOR ] && [ ! -d /usr/libexec/numaplan ] && [ ! -e /var/lib/numaplan ]'
done_testing
