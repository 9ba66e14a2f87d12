#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The plugin's Slurm-independent parts (site arguments, --numa-plan values,
# precedence, step CPUs, the topology cache) and its callback sequence
# (sequence.c: srun's checks, then a step's decide, load, plan, bind and
# export in this process) through numaplan-spank-harness, the same code
# numaplan.so runs, with the harness as Slurm; and the same under
# valgrind.  No vcluster needed.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"

[ -x "$HARNESS" ] || skip_all "numaplan-spank-harness not built"
H=$HARNESS
tmp=$(root_tmpdir harness) || exit 1; trap 'rm -rf "$tmp"' EXIT
cmdline() { printf '%s\0' "$@" >"$tmp/cmdline"; }

# ---- plugstack.conf arguments
run $H site default=compact allow=compact,spread on_error=fail verbose respect_cpu_bind=no
check "site arguments parse" [ "$RC" -eq 0 ]
check "site: default shown" grep -q 'default policy *: compact' <<<"$OUT"
check "site: allowed list shown" grep -q 'ask for: compact, spread' <<<"$OUT"
for bad in bogus=1 default=fastest allow=compact,nope on_error=maybe respect_cpu_bind=perhaps \
	   topology=relative/path.xml cache=relative/dir cache= cache=/x/../etc enforce \
	   "default=spread allow=compact"; do
	# shellcheck disable=SC2086
	run $H site $bad
	check "site '$bad' refused with a message naming it" \
		eval '[ "$RC" -ne 0 ] && grep -q "plugstack.conf:" <<<"$ERR"'
done
run $H site cache=/var/cache/np
check "site: cache= directory shown" grep -q 'topology *: live discovery, cached in /var/cache/np$' <<<"$OUT"
run $H site
check "site: cached in /run/numaplan by default" grep -q 'cached in /run/numaplan$' <<<"$OUT"
run $H site cache=none
check "site: cache=none shown" grep -q 'topology *: live discovery (not cached)$' <<<"$OUT"
run $H site topology=/x/%n.xml cache=/var/cache/np
check "site: topology= makes the cache moot" grep -q 'topology *: /x/%n.xml$' <<<"$OUT"
run $H site enforce
check "enforce without default= explains why" grep -q "needs default=" <<<"$ERR"
# an argument given twice is refused, naming both (not: the last one wins)
for dup in "on_error=fail on_error=warn" "default=compact default=spread" "verbose verbose" \
	   "allow=compact allow=spread" "cache=/a cache=none" "topology=/a.xml topology=/b.xml" \
	   "respect_cpu_bind=no respect_cpu_bind=yes" "default=compact enforce enforce"; do
	# shellcheck disable=SC2086
	run $H site $dup
	read -r -a w <<<"$dup"; first=${w[-2]}; last=${w[-1]}
	check "site '$dup' refused: given twice, both named" \
		eval '[ "$RC" -ne 0 ] && grep -qF "plugstack.conf: '"'${last%%=*}'"' is given twice ('"'$first'"', then '"'$last'"')" <<<"$ERR"'
done

# ---- --numa-plan values
# the memory mode has one name, the kernel's (bind); its older name is read
run $H request compact,mem=local
check "mem=local is read as mem=bind" grep -qx 'policy=compact verbose=0 threads=0 mem=bind hca= help=0 from_user=1' <<<"$OUT"
run $H request compact
check "the default memory mode is bind" grep -q ' mem=bind ' <<<"$OUT"
run $H request hca-near,verbose,mem=interleave,hca=mlx5_0+mlx5_1:2,threads
check "full value parses" [ "$RC" -eq 0 ]
check "modifiers understood" \
	grep -qx 'policy=hca-near verbose=1 threads=1 mem=interleave hca=mlx5_0,mlx5_1:2 help=0 from_user=1' <<<"$OUT"
