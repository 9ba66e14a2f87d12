#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The local virtual cluster (contrib/vcluster): up, jobs on both nodes, the
# cgroup of a one-CPU job, MPICH over pmi2, plugstack rewrites, bad input,
# down leaving nothing behind, and up again (the slurm group expects it up).
source "$(dirname "$0")/../tap.sh"

VC=$NP_SRCDIR/contrib/vcluster/vcluster
ID=${NP_VCLUSTER_ID:-0}
VC_DIR=${NP_VCLUSTER_DIR:-/var/lib/numaplan-vcluster${ID#0}}
if [ "$ID" = 0 ]; then PFX=npvc; else PFX=npvc$ID; fi
if [ "$(id -u)" -ne 0 ] || ! command -v slurmd >/dev/null; then
	skip "vcluster needs root and slurmd"
	done_testing; exit
fi
tmp=$(mktemp -d /tmp/np-vcluster-test.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
# the caller's plugin choice (NP_PLUGIN or NP_BUILDDIR's) holds except
# while the test plugin below is in use
caller_plugin=${NP_PLUGIN-}

run "$VC" up --nodes 2
check "vcluster up --nodes 2" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR"
run "$VC" env
check "vcluster env prints the SLURM_CONF export" \
	[ "$OUT" = "export SLURM_CONF=$VC_DIR/etc/slurm.conf" ]
eval "$OUT"

# The nodes declare this machine's CPUs (counted by the kernel, not hwloc)
ncpu=$(getconf _NPROCESSORS_ONLN)
run sinfo -h -N -o '%N %T %c'
check "sinfo: n1 and n2 idle with $ncpu CPUs" \
	[ "$(echo "$OUT" | sort -u)" = "$(printf 'n1 idle %s\nn2 idle %s' "$ncpu" "$ncpu")" ]
[ "$RC" -eq 0 ] || diag "$ERR"

run "$VC" status
check "vcluster status exits 0 when everything runs" [ "$RC" -eq 0 ]

# Each node has its own hostname and its own address on the bridge
run timeout 60 srun -N2 -n2 -l sh -c 'echo "$(hostname) $(ip -4 -o addr show eth0 | awk "{print \$4}")"'
check "srun -N2 exits 0" [ "$RC" -eq 0 ]
hosts=$(echo "$OUT" | sort | awk '{print $2}' | tr '\n' ' ')
check "srun -N2 reaches n1 and n2 (got: $hosts)" [ "$hosts" = "n1 n2 " ]
addrs=$(echo "$OUT" | awk '{print $3}' | sort -u)
check "the two nodes have different addresses in 10.77.$ID.0/24" \
	[ "$(echo "$addrs" | grep -c "^10\\.77\\.$ID\\.[0-9]*/24\$")" -eq 2 ]

# A -c1 job: its cpuset cgroup (task/cgroup, ConstrainCores) holds one CPU,
# and the task's affinity is that CPU.
cpulist_count() { # Linux cpulist -> number of CPUs
	local n=0 r a b IFS=,
	for r in $1; do
		case $r in *-*) a=${r%-*}; b=${r#*-}; n=$((n + b - a + 1));; '') ;; *) n=$((n + 1));; esac
	done
	echo $n
}
run timeout 60 srun -N1 -n1 -c1 sh -c '
	cg=$(awk -F: "\$2 ~ /(^|,)cpuset(,|\$)/ {print \$3}" /proc/self/cgroup)
	echo "cg=$cg"
	echo "cgcpus=$(cat /sys/fs/cgroup/cpuset$cg/cpuset.cpus)"
	echo "allowed=$(awk "/^Cpus_allowed_list/ {print \$2}" /proc/self/status)"'
cgpath=$(echo "$OUT" | sed -n 's/^cg=//p')
cgcpus=$(echo "$OUT" | sed -n 's/^cgcpus=//p')
allowed=$(echo "$OUT" | sed -n 's/^allowed=//p')
check "-c1 task runs in a Slurm step cgroup ($cgpath)" \
	eval 'echo "$cgpath" | grep -qE "/job_[0-9]+/step_[0-9]+"'
check "-c1 job's cgroup cpuset has exactly one CPU ($cgcpus)" [ "$(cpulist_count "$cgcpus")" -eq 1 ]
check "-c1 task's affinity is that CPU ($allowed)" [ "${allowed:-none}" = "$cgcpus" ]

# MPICH across the two nodes through Slurm's PMI2
if command -v mpicc.mpich >/dev/null; then
	cat >"$tmp/mpitiny.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int rank, size, sum = 0, one = 1;
	char host[256] = "";

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	gethostname(host, sizeof host - 1);
	printf("rank %d size %d host %s sum %d\n", rank, size, host, sum);
	MPI_Finalize();
	return 0;
}
EOF
	if mpicc.mpich -o "$tmp/mpitiny" "$tmp/mpitiny.c"; then
		run timeout 120 srun --mpi=pmi2 -N2 -n2 "$tmp/mpitiny"
		check "srun --mpi=pmi2 -N2 -n2 (MPICH) exits 0" [ "$RC" -eq 0 ]
		[ "$RC" -eq 0 ] || diag "$ERR"
		check "both ranks see size 2 and the allreduce sum 2, one per node" \
			[ "$(echo "$OUT" | sort)" = "$(printf 'rank 0 size 2 host n1 sum 2\nrank 1 size 2 host n2 sum 2')" ]
	else
		notok "mpicc.mpich compiles a tiny MPI program"
	fi
else
	skip "mpicc.mpich not installed"
fi

# Slurm's PMIx server on both nodes (their TmpFS must not collide)
run timeout 60 srun --mpi=pmix -N2 -n2 -l printenv PMIX_RANK
check "srun --mpi=pmix -N2 -n2: PMIX_RANK 0 and 1" \
	[ "$(echo "$OUT" | sort)" = "$(printf '0: 0\n1: 1')" ]
[ "$RC" -eq 0 ] || diag "$ERR"

# numaplan-probe's ranks under Slurm (what the plugin tests rely on)
if command -v numaplan-probe-mpi >/dev/null; then
	run timeout 60 srun --mpi=pmi2 -N2 -n4 numaplan-probe-mpi --json
	check "srun --mpi=pmi2 -N2 -n4 numaplan-probe-mpi: block layout, MPI local ranks" \
		[ "$(echo "$OUT" | jq -r '"\(.rank) \(.host) \(.local_rank)"' | tr '\n' ,)" = "0 n1 0,1 n1 1,2 n2 0,3 n2 1," ]
	[ "$RC" -eq 0 ] || diag "$ERR"
else
	skip "numaplan-probe-mpi not built"
fi
if command -v numaplan-probe >/dev/null && [ -n "$(numaplan-probe --help 2>/dev/null)" ]; then
	run timeout 60 srun --mpi=pmix -N2 -n2 numaplan-probe --json
	if echo "$OUT" | jq -e 'has("pmix_rank")' >/dev/null 2>&1; then
		check "srun --mpi=pmix: numaplan-probe's PMIx ranks equal Slurm's" \
			[ "$(echo "$OUT" | jq -r '"\(.rank)=\(.pmix_rank) \(.local_rank)=\(.pmix_local_rank)"' | sort | tr '\n' ,)" = "0=0 0=0,1=1 0=0," ]
	else
		skip "numaplan-probe built without PMIx"
	fi
fi

# up again with the same options restarts nothing
ctld1=$(cat "$VC_DIR/run/slurmctld.pid" 2>/dev/null)
run "$VC" up --nodes 2
check "a second identical up exits 0" [ "$RC" -eq 0 ]
check "... and keeps the same slurmctld" \
	eval '[ "$(cat "$VC_DIR/run/slurmctld.pid" 2>/dev/null)" = "$ctld1" ] && [ -d "/proc/$ctld1" ]'

# Bad input: an error, and the running cluster is untouched
for bad in "up --nodes 0" "up --nodes x" "up --topology $tmp/missing.xml" "up --bogus" \
	"up --plugstack-args a=1 --no-plugin" "plugstack" "frobnicate"; do
	# shellcheck disable=SC2086
	run "$VC" $bad
	check "'vcluster $bad' fails with a message" eval '[ "$RC" -ne 0 ] && [ -n "$ERR" ]'
done
run env NP_PLUGIN="$tmp/none.so" "$VC" up --nodes 2
check "up with NP_PLUGIN naming a missing file fails with a message" eval '[ "$RC" -ne 0 ] && [ -n "$ERR" ]'
run env NP_PLUGIN="$tmp/none.so" "$VC" plugstack 'a=1'
check "plugstack with NP_PLUGIN naming a missing file fails" [ "$RC" -ne 0 ]
echo 'not xml' >"$tmp/bad.xml"
run "$VC" up --nodes 2 --topology "$tmp/bad.xml"
check "up --topology with a non-XML file fails" [ "$RC" -ne 0 ]
check "... and the cluster is untouched (same slurmctld, 2 idle nodes)" \
	eval '[ "$(cat "$VC_DIR/run/slurmctld.pid" 2>/dev/null)" = "$ctld1" ] &&
	[ "$(sinfo -h -N -o %T | grep -c "^idle$")" -eq 2 ]'

# plugstack rewrites reach new steps without a daemon restart: a tiny SPANK
# plugin puts its arguments into the task's environment
if [ -f /usr/include/slurm/spank.h ]; then
	cat >"$tmp/argspank.c" <<'EOF'
#include <slurm/spank.h>
#include <string.h>

SPANK_PLUGIN(argspank, 1);

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	char buf[1024] = "";

	for (int i = 0; i < ac; i++) {
		if (strlen(buf) + strlen(av[i]) + 2 > sizeof buf)
			break;
		strcat(buf, i ? " " : "");
		strcat(buf, av[i]);
	}
	spank_setenv(sp, "ARGSPANK", buf, 1);
	return 0;
}
EOF
	if gcc -shared -fPIC -o "$tmp/argspank.so" "$tmp/argspank.c"; then
		export NP_PLUGIN=$tmp/argspank.so
		run "$VC" plugstack 'alpha=1 beta'
		check "vcluster plugstack 'alpha=1 beta' exits 0" [ "$RC" -eq 0 ]
		run timeout 60 srun -N2 -n2 printenv ARGSPANK
		check "both nodes' steps get the plugin arguments" [ "$OUT" = "$(printf 'alpha=1 beta\nalpha=1 beta')" ]
		run "$VC" plugstack 'gamma=2'
		run timeout 60 srun -N1 printenv ARGSPANK
		check "a rewrite reaches the next step" [ "$OUT" = "gamma=2" ]
		check "... without restarting slurmctld" [ "$(cat "$VC_DIR/run/slurmctld.pid")" = "$ctld1" ]
		run "$VC" plugstack --off
		run timeout 60 srun -N1 sh -c 'echo "[${ARGSPANK-unset}]"'
		check "plugstack --off: no plugin in the next step" [ "$OUT" = "[unset]" ]

		# --topology: node CPUs/sockets come from the XML, counted here
		# from the XML text itself; the plugin gets topology=<copy>
		xml=$TOPO/intel-snb2650-2s-mlx5-k40-conan.xml
		pus=$(grep -c '<object type="PU"' "$xml")
		pkgs=$(grep -c '<object type="Package"' "$xml")
		run "$VC" up --nodes 2 --topology "$xml" --plugstack-args 'x=1'
		check "up --topology FILE reconfigures" [ "$RC" -eq 0 ]
		[ "$RC" -eq 0 ] || diag "$ERR"
		run sinfo -h -N -o '%N %c %X'
		check "nodes declare the XML's $pus CPUs in $pkgs sockets" \
			[ "$(echo "$OUT" | sort -u)" = "$(printf 'n1 %s %s\nn2 %s %s' "$pus" "$pkgs" "$pus" "$pkgs")" ]
		run timeout 60 srun -N1 printenv ARGSPANK
		check "the plugin gets topology=<the cluster's copy> before the site arguments" \
			[ "$OUT" = "topology=$VC_DIR/etc/topology.xml x=1" ]
		check "the copy is the XML" cmp -s "$xml" "$VC_DIR/etc/topology.xml"
		run "$VC" plugstack 'topology=/elsewhere.xml y'
		run timeout 60 srun -N1 printenv ARGSPANK
		check "explicit topology= in plugstack arguments wins" [ "$OUT" = "topology=/elsewhere.xml y" ]
		if [ -n "$caller_plugin" ]; then NP_PLUGIN=$caller_plugin; else unset NP_PLUGIN; fi
	else
		notok "gcc builds a SPANK test plugin"
	fi
else
	skip "slurm/spank.h not installed"
fi

# down: collect what runs now, then nothing of it may remain
pids=$(cat "$VC_DIR"/run/*.pid "$VC_DIR/munge/munged.pid" 2>/dev/null | tr '\n' ' ')
for ns in /run/netns/$PFX-n*; do [ -e "$ns" ] && pids="$pids $(ip netns pids "${ns##*/}" | tr '\n' ' ')"; done
timeout 600 srun -N2 sleep 600 >/dev/null 2>&1 &
srun_pid=$!
# the step's processes are to be counted: wait until it runs on both nodes
sleeping() { # the node namespaces with the step's sleep running
	local ns p k=0
	for ns in /run/netns/$PFX-n*; do
		[ -e "$ns" ] || continue
		for p in $(ip netns pids "${ns##*/}"); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && { k=$((k + 1)); break; }
		done
	done
	echo "$k"
}
for i in $(seq 120); do [ "$(sleeping)" -ge 2 ] && break; sleep 0.5; done
for ns in /run/netns/$PFX-n*; do [ -e "$ns" ] && pids="$pids $(ip netns pids "${ns##*/}" | tr '\n' ' ')"; done
diag "processes before down: $pids"
run "$VC" down
check "vcluster down exits 0" [ "$RC" -eq 0 ]
wait "$srun_pid" 2>/dev/null
left=
for p in $pids; do [ -d "/proc/$p" ] && left="$left $p($(cat /proc/$p/comm 2>/dev/null))"; done
check "down leaves none of the cluster's processes (left:$left)" [ -z "$left" ]
check "down leaves no process using the cluster's directory" \
	eval '! pgrep -f -- "$VC_DIR/" >/dev/null'
check "down leaves no slurmstepd of this cluster" \
	eval '! pgrep -x slurmstepd | while read -r p; do cat /proc/$p/cgroup; done | grep -q "/$PFX-n"'
check "down leaves no $PFX- network namespace" eval '! ls /run/netns 2>/dev/null | grep -q "^$PFX-"'
check "down leaves no $PFX- veth" eval '! ip -o link show | grep -q " $PFX-h"'
check "down leaves no bridge np-br$ID" eval '! ip link show np-br$ID >/dev/null 2>&1'
check "down leaves no mount of netns or the cluster's directory" \
	eval '! grep -qE "/$PFX-|$VC_DIR" /proc/self/mountinfo'
check "down leaves no $PFX- cgroup" eval '! ls -d /sys/fs/cgroup/*/$PFX-n* >/dev/null 2>&1'
run "$VC" status
check "status after down exits non-zero" [ "$RC" -ne 0 ]
run "$VC" down
check "down twice is fine" [ "$RC" -eq 0 ]

# The rest of the slurm group needs the cluster as tests/run-all made it
run "$VC" up --nodes 2
check "up again after down" [ "$RC" -eq 0 ]
[ "$RC" -eq 0 ] || diag "$ERR"
run sinfo -h -N -o '%N %T'
check "both nodes idle again" [ "$(echo "$OUT" | sort -u)" = "$(printf 'n1 idle\nn2 idle')" ]
done_testing
