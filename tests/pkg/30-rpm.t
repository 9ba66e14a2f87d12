#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# RPMs as a Slurm site builds them: rpmbuild -ta on the release tarball,
# with the spec the tarball carries.  Each package's files (rpm -qlp) are
# compared with the layout derived from the build tree's make install
# (pkg-lib.sh); the plugin's directory, its Slurm version and the package's
# Slurm dependency are checked against Slurm's own header.
#
# This machine is Debian: rpmbuild cannot see the build dependencies,
# which are installed as Debian packages under other names, hence --nodeps
# (the only reason for it).  %check runs the unit tests only
# (NP_RPM_CHECK_TESTS, default '$(check_PROGRAMS)'): distcheck has run the
# whole make check of the same tarball.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/pkg-lib.sh"
for t in rpmbuild rpm rpmspec rpm2cpio cpio; do
	command -v "$t" >/dev/null || { skip "$t not installed (apt-get install rpm)"; done_testing; exit 0; }
done
need_tarball || { notok "no tarball: make dist failed (see $PKGDIR/dist.log)"; done_testing; exit 1; }

top=$PKGDIR/rpmbuild
rm -rf "$top"
log=$PKGDIR/rpmbuild.log
# Slurm's plugin directory as the spec is to find it: pkg-config slurm
# (Slurm's RPMs ship slurm.pc), else %{_libdir}/slurm
d=$(pkg-config --variable=libdir slurm 2>/dev/null)
plugindir=${d:-$(rpm --eval '%{_libdir}')}/slurm
start=$SECONDS
rpmbuild -ta --nodeps --define "_topdir $top" \
	--define "np_check_tests ${NP_RPM_CHECK_TESTS-\$(check_PROGRAMS)}" "$TARBALL" >"$log" 2>&1
rc=$?
diag "rpmbuild -ta --nodeps: $((SECONDS - start)) s (log: $log)"
check "rpmbuild -ta numaplan-$NP_VERSION.tar.gz (--nodeps: Debian's packages are not RPMs)" [ "$rc" -eq 0 ]
[ "$rc" -eq 0 ] || { tail -30 "$log" | sed 's/^/# /'; done_testing; exit 1; }
grep -q '^warning: Macro expanded in comment' "$log" && diag "$(grep -c 'Macro expanded in comment' "$log") 'Macro expanded in comment' warnings"

arch=$(rpm --eval '%{_arch}')
rpmfile() { ls "$top/RPMS/$arch/$1-$NP_VERSION-"[0-9]*".$arch.rpm" 2>/dev/null | head -1; }
pkgs="numaplan numaplan-devel numaplan-slurm numaplan-benchmarks"
for p in $pkgs; do
	check "package $p built" [ -n "$(rpmfile "$p")" ]
done
others=$(cd "$top/RPMS/$arch" && ls | grep -vE "^numaplan(-devel|-slurm|-benchmarks)?-$NP_VERSION-" | tr '\n' ' ')
[ -z "$others" ] || diag "also built: $others"
check "%check ran make check in the build: tests passed, none failed" \
	eval 'grep -qE "^# PASS: +[1-9]" "$log" && grep -qE "^# FAIL: +0" "$log"'

# ---- each package's files against the install tree
expected_layout rpm "$plugindir" >"$PKGDIR/rpm-expected" || notok "make install DESTDIR= of the build tree"
check "every installed file has a package rule" [ -z "$(grep '^? ' "$PKGDIR/rpm-expected")" ]
grep '^? ' "$PKGDIR/rpm-expected" | sed 's/^/#   no rule: /'
files_of() { # the files of a package: no directories, documentation apart, man pages without .gz
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" | awk '$1 !~ /^d/ { print $2 }' |
		grep -vE '^/usr/share/(doc|licenses)/|^/usr/lib/\.build-id' | sed -E 's/\.(gz|bz2|xz|zst)$//' | sort
}
# shellcheck disable=SC2086
compare_packages rpm "rpm -qlp" rpmfile $pkgs
left=$(awk '$1 == "-" { print $2 }' "$PKGDIR/rpm-expected" | tr '\n' ' ')
diag "left out on purpose: $left"
check "left out: the libtool archives and the contrib tools' pages, nothing else" \
	bash -c '! grep -vE "\.la$|/numaplan-(vcluster|numavm|debian13)\.8$" <<<"$(tr " " "\n" <<<"$1" | grep .)"' _ "$left"

# ---- the layout the issue asks for, spelled out
main=$(rpmfile numaplan) slurm=$(rpmfile numaplan-slurm) bench=$(rpmfile numaplan-benchmarks) devel=$(rpmfile numaplan-devel)
check "numaplan: the command, the library, the checker, numaplan(1)" \
	eval 'l=$(files_of "$main"); for f in /usr/bin/numaplan /usr/lib64/libnumaplan.so.$NP_SOMAJOR /usr/libexec/numaplan/numaplan-topo-check /usr/share/man/man1/numaplan.1; do grep -qx "$f" <<<"$l" || exit 1; done'
check "numaplan: LICENSE, README.md, INSTALL.md and NEWS as documentation" \
	eval '[ "$(rpm -qp --licensefiles "$main" | sed "s|.*/||")" = LICENSE ] && [ "$(rpm -qp --docfiles "$main" | grep "^/usr/share/doc/" | sed "s|.*/||" | sort | tr "\n" " ")" = "INSTALL.md NEWS README.md " ]'
