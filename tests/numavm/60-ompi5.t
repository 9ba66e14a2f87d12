#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Open MPI 5 launching numaplan's rankfiles on a real kernel whose CPU
# numbers are not hwloc's logical order: numavm shape intel2s (2 packages
# of 2 cores x 2 hardware threads, numbered as Intel 2-socket firmware
# does - cpu 0 on package 0, cpu 1 on package 1, ..., the sibling of cpu 0
# is cpu 4).  In the guest, the Debian 13 root (Open MPI 5.0, PRRTE, hwloc
# 2.12) and the deb13 group's build of numaplan: `numaplan plan -f ompi`,
# the rankfile's own mpirun line, numaplan-probe in each rank.  Every
# rank's affinity (sched_getaffinity, as the kernel gave it) must be the
# CPUs this script derives from the shape alone: which OS CPUs share a
# core, which a package, in hwloc's topology order (package by package,
# core by core, thread by thread).  Runs after the deb13 group (tests/
# run-all), whose root and build it uses.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
source "$(dirname "$0")/../deb13/deb13-lib.sh"
T0=$SECONDS

[ "$(id -u)" -eq 0 ] || skip_all "numavm and chroot need root"
for t in qemu-system-x86_64 cpio jq python3 unshare; do
	command -v "$t" >/dev/null 2>&1 || skip_all "$t not installed (contrib/bootstrap installs it)"
done
ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (linux-image-amd64)"
[ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' || skip_all "no static busybox (busybox-static)"
[ -f "$D13ROOT/.numaplan-debian13" ] && [ -x "$D13ROOT/usr/bin/mpirun" ] ||
	skip_all "no Debian 13 root with Open MPI 5 at $D13ROOT (contrib/debian13/debian13 root; the deb13 group makes it)"
[ -x "$D13BUILD/cli/.libs/numaplan" ] && [ -x "$D13BUILD/kernels/numaplan-probe" ] ||
	skip_all "no Debian 13 build in $D13BUILD (tests/deb13/20-build.t makes it: run the deb13 group first)"

# ---- the shape, as numavm describes it: every expectation comes from here
declare -A PKG_OF SIB_OF
CORES=()     # "cpu,cpu" per core, in topology order
SOCK=()      # cpulist per package
while read -r -a w; do
	case ${w[0]} in
	socket) SOCK[w[1]]=${w[3]}; for c in ${w[3]//,/ }; do PKG_OF[$c]=${w[1]}; done;;
	core) CORES+=("${w[1]} ${w[2]} ${w[4]}");;
	esac
