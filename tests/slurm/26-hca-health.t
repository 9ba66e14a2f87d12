#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Adapters that are down get no ranks, on a real slurmstepd: the node runs
# an emulated topology (emulated-topology.sh two-hcas: this machine's PUs
# as two NUMA nodes, mlx5_1 and eth0 near the first, mlx5_0 near the
# second) and reads its adapters' states live from a sysfs tree
# (plugstack sysfs=, built by fake-sysfs.sh from the XML) that the test
# changes between steps, never touching the XML.  Also: the cache does not
# decide either; hca=NAME:PORT; hca=eth0 with a real MPI job over UCX's
# TCP transport; hca= refused with other policies; an untrusted sysfs=;
# sysfs=DIR/%n, a tree per node.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster

read -r -a pus <<<"$(machine_pus)"
n=${#pus[@]}
[ "$n" -ge 2 ] || skip_all "needs 2 PUs"
# topology=, cache= and sysfs= must be root's alone up to / (not /tmp)
dir=$(root_tmpdir hca-health) || skip_all "cannot make a root-only directory"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
FAKE="bash $NP_SRCDIR/tests/slurm/fake-sysfs.sh"
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" two-hcas || skip_all "cannot generate the XML"
chmod 0644 "$dir/emu.xml"
$FAKE "$dir/emu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
xml_sum=$(md5sum <"$dir/emu.xml")
# NUMA 0 (mlx5_1, eth0) holds the first half of the PUs, NUMA 1 (mlx5_0) the rest
numa0=${pus[0]}
numa1=${pus[$((n / 2))]}
marker=$dir/ran

# the whole node for the step (salloc --exclusive, srun --whole)
whole() { run timeout "$NP_SRUN_TIMEOUT" salloc -N1 --exclusive srun --whole "$@"; }
# the variables of a task, one "RANK NAME=VALUE" line each
envs() { whole "$@" sh -c 'for v in NUMAPLAN_HCA UCX_NET_DEVICES NCCL_IB_HCA FI_VERBS_DEVICE_NAME PSM3_NIC OMPI_MCA_btl_tcp_if_include FI_TCP_IFACE NCCL_SOCKET_IFNAME; do echo "$SLURM_PROCID $v=$(printenv $v)"; done'; }

plugstack "topology=$dir/emu.xml sysfs=$dir/sys"

# ---- both adapters ACTIVE: one rank each, near its own ----------------------
whole -n2 --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
check "both ACTIVE: rank 0 on mlx5_1 (NUMA 0, PU $numa0)" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_1:1 ] && [ "$(pfield 0 .cpus)" = "$numa0" ]'
check "both ACTIVE: rank 1 on mlx5_0 (NUMA 1, PU $numa1)" \
	eval '[ "$(pfield 1 .env.NUMAPLAN_HCA)" = mlx5_0:1 ] && [ "$(pfield 1 .cpus)" = "$numa1" ]'
check "both ACTIVE: no adapter reported unused" eval '! grep -q "not used" <<<"$ERR"'
envs -n1 --numa-plan=hca-near,hca=mlx5_1,mem=none
check "verbs fabric: UCX, NCCL, libfabric verbs and PSM3 variables" \
	eval 'grep -qx "0 UCX_NET_DEVICES=mlx5_1:1" <<<"$OUT" && grep -qx "0 NCCL_IB_HCA==mlx5_1:1" <<<"$OUT" &&
	      grep -qx "0 FI_VERBS_DEVICE_NAME=mlx5_1" <<<"$OUT" && grep -qx "0 PSM3_NIC=mlx5_1" <<<"$OUT"'

# ---- mlx5_1's port goes DOWN, live: both ranks on mlx5_0 --------------------
$FAKE set "$dir/sys" mlx5_1 1 DOWN
whole -n2 --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
check "mlx5_1 DOWN: every rank gets mlx5_0:1" \
	eval '[ "$(pfield 0 .env.UCX_NET_DEVICES)" = mlx5_0:1 ] && [ "$(pfield 1 .env.UCX_NET_DEVICES)" = mlx5_0:1 ]'