check "numaplan-devel: numaplan.h, numaplan/plan.h, libnumaplan.so, numaplan.pc, numaplan(3)" \
	eval 'l=$(files_of "$devel"); for f in /usr/include/numaplan.h /usr/include/numaplan/plan.h /usr/lib64/libnumaplan.so /usr/lib64/pkgconfig/numaplan.pc /usr/share/man/man3/numaplan.3; do grep -qx "$f" <<<"$l" || exit 1; done'
check "numaplan-slurm: the plugin in $plugindir, the snippet, numaplan-spank(8), nothing else" \
	[ "$(files_of "$slurm" | tr '\n' ' ')" = "/etc/slurm/plugstack.conf.d/numaplan.conf $plugindir/numaplan.so /usr/share/man/man8/numaplan-spank.8 " ]
check "numaplan-slurm owns the step records' directory /var/lib/numaplan/steps (record=, 0755)" \
	grep -qx 'drwxr-xr-x /var/lib/numaplan/steps' <<<"$(rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$slurm")"
check "numaplan-slurm: the snippet is %config(noreplace)" \
	grep -qE '^[a-z]*c[a-z]*n[a-z]* /etc/slurm/plugstack.conf.d/numaplan.conf$|^[a-z]*n[a-z]*c[a-z]* /etc/slurm/plugstack.conf.d/numaplan.conf$' \
	<<<"$(rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$slurm")"
x=$PKGDIR/rpm-extract; rm -rf "$x"; mkdir -p "$x"
(cd "$x" && for f in "$slurm" "$bench"; do rpm2cpio "$f" | cpio -idm --quiet; done)
snippet=$x/etc/slurm/plugstack.conf.d/numaplan.conf
check "the snippet is off: every line a comment" eval '! grep -qvE "^[[:space:]]*(#|$)" "$snippet"'
check "the snippet's optional line names $plugindir/numaplan.so" grep -qx "#optional $plugindir/numaplan.so" "$snippet"
if read -r smaj smin smic < <(slurm_version_parts); then
	want=$(printf '0x%02x%02x%02x' "$smaj" "$smin" "$smic")
	got=$(plugin_version "$x$plugindir/numaplan.so")
	check "the packaged plugin is built for this Slurm: plugin_version $got = SLURM_VERSION_NUMBER $want" [ "$got" = "$want" ]
	series=$(printf '%d.%02d' "$smaj" "$smin") next=$(printf '%d.%02d' "$smaj" $((smin + 1)))
	check "numaplan-slurm requires Slurm $series, not the next major release" \
		grep -qxF "(slurm >= $series with slurm < $next)" <<<"$(rpm -qp --requires "$slurm")"
	check "numaplan-slurm's description names Slurm $series" grep -q "Built for Slurm $series" <<<"$(rpm -qp --qf '%{DESCRIPTION}' "$slurm")"
else
	skip "no slurm_version.h"
fi
check "numaplan requires numactl (the job scripts of numaplan run bind with it)" \
	grep -qx 'numactl' <<<"$(rpm -qp --requires "$main")"
check "numaplan-slurm: a preuninstall script that looks for plugstack.conf lines loading numaplan.so" \
	grep -qF 'numaplan\.so' <<<"$(rpm -qp --scripts "$slurm")"
check "numaplan's version carries the package revision (configure --with-package-revision)" \
	grep -qaF "$NP_VERSION-1" <<<"$(rpm2cpio "$main" | cpio -i --quiet --to-stdout ./usr/bin/numaplan 2>/dev/null | strings)"
check "the plugin needs no libnumaplan.so (the planner is linked in)" \
	bash -c '! readelf -d "$1" | grep -q "libnumaplan"' _ "$x$plugindir/numaplan.so"
check "numaplan-benchmarks: the MPI kernels linked against the MPI found (MPICH)" \
	eval 'readelf -d "$x/usr/bin/numaplan-osu" | grep -q "NEEDED.*libmpich" && readelf -d "$x/usr/bin/numaplan-hpl" | grep -q "NEEDED.*libmpi"'
check "numaplan-benchmarks: kernels built for any x86-64 (-mtune=generic, no -march=native)" \
	eval 'grep -qa -- "-mtune=generic" "$x/usr/bin/numaplan-stream" && ! grep -qa -- "-march=native" "$x/usr/bin/numaplan-stream"'

# ---- the spec's switches
spec=$top/numaplan.spec
tar xzOf "$TARBALL" "numaplan-$NP_VERSION/numaplan.spec" >"$spec"
names() { rpmspec -q --qf '%{NAME}\n' "$@" "$spec" 2>/dev/null | sort | tr '\n' ' '; }
check "rpmspec: four packages by default" [ "$(names)" = "numaplan numaplan-benchmarks numaplan-devel numaplan-slurm " ]
check "rpmspec --without slurm: no numaplan-slurm" [ "$(names --without slurm)" = "numaplan numaplan-benchmarks numaplan-devel " ]
check "rpmspec --without mpi: configure --without-mpi" \
	eval 'rpmspec -P --without mpi "$spec" 2>/dev/null | grep -q -- "--without-mpi" && ! rpmspec -P "$spec" 2>/dev/null | grep -q -- "--without-mpi"'
check "rpmspec --define slurm_plugindir: the plugin goes there" \
	eval 'rpmspec -P --define "slurm_plugindir /opt/slurm/lib/slurm" "$spec" 2>/dev/null | grep -q "^/opt/slurm/lib/slurm/numaplan.so"'
done_testing
