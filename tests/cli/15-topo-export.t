#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan topo --export-xml, --fingerprint and --site: what `numaplan run`
# asks every compute node (numaplan-run(1), TOPOLOGY).  Fingerprints are
# compared, never printed expectations: equal for the same hardware, apart
# for different hardware.
source "$(dirname "$0")/../tap.sh"
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml
E7401=$TOPO/amd-epyc7401-2s-nps4-8numa-4vega20-mlx5.xml
tmp=$(mktemp -d /tmp/np-topo-export.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
trap 'rm -rf "$tmp"' EXIT
fp() { numaplan topo "$@" --fingerprint 2>/dev/null; }

A=$(fp --topology "$EPYC")
check "a fingerprint is 16 hex digits" grep -qxE '[0-9a-f]{16}' <<<"$A"
run numaplan topo --topology "$EPYC" --export-xml "$tmp/e.xml" --fingerprint
check "--export-xml writes the file and prints the same fingerprint" \
	eval '[ "$RC" -eq 0 ] && [ -s "$tmp/e.xml" ] && [ "$OUT" = "$A" ]'
check "the exported file reads back with the same fingerprint" [ "$(fp --topology "$tmp/e.xml")" = "$A" ]
check "... and the same summary" \
	[ "$(numaplan topo --topology "$tmp/e.xml" | sed -n 3p)" = "$(numaplan topo --topology "$EPYC" | sed -n 3p)" ]
# the same hardware under another host name and with other free memory
sed -e 's/value="inti6000"/value="other-node"/' -e 's/local_memory="34359214080"/local_memory="34359000000"/' \
	"$EPYC" >"$tmp/same.xml"
check "another host name and memory size: the same node type" [ "$(fp --topology "$tmp/same.xml")" = "$A" ]
check "an EPYC 7401 (GPUs, HCA on NUMA 3): another node type" [ "$(fp --topology "$E7401")" != "$A" ]
check "the EPYC restricted to one socket: another node type" \
	[ "$(fp --topology "$EPYC" --cpuset 0-31,64-95)" != "$A" ]
run numaplan topo --export-xml "$tmp/live.xml" --fingerprint
check "this machine, live: exported" eval '[ "$RC" -eq 0 ] && [ -s "$tmp/live.xml" ]'
check "... reads back as the same node type" [ "$(fp --topology "$tmp/live.xml")" = "$OUT" ]
run numaplan topo --topology "$EPYC" --export-xml "$tmp/no/such/dir/x.xml"
check "an unwritable --export-xml: exit 1 naming the file" \
	eval '[ "$RC" -eq 1 ] && grep -q "no/such/dir" <<<"$ERR"'

# the target must be a regular file or nothing: a link or a device is
# refused with a clear error and left as it was (issue 22, item 6)
echo keep >"$tmp/victim"
ln -s "$tmp/victim" "$tmp/link.xml"
run numaplan topo --topology "$EPYC" --export-xml "$tmp/link.xml"
check "--export-xml onto a symbolic link: exit 1, saying so" \
	eval '[ "$RC" -eq 1 ] && grep -q "symbolic link" <<<"$ERR"'
check "... the link and what it points to are unchanged" \
	eval '[ -L "$tmp/link.xml" ] && [ "$(cat "$tmp/victim")" = keep ]'
mkfifo "$tmp/fifo.xml"
run numaplan topo --topology "$EPYC" --export-xml "$tmp/fifo.xml"
check "--export-xml onto a FIFO: exit 1, the FIFO stays" eval '[ "$RC" -eq 1 ] && [ -p "$tmp/fifo.xml" ]'
mkdir "$tmp/dir.xml"
run numaplan topo --topology "$EPYC" --export-xml "$tmp/dir.xml"
check "--export-xml onto a directory: exit 1, the directory stays" eval '[ "$RC" -eq 1 ] && [ -d "$tmp/dir.xml" ]'
if [ "$(id -u)" -eq 0 ]; then
	# a private copy of /dev/null's node: the real one is shared
	mknod "$tmp/null" c 1 3
	run numaplan topo --topology "$EPYC" --export-xml "$tmp/null"
	check "as root, --export-xml onto a device node: exit 1, the node stays a device" \
		eval '[ "$RC" -eq 1 ] && [ -c "$tmp/null" ] && grep -q "character device" <<<"$ERR"'
else
	skip "as root, --export-xml onto a device node (not root)"
fi
check "no temporary file is left beside the refused targets" \
	eval '[ -z "$(ls "$tmp" | grep -v -x -e e.xml -e live.xml -e same.xml -e victim -e link.xml -e fifo.xml -e dir.xml -e null)" ]'
run numaplan topo --topology "$EPYC" --export-xml "$tmp/e.xml"
check "an existing regular file is replaced" eval '[ "$RC" -eq 0 ] && [ "$(fp --topology "$tmp/e.xml")" = "$A" ]'

# --site: the plugin's topology= of plugstack.conf, found through slurm.conf
mkdir -p "$tmp/etc/more"
printf 'ClusterName=x\nPlugStackConfig=%s/etc/plugstack.conf\n' "$tmp" >"$tmp/etc/slurm.conf"
printf 'include %s/etc/more/*.conf\n' "$tmp" >"$tmp/etc/plugstack.conf"
printf 'optional /usr/lib/x/other.so a=b\nrequired /usr/local/lib/slurm/numaplan.so default=compact topology=%s/%%n.xml\n' \
	"$tmp" >"$tmp/etc/more/np.conf"
cp "$E7401" "$tmp/nx.xml"
run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME=nx numaplan topo --site --fingerprint
check "--site: the included numaplan.so line's topology=, %n = the node" \
	grep -qF "topology: file $tmp/nx.xml (topology= of numaplan.so in $tmp/etc/more/np.conf)" <<<"$ERR"
check "... and that file is what was loaded" [ "$OUT" = "$(fp --topology "$E7401")" ]
# a node name the plugin refuses to put in a path (it would climb out of
# the admin's directory): the plugin discovers live, and so must --site;
# $tmp/topo.xml is where nodes/../topo.xml would have led
printf 'required /usr/local/lib/slurm/numaplan.so topology=%s/nodes/%%n/topo.xml\n' "$tmp" >"$tmp/etc/more/np.conf"
cp "$E7401" "$tmp/topo.xml"
run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME=.. numaplan topo --site --fingerprint
check "--site, node name '..': live discovery like the plugin, not $tmp/nodes/../topo.xml" \
	eval '[ "$RC" -eq 0 ] && grep -qF "topology: live discovery (topology=$tmp/nodes/%n/topo.xml: no usable node name to expand %n)" <<<"$ERR" && ! grep -q "topo.xml (topology=" <<<"$ERR"'
for bad in a/b; do
	run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME="$bad" numaplan topo --site --fingerprint
	check "--site, node name '$bad': no file with it in the path" \
		eval '! grep -qF "file $tmp/nodes/$bad/topo.xml" <<<"$ERR"'
done
run env SLURM_CONF="$tmp/etc/slurm.conf" SLURMD_NODENAME=nx. numaplan topo --site --fingerprint
check "--site, node name 'nx.': a name, expanded" \
	grep -qF "topology: file $tmp/nodes/nx./topo.xml (topology=" <<<"$ERR"
printf 'required /usr/local/lib/slurm/numaplan.so default=compact\n' >"$tmp/etc/more/np.conf"
run env SLURM_CONF="$tmp/etc/slurm.conf" numaplan topo --site --fingerprint
check "--site without topology=: live discovery, saying so" \
	eval '[ "$RC" -eq 0 ] && grep -q "live discovery (numaplan.so in .* has no topology=)" <<<"$ERR"'
printf 'ClusterName=x\n' >"$tmp/etc/slurm.conf"
: >"$tmp/etc/plugstack.conf"
run env SLURM_CONF="$tmp/etc/slurm.conf" numaplan topo --site --fingerprint
check "--site, no numaplan.so in plugstack.conf beside slurm.conf: live" \
	grep -qF "live discovery (no numaplan.so in $tmp/etc/plugstack.conf)" <<<"$ERR"
run numaplan topo --site --topology "$EPYC"
check "--site and --topology together: exit 2" [ "$RC" -eq 2 ]
done_testing