check "mlx5_1 DOWN: rank 0 now on mlx5_0's PU $numa1" [ "$(pfield 0 .cpus)" = "$numa1" ]
check "mlx5_1 DOWN: verbose says which adapter and why" \
	grep -qx "numaplan: n[0-9]*: adapter mlx5_1 not used: port 1 DOWN" <<<"$ERR"
check "the XML was not touched" [ "$(md5sum <"$dir/emu.xml")" = "$xml_sum" ]
$FAKE set "$dir/sys" mlx5_1 1 ACTIVE
whole -n2 --numa-plan=hca-near,mem=none numaplan-probe --json
check "mlx5_1 ACTIVE again: back on it, next step" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_1:1 ]

# ---- every adapter DOWN: fallback with a warning, or a failed step ----------
$FAKE set "$dir/sys" mlx5_0 1 DOWN
$FAKE set "$dir/sys" mlx5_1 1 INIT
whole -n1 --numa-plan=hca-near,mem=none numaplan-probe --json
check "all DOWN: the step runs, spread, no adapter exported" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ] && [ "$(pfield 0 .env.UCX_NET_DEVICES)" = null ]'
check "all DOWN: the note says so without verbose" \
	grep -q "numaplan: n[0-9]*: note: hca-near: no usable adapter on this node (mlx5_1: port 1 INIT; mlx5_0: port 1 DOWN), falling back to spread" <<<"$ERR"
plugstack "topology=$dir/emu.xml sysfs=$dir/sys on_error=fail"
whole -n1 --numa-plan=hca-near,mem=none sh -c "touch $marker"
check "all DOWN, on_error=fail: the step fails with the reasons" \
	eval '[ "$RC" -ne 0 ] && grep -q "numaplan: .*error: hca-near: no usable adapter on .*mlx5_0: port 1 DOWN.*(on_error=fail)" <<<"$ERR"'
check "... and the program did not run" [ ! -e "$marker" ]
$FAKE set "$dir/sys" mlx5_0 1 ACTIVE
$FAKE set "$dir/sys" mlx5_1 1 ACTIVE
plugstack "topology=$dir/emu.xml sysfs=$dir/sys"

# ---- hca=NAME:PORT, the form NUMAPLAN_HCA exports ---------------------------
whole -n1 --numa-plan=hca-near,hca=mlx5_0:1,mem=none numaplan-probe --json
check "hca=mlx5_0:1: bound near mlx5_0 (PU $numa1)" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ] && [ "$(pfield 0 .cpus)" = "$numa1" ]'
exported=$(pfield 0 .env.NUMAPLAN_HCA)
whole -n1 --numa-plan="hca-near,hca=$exported,mem=none" numaplan-probe --json
check "NUMAPLAN_HCA's value given back as hca= is accepted" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = "$exported" ]
whole -n1 --numa-plan=hca-near,hca=mlx5_0:2,mem=none numaplan-probe --json
check "hca=mlx5_0:2 (no such port): a warning naming the ports, the task unbound" \
	eval '[ "$RC" -eq 0 ] && grep -q "warning: .*HCA .mlx5_0. has no port 2 (ports: 1)" <<<"$ERR" && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]'

# ---- hca=eth0: a plain interface, for TCP fabrics ---------------------------
envs -n1 --numa-plan=hca-near,hca=eth0,mem=none
check "hca=eth0: UCX and Open MPI's tcp BTL, libfabric tcp, NCCL sockets" \
	eval 'grep -qx "0 UCX_NET_DEVICES=eth0" <<<"$OUT" && grep -qx "0 OMPI_MCA_btl_tcp_if_include=eth0" <<<"$OUT" &&
	      grep -qx "0 FI_TCP_IFACE=eth0" <<<"$OUT" && grep -qx "0 NCCL_SOCKET_IFNAME==eth0" <<<"$OUT" && grep -qx "0 NUMAPLAN_HCA=eth0" <<<"$OUT"'
