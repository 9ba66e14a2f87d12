#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# cache=DIR: a step's live discovery is saved as DIR/<node>.xml (root's,
# 0644, DIR 0755) and loaded by the next steps instead of discovering
# again; a cache file or directory that someone other than root could have
# written (world-writable, a symlink), one older than the boot, or one
# that no longer describes the machine is ignored (live discovery, then a
# fresh file); cache=none writes nothing.  Which source was used is read
# from the verbose "topology:" line; the rules say which one it must be.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
dir=$(root_tmpdir cache) || skip_all "cannot make a root-only directory"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
cache=$dir/cache
node=$(sinfo -h -N -o %N | sort | head -1)
file=$cache/$node.xml

step() { # step OPTION-VALUE: two tasks on $node, verbose
	srun_ -N1 -n2 -w "$node" --numa-plan="$1,verbose" numaplan-probe --json
}
topo_line() { grep "^numaplan: $node: topology: " <<<"$ERR"; }
used_cache() { topo_line | grep -qx "numaplan: $node: topology: cache $file"; }
used_live() { topo_line | grep -q "^numaplan: $node: topology: live discovery; "; }
# both tasks bound as compact plans on a 2-CPU step: task i on PU i
bound_compact() {
	[ "$RC" -eq 0 ] && [ "$(nprobes)" -eq 2 ] &&
		[ "$(pfield 0 .cpus)" = "${pus[0]}" ] && [ "$(pfield 1 .cpus)" = "${pus[1]}" ]
}
fresh_root_0644() { # the file as the plugin writes it
	[ -f "$file" ] && [ ! -L "$file" ] && [ "$(stat -c '%u %a' "$file")" = "0 644" ]
}

plugstack "cache=$cache"

# ---- first step: no directory yet; created, live discovery saved
step compact
check "first step: bound" bound_compact
check "first step: live discovery (no cache yet), saved" \
	eval 'topo_line | grep -qx "numaplan: $node: topology: live discovery; no cache file $file yet; saved to $file"'
check "first step: the directory is created, root's, 0755" \
	eval '[ -d "$cache" ] && [ ! -L "$cache" ] && [ "$(stat -c "%u %g %a" "$cache")" = "0 0 755" ]'
check "first step: $node.xml written, a regular file, root's, 0644" fresh_root_0644
check "first step: the file is hwloc XML with this machine's ${#pus[@]} PUs" \
	eval '[ "$(grep -c "<object type=\"PU\"" "$file")" -eq ${#pus[@]} ] && grep -q "<topology" "$file"'
check "first step: no temporary file left" [ "$(ls -A "$cache")" = "$node.xml" ]
before=$(stat -c '%i %Y' "$file")

# ---- second step: the cache is used, and not rewritten
step compact
check "second step: bound the same way" bound_compact
check "second step: topology from the cache file" used_cache
check "second step: the file is left as it was" [ "$(stat -c '%i %Y' "$file")" = "$before" ]
step spread,mem=interleave
check "another policy from the cache too" eval 'used_cache && [ "$RC" -eq 0 ] && [ "$(pfield 0 .mempolicy)" = interleave ]'

# A valid cache file (a copy of the plugin's own), made untrustworthy in
# one way at a time: were it followed, the step would say "cache".
cp -p "$file" "$dir/good.xml"
good_id=$(stat -c '%i %Y %s' "$dir/good.xml")
chmod 0666 "$file"
step compact
check "world-writable file: ignored, live discovery" \
	eval 'used_live && ! used_cache && topo_line | grep -q "group- or world-writable"'
check "world-writable file: tasks still bound" bound_compact
check "world-writable file: replaced by a fresh root 0644 file" fresh_root_0644

chmod 0644 "$file"; chown 65534 "$file"
step compact
check "file not owned by root: ignored" eval 'used_live && topo_line | grep -q "not owned by root"'
check "file not owned by root: replaced by root's" fresh_root_0644

rm -f "$file"; ln -s "$dir/good.xml" "$file"
step compact
check "symlink to a valid cache file: not followed, live discovery" \
	eval 'used_live && ! used_cache && topo_line | grep -q "a symbolic link"'
check "symlink: tasks still bound" bound_compact
check "symlink: replaced by a regular file (the link's target untouched)" \
	eval 'fresh_root_0644 && [ "$(stat -c "%i %Y %s" "$dir/good.xml")" = "$good_id" ]'

btime=$(awk '$1 == "btime" { print $2 }' /proc/stat)
touch -d "@$((btime - 3600))" "$file"
step compact
check "file older than the boot: ignored" eval 'used_live && topo_line | grep -q "older than the last boot"'
check "file older than the boot: rewritten" eval '[ "$(stat -c %Y "$file")" -gt "$btime" ]'

