# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# check-lib.sh - sourced (after tap.sh) by the tests/numavm/*.t scripts, on
# the host.  A test boots its shape once with `numavm run --collect`, runs
# its collector inside (collect-lib.sh: every srun step, every task's own
# view), and judges here what came out, against:
#   - the shape (`numavm shape NAME`: nodes, CPUs, sockets, L3, SLIT, NICs);
#   - a reference model of each policy written from numaplan(1)'s POLICIES
#     section and that shape - never from numaplan's own output.

NUMAVM="$NP_SRCDIR/contrib/numavm/numavm"

# chk: tap.sh's check (it returns the verdict, for a diag on failure),
# under the name these scripts use; diagm: diag for several lines
chk() { check "$@"; }
diagm() { local l; while IFS= read -r l; do echo "# $l"; done <<<"$*"; }
: "${NP_NUMAVM_TIMEOUT:=720}"

skip_all() { skip "$*"; done_testing; exit 0; }

# Everything a numavm test needs, or one skip saying what is missing.
need_numavm() {
	[ "$(id -u)" -eq 0 ] || skip_all "numavm needs root"
	local t
	for t in qemu-system-x86_64 cpio jq; do
		command -v "$t" >/dev/null 2>&1 || skip_all "$t not installed (contrib/bootstrap installs it)"
	done
	ls /boot/vmlinuz-* >/dev/null 2>&1 || skip_all "no kernel in /boot (linux-image-amd64)"
	[ -x /bin/busybox ] && file -L /bin/busybox | grep -q 'statically linked' ||
		skip_all "no static busybox (busybox-static)"
	[ -r "$NP_BUILDDIR/plugin/.libs/numaplan.so" ] || [ -r /usr/local/lib/slurm/numaplan.so ] ||
		skip_all "no numaplan.so built"
}

# Temporary directories a test made for itself; one EXIT trap removes them.
CLEANUP=()
trap 'rm -rf "${CLEANUP[@]}"' EXIT

# ---- what the guest runs -------------------------------------------------------
# The guest's CPU is QEMU TCG's "-cpu max" (contrib/numavm), not the build
# host's.  No guest CPU model can be chosen to match the host: -cpu host
# needs KVM (nested KVM hangs on these machines), and QEMU 7.2's TCG
# emulates no AVX-512 at all, which this kind of build host has.  So it is
# the other way round: the guest runs only code built for the baseline
# x86-64.  numaplan, libnumaplan, numaplan.so and numaplan-probe are built
# with configure's CFLAGS (kernels/Makefile.am keeps KERNEL_CFLAGS off the
# probe).  numaplan-stream is a benchmark: the build tree's copy has
# KERNEL_CFLAGS (-O3 -march=native) and stays so, the benchmarks measure
# it; the tests build their own portable copy (portable_stream) and the
# guest runs only that one (collect-lib.sh).  guest_code_portable checks
# every one of these files before a boot.

# portable_stream: numaplan-stream configured with --enable-portable-kernels
# (-O3 -mtune=generic, no -march) in a side tree of its own, for the guest;
# exported as NP_NUMAVM_STREAM.  The side tree lives under the build tree
# (configured once, made again by make when a source changed), never in
# the source tree: with the build tree in the source directory it is a
# temporary directory, removed at exit.
portable_stream() {
	local side t0=$SECONDS rc
	if [ "$(cd "$NP_BUILDDIR" && pwd -P)" = "$(cd "$NP_SRCDIR" && pwd -P)" ]; then
		side=$(mktemp -d "${TMPDIR:-/tmp}/numavm-portable.XXXXXX") ||
			{ notok "numaplan-stream for the guest: cannot create a temporary directory"; return 1; }
		CLEANUP+=("$side")
	else
		side=$NP_BUILDDIR/numavm-portable
		mkdir -p "$side" || { notok "numaplan-stream for the guest: cannot create $side"; return 1; }
	fi
	(
		set -e
		cd "$side"
		if [ ! -f Makefile ] || [ "$NP_SRCDIR/configure" -nt config.status ]; then
			"$NP_SRCDIR/configure" --enable-portable-kernels CFLAGS="-O2 -g"
		fi
		make -C common libnpcommon.la && make -C sysread libnpsys.la && make -C lib libnumaplan-base.la && make -C kernels numaplan-stream
		test -x kernels/numaplan-stream
	) >"$side/numavm-build.log" 2>&1
	rc=$?
	chk "numaplan-stream for the guest: a portable build (--enable-portable-kernels) in $side" [ $rc -eq 0 ] ||
		{ diagm "$(tail -15 "$side/numavm-build.log")"; return 1; }
	diagm "portable numaplan-stream ready after $((SECONDS - t0))s"
	export NP_NUMAVM_STREAM=$side/kernels/numaplan-stream
}