# a memory kind: alone it binds (mem=hbm), or after a mode (interleave:cxl)
run $H request numa,mem=hbm
check "mem=hbm: bind to the HBM nodes" \
	grep -qx 'policy=numa verbose=0 threads=0 mem=bind hca= help=0 from_user=1 mem_kind=HBM' <<<"$OUT"
run $H request socket,mem=interleave:cxl
check "mem=interleave:cxl: interleave over the CXL nodes" \
	grep -qx 'policy=socket verbose=0 threads=0 mem=interleave hca= help=0 from_user=1 mem_kind=CXL' <<<"$OUT"
run $H request numa,mem=DDR
check "mem=DDR (case ignored): DRAM" grep -q ' mem=bind .* mem_kind=DRAM$' <<<"$OUT"
for bad in numa,mem=none:hbm numa,mem=bind:fast numa,mem=hbm:bind numa,mem=interleave:; do
	run $H request "$bad"
	check "value '$bad' refused, naming the word" \
		eval '[ "$RC" -ne 0 ] && grep -qF "unknown memory mode or kind" <<<"$ERR" && grep -qF "${bad#numa,}" <<<"$ERR"'
done
run $H request compact,hca=mlx5_0
check "hca= with another policy is refused, naming it" \
	eval '[ "$RC" -ne 0 ] && grep -q "refused: the adapter list .mlx5_0. applies only to the policies hca-near and gpu-near, not to the policy .compact." <<<"$ERR"'
for bad in bogus compact,spread compact,mem=fast 'compact,hca=a;b' compact,,verbose '' \
	   compact,hca= "$(printf 'x%.0s' {1..300})"; do
	run $H request "$bad"
	check "value '${bad:0:20}' refused" [ "$RC" -ne 0 ]
done
# a modifier given twice is refused, not decided by its last occurrence
for v in compact,mem=none,mem=local hca-near,hca=mlx5_0,hca=mlx5_1 compact,verbose,verbose \
	 compact,threads,verbose,threads help,help; do
	run $H request "$v"
	mod=$(tr ',' '\n' <<<"$v" | sed 's/=.*/=/' | sort | uniq -d)
	check "value '$v' refused: '$mod' given twice" \
		eval '[ "$RC" -ne 0 ] && grep -qF "invalid --numa-plan value '"'$v'"': the modifier '"'$mod'"' is given twice" <<<"$ERR"'
done
run $H request hca-near,hca=
check "hca= with nothing says it is empty" \
	eval '[ "$RC" -ne 0 ] && grep -qF "'"'hca='"' is empty" <<<"$ERR" && ! grep -q "no HCA" <<<"$ERR"'
run $H request hca-near,hca=mlx5_0+
check "hca=NAME+ says a name is empty" grep -q "an empty name in the HCA list" <<<"$ERR"
# control characters in a message are escaped: one line, no raw escape byte
run $H request $'compact\nerror: forged line\e[31m'
check "a newline in the value cannot make a second message line" \
	eval '[ "$RC" -ne 0 ] && [ "$(wc -l <<<"$ERR")" -eq 1 ] && ! grep -q "^error: forged" <<<"$ERR"'
check "the newline and ESC are shown as \\n and \\x1b" \
	grep -qF "invalid --numa-plan value 'compact\\nerror: forged line\\x1b[31m'" <<<"$ERR"
run $H bind $'hca-near,hca=\x01' 1 0
check "a control byte is escaped on the bind path too" \
	eval '[ "$RC" -ne 0 ] && grep -qF "hca-near,hca=\\x01" <<<"$ERR"'

run $H request bogus
check "bad value: message names the value" grep -q "invalid --numa-plan value 'bogus'" <<<"$ERR"
check "bad value: message lists the policies" grep -q "none, compact, spread, numa, socket, l3, hca-near" <<<"$ERR"
check "bad value: message lists the modifiers" grep -q "mem=bind|interleave|none" <<<"$ERR"

