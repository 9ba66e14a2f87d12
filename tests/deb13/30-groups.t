#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The unit group inside the Debian 13 root, on the build 20-build.t made
# there: the library linked against hwloc 2.12, whose loading of the
# stored topologies (GPU memory nodes, caches, I/O) can differ from 2.9's.
# The groups lib, cli and kernels are not run again: the Debian 12 pass ran
# them on the same sources, and what can differ here (Slurm 24.11, Open
# MPI 5 and PRRTE, plans under hwloc 2.12, the Debian packages) has
# scripts of its own.  Every inner test is one line of this script's TAP
# (deb13-lib.sh), so the outer run-all's count includes each of them.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
[ -x "$D13BUILD/cli/numaplan" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
start=$SECONDS
d13_groups groups unit
diag "unit in the root: $((SECONDS - start)) s (logs: $D13DIR/logs/groups)"
done_testing