# The programs the guest runs, found as collect-lib.sh finds them (the
# build tree's binary itself, not libtool's wrapper, else the one on
# PATH), their library, and the plugin numavm loads.
guest_files() {
	local f lib plugins=("$NP_BUILDDIR/plugin/.libs/numaplan.so" /usr/local/lib/slurm/numaplan.so)
	[ -n "${NP_PLUGIN:-}" ] && plugins=("$NP_PLUGIN")
	for f in kernels/numaplan-probe cli/numaplan; do
		if [ -f "$NP_BUILDDIR/${f%/*}/.libs/${f#*/}" ]; then echo "$NP_BUILDDIR/${f%/*}/.libs/${f#*/}"
		elif [ -f "$NP_BUILDDIR/$f" ]; then echo "$NP_BUILDDIR/$f"
		else command -v "${f#*/}"; fi
	done
	lib=
	for f in "$NP_BUILDDIR"/lib/.libs/libnumaplan.so.*.*; do [ -f "$f" ] && { lib=$f; break; }; done
	[ -n "$lib" ] || lib=$(ldd "$(command -v numaplan)" 2>/dev/null | awk '$1 ~ /^libnumaplan[.]so/ { print $3 }')
	[ -f "$lib" ] && readlink -f "$lib"
	for f in "${plugins[@]}"; do
		[ -f "$f" ] && { echo "$f"; break; }
	done
	[ -n "${NP_NUMAVM_STREAM:-}" ] && echo "$NP_NUMAVM_STREAM"
	return 0
}

# guest_code_portable: every compilation unit of every file the guest runs
# was built for a CPU that TCG's "max" has: no -march but x86-64 or
# x86-64-v2 (no AVX).  GCC records its options in DW_AT_producer (with -g;
# -march=native appears there as the host's model, e.g. cooperlake); a
# file without that record was built with the build tree's CFLAGS.
guest_code_portable() {
	local f m x bad='' cflags files=()
	mapfile -t files < <(guest_files)
	cflags=$(sed -n 's/^CFLAGS = //p' "$NP_BUILDDIR/Makefile" 2>/dev/null)
	for f in "${files[@]}"; do
		m=$(readelf --debug-dump=info --dwarf-depth=1 "$f" 2>/dev/null | grep DW_AT_producer | grep -o -- '-march=[^ ]*' | sort -u)
		[ -n "$m" ] || m=$(grep -o -- '-march=[^ ]*' <<<"$cflags")
		for x in $m; do
			case $x in -march=x86-64|-march=x86-64-v2) ;; *) bad="$bad ${f#"$NP_BUILDDIR"/}: $x;";; esac
		done
	done
	chk "what the guest runs (${#files[@]} files: numaplan, its library, the plugin, the probe, the stream) is built for any x86-64, not the host's CPU" \
		eval '[ ${#files[@]} -ge 4 ] && [ -z "$bad" ]' ||
		diagm "built for another CPU than TCG's -cpu max:${bad:- (files: ${files[*]})}"
}

# numavm_collect SHAPE SCRIPT [numavm options]: boot SHAPE, run SCRIPT in
# it, copy what it collected to $DATA; the VM is powered off afterwards.
DATA=
numavm_collect() {
	local shape=$1 script=$2 rc; shift 2
	if [ -n "${NP_NUMAVM_DATA:-}" ]; then
		# judging a collection again (working on the checks): no boot
		DATA=$NP_NUMAVM_DATA
		diagm "checking the collection in $DATA (NP_NUMAVM_DATA), no VM"
		load_shape "$shape"
		return
	fi
	guest_code_portable
	DATA=$(mktemp -d "${TMPDIR:-/tmp}/numavm-$shape.XXXXXX")
	# NP_NUMAVM_KEEP=1: keep the collection, to judge it again later
	# with NP_NUMAVM_DATA (working on the checks)
	if [ -n "${NP_NUMAVM_KEEP:-}" ]; then diagm "collection kept in $DATA"
	else CLEANUP+=("$DATA"); fi
	# a VM left up by hand is not this test's: start from a fresh boot
	"$NUMAVM" down >/dev/null 2>&1
	local t0=$SECONDS
	"$NUMAVM" run --shape "$shape" "$@" --collect "$DATA" --timeout "$NP_NUMAVM_TIMEOUT" "$script" \
		>"$DATA/run.out" 2>"$DATA/run.err"
	rc=$?
	diagm "numavm run --shape $shape: ${rc} after $((SECONDS - t0))s ($(grep -o 'up after [0-9]*s' "$DATA/run.err" | head -1))"
	if ! chk "numavm boots shape $shape and runs the collector in it (exit 0)" [ "$rc" -eq 0 ]; then
		diagm "$(tail -20 "$DATA/run.err")"
		diagm "$(tail -5 "$DATA/run.out")"
		# nothing else to judge without a collection
		[ -s "$DATA/facts" ] || { done_testing; exit 1; }
	fi
	# where the guest's time went: the slowest steps (guest clock)
	[ -s "$DATA/timing" ] && diagm "guest seconds by step: $(awk '{ printf "%s %.0f\n", $1, $3 - $2 }' "$DATA/timing" |
		sort -k2,2nr | head -8 | tr '\n' ' ')"
	load_shape "$shape"
}