# ---- site policy and precedence (enforce > user > default)
run $H request spread default=compact allow=compact,none
check "disallowed policy refused" eval '[ "$RC" -ne 0 ] && grep -q "valid: none, compact" <<<"$ERR"'
run $H request verbose default=compact
check "modifiers only: the default policy" grep -q '^policy=compact verbose=1' <<<"$OUT"
run $H request spread default=compact
check "user option beats default" grep -q '^policy=spread .* from_user=1' <<<"$OUT"
run $H request none default=compact
check "user may opt out with none when allowed" grep -q '^policy=none' <<<"$OUT"
run $H request none default=compact allow=compact
check "none refused when not in allow=" [ "$RC" -ne 0 ]
run $H request spread default=hca-near enforce
check "enforce refuses another policy" eval '[ "$RC" -ne 0 ] && grep -q "enforces the policy .hca-near." <<<"$ERR"'
run $H request none default=hca-near enforce
check "enforce refuses none" [ "$RC" -ne 0 ]
run $H request hca-near,mem=none default=hca-near enforce
check "enforce refuses modifiers that change the plan" [ "$RC" -ne 0 ]
run $H request hca-near,verbose default=hca-near enforce
check "enforce accepts its own policy with verbose" grep -q '^policy=hca-near verbose=1' <<<"$OUT"

run $H help default=compact enforce
check "help lists policies and the site's settings" \
	eval 'grep -q "hca-near" <<<"$OUT" && grep -q "enforced *: yes" <<<"$OUT" && grep -q "default policy *: compact" <<<"$OUT"'

# ---- srun's own --cpu-bind: the option words of a command line, not the
# program's arguments, not SLURM_CPU_BIND (Slurm's variable, which every task
# inherits and a nested srun would take for the option)
while IFS='|' read -r want argc words; do
	# shellcheck disable=SC2086
	cmdline $words
	run $H cpubind "$tmp/cmdline" "$argc"
	check "cpubind: '$words' (command: last $argc): --cpu-bind $want" [ "$OUT" = "$want" ]
done <<'EOF'
given|1|srun -n2 --cpu-bind=map_cpu:1,0 ./app
given|2|srun -n2 --cpu-bind map_cpu:1,0 ./app x
given|1|srun --cpu_bind=cores ./app
given|1|srun --cpu-b=none ./app
given|1|srun --cpu_=none ./app
given|1|srun -N1 --cpu-bind=verbose --numa-plan=compact ./app
not given|2|srun -n2 ./app --cpu-bind=map_cpu:1
not given|1|srun -n2 --cpu-freq=high --cpus-per-task=1 ./app
not given|2|srun -n2 --numa-plan=compact ./app --cpu-bind=none
not given|1|srun --cpu=1 ./app
not given|2|srun -- --cpu-bind=x ./app
not given|0|srun
EOF
run $H cpubind "$tmp/no-such-file" 1
check "cpubind: an unreadable command line is an error, not a guess" eval '[ "$RC" -ne 0 ] && [ -z "$OUT" ]'

# ---- step CPUs from a fake cgroup tree (v1 and v2)
mkdir -p "$tmp/cg/cpuset/slurm/uid_0/job_1/step_0" "$tmp/cg2/slurm/job_1/step_0"
allcpus=$(hwloc-calc --physical-output --intersect pu all)
first=$(machine_pus | awk '{print $1}')
echo "$first" >"$tmp/cg/cpuset/slurm/uid_0/job_1/step_0/cpuset.effective_cpus"
printf '12:freezer:/x\n11:cpuset:/slurm/uid_0/job_1/step_0\n' >"$tmp/proc1"
run $H stepcpus "$tmp/proc1" "$tmp/cg"
check "v1 step cpuset found and intersected with affinity" [ "$OUT" = "$first cgroup" ]
echo "$first" >"$tmp/cg2/slurm/job_1/step_0/cpuset.cpus.effective"
printf '0::/slurm/job_1/step_0\n' >"$tmp/proc2"
run $H stepcpus "$tmp/proc2" "$tmp/cg2"
check "v2 step cpuset found" [ "$OUT" = "$first cgroup" ]
printf '11:cpuset:/\n' >"$tmp/proc3"
run $H stepcpus "$tmp/proc3" "$tmp/none"
aff=$(hwloc-calc --physical-output --intersect pu "$(hwloc-bind --get)")
check "no cgroup file: the affinity" eval '[ "$(cpus_of "${OUT% *}")" = "${aff//,/ }" ] && [ "${OUT#* }" = affinity ]'

