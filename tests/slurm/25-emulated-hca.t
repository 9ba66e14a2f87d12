#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An emulated topology (emulated-topology.sh: this machine's PUs as two NUMA
# nodes, an InfiniBand HCA mlx5_0 local to the second) given to the plugin
# with topology=: hca-near -n1 binds to the HCA's CPU and exports
# UCX_NET_DEVICES; a job whose HCA-local CPU belongs to another job gets the
# nearest allocated CPU and a note; memory on a NUMA node the real machine
# lacks is an error handled per on_error.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

read -r -a pus <<<"$(machine_pus)"
n=${#pus[@]}
[ "$n" -ge 2 ] || skip_all "needs 2 PUs"
dir=$(root_tmpdir emu) || skip_all "cannot make a root-only directory"
cleanup() { scancel -u root -n np-emu-filler >/dev/null 2>&1; plugstack_reset; rm -rf "$dir"; }
trap cleanup EXIT
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" || skip_all "cannot generate the XML"
chmod 0644 "$dir/emu.xml"
# the HCA's port state is read live, from a tree that agrees with the XML
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/emu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
# the HCA's NUMA node holds the second half of the PUs
hca_first=${pus[$((n / 2))]}
hca_cpus=$(IFS=,; echo "${pus[*]:$((n / 2))}")

# one task in a step that has the whole node (salloc --exclusive, srun
# --whole), so the HCA's CPU is among the step's
whole() { run timeout "$NP_SRUN_TIMEOUT" salloc -N1 --exclusive srun -n1 --whole "$@"; }

plugstack "topology=$dir/emu.xml sysfs=$dir/sys"
whole --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
check "hca-near -n1 runs" [ "$RC" -eq 0 ]
check "bound to the HCA's first CPU ($hca_first)" [ "$(pfield 0 .cpus)" = "$hca_first" ]
check "UCX_NET_DEVICES=mlx5_0:1" [ "$(pfield 0 .env.UCX_NET_DEVICES)" = mlx5_0:1 ]
check "OMPI_MCA_btl_openib_if_include=mlx5_0:1" [ "$(pfield 0 .env.OMPI_MCA_btl_openib_if_include)" = mlx5_0:1 ]
check "NUMAPLAN_HCA=mlx5_0:1, NUMAPLAN_POLICY=hca-near" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = hca-near ]'
check "verbose line names the HCA as local" \
	grep -qE "^numaplan: n[0-9]+ task 0 \(rank 0\): cpus $hca_first mems any hca mlx5_0:1 \(local\)\$" <<<"$ERR"

# %n: one file per node name
for nd in $(sinfo -h -N -o %N | sort -u); do cp "$dir/emu.xml" "$dir/$nd.xml"; chmod 0644 "$dir/$nd.xml"; done
plugstack "topology=$dir/%n.xml sysfs=$dir/sys"
whole --numa-plan=hca-near,mem=none numaplan-probe --json
check "topology=DIR/%n.xml: the node's own file is used" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]
rm -f "$dir/$(pfield 0 .host).xml"
srun_ -w "$(pfield 0 .host)" -N1 -n1 --numa-plan=hca-near,mem=none numaplan-probe --json
check "topology=DIR/%n.xml: without that node's file, a warning naming it" \
	grep -q "warning: cannot load the topology ($dir/$(pfield 0 .host).xml)" <<<"$ERR"
plugstack "topology=$dir/emu.xml sysfs=$dir/sys"

UCX_NET_DEVICES=mine whole --numa-plan=hca-near,mem=none numaplan-probe --json
check "a user-set UCX_NET_DEVICES is not overwritten" \
	eval '[ "$(pfield 0 .env.UCX_NET_DEVICES)" = mine ] && [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]'

# The emulated NUMA node 1 does not exist on this machine: binding memory
# there must fail cleanly, per on_error.
whole --numa-plan=hca-near numaplan-probe --json
check "mem=local on a missing NUMA node: on_error=warn runs the task unbound" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'
check "... with one warning naming the NUMA nodes" \
	eval '[ "$(grep -c "numaplan: .*warning:" <<<"$ERR")" -eq 1 ] && grep -q "NUMA nodes" <<<"$ERR"'
plugstack "topology=$dir/emu.xml sysfs=$dir/sys on_error=fail"
marker=$dir/ran
whole --numa-plan=hca-near sh -c "touch $marker"
check "... on_error=fail: the step fails with the reason" \
	eval '[ "$RC" -ne 0 ] && grep -q "numaplan: .*error: .*NUMA nodes" <<<"$ERR"'
check "... and the program did not run" [ ! -e "$marker" ]

# Partial node: another job holds the HCA-local CPU, ours gets the other
# one.  Fill the node so the next job lands on the HCA CPU, then free the
# first CPU for the test job.
plugstack "topology=$dir/emu.xml sysfs=$dir/sys"
node=$(sinfo -h -N -o %N | head -1)
if [ "$n" -eq 2 ]; then
	j1=$(sbatch --parsable -J np-emu-filler -w "$node" -n1 -c1 -o /dev/null --wrap 'sleep 300')
	j2=$(sbatch --parsable -J np-emu-filler -w "$node" -n1 -c1 -o /dev/null --wrap 'sleep 300')
	k=0; while [ $k -lt 60 ] && [ "$(squeue -h -j "$j1,$j2" -t R | wc -l)" -lt 2 ]; do sleep 0.5; k=$((k + 1)); done
	# which filler holds the HCA-local CPU: cancel the other one
	held=
	for j in $j1 $j2; do
		c=$(scontrol -d show job "$j" | sed -n 's/.*CPU_IDs=\([0-9,-]*\).*/\1/p' | head -1)
		subset "$c" "$hca_cpus" && held=$j
	done
	if [ -n "$held" ]; then
		for j in $j1 $j2; do [ "$j" != "$held" ] && scancel "$j"; done
		k=0; while [ $k -lt 60 ] && [ "$(squeue -h -j "$j1,$j2" | wc -l)" -gt 1 ]; do sleep 0.5; k=$((k + 1)); done
		srun_ -w "$node" -N1 -n1 -c1 --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
		got=$(pfield 0 .cpus)
		check "partial node: the job runs on a CPU it was given, not the HCA's" \
			eval '[ "$RC" -eq 0 ] && [ -n "$got" ] && disjoint "$got" "$hca_cpus"'
		check "partial node: still told its HCA (mlx5_0:1)" [ "$(pfield 0 .env.UCX_NET_DEVICES)" = mlx5_0:1 ]
		check "partial node: the verbose line says not local" grep -q "hca mlx5_0:1 (not local)" <<<"$ERR"
	else
		skip "partial node: no filler job ended up on the HCA's CPU"
	fi
	scancel "$j1" "$j2" >/dev/null 2>&1
	wait_idle
else
	skip "partial node test written for 2 PUs"
fi

done_testing
