#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan built inside the Debian 13 root: a copy of the tree (the files
# git knows, or the whole tree without its build directories when there
# is no git), autogen.sh with Debian 13's autotools, configure with
# -Werror against hwloc 2.12 and Slurm 24.11, make.  What the build says
# it found must be those releases, and the plugin must be built.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
[ -f "$D13ROOT/.numaplan-debian13" ] || { notok "no Debian 13 root (10-root.t makes it)"; done_testing; exit 1; }

# ---- the copy: extracted over the last one, times kept, so make redoes
# only what changed
mkdir -p "$D13SRC" "$D13BUILD"
if git -C "$NP_SRCDIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$NP_SRCDIR" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -xf - -C "$D13SRC"
else
	(cd "$NP_SRCDIR" && tar --exclude='./build*' --exclude=./autom4te.cache -cf - .) | tar -xf - -C "$D13SRC"
fi
check "the tree copied to $D13SRC" [ -f "$D13SRC/configure.ac" ] 

log=$D13DIR/logs/build.log
start=$SECONDS
d13run sh -c '
	set -e
	cd "$1"
	[ -x configure ] || ./autogen.sh
	cd "$2"
	[ -f Makefile ] || "$1/configure" --prefix=/usr/local CFLAGS="-O2 -g -Wall -Wextra -Werror"
	make -j"$(nproc)"' sh "$D13SRC" "$D13BUILD" >"$log" 2>&1
rc=$?
diag "build in the root: $((SECONDS - start)) s (log: $log)"
check "autogen, configure -Werror and make inside Debian 13" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { grep -E 'error|Error' "$log" | tail -20 | sed 's/^/# /'; done_testing; exit 1; }

check "the SPANK plugin is built" [ -f "$D13BUILD/plugin/.libs/numaplan.so" ]
run d13run "$D13BUILD/cli/numaplan" --version
sed "s/^/# /" <<<"$OUT"
check "numaplan --version: hwloc 2.12" eval 'grep -q "hwloc 2\.12\." <<<"$OUT"'
check "numaplan --version: Slurm 24.11" eval 'grep -q "Slurm 24\.11\." <<<"$OUT"'
# the plugin is built against that Slurm: SPANK refuses a plugin whose
# plugin_version is another release's
run d13run grep -h '^#define SLURM_VERSION_NUMBER' /usr/include/slurm/slurm_version.h
check "the root's slurm_version.h is 24.11 (0x180b..: the plugin's plugin_version)" \
	eval 'grep -qE "SLURM_VERSION_NUMBER 0x180b[0-9a-f]{2}$" <<<"$OUT"'
done_testing