step compact
check "after the repairs, the cache is used again" eval 'used_cache && bound_compact'

# A root-owned, fresh file describing another machine (two NUMA nodes and
# an HCA): not what the kernel reports now, so not used.
if [ "$(cat /sys/devices/system/node/online 2>/dev/null)" != 0-1 ] &&
   bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu.xml" 2>/dev/null; then
	install -m 0644 -o root -g root "$dir/emu.xml" "$file"
	srun_ -N1 -n1 -w "$node" --numa-plan=hca-near,mem=none,verbose numaplan-probe --json
	check "cache of another machine's NUMA layout: ignored" \
		eval 'used_live && topo_line | grep -q "no longer matches the machine"'
	check "cache of another machine: its HCA is not used" [ "$(pfield 0 .env.NUMAPLAN_HCA)" = "" ]
	check "cache of another machine: replaced by this machine's" \
		eval 'fresh_root_0644 && ! grep -q mlx5_0 "$file"'
else
	skip "this machine's NUMA nodes are those of the emulated topology"
fi

# ---- an untrustworthy directory: neither read nor written
chmod 0777 "$cache"
before=$(stat -c '%i %Y' "$file")
step compact
check "world-writable directory: live discovery" \
	eval 'used_live && topo_line | grep -q "cache directory $cache is group- or world-writable; not saved"'
check "world-writable directory: tasks bound" bound_compact
check "world-writable directory: nothing written" [ "$(stat -c '%i %Y' "$file")" = "$before" ]
chmod 0755 "$cache"

ln -s "$cache" "$dir/link"
plugstack "cache=$dir/link"
step compact
check "directory given as a symlink: not used" \
	eval 'used_live && ! topo_line | grep -q "topology: cache" && topo_line | grep -q "a symbolic link or not a directory"'
check "directory given as a symlink: nothing written through it" [ "$(stat -c '%i %Y' "$file")" = "$before" ]

# ---- concurrent first steps: one complete file, no temporary left behind
plugstack "cache=$dir/conc"
run timeout "$NP_SRUN_TIMEOUT" salloc -N1 -w "$node" --exclusive bash -c \
	'for i in 1 2 3 4 5 6; do srun -n1 --overlap --numa-plan=compact true & done; wait'
check "6 concurrent steps on an empty cache: all ran" [ "$RC" -eq 0 ]
# (and the list of checked files, once the cache file is 2 s old)
check "6 concurrent steps: exactly one file, no temporary" \
	[ "$(ls -A "$dir/conc" | grep -vx verified)" = "$node.xml" ]
check "6 concurrent steps: the file is complete XML" grep -q '</topology>' "$dir/conc/$node.xml"

# ---- cache=none: live every time, nothing written anywhere (but the
# tasks' plan records, /run/numaplan/plans, which plans= governs)
snap() { ls -lA --time-style=full-iso "$@" 2>&1 | grep -v ' plans$'; }
before=$(snap /run/numaplan "$cache" "$dir")
plugstack "cache=none"
step compact
check "cache=none: live discovery, saying so" \
	eval 'topo_line | grep -qx "numaplan: $node: topology: live discovery (cache=none)" && bound_compact'
after=$(snap /run/numaplan "$cache" "$dir")
check "cache=none: nothing written (default and earlier directories unchanged)" [ "$after" = "$before" ]
[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/# /'


# topology= wins over any cache
bash "$NP_SRCDIR/tests/slurm/emulated-topology.sh" "$dir/emu2.xml" 2>/dev/null && chmod 0644 "$dir/emu2.xml"
if [ -f "$dir/emu2.xml" ]; then
	plugstack "topology=$dir/emu2.xml cache=$dir/unused"
	srun_ -N1 -n1 -w "$node" --numa-plan=compact,mem=none,verbose numaplan-probe --json
	check "topology= with cache=: the site's file is used, no cache file written" \
		eval 'topo_line | grep -qx "numaplan: $node: topology: file $dir/emu2.xml" && [ ! -e "$dir/unused/$node.xml" ]'
fi

# ---- the default: /run/numaplan
plugstack ''
step compact
check "default cache directory: /run/numaplan/$node.xml, used or written" \
	eval 'topo_line | grep -q "/run/numaplan/$node.xml" && [ "$(stat -c "%u %a" /run/numaplan/$node.xml)" = "0 644" ]'

if [ -n "$HARNESS" ]; then
	run timeout "$NP_SRUN_TIMEOUT" "$HARNESS" site cache=relative/dir
	check "cache= needs an absolute path" eval '[ "$RC" -ne 0 ] && grep -q "cache=relative/dir" <<<"$ERR"'
else
	skip "cache= needs an absolute path: the harness is a build-tree program (NP_INSTALLED)"
fi
check "the nodes are still up" nodes_alive

done_testing
