#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The root side ignores a user's HWLOC_* variables; an unreadable or broken
# topology= file gives one warning and unbound tasks (on_error=warn) or a
# failed step with the reason (on_error=fail); odd input never takes a
# slurmd/slurmstepd down.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
dir=$(root_tmpdir sec) || skip_all "cannot make a root-only directory"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
marker=$dir/ran
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" || skip_all "cannot generate the XML"
chmod 0644 "$dir/emu.xml"
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/emu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"

# Control: given by the admin, the XML's HCA shows up ...
plugstack "topology=$dir/emu.xml sysfs=$dir/sys"
run timeout "$NP_SRUN_TIMEOUT" salloc -N1 --exclusive srun -n1 --whole --numa-plan=hca-near,mem=none numaplan-probe --json
check "control: topology= with an HCA gives NUMAPLAN_HCA=mlx5_0:1" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]
# ... but a user pointing hwloc at it changes nothing: live discovery here
# has no HCA, so hca-near falls back and no HCA is exported.
plugstack ''
HWLOC_XMLFILE=$dir/emu.xml HWLOC_THISSYSTEM=1 HWLOC_COMPONENTS=xml \
	run timeout "$NP_SRUN_TIMEOUT" salloc -N1 --exclusive srun -n1 --whole --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
check "user HWLOC_XMLFILE: the step runs" [ "$RC" -eq 0 ]
check "user HWLOC_XMLFILE: ignored by the plugin (no HCA, no UCX_NET_DEVICES)" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = "" ] && [ "$(pfield 0 .env.UCX_NET_DEVICES)" = null ]'
check "user HWLOC_XMLFILE: the planner fell back from hca-near" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" != hca-near ] && grep -q "note: .*hca-near" <<<"$ERR"'

# A job of an unprivileged user, with an admin XML only root may read: the
# plugin loads it as root, binds as the user.
probe=$(command -v numaplan-probe)
if command -v runuser >/dev/null 2>&1 && runuser -u nobody -- test -x "$probe"; then
	cp "$dir/emu.xml" "$dir/private.xml"; chmod 0600 "$dir/private.xml"
	plugstack "topology=$dir/private.xml sysfs=$dir/sys"
	(cd /tmp && run timeout "$NP_SRUN_TIMEOUT" runuser -u nobody -- env SLURM_CONF="$SLURM_CONF" \
		salloc -N1 --exclusive srun -n1 --whole --numa-plan=hca-near,mem=none "$probe" --json
	 declare -p OUT ERR RC >"$dir/nobody.out")
	. "$dir/nobody.out"
	check "user nobody: the step runs" [ "$RC" -eq 0 ]
	check "user nobody: root-only topology= file used (HCA mlx5_0:1)" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]
	check "user nobody: bound" [ "$(pfield 0 .cpus)" = "$(pfield 0 .env.NUMAPLAN_CPUS)" ]
else
	skip "runuser or a probe nobody can run is missing"
fi

# Unusable topology files
printf 'this is not XML\n' >"$dir/garbage.xml"; chmod 0644 "$dir/garbage.xml"
: >"$dir/empty.xml"; chmod 0644 "$dir/empty.xml"
for f in "$dir/missing.xml" "$dir/garbage.xml" "$dir/empty.xml" "$dir" "$dir/%n-missing.xml"; do
	name=${f#"$dir"}; name=${name:-/ (a directory)}
	plugstack "topology=$f on_error=warn"
	srun_ -N1 -n2 --numa-plan=compact numaplan-probe --json
	check "warn, topology=$name: tasks run" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
	check "warn, topology=$name: unbound by numaplan" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]
	check "warn, topology=$name: exactly one warning, naming the file" \
		eval '[ "$(grep -c "numaplan: .*warning: cannot load the topology" <<<"$ERR")" -eq 1 ] && grep -q "warning: .*${f//%n/n[0-9]*}" <<<"$ERR"'
	plugstack "topology=$f on_error=fail"
	srun_ -N1 -n2 --numa-plan=compact sh -c "touch $marker"
	check "fail, topology=$name: the step fails" [ "$RC" -ne 0 ]
	check "fail, topology=$name: with the reason" grep -q "numaplan: .*error: cannot load the topology" <<<"$ERR"
	check "fail, topology=$name: the program did not run" [ ! -e "$marker" ]
	rm -f "$marker"
done
check "the nodes are still up after the errors" nodes_alive

# Odd values that get past srun through Slurm's internal variable
plugstack ''
long=$(printf 'compact,verbose%.0s' {1..200})
for v in "$long" 'compact,hca=$(id)' $'compact\nspread' 'compact,mem=' ',,,'; do
	_SLURM_SPANK_OPTION_numaplan_numa_plan=$v srun_ -N1 -n1 sh -c "touch $marker"
	label=${v//$'\n'/\\n}
	check "odd value '${label:0:16}...': the step fails cleanly" \
		eval '[ "$RC" -ne 0 ] && grep -q "numaplan: .*error: .*--numa-plan" <<<"$ERR" && [ ! -e "$marker" ]'
	rm -f "$marker"
done
check "the nodes are still up after odd values" nodes_alive

# A value with control characters cannot forge a line in slurmd's log (as
# root) nor drive the user's terminal: every message is escaped.
log=$(scontrol show config | awk '$1 == "SlurmdLogFile" {print $3}')
tag=FORGED-$$-$RANDOM
n1log=${log//%n/n1}
# only what this step logs (the log may hold earlier runs')
since=$(stat -c %s "$n1log" 2>/dev/null || echo 0)
_SLURM_SPANK_OPTION_numaplan_numa_plan=$'compact\n[2026-01-01T00:00:00.000] error: '"$tag"$'\e[2J' \
	srun_ -N1 -n1 -w n1 true
check "log forging: the step fails cleanly" [ "$RC" -ne 0 ]
if [ -r "$n1log" ]; then
	tail -c +$((since + 1)) "$n1log" >"$dir/n1.log"
	check "log forging: no line of slurmd's log starts with the forged text" \
		eval '! grep -q "^\[2026-01-01T00:00:00.000\] error: $tag" "$dir/n1.log"'
	check "log forging: the value is in slurmd's log, escaped on one line" \
		grep -qF "numaplan: n1: invalid --numa-plan value 'compact\n[2026-01-01T00:00:00.000] error: $tag\x1b[2J'" "$dir/n1.log"
	check "log forging: no raw ESC in what the step logged" eval '! grep -q $'"'"'\e'"'"' "$dir/n1.log"'
else
	skip "slurmd log $n1log not readable"
fi
check "user's stderr: the message is escaped too (one line, no ESC)" \
	eval 'grep -qF "error: invalid --numa-plan value '"'"'compact\n[2026" <<<"$ERR" && ! grep -q "^\[2026-01-01" <<<"$ERR" && ! grep -q $'"'"'\e'"'"' <<<"$ERR"'
srun_ -N1 -n1 --numa-plan=$'bogus\e[2J' true
check "srun's own check: the message names the value escaped" \
	grep -qF "srun: error: numaplan: invalid --numa-plan value 'bogus\x1b[2J'" <<<"$ERR"
srun_ -N2 -n2 --numa-plan=compact true
check "and still run steps with the plugin" [ "$RC" -eq 0 ]

done_testing
