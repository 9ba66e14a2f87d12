# SPDX-License-Identifier: BSD-3-Clause
# tap.sh - sourced by the shell test scripts (*.t); each check prints one
# TAP line ("ok N - what" / "not ok N - what") that tests/run-all counts.
# Scripts run from the build tree: $NP_BUILDDIR (binaries) and $NP_SRCDIR.

: "${NP_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${NP_BUILDDIR:=$NP_SRCDIR}"
export NP_SRCDIR NP_BUILDDIR
# NP_INSTALLED=PREFIX: test the numaplan installed in PREFIX (the Debian
# packages: /usr) instead of the build tree's: PREFIX/bin first, and
# neither the build tree nor /usr/local (contrib/bootstrap's install) on
# PATH.  tests/pkg runs the slurm group so.
if [ -n "${NP_INSTALLED:-}" ]; then
	PATH="$NP_INSTALLED/bin:$(tr ':' '\n' <<<"$PATH" | grep -v -e '^/usr/local/' -e "^$NP_BUILDDIR/" | paste -sd:)"
else
	PATH="$NP_BUILDDIR/cli:$NP_BUILDDIR/kernels:$PATH"
	# cli/numaplan is libtool's wrapper script: bash and five
	# sed/ls children before the real program, 60 ms a call idle and
	# several times that under load, paid by thousands of calls.
	# tests/bin/numaplan does what the wrapper does (the build's
	# library first, then exec .libs/numaplan: the same argv[0],
	# /proc/self/exe and environment for its children) in one sh.
	_tap_real=$NP_BUILDDIR/cli/.libs/numaplan
	if [ -x "$_tap_real" ] && [ "$(head -c 2 "$NP_BUILDDIR/cli/numaplan" 2>/dev/null)" = "#!" ]; then
		_tap_bin=$(realpath -m -- "$NP_BUILDDIR/tests/bin")
		_tap_real=$(realpath -- "$_tap_real")
		_tap_lib=$(realpath -m -- "$NP_BUILDDIR/lib/.libs")
		_tap_want="#!/bin/sh
LD_LIBRARY_PATH='$_tap_lib'\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec '$_tap_real' \"\$@\""
		if [ "$(cat "$_tap_bin/numaplan" 2>/dev/null)" != "$_tap_want" ]; then
			# two lanes may source this at once: write aside, rename
			mkdir -p "$_tap_bin" &&
				printf '%s\n' "$_tap_want" >"$_tap_bin/numaplan.$$" &&
				chmod 755 "$_tap_bin/numaplan.$$" &&
				mv -f "$_tap_bin/numaplan.$$" "$_tap_bin/numaplan"
		fi
		[ -x "$_tap_bin/numaplan" ] && PATH="$_tap_bin:$PATH"
	fi
fi
export PATH
TOPO="$NP_SRCDIR/tests/topologies"
_tap_n=0
_tap_failed=0

ok()   { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
notok() { _tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1)); echo "not ok $_tap_n - $*"; }
# check "what" cmd args...: ok when the command exits 0; a failed check
# returns 1, so that `check ... || diag ...` says why
check() { local what=$1; shift; if "$@"; then ok "$what"; else notok "$what"; return 1; fi; }
# check_jq "what" FILTER: ok when jq -e FILTER holds on $OUT (the JSON of the
# last run); jq's own output is discarded, never the TAP line.
check_jq() { local what=$1; shift; if jq -e "$@" <<<"$OUT" >/dev/null 2>&1; then ok "$what"; else notok "$what"; return 1; fi; }
# diag: a comment line, ignored by the counter
diag() { echo "# $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - # SKIP $*"; }
# Run a command, capture stdout/stderr/status into $OUT $ERR $RC.
run() { local o e; o=$(mktemp); e=$(mktemp); "$@" >"$o" 2>"$e"; RC=$?; OUT=$(cat "$o"); ERR=$(cat "$e"); rm -f "$o" "$e"; }
# make_var DIR VAR: the value of the make variable VAR in the built tree's
# DIR/Makefile, as make itself expands it (configure's and automake's
# work done); no target of the tree is made.  The caller's MAKEFLAGS are
# dropped: under `make check TESTS=...` they carry its overrides, not the
# tree's values.
make_var() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$1" -f Makefile \
		-f <(printf 'np-make-var:\n\t@:$(info $(%s))\n' "$2") np-make-var
}
done_testing() { echo "1..$_tap_n"; [ "$_tap_failed" -eq 0 ]; }