# ---- lists -----------------------------------------------------------------
# expand "0-2,5" -> "0 1 2 5" (sorted, unique).  expand and fmt run
# thousands of times per test: plain bash, no pipeline of programs (a
# sparse array's indexes come out sorted)
expand() {
	local p lo hi i parts seen=()
	IFS=, read -r -a parts <<<"$1"
	for p in "${parts[@]}"; do
		if [[ $p =~ ^([0-9]+)-([0-9]+)$ ]]; then
			lo=${BASH_REMATCH[1]}; hi=${BASH_REMATCH[2]}
			for ((i = 10#$lo; i <= 10#$hi; i++)); do seen[i]=1; done
		elif [[ $p =~ ^[0-9]+$ ]]; then
			seen[10#$p]=1
		fi
	done
	echo "${!seen[*]}"
}
# fmt "0 1 2 5" -> "0-2,5"
fmt() {
	local x lo=-1 hi=-1 out='' seen=() all
	read -r -a all <<<"$*"
	for x in "${all[@]}"; do [[ $x =~ ^[0-9]+$ ]] && seen[10#$x]=1; done
	for x in "${!seen[@]}" end; do
		if [ "$x" != end ] && [ "$hi" -ge 0 ] && [ "$x" -eq $((hi + 1)) ]; then hi=$x; continue; fi
		if [ "$lo" -ge 0 ]; then
			out+=$lo; [ "$hi" -gt "$lo" ] && out+=-$hi; out+=,
		fi
		lo=$x; hi=$x
	done
	echo "${out%,}"
}
# subset A B (cpulists): every element of A is in B
subset() {
	local x b=" $(expand "$2") "
	for x in $(expand "$1"); do case $b in *" $x "*) ;; *) return 1;; esac; done
}

# ---- the shape ----------------------------------------------------------------
NNODES=0; NCPUS=0
declare -a NODE_CPUS NODE_SOCKET CPU_NODE SOCKET_CPUS L3_CPUS CPU_NODES MEM_NODES
declare -A DIST NIC_NODE
load_shape() {
	local w n c b
	while read -r -a w; do
		case ${w[0]:-} in
		cpus) NCPUS=${w[1]};;
		node)
			n=${w[1]}; NNODES=$((n + 1))
			NODE_SOCKET[n]=${w[3]}
			if [ "${w[5]}" = - ]; then NODE_CPUS[n]=; MEM_NODES+=("$n")
			else NODE_CPUS[n]=$(expand "${w[5]}"); CPU_NODES+=("$n")
				for c in ${NODE_CPUS[n]}; do CPU_NODE[c]=$n; done
			fi;;
		socket) SOCKET_CPUS[${w[1]}]=$(expand "${w[3]}");;
		l3) L3_CPUS[${w[1]}]=$(expand "${w[3]}");;
		slit) for ((b = 0; b < ${#w[@]} - 2; b++)); do DIST["${w[1]} $b"]=${w[b + 2]}; done;;
		nic) NIC_NODE[${w[1]}]=${w[3]};;
		esac
	done < <("$NUMAVM" shape "$1")
}

# nodes_of "cpu..." -> the NUMA nodes of those CPUs, as the shape places them
nodes_of() {
	local c out=()
	for c in $1; do out+=("${CPU_NODE[c]}"); done
	fmt "${out[*]}"
}

# ---- the reference model: EXP[r] = the CPUs rank r should get ----------------
declare -a EXP
# compact: slots in topology order (the vCPUs are numbered node by node)
model_compact() {
	local r
	EXP=()
	for ((r = 0; r < $1; r++)); do EXP[r]=$r; done
}
# spread (numaplan(1), POLICIES, spread): top down.  The ranks are shared
# out over the packages, each package's share over its nodes with CPUs,
# each node's share over its L3 domains, each time as evenly as the room
# allows: every domain gets the same share up to what it holds, and the r
# ranks left over go to r evenly spaced domains of the m that still have
# room (the i-th to the floor(i*m/r)-th: 2 of 4 nodes are 0 and 2).  Rank
# order is round robin at every level: rank 0 to the first package, rank 1
# to the second, ..., a package's successive ranks to its successive
# nodes, a node's to its successive L3 domains; in an L3 domain a rank
# takes the first free core.  (Every core is free: the steps run in an
# exclusive allocation of the whole node; one core per rank.)
declare -A SP_SHARE SP_CAP SP_KIDS
# sp_sum LEVEL KEY...: the ranks domains KEY... take when each takes up to
# LEVEL (and no more than its room SP_CAP[KEY])
sp_sum() {
	local level=$1 k c t=0; shift
	for k in "$@"; do c=${SP_CAP[$k]}; t=$((t + (c < level ? c : level))); done
	echo "$t"
}
# sp_share TOTAL KEY...: SP_SHARE[KEY] for domains of room SP_CAP[KEY]
sp_share() {
	local total=$1 k c q=0 r m i pick roomy=(); shift
	# the largest even level q that fits, then the rest spaced out
	while [ "$(sp_sum $((q + 1)) "$@")" -le "$total" ] && [ "$(sp_sum $((q + 1)) "$@")" -gt "$(sp_sum "$q" "$@")" ]; do
		q=$((q + 1))
	done
	r=$((total - $(sp_sum "$q" "$@")))
	for k in "$@"; do
		c=${SP_CAP[$k]}
		SP_SHARE[$k]=$((c < q ? c : q))
		[ "$c" -gt "$q" ] && roomy+=("$k")
	done
	m=${#roomy[@]}
	for ((i = 0; i < r && m > 0; i++)); do
		pick=${roomy[i * m / r]}
		c=${SP_SHARE[$pick]}; SP_SHARE[$pick]=$((c + 1))
	done
}
model_spread() {
	local n=$1 s x l r k key pick c cur0 cpu pcap ncap kids=() nodes=() order=() cpus=()
	local -A left cur used
	SP_SHARE=(); SP_CAP=(); SP_KIDS=()
	# the tree: root -> packages -> nodes with CPUs -> their L3 domains
	for s in "${!SOCKET_CPUS[@]}"; do
		SP_KIDS[root]="${SP_KIDS[root]:-} p$s"; pcap=0
		for x in "${CPU_NODES[@]}"; do
			[ "${NODE_SOCKET[x]}" = "$s" ] || continue
			SP_KIDS[p$s]="${SP_KIDS[p$s]:-} n$x"; ncap=0
			for l in "${!L3_CPUS[@]}"; do
				subset "$(fmt "${L3_CPUS[l]}")" "$(fmt "${NODE_CPUS[x]}")" || continue
				read -r -a cpus <<<"${L3_CPUS[l]}"
				SP_KIDS[n$x]="${SP_KIDS[n$x]:-} l$l"; SP_CAP[l$l]=${#cpus[@]}
				ncap=$((ncap + ${#cpus[@]}))
			done
			SP_CAP[n$x]=$ncap; pcap=$((pcap + ncap))
		done
		SP_CAP[p$s]=$pcap
	done
	# shares level by level: the root's, each package's, each node's
	SP_SHARE[root]=$n
	read -r -a kids <<<"${SP_KIDS[root]}"
	order=(root "${kids[@]}")
	for key in "${kids[@]}"; do read -r -a nodes <<<"${SP_KIDS[$key]}"; order+=("${nodes[@]}"); done
	for key in "${order[@]}"; do
		read -r -a kids <<<"${SP_KIDS[$key]}"
		sp_share "${SP_SHARE[$key]}" "${kids[@]}"
	done
	for key in "${!SP_SHARE[@]}"; do left[$key]=${SP_SHARE[$key]}; done
	EXP=()
	for ((r = 0; r < n; r++)); do
		key=root
		while [ "${key:0:1}" != l ]; do
			read -r -a kids <<<"${SP_KIDS[$key]}"
			cur0=${cur[$key]:-0}
			for ((k = 0; k < ${#kids[@]}; k++)); do
				pick=${kids[(cur0 + k) % ${#kids[@]}]}
				[ "${left[$pick]}" -gt 0 ] && break
			done
			cur[$key]=$(( (cur0 + k + 1) % ${#kids[@]} ))
			c=${left[$pick]}; left[$pick]=$((c - 1))
			key=$pick
		done
		read -r -a cpus <<<"${L3_CPUS[${key#l}]}"
		for cpu in "${cpus[@]}"; do
			[ -z "${used[$cpu]:-}" ] && { EXP[r]=$cpu; used[$cpu]=1; break; }
		done
	done
}
# numa / socket / l3 over equal domains (numaplan(1): "one rank per domain
# ... with fewer ranks than domains each rank gets a contiguous block of
# domains; with more, ... each domain's cores are split in equal contiguous
# parts"): only counts that divide evenly, where the rule leaves no choice.
model_domains() {
	local n=$1 r k j per part; shift
	local doms=("$@") d=$# cpus
	EXP=()
	if [ "$n" -le "$d" ]; then
		[ $((d % n)) -eq 0 ] || { diagm "model: $n ranks on $d domains is not modelled"; return 1; }
		for ((r = 0; r < n; r++)); do
			EXP[r]=
			for ((k = r * d / n; k < (r + 1) * d / n; k++)); do EXP[r]="${EXP[r]} ${doms[k]}"; done
			EXP[r]=${EXP[r]# }
		done
	else
		[ $((n % d)) -eq 0 ] || { diagm "model: $n ranks on $d domains is not modelled"; return 1; }
		per=$((n / d))
		for ((k = 0; k < d; k++)); do
			read -r -a cpus <<<"${doms[k]}"
			part=$((${#cpus[@]} / per))
			for ((j = 0; j < per; j++)); do EXP[k * per + j]="${cpus[*]:j * part:part}"; done
		done
	fi
}
model_numa() { local d=() x; for x in "${CPU_NODES[@]}"; do d+=("${NODE_CPUS[x]}"); done; model_domains "$1" "${d[@]}"; }
model_socket() { model_domains "$1" "${SOCKET_CPUS[@]}"; }
model_l3() { model_domains "$1" "${L3_CPUS[@]}"; }
# hca-near, one adapter on node H: the nodes from H outwards (SLIT distance,
# then H's own socket, then the lower node number), each filled in turn.
# H "root": an adapter at the machine root is local to every CPU, every
# node is as near as any other: the lower node number first.
hca_order() {
	local h=$1 x
	for x in "${CPU_NODES[@]}"; do
		if [ "$h" = root ]; then echo "0 0 $x"; continue; fi
		echo "${DIST["$h $x"]} $([ "${NODE_SOCKET[x]}" = "${NODE_SOCKET[h]}" ] && echo 0 || echo 1) $x"
	done | sort -n -k1,1 -k2,2 -k3,3 | awk '{print $3}'
}
model_hca() {
	local n=$1 h=$2 r=0 x c
	EXP=()
	for x in $(hca_order "$h"); do
		for c in ${NODE_CPUS[x]}; do
			[ $r -lt "$n" ] || return 0
			EXP[r]=$c; r=$((r + 1))
		done
	done
}

# ---- a collected step ---------------------------------------------------------
# load NAME: RC, OUT, ERR of step NAME; for probe steps GOT_*[rank]
declare -a GOT_CPUS GOT_POL GOT_MEMS GOT_PAGES GOT_ENVCPUS GOT_ENVMEMS GOT_UNKNOWN GOT_HCA GOT_UCX
# (GOT_HCA and GOT_UCX are read by the .t scripts only)
# shellcheck disable=SC2034
load() {
	local r c p m pg ec em u h x
	RC=$(cat "$DATA/$1.rc" 2>/dev/null || echo missing)
	OUT=$(cat "$DATA/$1.out" 2>/dev/null)
	ERR=$(cat "$DATA/$1.err" 2>/dev/null)
	GOT_CPUS=(); GOT_POL=(); GOT_MEMS=(); GOT_PAGES=(); GOT_ENVCPUS=(); GOT_ENVMEMS=(); GOT_UNKNOWN=(); GOT_HCA=(); GOT_UCX=()
	while IFS='|' read -r r c p m pg ec em u h x; do
		[ -n "$r" ] || continue
		# lists normalised: a formatting difference is not a placement one
		GOT_CPUS[r]=$(expand "$c"); GOT_POL[r]=$p; GOT_MEMS[r]=$(fmt "$(expand "$m")"); GOT_PAGES[r]=$pg
		GOT_ENVCPUS[r]=$(fmt "$(expand "$ec")"); GOT_ENVMEMS[r]=$(fmt "$(expand "$em")")
		GOT_UNKNOWN[r]=$u; GOT_HCA[r]=$h; GOT_UCX[r]=$x
	done < <(grep '^{' <<<"$OUT" | jq -r '[.rank, .cpus, .mempolicy, .mems,
		((.pages // {}) | to_entries | map("\(.key):\(.value)") | join(" ")),
		(.env.NUMAPLAN_CPUS // ""), (.env.NUMAPLAN_MEMS // ""), (.pages_unknown // 0),
		(.env.NUMAPLAN_HCA // ""), (.env.UCX_NET_DEVICES // "")] | map(tostring) | join("|")' 2>/dev/null)
}

pages_nodes() { local e out=(); for e in ${GOT_PAGES[$1]:-}; do out+=("${e%%:*}"); done; fmt "${out[*]}"; }
pages_on() { local e; for e in ${GOT_PAGES[$1]:-}; do [ "${e%%:*}" = "$2" ] && { echo "${e#*:}"; return; }; done; echo 0; }

# check_plan LABEL STEP N MODE: step STEP (N tasks) against EXP[]: each
# task's affinity and memory policy, the plugin's own record of its plan,
# and (with --touch) where the pages went.  MODE: bind | interleave.
check_plan() {
	local label=$1 step=$2 n=$3 mode=$4 r bad want node total k
	load "$step"
	chk "$label: srun exits 0 with $n probe lines" eval '[ "$RC" = 0 ] && [ ${#GOT_CPUS[@]} -eq '"$n"' ]' ||
		diagm "rc=$RC $(head -c 600 <<<"$ERR")"
	bad=
	for ((r = 0; r < n; r++)); do
		[ "${GOT_CPUS[r]:-}" = "$(expand "$(fmt "${EXP[r]:-}")")" ] ||
			bad="$bad rank $r: cpus $(fmt "${GOT_CPUS[r]:-}") want $(fmt "${EXP[r]:-}");"
	done
	chk "$label: each task's CPU affinity is the shape's plan" [ -z "$bad" ] || diagm "$bad"
	bad=
	for ((r = 0; r < n; r++)); do
		[ "${GOT_ENVCPUS[r]:-x}" = "$(fmt "${GOT_CPUS[r]:-}")" ] && [ "${GOT_ENVMEMS[r]:-x}" = "${GOT_MEMS[r]:-y}" ] ||
			bad="$bad rank $r: NUMAPLAN_CPUS ${GOT_ENVCPUS[r]:-} NUMAPLAN_MEMS ${GOT_ENVMEMS[r]:-};"
	done
	chk "$label: affinity and policy nodes are what the plugin exported (NUMAPLAN_CPUS/MEMS)" [ -z "$bad" ] || diagm "$bad"
	bad=
	for ((r = 0; r < n; r++)); do
		want=$(nodes_of "${EXP[r]:-}")
		[ "${GOT_POL[r]:-}" = "$mode" ] && [ "${GOT_MEMS[r]:-}" = "$want" ] ||
			bad="$bad rank $r: ${GOT_POL[r]:-?} ${GOT_MEMS[r]:-} want $mode $want;"
	done
	chk "$label: get_mempolicy says $mode on the NUMA nodes of the rank's CPUs" [ -z "$bad" ] || diagm "$bad"
	[ -n "${GOT_PAGES[0]:-}" ] || return 0
	bad=
	for ((r = 0; r < n; r++)); do
		want=$(nodes_of "${EXP[r]:-}")
		[ -n "$(pages_nodes "$r")" ] && subset "$(pages_nodes "$r")" "$want" && [ "${GOT_UNKNOWN[r]:-1}" = 0 ] ||
			bad="$bad rank $r: pages ${GOT_PAGES[r]:-none} (unknown ${GOT_UNKNOWN[r]:-?}) want on $want;"
	done
	chk "$label: every touched page is on a planned node (move_pages)" [ -z "$bad" ] || diagm "$bad"
	[ "$mode" = interleave ] || return 0
	bad=
	for ((r = 0; r < n; r++)); do
		total=0; k=0
		for node in $(expand "$(nodes_of "${EXP[r]:-}")"); do total=$((total + $(pages_on "$r" "$node"))); k=$((k + 1)); done
		for node in $(expand "$(nodes_of "${EXP[r]:-}")"); do
			# an even share is total/k pages; ask for at least half of it
			[ $(( $(pages_on "$r" "$node") * 2 * k )) -ge "$total" ] ||
				bad="$bad rank $r: node $node has $(pages_on "$r" "$node") of $total pages;"
		done
	done
	chk "$label: interleave spreads the touched pages over every planned node" [ -z "$bad" ] || diagm "$bad"
}

# check_maps LABEL STEP N MODE: each task's heap line of /proc/PID/numa_maps
# (collect-lib.sh maps) names the policy and nodes of EXP[r], and its pages
# are on those nodes (on several of them when interleaved).
check_maps() {
	local label=$1 step=$2 n=$3 mode=$4 r line pol nodes want cpus bad='' badc=''
	load "$step"
	for ((r = 0; r < n; r++)); do
		line=$(grep "^rank=$r " <<<"$OUT")
		cpus=$(tr ' ' '\n' <<<"$line" | sed -n 's/^cpus=//p')
		[ "$(expand "$cpus")" = "$(expand "$(fmt "${EXP[r]:-}")")" ] ||
			badc="$badc rank $r: Cpus_allowed_list '$cpus' want $(fmt "${EXP[r]:-}");"
		pol=$(tr ' ' '\n' <<<"$line" | grep -E '^(bind|interleave|default|prefer|local)' | head -1)
		nodes=$(fmt "$(tr ' ' '\n' <<<"$line" | sed -n 's/^N\([0-9]*\)=.*/\1/p' | tr '\n' ' ')")
		want=$(nodes_of "${EXP[r]:-}")
		if [ "$pol" != "$mode:$want" ] || [ -z "$nodes" ] || ! subset "$nodes" "$want" ||
		   { [ "$mode" = interleave ] && [ "$(expand "$nodes" | wc -w)" -lt 2 ]; }; then
			bad="$bad rank $r: '${line:-no line}' want $mode:$want;"
		fi
	done
	chk "$label: /proc/PID/status of a task (bash, not the probe) has the plan's CPUs" \
		eval '[ "$RC" = 0 ] && [ -z "$badc" ]' || diagm "rc=$RC$badc"
	chk "$label: /proc/PID/numa_maps shows $mode on the rank's nodes, heap pages there" \
		eval '[ "$RC" = 0 ] && [ -z "$bad" ]' || diagm "rc=$RC$bad"
}

# ---- the machine as the guest saw it (collect_facts) ------------------------
fact() { awk -v a="$1" -v b="$2" -v c="$3" '$1 == a && $2 == b && $3 == c { $1 = $2 = $3 = ""; sub(/^ +/, ""); print }' "$DATA/facts"; }

check_guest_is_shape() {
	local n c bad='' want l
	for ((n = 0; n < NNODES; n++)); do
		[ "$(fact node "$n" cpulist)" = "$(fmt "${NODE_CPUS[n]}")" ] || bad="$bad node $n cpus '$(fact node "$n" cpulist)';"
		[ "$(fact node "$n" memtotal_kb)" -gt 0 ] 2>/dev/null || bad="$bad node $n has no memory;"
	done
	[ "$(grep -c ' cpulist ' "$DATA/facts")" -eq "$NNODES" ] || bad="$bad $(grep -c ' cpulist ' "$DATA/facts") nodes;"
	chk "the guest kernel has the shape's $NNODES NUMA nodes, with their CPUs and memory" [ -z "$bad" ] || diagm "$bad"
	bad=
	for ((n = 0; n < NNODES; n++)); do
		want=; for ((c = 0; c < NNODES; c++)); do want="$want ${DIST["$n $c"]}"; done
		[ "$(fact node "$n" distance)" = "${want# }" ] || bad="$bad node $n: '$(fact node "$n" distance)' want '${want# }';"
	done
	chk "the guest kernel's SLIT is the shape's" [ -z "$bad" ] || diagm "$bad"
	bad=
	for ((c = 0; c < NCPUS; c++)); do
		[ "$(fact cpu "$c" package)" = "${NODE_SOCKET[${CPU_NODE[c]}]}" ] || bad="$bad cpu $c package $(fact cpu "$c" package);"
		for l in "${!L3_CPUS[@]}"; do
			case " ${L3_CPUS[l]} " in *" $c "*)
				[ "$(fact cpu "$c" l3)" = "$(fmt "${L3_CPUS[l]}")" ] || bad="$bad cpu $c L3 $(fact cpu "$c" l3);";;
			esac
		done
	done
	[ "$(grep -c ' package ' "$DATA/facts")" -eq "$NCPUS" ] || bad="$bad $(grep -c ' package ' "$DATA/facts") CPUs;"
	chk "the guest kernel's $NCPUS CPUs are in the shape's packages and L3 domains" [ -z "$bad" ] || diagm "$bad"
	for n in "${!NIC_NODE[@]}"; do
		chk "$n, behind a pxb-pcie bridge, is on NUMA node ${NIC_NODE[$n]} for the guest kernel" \
			[ "$(fact net "$n" numa_node)" = "${NIC_NODE[$n]}" ]
	done
}

# Slurm in the guest: the node as slurmd found it, the task plugins, and
# numaplan.so loaded without a topology file (live discovery).
check_guest_slurm() {
	local node tp nsock=${#SOCKET_CPUS[@]}
	node=$(cat "$DATA/scontrol_node.out")
	chk "Slurm in the guest: one node, $NCPUS CPUs in $nsock sockets, idle (slurmd's live view)" eval \
		'grep -q "CPUTot=$NCPUS " <<<"$node" && grep -q "Sockets=$nsock " <<<"$node" && grep -q "State=IDLE" <<<"$node"' ||
		diagm "$node"
	tp=$(sed -n 's/^TaskPlugin *= *//p' "$DATA/scontrol_config.out")
	chk "Slurm in the guest runs task/cgroup and task/affinity ($tp)" \
		eval 'grep -q task/cgroup <<<"$tp" && grep -q task/affinity <<<"$tp"'
	chk "the guest's plugstack.conf loads numaplan.so with no topology= (live discovery)" eval \
		'grep -Eq "^(optional|required) +/[^ ]*numaplan[.]so" "$DATA/plugstack.conf" && ! grep -v "^#" "$DATA/plugstack.conf" | grep -q "topology="' ||
		diagm "$(cat "$DATA/plugstack.conf")"
}

# numaplan topo --json, run live in the guest, against the shape.
check_topo_live() {
	local j bad='' n k got want
	j=$(cat "$DATA/topo.out")
	got=$(jq -r '"\(.source) \(.packages|length) \(.numa|length) \(.l3|length) \(.ncores)"' <<<"$j" 2>&1)
	want="live ${#SOCKET_CPUS[@]} $NNODES ${#L3_CPUS[@]} $NCPUS"
	chk "numaplan topo, live in the guest: ${#SOCKET_CPUS[@]} packages, $NNODES NUMA nodes, ${#L3_CPUS[@]} L3, $NCPUS cores" \
		[ "$got" = "$want" ] || diagm "got '$got' $(head -c 300 "$DATA/topo.err")"
	for ((n = 0; n < NNODES; n++)); do
		got=$(jq -r --argjson n "$n" '.numa[] | select(.os_index == $n) | "\(.ncores) \(.package)"' <<<"$j")
		want="$(wc -w <<<"${NODE_CPUS[n]}") ${NODE_SOCKET[n]}"
		case $want in *' -') want="0 *";; esac
		# shellcheck disable=SC2254
		case $got in $want) ;; *) bad="$bad node $n: '$got' want '$want';";; esac
	done
	chk "numaplan topo: each node's core count and package (no cores on memory-only nodes)" [ -z "$bad" ] || diagm "$bad"
	bad=
	for ((n = 0; n < NNODES; n++)); do
		for ((k = 0; k < NNODES; k++)); do
			got=$(jq -r --argjson a "$n" --argjson b "$k" '
				(.numa | map(.os_index) | index($a)) as $i | (.numa | map(.os_index) | index($b)) as $j |
				.distances[$i][$j]' <<<"$j" 2>&1)
			[ "$got" = "${DIST["$n $k"]}" ] || bad="$bad $n-$k: $got;"
		done
	done
	chk "numaplan topo: the SLIT it read live is the shape's" [ -z "$bad" ] || diagm "$bad"
}

# check_stream LABEL STEP N: numaplan-stream --json of each rank (two
# threads): it validated, and its placement says the right rank and host,
# and for each thread CPUs inside the rank's plan with their shape's nodes.
check_stream() {
	local label=$1 step=$2 n=$3 r f bad='' rank host thread cpus numa
	load "$step"
	chk "$label: srun exits 0" [ "$RC" = 0 ] || diagm "$(head -c 400 <<<"$ERR")"
	for ((r = 0; r < n; r++)); do
		f=$DATA/$step.$r.json
		jq -e '.validated == true and (.placement | length) == 2' "$f" >/dev/null 2>&1 ||
			{ bad="$bad rank $r: $(head -c 200 "$f" 2>&1);"; continue; }
		while IFS='|' read -r rank host thread cpus numa; do
			[ "$rank" = "$r" ] && [ "$host" = numavm ] || bad="$bad rank $r thread $thread: says rank $rank host $host;"
			subset "$cpus" "$(fmt "${EXP[r]}")" || bad="$bad rank $r thread $thread: cpus $cpus outside $(fmt "${EXP[r]}");"
			[ "$numa" = "$(nodes_of "$(expand "$cpus")")" ] || bad="$bad rank $r thread $thread: numa $numa for cpus $cpus;"
		done < <(jq -r '.placement[] | [.rank, .host, .thread, .cpus, .numa] | map(tostring) | join("|")' "$f")
	done
	chk "$label: validated; each thread's rank, host, cpus and numa as the shape's plan says" [ -z "$bad" ] || diagm "$bad"
}
