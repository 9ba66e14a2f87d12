#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every launcher format carries each rank's devices: the plan's variables
# (GPUs, adapter, OpenMP) reach the rank through the launcher's own
# mechanism.  Each format's command is run here, on stored GPU topologies
# restricted to this machine's first two PUs (--cpuset 0-1) and this host,
# and every rank reports what it got with numaplan-probe.
#   numactl: env(1) in front of each rank's numactl line;
#   mpich:   hydra's -env per executable (MPMD), -genv when all ranks agree;
#   ompi4:   Open MPI 4's -x per app context beside the rankfile;
#   ompi:    the same for Open MPI 5 (not installed here: its line is read);
#   slurm:   srun --multi-prog (tests/slurm/89-gpu.t runs it on the vcluster).
# Expectations: from the topology for the devices (Pascal: both P100s and
# mlx5_0 below one PCIe switch, on NUMA 0 with PUs 0 and 1), and each
# rank against the JSON plan for the whole environment.
source "$(dirname "$0")/../tap.sh"
PASCAL=$TOPO/intel-bdw2695v4-2s-2p100-mlx5-pascal.xml
TIOGA=$TOPO/amd-epyc7a53-1s-nps4-8mi250xgcd-4slingshot-tioga.xml
host=$(hostname)
online=$(cat /sys/devices/system/cpu/online)
case $online in 0-*|0,1*) ;; *) echo "1..0 # SKIP PUs 0 and 1 not both online"; exit 0 ;; esac
tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
asroot=(); [ "$(id -u)" -eq 0 ] && asroot=(--allow-run-as-root)

# What each rank runs: the probe, written to a file named by its rank (the
# launcher's rank variable; NP_T_RANK for the numactl lines).
cat >"$tmp/dump" <<EOF
#!/bin/bash
r=\${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-\${SLURM_PROCID:-\$NP_T_RANK}}}
exec numaplan-probe --json --no-mpi >"$tmp/out/rank.\$r"
EOF
chmod +x "$tmp/dump"

# got RANK: that rank's probe object
got() { cat "$tmp/out/rank.$1" 2>/dev/null; }
# compare PLAN-JSON: each rank's CPUs, and every variable of its plan, as
# the probe saw them; prints what differs
compare() {
	local plan=$1 n r v want have
	n=$(jq '.ranks | length' <<<"$plan")
	for ((r = 0; r < n; r++)); do
		[ -s "$tmp/out/rank.$r" ] || { echo "rank $r did not run"; continue; }
		want=$(jq -r ".ranks[$r].cpus" <<<"$plan")
		have=$(got $r | jq -r .cpus)
		[ -n "${ENV_ONLY:-}" ] || [ "$want" = "$have" ] || echo "rank $r: cpus $have, planned $want"
		for v in $(jq -r ".ranks[$r].env | keys[]" <<<"$plan"); do
			want=$(jq -r ".ranks[$r].env.$v" <<<"$plan")
			have=$(got $r | jq -r ".env.$v")
			[ "$want" = "$have" ] || echo "rank $r: $v='$have', planned '$want'"
		done
	done
}
# run_format WHAT FORMAT PLAN-ARGS...: runs the format's command, then
# checks every rank against the JSON plan of the same arguments
run_format() {
	local what=$1 fmt=$2 line diff
	shift 2
	rm -rf "$tmp/out" && mkdir "$tmp/out"
	numaplan plan "$@" --hosts "$host" -f json >"$tmp/plan.json"
	numaplan plan "$@" --hosts "$host" -f "$fmt" -- "$tmp/dump" >"$tmp/out.$fmt" || { notok "$what: plan failed"; return; }
	case $fmt in
	numactl)
		while read -r line; do
			case $line in
			"# rank "*) r=${line#\# rank }; r=${r%% *} ;;
			*) NP_T_RANK=$r timeout 60 bash -c "$line" ;;
			esac
		done <"$tmp/out.$fmt" ;;
	mpich)
		line=$(cat "$tmp/out.$fmt")
		timeout 120 bash -c "$line" >/dev/null 2>&1 ;;
	ompi4|ompi)
		line=$(sed -n 's/^#   mpirun //p' "$tmp/out.$fmt")
		line=${line//FILE/$tmp/out.$fmt}
		# Open MPI 5's rankfile slots are the topology file's logical
		# PUs, not this machine's: mapped by slot instead (ENV_ONLY)
		[ "$fmt" = ompi ] && line=${line/--map-by rankfile:file=$tmp\/out.$fmt:hwtcpus/--map-by slot --bind-to none}
		# launched once: a rank left out fails below ("rank r did not
		# run"), with mpirun's own output to say why (70 launches under
		# a 2-CPU stress load left none out)
		if ! timeout 120 bash -c "mpirun.openmpi ${asroot[*]} $line" >"$tmp/mpirun.log" 2>&1; then
			diag "mpirun.openmpi failed; its output:"
			sed 's/^/#   /' "$tmp/mpirun.log" | head -20
		fi ;;
	esac
	diff=$(compare "$(cat "$tmp/plan.json")")
	check "$what" test -z "$diff"
	[ -z "$diff" ] || diag "$diff"
}

