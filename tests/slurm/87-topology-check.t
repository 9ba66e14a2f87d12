#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# No topology file can kill slurmstepd.  A topology= file is parsed by a
# checker process before slurmstepd loads it: a file hwloc 2.9 aborts on
# (before: srun hung, the step's socket stayed behind) gives one warning
# naming the file and the signal, and the step follows on_error; so does
# every file of a corpus of damaged real topologies.  A file only libxml2
# reads (a comment before <topology>) loads although slurmd runs with the
# minimalistic parser.  The verdict is kept in the state directory, so an
# unchanged file is checked once, not at every step.
#
# Whether hwloc dies on a file is taken from hwloc's own lstopo.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool lstopo-no-graphics
dir=$(root_tmpdir check) || skip_all "cannot make a root-only directory"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
node=$(sinfo -h -N -o %N | sort | head -1)
marker=$dir/ran
spool=$(scontrol show config | awk -F' = ' '/^SlurmdSpoolDir/ { print $2 }')
spool=${spool//%n/$node}
# step sockets of this node's finished steps (slurmstepd removes its own
# when it exits normally)
stale_sockets() { wait_idle; find "$spool" -maxdepth 1 -type s -name "${node}_*" 2>/dev/null; }
warnings() { grep -c "^numaplan: $node: warning: " <<<"$ERR"; }
check "no step socket left before the test (${spool})" [ -z "$(stale_sockets)" ]

# ---- the crafted file
install -m 0644 "$NP_SRCDIR/tests/xml/crash-pu-complete-nodeset.xml" "$dir/crash.xml"
# lstopo's exit status on a file (the subshell keeps bash's "Aborted" quiet)
lstopo_rc() { (timeout 60 lstopo-no-graphics --input "$1" >/dev/null 2>&1) 2>/dev/null; }
lstopo_rc "$dir/crash.xml"
check "reference: lstopo dies by SIGABRT on the crafted file" [ $? -eq 134 ]
crash_msg="cannot load the topology ($dir/crash.xml): cannot load topology file '$dir/crash.xml': hwloc crashed reading it (the checking process was killed by signal 6, SIGABRT)"
plugstack "topology=$dir/crash.xml on_error=warn"
srun_ -N1 -n2 -w "$node" --numa-plan=compact numaplan-probe --json
check "crafted file, warn: srun returns, the tasks ran (rc=$RC)" eval '[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ]'
check "crafted file, warn: tasks unbound by numaplan" [ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ]
check "crafted file, warn: exactly one warning, naming the file and the signal" \
	eval '[ "$(warnings)" -eq 1 ] && grep -qF "numaplan: $node: warning: $crash_msg" <<<"$ERR"'
plugstack "topology=$dir/crash.xml on_error=fail"
srun_ -N1 -n2 -w "$node" --numa-plan=compact sh -c "touch $marker"
check "crafted file, fail: the step fails, srun returns (rc=$RC)" eval '[ "$RC" -ne 0 ] && [ "$RC" -ne 124 ]'
check "crafted file, fail: with the reason" grep -qF "numaplan: $node: error: $crash_msg" <<<"$ERR"
check "crafted file, fail: the program did not run" [ ! -e "$marker" ]
rm -f "$marker"
check "crafted file: no stale step socket" [ -z "$(stale_sockets)" ]
check "crafted file: the nodes are up" nodes_alive

# ---- what only libxml2 reads, with slurmd's minimalistic parser
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" || skip_all "cannot generate the XML"
{ echo '<?xml version="1.0" encoding="UTF-8"?>'; echo '<!-- the site: node type A -->'; sed 1d "$dir/emu.xml"; } >"$dir/comment.xml"
chmod 0644 "$dir/emu.xml" "$dir/comment.xml"
# the emulated adapter's live state (numaplan-spank(8), ADAPTER STATES)
bash "$NP_SRCDIR/tests/slurm/fake-sysfs.sh" "$dir/emu.xml" "$dir/sys" || skip_all "cannot build the sysfs tree"
check "reference: lstopo loads the commented file" eval 'lstopo-no-graphics --input "$dir/comment.xml" >/dev/null 2>&1'
plugstack "topology=$dir/comment.xml on_error=fail sysfs=$dir/sys"
run timeout "$NP_SRUN_TIMEOUT" salloc -N1 -w "$node" --exclusive srun -n1 --whole --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
check "commented file: loaded, its HCA used (NUMAPLAN_HCA=mlx5_0:1)" \
	eval '[ "$RC" -eq 0 ] && [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]'
check "commented file: the verbose line says it is converted at every step" \
	grep -q "^numaplan: $node: topology: file $dir/comment.xml (only libxml2 reads it: converted at every step" <<<"$ERR"

# ---- a corpus of damaged real topologies, each named by topology=
bash "$NP_SRCDIR/tests/xml/mutate-topologies.sh" "$dir/mut" 60 8 >"$dir/mut.list" ||
	skip_all "cannot generate the corpus"
chmod -R go-w "$dir/mut"
n=0; deaths=0; crashers=0
for f in "$dir"/mut/*.xml; do
	n=$((n + 1))
	lstopo_rc "$f"; ref=$?
	plugstack "topology=$f on_error=warn"
	srun_ -N1 -n1 -w "$node" --numa-plan=compact numaplan-probe --json
	bad=
	if [ "$RC" -ne 0 ] || [ "$(nprobes)" -ne 1 ]; then
		deaths=$((deaths + 1)); bad="the step did not run (rc=$RC): ${ERR:0:200}"
	elif [ $ref -gt 128 ]; then
		crashers=$((crashers + 1))
		[ "$(warnings)" -eq 1 ] && grep -q "warning: .*$f.*hwloc crashed reading it (the checking process was killed by signal $((ref - 128)), " <<<"$ERR" ||
			bad="lstopo died by signal $((ref - 128)), the warning: ${ERR:0:300}"
	fi
	[ -z "$bad" ] || notok "$(basename "$f") ($(grep "^$(basename "$f") " "$dir/mut.list" | cut -d' ' -f2-)): $bad"
done
diag "$n damaged files, $crashers of them kill lstopo"
check "the corpus has files that kill hwloc ($crashers)" [ "$crashers" -ge 3 ]
check "zero dead steps over $n damaged topology= files" [ "$deaths" -eq 0 ]
check "corpus: no stale step socket" [ -z "$(stale_sockets)" ]
check "corpus: the nodes are up" nodes_alive

# ---- the verdict is remembered in the state directory
state=$dir/state
cp "$dir/emu.xml" "$dir/good.xml"
sleep 3     # a file changed less than 2 s ago is checked at every step
plugstack "topology=$dir/good.xml cache=$state sysfs=$dir/sys"
hca_step() { srun_ -N1 -n1 -w "$node" --numa-plan=hca-near,mem=none numaplan-probe --json; }
hca_step
ino=$(stat -c %i "$dir/good.xml")
check "first step: bound with the file's HCA" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]
check "first step: the verdict kept in $state/verified (root's, 0644)" \
	eval '[ "$(stat -c "%u %a" "$state/verified")" = "0 644" ] && grep -q " ino-$ino size-$(stat -c %s "$dir/good.xml") " "$state/verified"'
check "first step: no cache file under topology=" [ ! -e "$state/$node.xml" ]
before=$(stat -c '%i %Y.%y' "$state/verified")
hca_step
check "second step: bound the same way" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ]
check "second step: the file was not checked again (the list not rewritten)" \
	[ "$(stat -c '%i %Y.%y' "$state/verified")" = "$before" ]
touch "$dir/good.xml"; sleep 3
hca_step
check "after the file changed: checked again, the new verdict first in the list" \
	eval '[ "$(stat -c "%i %Y.%y" "$state/verified")" != "$before" ] &&
	      head -1 "$state/verified" | grep -q "ctime-$(stat -c %Z "$dir/good.xml")\."'
before=$(stat -c '%i %Y.%y' "$state/verified")
cp "$dir/emu.xml" "$dir/fresh.xml"
plugstack "topology=$dir/fresh.xml cache=$state sysfs=$dir/sys"
hca_step
check "a file written just now: used, not remembered" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ] && [ "$(stat -c "%i %Y.%y" "$state/verified")" = "$before" ]'
plugstack "topology=$dir/good.xml cache=$state sysfs=$dir/sys"
chmod 0666 "$state/verified"
hca_step
check "a list others could have written: not trusted, replaced by root's 0644" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ] && [ "$(stat -c "%u %a" "$state/verified")" = "0 644" ]'
plugstack "topology=$dir/crash.xml cache=$state on_error=warn"
srun_ -N1 -n1 -w "$node" --numa-plan=compact true
check "a crashing file is never remembered" \
	eval '[ "$RC" -eq 0 ] && ! grep -q " ino-$(stat -c %i "$dir/crash.xml") " "$state/verified"'
plugstack "topology=$dir/good.xml cache=none sysfs=$dir/sys"
snap=$(ls -lA --time-style=full-iso "$state")
hca_step
check "cache=none: checked and used, nothing written" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_HCA)" = mlx5_0:1 ] && [ "$(ls -lA --time-style=full-iso "$state")" = "$snap" ]'

check "at the end: no stale step socket" [ -z "$(stale_sockets)" ]
check "at the end: the nodes are up" nodes_alive
done_testing
