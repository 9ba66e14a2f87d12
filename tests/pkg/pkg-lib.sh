# SPDX-License-Identifier: BSD-3-Clause
# pkg-lib.sh - sourced by the tests/pkg/*.t scripts (after tap.sh): the
# release tarball, where the packages are built, and the layout each
# package must have.
#
# The tests build from the tarball `make distcheck` leaves in
# $NP_BUILDDIR (10-dist.t makes it; the others make it when it is
# missing) and work in $NP_BUILDDIR/pkg.  They need root (rpmbuild is
# fine without, apt-get and the vcluster are not).
#
# The expected layout is not read from the spec or from debian/: the build
# tree is installed into a scratch directory (make install DESTDIR=), each
# file is moved to where the packaging system puts that kind of file, and
# given to a package by the rules below.  A file that no rule places fails
# the test: a new kind of file needs a decision.

PKGDIR=$NP_BUILDDIR/pkg
NP_VERSION=$(sed -n 's/^AC_INIT(\[numaplan\], \[\([^]]*\)\].*/\1/p' "$NP_SRCDIR/configure.ac")
TARBALL=$NP_BUILDDIR/numaplan-$NP_VERSION.tar.gz
# The library's soname number, CURRENT - AGE of its -version-info
# (lib/Makefile.am): libnumaplan.so.N, Debian's libnumaplanN.
NP_SOMAJOR=$(sed -n 's/^libnumaplan_la_LDFLAGS = -version-info \([0-9]*\):[0-9]*:\([0-9]*\).*/\1 \2/p' \
	"$NP_SRCDIR/lib/Makefile.am" | { read -r c a; echo $((c - a)); })
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
# the pages of kernels/ go with the benchmarks
KERNEL_PAGES="numaplan-stream.1 numaplan-himeno.1 numaplan-osu.1 numaplan-hpl.1 numaplan-probe.1"

mkdir -p "$PKGDIR"

# The Debian packages: 35-deb-build.t makes them in $DEB_WORK, 40-deb.t
# installs them
DEBS="libnumaplan$NP_SOMAJOR numaplan libnumaplan-dev numaplan-slurm numaplan-benchmarks"
DEB_WORK=$PKGDIR/deb
# where they put the plugin and its plugstack.conf snippet
DEB_PLUGINDIR=/usr/lib/$MULTIARCH/slurm-wlm
DEB_PLUGIN=$DEB_PLUGINDIR/numaplan.so
DEB_SNIPPET=/etc/slurm/plugstack.conf.d/numaplan.conf
debfile() { ls "$DEB_WORK/$1_$NP_VERSION-"*"_"*.deb 2>/dev/null | head -1; }

# The tarball, made by `make dist` when 10-dist.t did not leave one.
need_tarball() {
	[ -f "$TARBALL" ] && return 0
	make -C "$NP_BUILDDIR" dist-gzip >"$PKGDIR/dist.log" 2>&1 && [ -f "$TARBALL" ]
}

# A variable of the build tree's Makefile, expanded (libdir, bindir, ...).
make_var() {
	printf 'print-%%:\n\t@echo $($*)\n' |
		make -s --no-print-directory -C "$NP_BUILDDIR" -f Makefile -f - "print-$1"
}

# Slurm's version from its header: "22 5 8" (major minor micro).
slurm_version_parts() {
	local n
	n=$(sed -n 's/^#define[[:space:]]*SLURM_VERSION_NUMBER[[:space:]]*//p' /usr/include/slurm/slurm_version.h 2>/dev/null)
	[ -n "$n" ] || return 1
	echo $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255))
}

