# SPDX-License-Identifier: BSD-3-Clause
# deb13-lib.sh - sourced by tests/deb13/*.t: where the Debian 13 root and
# its build live, and how to run the project's own test groups inside it.
#
# The root is contrib/debian13/debian13's (NP_DEBIAN13_ROOT).  The build
# is ${NP_BUILDDIR}-deb13 on the host: src/ a copy of the tree (the files
# git knows, so the root's own autotools make configure; nothing of the
# host's build leaks in), build/ the build directory.  The directory is
# bind-mounted into the root at the same path.
D13=$NP_SRCDIR/contrib/debian13/debian13
# absolute: chroot starts in the root's /, and NP_BUILDDIR may be relative
D13DIR=$(realpath -m -- "${NP_BUILDDIR%/}-deb13")
D13SRC=$D13DIR/src
D13BUILD=$D13DIR/build
D13ROOT=${NP_DEBIAN13_ROOT:-/var/lib/numaplan-debian13}
mkdir -p "$D13DIR/logs"

# debian13 run, with the build directory bound
d13run() { "$D13" run --bind "$D13DIR" -- "$@"; }
# The root's numaplan without libtool's wrapper (tap.sh says why), for
# scripts that call it hundreds of times: the real program, with the
# root build's library first, as the wrapper would set it.
D13NP=$D13BUILD/cli/.libs/numaplan
d13run_np() { d13run env LD_LIBRARY_PATH="$D13BUILD/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }

# Run tests/run-all GROUP... of the copy inside the root, then give each
# of its TAP lines again, numbered on in this script's stream, so the
# outer tests/run-all counts every inner test (a skip stays a skip).  The
# inner summary lines become diagnostics.
d13_groups() {
	local name=$1 logs=$D13DIR/logs/$1 out line f; shift
	rm -rf "$logs"; mkdir -p "$logs"
	out=$D13DIR/logs/$name.out
	d13run env NP_SRCDIR="$D13SRC" NP_BUILDDIR="$D13BUILD" NP_TEST_LOGDIR="$logs" \
		NP_VCLUSTER_ID="${NP_VCLUSTER_ID:-0}" NP_RUNALL_SKIP="${D13_SKIP:-}" "$D13SRC/tests/run-all" "$@" >"$out" 2>&1
	# the per-script lines, and what run-all says itself (a failed build)
	while IFS= read -r line; do
		case $line in
		"not ok"*) notok "$name: ${line#not ok - }";;
		*" passed, "*" failed"*) diag "$line";;
		esac
	done <"$out"
	for f in "$logs"/*.log; do
		[ -f "$f" ] || continue
		case $f in */vcluster-up.log|*-build.log) continue;; esac
		local t=$(basename "$f" .log)
		while IFS= read -r line; do
			case $line in
			"ok "[0-9]*"# SKIP"*) skip "$t: ${line#*# SKIP }";;
			"ok "[0-9]*) ok "$t: $(sed 's/^ok [0-9]* *-\{0,1\} *//' <<<"$line")";;
			"not ok "[0-9]*) notok "$t: $(sed 's/^not ok [0-9]* *-\{0,1\} *//' <<<"$line")";;
			esac
		done <"$f"
	done
}