# ---- devices from the topology (Pascal): rank r, GPU r, mlx5_0 port 1
pascal_ok() {
	local r bad=0
	for r in 0 1; do
		[ "$(got $r | jq -r .env.CUDA_VISIBLE_DEVICES)" = "$r" ] || bad=1
		[ "$(got $r | jq -r .env.CUDA_DEVICE_ORDER)" = PCI_BUS_ID ] || bad=1
		[ "$(got $r | jq -r .env.UCX_NET_DEVICES)" = mlx5_0:1 ] || bad=1
		[ "$(got $r | jq -r .env.NCCL_IB_HCA)" = "=mlx5_0:1" ] || bad=1
		[ -n "${ENV_ONLY:-}" ] || [ "$(got $r | jq -r .cpus)" = "$r" ] || bad=1
	done
	[ "$bad" -eq 0 ]
}

run_format "numactl, Pascal gpu-near -n 2: each rank its planned CPUs and variables" \
	numactl --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near
check "numactl: rank r sees GPU r only, mlx5_0:1, and runs on PU r" pascal_ok
check "numactl: memory bound as planned (NUMA 0)" \
	eval '[ "$(got 0 | jq -r .mempolicy)" = bind ] && [ "$(got 1 | jq -r .mems)" = 0 ]'

if command -v mpiexec.mpich >/dev/null; then
	run_format "mpich (hydra MPMD -env), Pascal gpu-near -n 2: as planned" \
		mpich --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near
	check "mpich: rank r sees GPU r only, mlx5_0:1, and runs on PU r" pascal_ok
	check "mpich: one executable per rank, each with its own -env" \
		eval '[ "$(grep -o " : " "$tmp/out.mpich" | wc -l)" -eq 1 ] && grep -q -- "-env CUDA_VISIBLE_DEVICES 0 " "$tmp/out.mpich"'
	run_format "mpich, Tioga -n 2: Slingshot variables (a ';' in MPICH_OFI_NIC_MAPPING) as planned" \
		mpich --topology "$TIOGA" --cpuset 0-1 -n 2 -p gpu-near
	run_format "mpich, Pascal --gpus 0 -n 2: the same variables for both ranks, as planned" \
		mpich --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near --gpus 0
	check "mpich: identical variables are given once, with -genv, no MPMD" \
		eval 'grep -q "^mpiexec.mpich -n 2 .* -genv CUDA_VISIBLE_DEVICES 0 " "$tmp/out.mpich" && ! grep -q " : " "$tmp/out.mpich"'
	check "mpich --gpus 0: both ranks see GPU 0 (the only one listed)" \
		eval '[ "$(got 0 | jq -r .env.CUDA_VISIBLE_DEVICES)" = 0 ] && [ "$(got 1 | jq -r .env.CUDA_VISIBLE_DEVICES)" = 0 ]'
	run_format "mpich, Pascal --gpu-visible all: as planned" \
		mpich --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near --gpu-visible all
	check "mpich --gpu-visible all: rank 0 sees 0,1 and rank 1 sees 1,0 (its own first)" \
		eval '[ "$(got 0 | jq -r .env.CUDA_VISIBLE_DEVICES)" = 0,1 ] && [ "$(got 1 | jq -r .env.CUDA_VISIBLE_DEVICES)" = 1,0 ]'
else
	for i in 1 2 3 4 5 6 7 8; do skip "mpiexec.mpich not installed"; done
fi

ompi_major=$(mpirun.openmpi --version 2>/dev/null | sed -n 's/.*(Open MPI) \([0-9]*\)\..*/\1/p' | head -1)
if [ "${ompi_major:-0}" = 4 ]; then
	run_format "ompi4 (rankfile + -x per app context), Pascal gpu-near -n 2: as planned" \
		ompi4 --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near
	check "ompi4: rank r sees GPU r only, mlx5_0:1, and runs on PU r" pascal_ok
	run_format "ompi4, Tioga -n 2: Slingshot variables as planned" \
		ompi4 --topology "$TIOGA" --cpuset 0-1 -n 2 -p gpu-near
elif [ "${ompi_major:-0}" -ge 5 ]; then
	# Open MPI 5 (Debian 13): ompi4's rankfile is not for it; the ompi
	# format's -x run, the rankfile mapped by slot instead (its slots are
	# the topology file's logical PUs, not this machine's; its CPUs are
	# tests/deb13/70-ompi5-launch's and tests/numavm/60-ompi5's).  Debian
	# 13's mpirun 5.0.7 crashes on any MPMD line (open-mpi/ompi#13303,
	# numaplan-plan(1)): then only the one-app line (every rank the same
	# variables) runs, and the per-rank lines are skipped.
	ENV_ONLY=1
	run_format "ompi (Open MPI $ompi_major), Pascal --gpus 0 -n 2: one app context, -x the variables as planned" \
		ompi --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near --gpus 0
	if timeout 60 bash -c 'mpirun.openmpi "$@" -n 1 true : -n 1 true' _ "${asroot[@]}" >/dev/null 2>&1; then
		run_format "ompi (Open MPI $ompi_major, -x per app context), Pascal gpu-near -n 2: the variables as planned" \
			ompi --topology "$PASCAL" --cpuset 0-1 -n 2 -p gpu-near
		check "ompi: rank r sees GPU r only, mlx5_0:1" pascal_ok
	else
		for i in 1 2; do skip "mpirun.openmpi $ompi_major crashes on MPMD lines (open-mpi/ompi#13303)"; done
	fi
	ENV_ONLY=