# expected_layout rpm|deb PLUGINDIR: "PACKAGE PATH" lines, one per file
# the packages must hold (man pages without .gz), from the build tree's
# make install.  Files the packaging leaves out on purpose are printed as
# "- PATH"; files no rule places as "? PATH".
expected_layout() {
	local kind=$1 plugindir=$2 dest v
	local -A dir
	dest=$(mktemp -d "$PKGDIR/destdir.XXXXXX") || return 1
	make -C "$NP_BUILDDIR" install DESTDIR="$dest" >"$PKGDIR/destdir-install.log" 2>&1 || { rm -rf "$dest"; return 1; }
	for v in bindir libdir pkglibexecdir pkgdatadir includedir mandir slurm_plugindir plugstackdir systemdunitdir; do
		dir[$v]=$(make_var "$v")
	done
	local libdir=/usr/lib64 main=numaplan lib=numaplan dev=numaplan-devel
	if [ "$kind" = deb ]; then
		libdir=/usr/lib/$MULTIARCH; lib=libnumaplan$NP_SOMAJOR; dev=libnumaplan-dev
	fi
	(cd "$dest" && find . ! -type d | sed 's|^\.||') | sort | while read -r f; do
		local rel='' to='' pkg='?' base=${f##*/}
		# the longest install directory that holds it wins (plugindir
		# and pkglibexecdir lie under libdir and libexecdir)
		for v in slurm_plugindir plugstackdir systemdunitdir pkglibexecdir pkgdatadir libdir bindir includedir mandir; do
			case $f in "${dir[$v]}"/*) rel=${f#"${dir[$v]}"/}; break;; esac
		done
		case $v in
		slurm_plugindir) to=$plugindir/$rel;;
		plugstackdir) to=/etc/slurm/plugstack.conf.d/$rel;;
		systemdunitdir) to=/usr/lib/systemd/system/$rel;;
		pkglibexecdir) to=/usr/libexec/numaplan/$rel;;
		pkgdatadir) to=/usr/share/numaplan/$rel;;
		libdir) to=$libdir/$rel;;
		bindir) to=/usr/bin/$rel;;
		includedir) to=/usr/include/$rel;;
		mandir) to=/usr/share/man/$rel;;
		esac
		[ -n "$rel" ] || { echo "? $f"; continue; }
		case $v:$rel in
		*.la) pkg=-;;
		bindir:numaplan) pkg=$main;;
		bindir:numaplan-*) pkg=numaplan-benchmarks;;
		libdir:libnumaplan.so.*) pkg=$lib;;
		libdir:libnumaplan.so|libdir:pkgconfig/*.pc|includedir:*|mandir:man3/*) pkg=$dev;;
		pkglibexecdir:numaplan-topo-check) pkg=$lib;;
		pkgdatadir:specs/*) pkg=$main;;  # numaplan-accept(1), FILES
		pkgdatadir:jobscript.sh) pkg=$main;;  # numaplan-run(1), FILES
		systemdunitdir:numaplan-steps.*) pkg=$main;;  # numaplan-steps(1)
		slurm_plugindir:numaplan.so|plugstackdir:numaplan.conf|mandir:man8/numaplan-spank.8) pkg=numaplan-slurm;;
		mandir:man1/*)
			case " $KERNEL_PAGES " in *" $base "*) pkg=numaplan-benchmarks;; *) pkg=$main;; esac;;
		esac
		echo "$pkg $to"
	done
	rm -rf "$dest"
}

# compare_list WHAT EXPECTED-FILE ACTUAL-FILE: ok when equal, else the
# differences as diagnostics
compare_list() {
	local d
	d=$(diff "$2" "$3" | grep '^[<>]' | sed 's/^</missing:/; s/^>/unexpected:/')
	check "$1" [ -z "$d" ]
	[ -z "$d" ] || while read -r l; do diag "  $l"; done <<<"$d"
}

# compare_packages KIND LISTER FILE-OF PKG...: each package's files (as
# the caller's files_of lists them from the package FILE-OF PKG gives)
# against those the rules of $PKGDIR/KIND-expected give it
compare_packages() {
	local kind=$1 lister=$2 fileof=$3 p f; shift 3
	for p in "$@"; do
		f=$("$fileof" "$p"); [ -n "$f" ] || continue
		files_of "$f" >"$PKGDIR/$kind-$p.actual"
		awk -v p="$p" '$1 == p { print $2 }' "$PKGDIR/$kind-expected" | sort >"$PKGDIR/$kind-$p.expected"
		compare_list "$lister $p: the files of the install tree its rules give it ($(wc -l <"$PKGDIR/$kind-$p.expected"))" \
			"$PKGDIR/$kind-$p.expected" "$PKGDIR/$kind-$p.actual"
	done
}

# plugin_version SO [NEW]: the SLURM_VERSION_NUMBER a SPANK plugin records
# (its plugin_version symbol, which Slurm compares with its own when it
# loads the plugin), as 0xMMmmuu; with NEW, a copy of SO with that number
# instead is written to stdout (a plugin "built for" another release).
plugin_version() {
	python3 - "$@" <<'PY'
import re, struct, subprocess, sys
so = sys.argv[1]
syms = subprocess.run(["nm", "-D", "--defined-only", so], capture_output=True, text=True).stdout
addr = int(re.search(r"^([0-9a-f]+) \w plugin_version$", syms, re.M).group(1), 16)
secs = subprocess.run(["readelf", "-SW", so], capture_output=True, text=True).stdout
off = None
for m in re.finditer(r"\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", secs):
    a, o, size = (int(x, 16) for x in m.groups())
    if a and a <= addr < a + size:
        off = addr - a + o
        break
data = bytearray(open(so, "rb").read())
if len(sys.argv) > 2:
    struct.pack_into("<I", data, off, int(sys.argv[2], 0))
    sys.stdout.buffer.write(data)
else:
    print("0x%06x" % struct.unpack_from("<I", data, off)[0])
PY
}
