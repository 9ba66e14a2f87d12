#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Debian packages, built: dpkg-buildpackage -b -us -uc in the unpacked
# release tarball; each package's files against the layout derived from
# the build tree's make install (pkg-lib.sh); what the packages declare
# (dependencies, conffiles, the prerm).  40-deb.t installs them.  Apart
# from it because a build needs neither the vcluster nor /usr, which
# 40-deb.t must wait for (tests/run-all): the build runs beside the other
# lanes.
#
# dh_auto_test runs the unit tests only (NP_DEB_CHECK_TESTS, default
# '$(check_PROGRAMS)'): distcheck has run the whole make check of the same
# tarball.  DEB_BUILD_OPTIONS=noautodbgsym: no -dbgsym packages among
# ./*.deb.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/pkg-lib.sh"
for t in dpkg-buildpackage dh; do
	command -v "$t" >/dev/null || { skip "$t not installed (apt-get install dpkg-dev debhelper)"; done_testing; exit 0; }
done
need_tarball || { notok "no tarball: make dist failed (see $PKGDIR/dist.log)"; done_testing; exit 1; }


# ---- build
work=$DEB_WORK
rm -rf "$work"; mkdir -p "$work"
cp "$TARBALL" "$work/"
ln -s "numaplan-$NP_VERSION.tar.gz" "$work/numaplan_$NP_VERSION.orig.tar.gz"
tar xzf "$TARBALL" -C "$work"
log=$PKGDIR/dpkg-buildpackage.log
start=$SECONDS
(cd "$work/numaplan-$NP_VERSION" &&
	DEB_BUILD_OPTIONS="noautodbgsym parallel=$(nproc)" NP_CHECK_TESTS="${NP_DEB_CHECK_TESTS-\$(check_PROGRAMS)}" \
	dpkg-buildpackage -b -us -uc) >"$log" 2>&1
rc=$?
diag "dpkg-buildpackage -b -us -uc: $((SECONDS - start)) s (log: $log)"
check "dpkg-buildpackage -b -us -uc in the unpacked tarball" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { tail -30 "$log" | sed 's/^/# /'; done_testing; exit 1; }
check "dh_auto_test ran make check: tests passed, none failed" \
	eval 'grep -qE "^# PASS: +[1-9]" "$log" && grep -qE "^# FAIL: +0" "$log"'
for p in $DEBS; do check "package $p built" [ -n "$(debfile "$p")" ]; done
check "nothing else among ./*.deb" [ "$(ls "$work"/*.deb | wc -l)" -eq 5 ]

# ---- each package's files against the install tree
expected_layout deb "$DEB_PLUGINDIR" >"$PKGDIR/deb-expected" || notok "make install DESTDIR= of the build tree"
check "every installed file has a package rule" [ -z "$(grep '^? ' "$PKGDIR/deb-expected")" ]
files_of() { # dpkg-deb -c: no directories, no /usr/share/doc, man pages without .gz
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./|/|' |
		grep -vE '^/usr/share/(doc|lintian)/' | sed -E 's/\.gz$//' | sort
}
# shellcheck disable=SC2086
compare_packages deb "dpkg-deb -c" debfile $DEBS
check "libnumaplan-dev: numaplan.h, numaplan/plan.h, libnumaplan.so, numaplan.pc, numaplan(3)" \
	eval 'for f in /usr/include/numaplan.h /usr/include/numaplan/plan.h /usr/lib/$MULTIARCH/libnumaplan.so /usr/lib/$MULTIARCH/pkgconfig/numaplan.pc /usr/share/man/man3/numaplan.3; do grep -qx "$f" "$PKGDIR/deb-libnumaplan-dev.actual" || exit 1; done'
check "numaplan-slurm: the plugin in Debian Slurm's plugin directory $DEB_PLUGINDIR" \
	grep -qx "$DEB_PLUGIN" "$PKGDIR/deb-numaplan-slurm.actual"
check "numaplan-slurm: the snippet is a conffile" \
	grep -qx "$DEB_SNIPPET" <<<"$(dpkg-deb -I "$(debfile numaplan-slurm)" conffiles 2>/dev/null)"
if read -r smaj smin smic < <(slurm_version_parts); then
	series=$(printf '%d.%02d' "$smaj" "$smin") next=$(printf '%d.%02d' "$smaj" $((smin + 1)))
	dep=$(dpkg-deb -f "$(debfile numaplan-slurm)" Depends)
	check "numaplan-slurm depends on Slurm $series's plugins, not the next major release's" \
		eval 'grep -qF "slurm-wlm-basic-plugins (>= $series~)" <<<"$dep" && grep -qF "slurm-wlm-basic-plugins (<< $next~)" <<<"$dep"'
	check "numaplan-slurm depends on the library package (the topology checker)" grep -qF "libnumaplan$NP_SOMAJOR (= " <<<"$dep"
fi

check "numaplan depends on numactl (the job scripts of numaplan run bind with it)" \
	grep -qE '(^|, )numactl(,|$| )' <<<"$(dpkg-deb -f "$(debfile numaplan)" Depends)"
check "numaplan-slurm has a prerm (plugstack.conf lines that still load the plugin)" \
	grep -qF 'numaplan' <<<"$(dpkg-deb -I "$(debfile numaplan-slurm)" prerm 2>/dev/null)"

done_testing