# ---- plan and bind this process (live topology)
npus=$(machine_pus | wc -w)
run $H bind compact,verbose "$npus" $((npus - 1))
last=$(machine_pus | awk '{print $NF}')
check "bind: last local task gets the last PU under compact" grep -q "^NUMAPLAN_CPUS=$last\$" <<<"$OUT"
check "bind: memory bound to the PU's NUMA node" grep -q "^NUMAPLAN_MEMS=$(numa_of_pu "$last")\$" <<<"$OUT"
check "bind: verbose line" grep -q "^numaplan: harness task $((npus - 1)) (rank $((npus - 1))): cpus $last mems" <<<"$OUT"
# a cyclic layout over 2 nodes: this node's tasks are ranks 1 and 3
run $H bind compact,verbose 2:1,3 1
check "bind: explicit global ranks (cyclic): local task 1 is rank 3" \
	grep -q "^numaplan: harness task 1 (rank 3): cpus ${last} " <<<"$OUT"
run $H bind compact 2:1 1
check "bind: fewer ranks than tasks refused" [ "$RC" -ne 0 ]

# ---- the plugin's own callback sequence (sequence.c) with Slurm's answers
# given on the command line: the step's cores, its cgroup, srun's command
# line, cpus per task
bound_cpus() { cpus_of "$(sed -n 's/^NUMAPLAN_CPUS=//p' <<<"$OUT")"; }
core0=$(hwloc-calc --physical-output --intersect pu core:0)
corel=$(hwloc-calc --physical-output --intersect pu "core:$(($(hwloc-calc --number-of core all) - 1))")
run $H bind --cores=0 compact 1 0
check "sequence: no step cgroup, Slurm's allocated core 0: the task on its PUs" \
	eval '[ "$(bound_cpus)" = "$(cpus_of "$core0")" ] && grep -q "step cpus from allocated cores" <<<"$ERR"'
run $H bind --cores="$(($(hwloc-calc --number-of core all) - 1))" compact 1 0
check "sequence: allocated last core: the task on the last core's PUs" [ "$(bound_cpus)" = "$(cpus_of "$corel")" ]
run $H bind --cores=4096 compact 1 0
check "sequence: an allocated core the node lacks: unbound, the step's error" \
	eval '[ "$RC" -ne 0 ] && grep -q "warning: .*allocated core 4096.*tasks run unbound" <<<"$OUT" && ! grep -q "^NUMAPLAN_" <<<"$OUT"'
mkdir -p "$tmp/cgs/slurm/job_1/step_0"
echo "$first" >"$tmp/cgs/slurm/job_1/step_0/cpuset.cpus.effective"
printf '0::/slurm/job_1/step_0\n' >"$tmp/procs"
run $H bind --cgroup="$tmp/procs,$tmp/cgs" --cores=4096 compact 1 0
check "sequence: a step cgroup wins over the allocated cores" \
	eval 'grep -q "^NUMAPLAN_CPUS=$first\$" <<<"$OUT" && grep -q "step cpus from cgroup" <<<"$ERR"'
if [ "$npus" -ge 2 ]; then
	run $H bind --cpus-per-task=2 compact,threads 1 0
	check "sequence: 2 cpus per task (threads): the first two PUs, 2 OpenMP threads" \
		eval '[ "$(bound_cpus)" = "$(cpus_of "$(hwloc-calc --physical-output --intersect pu pu:0-1)")" ] && grep -q "^OMP_NUM_THREADS=2$" <<<"$OUT"' 
