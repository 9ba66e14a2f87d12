#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Slurm end-to-end group (tests/slurm) inside the Debian 13 root:
# tests/run-all brings the vcluster up there - slurmctld and slurmd 24.11
# with the plugin the root's build made, nodes in network namespaces -
# runs every script and takes it down (numaplan-debian13(8) says why the
# vcluster and not numavm).  The vcluster id is NP_VCLUSTER_ID's: its
# bridge, veths and ports are the host's, so no vcluster of the same id
# may be up on the host (tests/run-all gives the group the next id in its
# lanes, or takes the host's down first).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/deb13-lib.sh"
[ "$(id -u)" -eq 0 ] || { skip "needs root (chroot, the vcluster)"; done_testing; exit 0; }
[ -f "$D13BUILD/plugin/.libs/numaplan.so" ] || { notok "no build in the root (20-build.t makes it)"; done_testing; exit 1; }
if ip link show "np-br${NP_VCLUSTER_ID:-0}" >/dev/null 2>&1; then
	notok "a vcluster with id ${NP_VCLUSTER_ID:-0} is up on the host (vcluster down first)"
	done_testing; exit 1
fi
# Left out here: scripts whose subject is the planner or the audit
# command's variants (a forged record, a user's audit, device and GPU
# checks), not Slurm, and which run the same on either release: the shape
# and topology checks, gpu-near's loud cases, the harness's GPU partition,
# the audit of every job (88-audit-all: one job's audit, many times); and
# the step records' test, which needs node_exporter and promtool, not in
# the root.
# Each still runs against Slurm 22.05 on the host; 88-audit and
# 88-audit-records drive the audit through Slurm 24.11 here, and every
# script that exercises the plugin's use of Slurm runs (options, binding,
# cgroups, partitions and het jobs, GPUs from gres, step env, load,
# security, the SPANK harness built against 24.11's headers).
# NP_D13_SLURM_SKIP overrides the list ('' runs every script).
D13_SKIP=${NP_D13_SLURM_SKIP-slurm/86-topology-shape slurm/87-topology-check slurm/88-audit-devices slurm/88-audit-forged slurm/88-audit-gpu slurm/88-audit-user slurm/88-audit-all slurm/91-gpu-loud slurm/12-harness-partition-gpu slurm/92-step-records}
start=$SECONDS
d13_groups slurm slurm
diag "the slurm group in the root: $((SECONDS - start)) s (logs: $D13DIR/logs/slurm)"
check "the vcluster came up inside the root" eval '! grep -q "vcluster up failed" "$D13DIR/logs/slurm.out"'
done_testing
