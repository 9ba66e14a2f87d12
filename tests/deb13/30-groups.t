#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The groups that need no Slurm cluster - unit, lib, cli and kernels - run
# by tests/run-all inside the Debian 13 root, on the build 20-build.t made
# there.  Every inner test is one line of this script's TAP (deb13-lib.sh),
# so the outer run-all's count includes each of them.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot)"; done_testing; exit 0; }
[ -x "$D13BUILD/launcher/numaplan" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
start=$SECONDS
d13_groups groups unit lib cli kernels
diag "unit lib cli kernels in the root: $((SECONDS - start)) s (logs: $D13DIR/logs/groups)"
done_testing