fi
run env NUMAPLAN_CPUS=99 NUMAPLAN_HCA=x $H bind none 1 0
check "sequence: inherited NUMAPLAN_* dropped from a task left alone" \
	eval '[ "$RC" -eq 0 ] && grep -q "^policy none" <<<"$OUT" && ! grep -q "^NUMAPLAN_" <<<"$OUT"'
run $H bind compact,verbose 1 0 on_error=fail topology=/nonexistent/file.xml
check "sequence: on_error=fail ends the task, naming the reason on its stderr" \
	eval '[ "$RC" -ne 0 ] && grep -q "^numaplan: harness: error: cannot load the topology (/nonexistent/file.xml).*(on_error=fail)$" <<<"$OUT"'
cmdline srun -n1 --cpu-bind=cores ./app
run env SLURM_CPU_BIND_TYPE=mask_cpu: $H bind --cmdline="$tmp/cmdline,1" compact 1 0
check "sequence: srun's own --cpu-bind wins, the task is left as Slurm bound it" \
	eval 'grep -q "explicit --cpu-bind (mask_cpu:) wins; policy .compact. not applied" <<<"$OUT" && ! grep -q "^NUMAPLAN_" <<<"$OUT"'
run env SLURM_CPU_BIND_TYPE=mask_cpu: $H bind --cmdline="$tmp/cmdline,1" compact 1 0 respect_cpu_bind=no
check "sequence: respect_cpu_bind=no binds anyway" grep -q "^NUMAPLAN_CPUS=" <<<"$OUT"
cmdline srun -n1 ./app --cpu-bind=cores
run env SLURM_NUMAPLAN_SRUN_CPU_BIND=1 SLURM_CPU_BIND_TYPE=mask_cpu: $H bind --cmdline="$tmp/cmdline,2" compact 1 0
check "sequence: a --cpu-bind mark set by the user is overwritten by srun's" \
	eval 'grep -q "^NUMAPLAN_CPUS=" <<<"$OUT" && ! grep -q "wins" <<<"$OUT"'
cmdline srun -n1 --cpu-bind=cores ./app
run env SLURM_CPU_BIND_TYPE=mask_cpu: $H bind --cmdline="$tmp/cmdline,1" compact 1 0 default=compact enforce
check "sequence: enforce binds over srun's --cpu-bind, and says so" \
	eval 'grep -q "^NUMAPLAN_CPUS=" <<<"$OUT" && grep -q "^numaplan: harness: note: policy .compact. applied; your --cpu-bind (mask_cpu:) is overridden (the site enforces it)$" <<<"$OUT"'
run env SLURM_NUMAPLAN_SRUN_REFUSED=1 $H request compact default=compact
check "srun's refusal mark: the step fails on the node, naming the value" \
	eval '[ "$RC" -ne 0 ] && grep -q "srun refused --numa-plan=compact for this job.s partition; no task of the step starts" <<<"$ERR"'
run $H options 2 compact spread default=compact
check "options: two values on one line refused, naming both" \
	eval '[ "$RC" -ne 0 ] && grep -q "^numaplan: --numa-plan is given twice (.compact., then .spread.)" <<<"$ERR"'
run env SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan=spread $H options 1 compact default=compact
check "options: Slurm's variable, then one on the line: the line's value" \
	eval '[ "$RC" -eq 0 ] && grep -qx "value: compact" <<<"$OUT"'

# ---- the topology cache (cache=DIR), as root: loaded only when trusted
cdir=$tmp/cache; cfile=$cdir/nX.xml
run $H topology nX "cache=$cdir"
check "cache: first load is live and saves nX.xml" \
	eval '[ "$RC" -eq 0 ] && grep -qx "topology: live discovery; no cache file $cfile yet; saved to $cfile" <<<"$OUT"'
check "cache: the file is root's, 0644, in a 0755 directory" \
	eval '[ "$(stat -c "%u %a" "$cfile")" = "0 644" ] && [ "$(stat -c "%u %a" "$cdir")" = "0 755" ]'
