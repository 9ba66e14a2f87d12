#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real kernel with CPU-less memory nodes (numavm shape memnodes, no
# Slurm), one of them made a GPU's own memory in the topology file the
# plugin is given (tests/numavm/gpumem-collect.sh): gpu-near binds the
# task's memory to its CPUs' node 0 and its GPU's node 2, the kernel takes
# that MPOL_BIND and reports it back, and pages land on node 2 once node
# 0 is full.  Expectations from the shape (memnodes.shape: node 0 = CPUs
# 0-1, 384 MiB; node 2 memory only, 256 MiB) and the edit (GPU
# 0042:01:00.0 on socket 0, node 2 its memory).
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
numavm_collect memnodes "$NP_SRCDIR/tests/numavm/gpumem-collect.sh" --no-slurm

out() { cat "$DATA/$1.out" 2>/dev/null; }
rc() { cat "$DATA/$1.rc" 2>/dev/null; }
chk "node 2 has no CPU in the guest kernel" [ -z "$(tr -d '[:space:]' <"$DATA/node2_cpulist")" ]
chk "numaplan topo: the GPU's memory node is 2" \
	eval '[ "$(rc topo)" = 0 ] && [ "$(out topo | jq -r ".gpus[0].pci + \" \" + .gpus[0].memory_numa")" = "0042:01:00.0 2" ]'
chk "plan gpu-near: mems 0,2 (CPU node + GPU memory), gpu_mems 2" \
	eval '[ "$(out plan | jq -r ".ranks[0].mems + \" \" + .ranks[0].gpu_mems")" = "0,2 2" ]'
chk "plan compact: no rank's memory on node 2 or 3" \
	eval '[ "$(out plan_compact | jq -r "[.ranks[].mems] | unique | join(\" \")")" = "0 1" ]'
chk "plugin path (harness bind): exit 0, NUMAPLAN_MEMS=0,2 bound and read back" \
	eval '[ "$(rc bind)" = 0 ] && grep -qx "NUMAPLAN_MEMS=0,2" "$DATA/bind.out"' ||
	diagm "$(cat "$DATA/bind.out" "$DATA/bind.err")"
chk "kernel: MPOL_BIND 0,2 accepted, 450 MiB touched on nodes 0 and 2 only, some on 2" \
	eval '[ "$(rc touch)" = 0 ] && out touch | jq -e ".mempolicy == \"bind\" and .mems == \"0,2\" and
	      (.pages | keys | sort) == [\"0\",\"2\"] and (.pages[\"2\"] > 0)" >/dev/null' ||
	diagm "$(out touch | head -c 600)"
done_testing