OMPI_MCA_btl_tcp_if_exclude=lo envs -n1 --numa-plan=hca-near,hca=eth0,mem=none
check "a user's OMPI_MCA_btl_tcp_if_exclude keeps the include away (Open MPI refuses both)" \
	eval 'grep -qx "0 OMPI_MCA_btl_tcp_if_include=" <<<"$OUT" && grep -qx "0 UCX_NET_DEVICES=eth0" <<<"$OUT"'
whole -n1 --numa-plan=hca-near,hca=eth0,mem=none numaplan-probe --json
check "hca=eth0: bound near eth0 (NUMA 0, PU $numa0)" [ "$(pfield 0 .cpus)" = "$numa0" ]
$FAKE link "$dir/sys" eth0 down
whole -n1 --numa-plan=hca-near,hca=eth0,mem=none,verbose numaplan-probe --json
check "eth0 link down, live: not used, fallback" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ] && grep -q "adapter eth0 not used: link down" <<<"$ERR"'
$FAKE link "$dir/sys" eth0 up

# A real MPI job over two nodes, its UCX told eth0 by the plugin: UCX's TCP
# transport takes it (UCX warns about a device it cannot use, as the
# control with the emulated mlx5_0 shows).
if command -v numaplan-osu >/dev/null 2>&1; then
	srun_ --mpi=pmi2 -N2 -n2 --numa-plan=hca-near,hca=eth0,mem=none numaplan-osu latency -m 8 -i 20 -x 2
	check "MPI over UCX_NET_DEVICES=eth0: runs, 5 sizes measured" \
		eval '[ "$RC" -eq 0 ] && [ "$(grep -cE "^[0-9]+ +[0-9.]+$" <<<"$OUT")" -eq 5 ]'
	# UCX logs on standard output
	check "MPI over eth0: UCX accepted the device (no warning)" eval '! grep -q "UCX  *WARN  *network device" <<<"$OUT$ERR"'
	srun_ --mpi=pmi2 -N2 -n2 --numa-plan=hca-near,hca=mlx5_0,mem=none numaplan-osu latency -m 8 -i 5 -x 1
	check "control: UCX reads the variable (an absent mlx5_0:1 is warned about)" \
		grep -q "network device 'mlx5_0:1' is not available" <<<"$OUT$ERR"
else
	skip "numaplan-osu not built"
fi

# ---- hca= with another policy: refused before anything runs -----------------
srun_ -N1 -n1 --numa-plan=compact,hca=mlx5_0 touch "$marker"
check "srun compact,hca=: refused, naming the policy" \
	eval '[ "$RC" -ne 0 ] && grep -q "refused: the adapter list .mlx5_0. applies only to the policies hca-near and gpu-near, not to the policy .compact." <<<"$ERR" && [ ! -e "$marker" ]'
run timeout "$NP_SRUN_TIMEOUT" sbatch -N1 -n1 -o /dev/null --numa-plan=spread,hca=mlx5_0 --wrap "touch $marker"
check "sbatch spread,hca=: refused at submit" \
	eval '[ "$RC" -ne 0 ] && grep -q "adapter list .mlx5_0. applies only to the policies hca-near and gpu-near, not to the policy .spread." <<<"$ERR" && ! grep -q "Submitted batch job" <<<"$OUT"'
plugstack "topology=$dir/emu.xml sysfs=$dir/sys default=compact"
srun_ -N1 -n1 --numa-plan=hca=mlx5_0 touch "$marker"
check "hca= alone with the site's default compact: refused, saying it is the default" \
	eval '[ "$RC" -ne 0 ] && grep -q "applies only to the policies hca-near and gpu-near, not to the policy .compact. (this cluster.s default)" <<<"$ERR" && [ ! -e "$marker" ]'