elif command -v mpirun.openmpi >/dev/null; then
	for i in 1 2 3; do skip "mpirun.openmpi is neither Open MPI 4 nor 5"; done
else
	for i in 1 2 3; do skip "mpirun.openmpi not installed"; done
fi

# ---- Open MPI 5: not installed; its header line read as mpirun would:
# one app context per rank, in rank order, each -x its rank's variables
numaplan plan --topology "$TIOGA" --cpuset 0-1 -n 2 -p gpu-near --hosts "$host" -f json >"$tmp/plan.json"
numaplan plan --topology "$TIOGA" --cpuset 0-1 -n 2 -p gpu-near --hosts "$host" -f ompi -- ./app >"$tmp/out.ompi"
line=$(sed -n 's/^#   mpirun //p' "$tmp/out.ompi")
bad=0
# split the app contexts at " : " and evaluate each one's words as a shell would
IFS=$'\n' read -r -d '' -a apps < <(sed 's/ : /\n/g' <<<"$line"; printf '\0')
[ "${#apps[@]}" -eq 2 ] || bad=1
for r in 0 1; do
	eval "words=(${apps[$r]})"
	pairs=$(for ((k = 0; k < ${#words[@]}; k++)); do [ "${words[$k]}" = -x ] && echo "${words[$((k + 1))]}"; done | sort)
	want=$(jq -r ".ranks[$r].env | to_entries[] | \"\(.key)=\(.value)\"" "$tmp/plan.json" | sort)
	[ "$pairs" = "$want" ] || { bad=1; diag "ompi app $r: $pairs / want $want"; }
	[ "${words[-1]}" = ./app ] || bad=1
done
check "ompi (Open MPI 5) line: one app context per rank, -x its planned variables" test "$bad" -eq 0
check "ompi line: the rankfile maps the apps, no global -n" \
	eval 'grep -Eq "^--map-by rankfile:file=FILE[^ ]*( --use-hwthread-cpus)? -n 1 -x " <<<"$line"'

# ---- no variables: the lines are as they always were
run numaplan plan --topology "$PASCAL" -n 4 -p compact -f mpich
check "compact, 1 CPU per rank: no variable, no -env" bash -c '! grep -q -- "-env\|-genv" <<<"$1"' _ "$OUT"
run numaplan plan --topology "$PASCAL" -n 4 -p compact -f numactl
check "compact, numactl: no env(1)" bash -c '! grep -q "^env " <<<"$1"' _ "$OUT"
run numaplan plan --topology "$PASCAL" -n 4 -p none -f slurm
check "policy none, slurm: no env, no multi-prog" bash -c '! grep -q "env\|multi-prog" <<<"$1"' _ "$OUT"

# ---- slurm, as written (run on the vcluster by tests/slurm/89-gpu.t)
run numaplan plan --topology "$PASCAL" -n 2 -p gpu-near -f slurm -- ./app
check "slurm: --gpu-bind gives the GPUs; the other variables, the same for both tasks, are env(1) words" \
	eval 'grep -q -- "--gpu-bind=map_gpu:0,1 env CUDA_DEVICE_ORDER=PCI_BUS_ID UCX_NET_DEVICES=mlx5_0:1 .* ./app$" <<<"$OUT" && ! grep -q "CUDA_VISIBLE_DEVICES" <<<"$OUT"'
# Lassen: each GPU its own adapter (mlx5_0..3 in bus order, tests/cli/60-gpu.t)
run numaplan plan --topology "$TOPO/ibm-power9-2s-4v100-4mlx5-lassen.xml" -n 4 -p gpu-near -f slurm -- ./app
check "slurm: variables that differ go in a --multi-prog file, one env line per task" \
	eval '(grep -q -- "--gpu-bind=map_gpu:0,1,2,3 --multi-prog numaplan.multi$" <<<"$OUT" && for r in 0 1 2 3; do grep -q "^$r env .*UCX_NET_DEVICES=mlx5_$r:1 .* ./app$" <<<"$OUT" || exit 1; done)'
run numaplan plan --topology "$PASCAL" -n 2 -c 2 -p compact -f slurm -- ./app
check "slurm: the same variables for every task are env(1) words on the srun line" \
	grep -q -- "--mem-bind=mask_mem:[0-9a-fx,]* env OMP_NUM_THREADS=2 OMP_PLACES=cores OMP_PROC_BIND=close ./app$" <<<"$OUT"
run numaplan plan --topology "$TIOGA" --cpuset 0-1 -n 2 -p gpu-near -f slurm -- ./app
check "slurm multi-prog: a value with ';' single-quoted for srun's reader" \
	grep -q "MPICH_OFI_NIC_MAPPING=[^ ]*'" <<<"$OUT"
done_testing