live_cpus=$(grep '^cpus:' <<<"$OUT")
run $H topology nX "cache=$cdir"
check "cache: second load from the file, same CPUs" \
	eval 'grep -qx "topology: cache $cfile" <<<"$OUT" && grep -qx "source: $cfile" <<<"$OUT" && [ "$(grep "^cpus:" <<<"$OUT")" = "$live_cpus" ]'
run $H cores "0-$((npus - 1))" "cache=$cdir"
check "cache: cores from the cached topology are every PU" [ "$(cpus_of "$OUT")" = "$(machine_pus)" ]
# the checker's verdict on the cache file, kept in DIR/verified once the
# file is 2 seconds old, and found there by the next load (the list is not
# rewritten: no check ran)
sleep 2.1
run $H topology nX "cache=$cdir"
check "cache: the verdict on the cache file is kept in DIR/verified (root's, 0644)" \
	eval '[ "$RC" -eq 0 ] && [ "$(stat -c "%u %a" "$cdir/verified")" = "0 644" ] && grep -q " ino-$(stat -c %i "$cfile") size-$(stat -c %s "$cfile") " "$cdir/verified"'
before=$(stat -c '%i %Y.%y' "$cdir/verified")
run $H topology nX "cache=$cdir"
check "cache: the next load finds the verdict (no check, the list unchanged)" \
	eval 'grep -qx "topology: cache $cfile" <<<"$OUT" && [ "$(stat -c "%i %Y.%y" "$cdir/verified")" = "$before" ]'
chmod 0666 "$cdir/verified"
run $H topology nX "cache=$cdir"
check "cache: a writable verdict list is not believed: checked again, list replaced" \
	eval 'grep -qx "topology: cache $cfile" <<<"$OUT" && [ "$(stat -c "%u %a" "$cdir/verified")" = "0 644" ] && [ "$(stat -c "%i %Y.%y" "$cdir/verified")" != "$before" ]'
chmod 0664 "$cfile"
run $H topology nX "cache=$cdir"
check "cache: a group-writable file is not used" grep -q "^topology: live discovery; cache file $cfile: group- or world-writable; saved" <<<"$OUT"
printf 'not xml\n' >"$cfile.new"; chmod 0644 "$cfile.new"; mv "$cfile.new" "$cfile"
run $H topology nX "cache=$cdir"
check "cache: a broken file is not used, and replaced" \
	eval '[ "$RC" -eq 0 ] && grep -q "^topology: live discovery; cache file: .*saved to $cfile" <<<"$OUT" && grep -q "<topology" "$cfile"'
rm -f "$cfile"; mkfifo -m 0644 "$cfile"
run timeout 20 $H topology nX "cache=$cdir"
check "cache: a FIFO is not opened for reading (no hang), and replaced" \
	eval '[ "$RC" -eq 0 ] && grep -q "^topology: live discovery; cache file $cfile: not a regular file; saved" <<<"$OUT" && [ -f "$cfile" ]'