srun_ -N1 -n1 --numa-plan=hca-near,hca=mlx5_0:0 touch "$marker"
check "hca=mlx5_0:0: refused at submit with the rule" \
	eval '[ "$RC" -ne 0 ] && grep -q "port must be a number from 1 to 255" <<<"$ERR" && [ ! -e "$marker" ]'

# ---- sysfs=DIR/%n: a tree per node, each node reads its own -------------------
# (numaplan check --site reads the same, run/19-screen-check-live.t)
mapfile -t vnodes < <(sinfo -h -N -o %N | sort -u)
for nd in "${vnodes[@]}"; do cp -a "$dir/sys" "$dir/sys-$nd"; done
$FAKE set "$dir/sys-${vnodes[0]}" mlx5_1 1 DOWN
plugstack "topology=$dir/emu.xml sysfs=$dir/sys-%n"
on() { run timeout "$NP_SRUN_TIMEOUT" salloc -N1 -w "$1" --exclusive srun --whole -n2 --numa-plan=hca-near,mem=none numaplan-probe --json; }
on "${vnodes[0]}"
check "sysfs=$dir/sys-%n: ${vnodes[0]}'s tree has mlx5_1 DOWN: both ranks on mlx5_0 there" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA) $(pfield 1 .env.NUMAPLAN_HCA)" = "mlx5_0:1 mlx5_0:1" ]'
if [ "${#vnodes[@]}" -ge 2 ]; then
	on "${vnodes[1]}"
	check "... ${vnodes[1]}'s tree has both ACTIVE: rank 0 on mlx5_1" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_1:1 ]
else
	skip "one node only"
fi
rm -rf "${vnodes[@]/#/$dir/sys-}"

# ---- sysfs= must be root's and closed to others -----------------------------
plugstack "topology=$dir/emu.xml sysfs=$dir/sys"
chmod g+w "$dir/sys"
whole -n1 --numa-plan=hca-near,mem=none numaplan-probe --json
check "group-writable sysfs=: refused, the task unbound, the reason named" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] &&
	      grep -q "warning: cannot read the adapters. state (plugstack.conf sysfs=$dir/sys): $dir/sys is group- or world-writable (the directory and every directory on its way must be root.s alone)" <<<"$ERR"'
chmod g-w "$dir/sys"

# ---- the cache does not decide either ----------------------------------------
# No topology=: the node's live discovery (this machine: eth0, no HCA) is
# cached; the states still come from the sysfs tree at every launch.
mkdir -p "$dir/sys2"; chmod 0755 "$dir/sys2"
$FAKE link "$dir/sys2" eth0 up
plugstack "cache=$dir/cache sysfs=$dir/sys2"
node=$(sinfo -h -N -o %N | head -1)
step() { srun_ -N1 -n1 -w "$node" --numa-plan=hca-near,hca=eth0,mem=none,verbose numaplan-probe --json; }
step
check "live discovery, saved: eth0 up, used" \
	eval 'grep -q "topology: live discovery; .*saved to" <<<"$ERR" && [ "$(pfield 0 .env.UCX_NET_DEVICES)" = eth0 ]'
step
check "from the cache: eth0 used" \
	eval 'grep -q "topology: cache $dir/cache/$node.xml" <<<"$ERR" && [ "$(pfield 0 .env.UCX_NET_DEVICES)" = eth0 ]'
$FAKE link "$dir/sys2" eth0 down
step
check "from the cache, eth0 down live: not used" \
	eval 'grep -q "topology: cache" <<<"$ERR" && grep -q "adapter eth0 not used: link down" <<<"$ERR" &&
	      [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = spread ]'
# and without sysfs=, /sys itself: this machine's eth0 is up
plugstack "cache=none"
step
check "no sysfs=: the real /sys says eth0 is $(cat /sys/class/net/eth0/operstate 2>/dev/null)" \
	eval '[ "$(cat /sys/class/net/eth0/operstate)" != up ] || [ "$(pfield 0 .env.UCX_NET_DEVICES)" = eth0 ]'

wait_idle
check "slurmd of every node still up" nodes_alive
done_testing
