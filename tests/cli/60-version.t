#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan --version: numaplan's version and the hwloc and Slurm releases it
# was built against, each taken here from its own source: configure.ac's
# AC_INIT, pkg-config's hwloc, and Slurm's slurm_version.h.
source "$(dirname "$0")/../tap.sh"

want_np=$(sed -n 's/^AC_INIT(\[numaplan\], \[\([^]]*\)\].*/\1/p' "$NP_SRCDIR/configure.ac")
want_hwloc=$(pkg-config --modversion hwloc)
h=/usr/include/slurm/slurm_version.h
if n=$(sed -n 's/^#define[[:space:]]*SLURM_VERSION_NUMBER[[:space:]]*//p' "$h" 2>/dev/null) && [ -n "$n" ]; then
	want_slurm=$(printf '%d.%02d.%d' $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))
else
	want_slurm=none
fi
diag "expecting numaplan $want_np, hwloc $want_hwloc, Slurm $want_slurm"

for opt in --version -V; do
	run numaplan $opt
	check "numaplan $opt exits 0, nothing on stderr" eval '[ "$RC" -eq 0 ] && [ -z "$ERR" ]'
	check "numaplan $opt: first line 'numaplan $want_np'" [ "$(head -1 <<<"$OUT")" = "numaplan $want_np" ]
	check "numaplan $opt: built against hwloc $want_hwloc and Slurm $want_slurm" \
		grep -qx "built against hwloc $want_hwloc, Slurm $want_slurm\( (no SPANK plugin)\)\?" <<<"$OUT"
done
done_testing