rm -f "$cdir"/*
run $H topology ../nX "cache=$cdir"
check "cache: a node name with a slash names no file" \
	eval '[ "$RC" -eq 0 ] && grep -q "no usable node name" <<<"$OUT" && [ -z "$(ls -A "$cdir")" ] && [ ! -e "$tmp/nX.xml" ]'
run $H topology nX cache=/proc/no/such/dir
check "cache: an impossible directory only means live discovery" \
	eval '[ "$RC" -eq 0 ] && grep -q "^topology: live discovery; no cache file /proc/no/such/dir/nX.xml yet; not saved: cannot create" <<<"$OUT"'
run $H topology nX
check "cache: the harness adds cache=none unless told" grep -qx "topology: live discovery (cache=none)" <<<"$OUT"

# ---- emulated topology: two NUMA nodes, an HCA local to the second
# (its adapter's state is read live: sysfs= names a tree that says what the
# XML says, fake-sysfs.sh)
if bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$tmp/emu.xml" 2>/dev/null &&
   bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$tmp/emu.xml" "$tmp/sys"; then
	read -r -a pus <<<"$(machine_pus)"
	second=${pus[$((npus / 2))]}
	run $H bind hca-near,mem=none 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sys"
	check "emulated: hca-near binds to the HCA's first PU" grep -q "^NUMAPLAN_CPUS=$second\$" <<<"$OUT"
	check "emulated: UCX_NET_DEVICES=mlx5_0:1" grep -q "^UCX_NET_DEVICES=mlx5_0:1\$" <<<"$OUT"
	run env UCX_NET_DEVICES=mine $H bind hca-near,mem=none 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sys"
	check "emulated: a user's UCX_NET_DEVICES is kept" \
		eval 'grep -q "^UCX_NET_DEVICES=mine$" <<<"$OUT" && grep -q "^NUMAPLAN_HCA=mlx5_0:1$" <<<"$OUT"'
	run $H bind hca-near 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sys"
	check "emulated: memory on a NUMA node this machine lacks is refused" \
		eval '[ "$RC" -ne 0 ] && grep -q "outside this step.s NUMA nodes" <<<"$ERR"'
	# slurmstepd's own environment is the site's; a steering HWLOC_* there
	# is refused (the plugin never rewrites a multi-threaded process's env)
	run env HWLOC_XMLFILE="$tmp/emu.xml" HWLOC_THISSYSTEM=1 $H bind hca-near,mem=none 1 0
	check "HWLOC_XMLFILE in the process environment: never followed" \
		eval '! grep -q "^NUMAPLAN_HCA=mlx5_0" <<<"$OUT"'
	check "HWLOC_XMLFILE in the process environment: refused, named" \
		eval '[ "$RC" -ne 0 ] && grep -q "HWLOC_XMLFILE" <<<"$ERR"'
	# a memory kind the node lacks fails the step with what it has
	run $H bind compact,mem=hbm 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sys"
	check "emulated: mem=hbm on a node without HBM is refused, naming what it has" \
		eval '[ "$RC" -ne 0 ] && grep -q "no HBM memory on this node (it has DRAM on NUMA" <<<"$ERR" && ! grep -q "^NUMAPLAN_CPUS=" <<<"$OUT"'
	run $H cores 1 "topology=$tmp/emu.xml" "sysfs=$tmp/sys"
	check "allocated core 1 of the emulated topology is PU $second" [ "$OUT" = "$second" ]
else
	skip "emulated topology could not be generated"
fi
# Slurm's abstract cores follow the logical core order of the topology
run $H cores 0
check "allocated core 0 (live) is the first PU" [ "$OUT" = "$first" ]
run $H cores "0-$((npus - 1))"
check "every core (live) is every PU" [ "$(cpus_of "$OUT")" = "$(machine_pus)" ]
run $H cores 4096
check "a core beyond the topology is an error" eval '[ "$RC" -ne 0 ] && grep -q "allocated core 4096" <<<"$ERR"'
run $H cores garbage
check "a malformed core list is an error" [ "$RC" -ne 0 ]
run $H bind compact 1 0 topology=/nonexistent/file.xml
check "unreadable topology file: an error naming it" grep -q "/nonexistent/file.xml" <<<"$ERR"

# ---- valgrind: every mode, no error and no definite/indirect leak
if command -v valgrind >/dev/null 2>&1; then
	vg() {
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
			--keep-debuginfo=yes --suppressions="$NP_SRCDIR/tests/slurm/valgrind.supp" \
			--show-leak-kinds=definite,indirect --error-exitcode=99 "$@" \
			>"$tmp/vg.out" 2>"$tmp/vg.err"
		[ $? -ne 99 ] || { sed 's/^/# /' "$tmp/vg.err" | head -30; return 1; }
	}
	check "valgrind: site" vg $H site default=compact allow=compact,spread topology=/x/%n.xml
	check "valgrind: bad site" vg $H site allow=compact,nope
	check "valgrind: request" vg $H request hca-near,verbose,mem=interleave,hca=a+b:1 default=compact
	check "valgrind: refused request" vg $H request spread default=compact enforce
	check "valgrind: bad request" vg $H request compact,bogus
	check "valgrind: repeated modifier, escaped message" vg $H request $'compact,mem=none,mem=local\n'
	check "valgrind: repeated site argument" vg $H site on_error=fail on_error=warn
	cmdline srun -n2 --cpu-bind=map_cpu:1,0 ./app
	check "valgrind: cpubind" vg $H cpubind "$tmp/cmdline" 1
	check "valgrind: help" vg $H help default=compact
	check "valgrind: stepcpus" vg $H stepcpus "$tmp/proc1" "$tmp/cg"
	check "valgrind: plan and bind (live)" vg $H bind compact,verbose "$npus" 0
	check "valgrind: plan and bind (spread, interleave)" vg $H bind spread,mem=interleave "$npus" 0
	[ -f "$tmp/emu.xml" ] && check "valgrind: plan and bind (emulated HCA)" \
		vg $H bind hca-near,mem=none,verbose 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sys"
	if [ -d "$tmp/sys" ]; then
		cp -a "$tmp/sys" "$tmp/sysdown"
		bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" set "$tmp/sysdown" mlx5_0 1 DOWN
		check "valgrind: the HCA DOWN (skipped, fallback note)" \
			vg $H bind hca-near,mem=none,verbose 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sysdown"
		chmod g+w "$tmp/sysdown"
		check "valgrind: an untrusted sysfs= refused" \
			vg $H bind hca-near,mem=none 1 0 "topology=$tmp/emu.xml" "sysfs=$tmp/sysdown"
	fi
	check "valgrind: topology load failure" vg $H bind compact 1 0 topology=/nonexistent.xml
	check "valgrind: allocated cores" vg $H cores 0
	check "valgrind: bind with explicit ranks" vg $H bind compact,verbose 2:1,3 1
	check "valgrind: sequence, allocated cores" vg $H bind --cores=0 compact,verbose 1 0
	check "valgrind: sequence, step cgroup" vg $H bind --cgroup="$tmp/procs,$tmp/cgs" compact 1 0
	cmdline srun -n1 --cpu-bind=cores ./app
	check "valgrind: sequence, srun's --cpu-bind wins" \
		eval 'SLURM_CPU_BIND_TYPE=mask_cpu: vg $H bind --cmdline="$tmp/cmdline,1" compact 1 0' 
	check "valgrind: sequence, policy none" vg $H bind none 1 0
	check "valgrind: sequence, enforce overrides srun's --cpu-bind (note)" \
		eval 'SLURM_CPU_BIND_TYPE=mask_cpu: vg $H bind --cmdline="$tmp/cmdline,1" compact 1 0 default=compact enforce'
	check "valgrind: srun's refusal mark on the node" \
		eval 'SLURM_NUMAPLAN_SRUN_REFUSED=1 vg $H request compact default=compact'
	check "valgrind: two --numa-plan refused" vg $H options 2 compact spread default=compact
	check "valgrind: het allocation, refused by every group's partition" \
		eval 'SLURM_HET_SIZE=2 SLURM_JOB_PARTITION_HET_GROUP_0=a SLURM_JOB_PARTITION_HET_GROUP_1=b vg $H options 1 spread "default[a,b]=compact" "enforce[a,b]"'
	rm -rf "$tmp/vgcache"
	check "valgrind: live load, cache saved" vg $H topology nV "cache=$tmp/vgcache"
	check "valgrind: load from the cache" vg $H topology nV "cache=$tmp/vgcache"
	sleep 2.1
	check "valgrind: load from the cache, verdict remembered" vg $H topology nV "cache=$tmp/vgcache"
	check "valgrind: load from the cache, verdict found" vg $H topology nV "cache=$tmp/vgcache"
	chmod 0666 "$tmp/vgcache/nV.xml"
	check "valgrind: untrusted cache file" vg $H topology nV "cache=$tmp/vgcache"
else
	skip "valgrind not installed"
fi

done_testing