done < <("$NUMAVM" shape intel2s)
# topology order: by package, then core, then thread (ascending within a core)
mapfile -t CORES < <(printf '%s\n' "${CORES[@]}" | sort -n -k1,1 -k2,2 | awk '{print $3}')
PUS=()
for c in "${CORES[@]}"; do for p in ${c//,/ }; do PUS+=("$p"); SIB_OF[$p]=$c; done; done
chk "shape intel2s: 2 packages, 4 cores of 2 threads, 8 CPUs" \
	eval '[ ${#SOCK[@]} -eq 2 ] && [ ${#CORES[@]} -eq 4 ] && [ ${#PUS[@]} -eq 8 ]' || skip_all "shape intel2s unreadable"
chk "shape intel2s: hwloc's order of the CPUs (${PUS[*]}) is not the OS order" \
	[ "${PUS[*]}" != "0 1 2 3 4 5 6 7" ]

# ---- the guest
DATA=$(mktemp -d "${TMPDIR:-/tmp}/numavm-ompi5.XXXXXX")
CLEANUP+=("$DATA")
# (--keep: a root under /var/tmp or /tmp would be under a guest tmpfs)
"$NUMAVM" run --shape intel2s --no-slurm --collect "$DATA" --timeout "$NP_NUMAVM_TIMEOUT" --keep "$D13ROOT" --keep "$D13DIR" \
	"$NP_SRCDIR/tests/numavm/ompi5-collect.sh" "$D13ROOT" "$D13DIR" >"$DATA/run.out" 2>"$DATA/run.err"
rc=$?
chk "numavm run --shape intel2s: the guest booted and ran the collector (exit $rc)" [ $rc -eq 0 ] ||
	diagm "$(tail -15 "$DATA/run.err")"
diagm "in the guest: $(tr '\n' ' ' <"$DATA/versions" 2>/dev/null)"

# the kernel numbered the CPUs as the shape says (the upgraded MADT)
bad=
for c in "${PUS[@]}"; do
	grep -qx "cpu $c package ${PKG_OF[$c]} siblings ${SIB_OF[$c]}" "$DATA/facts" 2>/dev/null ||
		bad="$bad cpu $c: '$(grep "^cpu $c " "$DATA/facts" 2>/dev/null)' want package ${PKG_OF[$c]} siblings ${SIB_OF[$c]};"
done
chk "the guest kernel: every CPU in the shape's package, its SMT sibling half the machine away" [ -z "$bad" ] || diagm "$bad"
chk "the guest kernel: NUMA node 0 is package 0 (${SOCK[0]}), node 1 package 1 (${SOCK[1]})" eval \
	'grep -qx "node 0 cpulist ${SOCK[0]}" "$DATA/facts" && grep -qx "node 1 cpulist ${SOCK[1]}" "$DATA/facts"'

# ---- the cases: EXP[r] = rank r's CPUs, from the shape and numaplan(1)'s POLICIES
declare -a EXP
join_cores() { local i out=''; for i in "$@"; do out+=" ${CORES[i]//,/ }"; done; fmt "$out"; }
judge() { # NAME N LABEL
	local name=$1 n=$2 label=$3 r bad='' want got plan
	RC=$(cat "$DATA/$name.rc" 2>/dev/null || echo missing)
	chk "$label: mpirun ran the rankfile with its header's line (exit $RC)" [ "$RC" = 0 ] ||
		diagm "$(cat "$DATA/$name.cmd" "$DATA/$name.plan.err" 2>/dev/null; head -c 700 "$DATA/$name.err" 2>/dev/null)"
	bad=
	for ((r = 0; r < n; r++)); do
		want=$(fmt "${EXP[r]//,/ }")
		plan=$(jq -r --argjson r "$r" '.ranks[] | select(.rank == $r) | .cpus' "$DATA/$name.plan" 2>/dev/null)
		[ "$(fmt "$(expand "$plan")")" = "$want" ] || bad="$bad rank $r: plan '$plan' want $want;"
	done
	chk "$label: numaplan's plan is the shape's" [ -z "$bad" ] || diagm "$bad"
	bad=
	[ "$(grep -c '^{' "$DATA/$name.out" 2>/dev/null)" -eq "$n" ] || bad=" $(grep -c '^{' "$DATA/$name.out" 2>/dev/null) probe lines;"
	for ((r = 0; r < n; r++)); do
		want=$(fmt "${EXP[r]//,/ }")
		got=$(grep '^{' "$DATA/$name.out" 2>/dev/null | jq -r --argjson r "$r" 'select(.rank == $r and .pmix_rank == $r) | .cpus' 2>/dev/null)
		[ "$(fmt "$(expand "$got")")" = "$want" ] || bad="$bad rank $r: affinity '$got' want $want;"
	done
	chk "$label: each rank (MPI and PMIx rank alike) runs on exactly the shape's CPUs" [ -z "$bad" ] ||
		diagm "$bad $(cat "$DATA/$name.cmd" 2>/dev/null); $(grep -v '^#' "$DATA/$name.rf" 2>/dev/null | tr '\n' ';')"
}

# compact -n 4: one core per rank, cores in topology order
for r in 0 1 2 3; do EXP[r]=${CORES[r]}; done
judge compact4 4 "compact -n4 (rank r on core r: ${CORES[*]})"
chk "compact -n4: the rankfile's slots are logical core indexes 0-3, not OS CPUs" \
	[ "$(sed -n 's/^rank \([0-9]*\)=[^ ]* slot=/\1:/p' "$DATA/compact4.rf" 2>/dev/null | paste -sd' ')" = "0:0 1:1 2:2 3:3" ]
# compact --threads -n 8: one PU per rank, PUs in topology order
EXP=("${PUS[@]}")
judge threads8 8 "compact --threads -n8 (rank r on hardware thread r: ${PUS[*]})"
chk "compact --threads -n8: the rankfile is in hardware threads (:hwtcpus), rank 1 on logical PU 1 = cpu ${PUS[1]}" eval \
	'grep -q ":hwtcpus" "$DATA/threads8.cmd" && grep -qx "rank 1=[^ ]* slot=1" "$DATA/threads8.rf"'
# spread -n 4: packages alternate, then the cores of each package
EXP=("${CORES[0]}" "${CORES[2]}" "${CORES[1]}" "${CORES[3]}")
judge spread4 4 "spread -n4 (packages alternate: ${EXP[*]})"
# numa -n 2: a NUMA node (here a package) each, all its CPUs
EXP=("${SOCK[0]}" "${SOCK[1]}")
judge numa2 2 "numa -n2 (rank 0 on ${SOCK[0]}, rank 1 on ${SOCK[1]})"
# compact -n 2 -c 2: two cores each, in topology order: package by package
EXP=("$(join_cores 0 1)" "$(join_cores 2 3)")
judge compact2c2 2 "compact -n2 -c2 (${EXP[*]})"

diagm "guest steps (guest clock): $(awk '{ printf "%s %.0fs ", $1, $3 - $2 }' "$DATA/timing" 2>/dev/null)"
diagm "60-ompi5.t: $((SECONDS - T0))s"
done_testing
