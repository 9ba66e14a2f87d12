#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# contrib/numavm without booting: the shipped shapes as numavm describes
# them (against what each shape file's comment promises), and bad input -
# a broken shape file, an unknown shape, bad options - refused with a
# message naming the problem, before anything starts.
source "$(dirname "$0")/../tap.sh"
NUMAVM="$NP_SRCDIR/contrib/numavm/numavm"
export NP_NUMAVM_DIR
NP_NUMAVM_DIR=$(mktemp -d)
trap 'rm -rf "$NP_NUMAVM_DIR"' EXIT

run "$NUMAVM" help
check "help: exit 0, the usage names up, run, down, status and the shipped shapes" \
	eval '[ "$RC" -eq 0 ] && for w in up run down status nps4 2s1n memnodes; do grep -qw "$w" <<<"$OUT" || exit 1; done'
run "$NUMAVM" shapes
check "shapes: nps4 2s1n memnodes devices intel2s check checkfault" \
	[ "$(sort <<<"$OUT" | tr '\n' ' ')" = "2s1n check checkfault devices intel2s memnodes nps4 " ]

# nps4: 2 sockets x 4 nodes of 2 cores, an L3 per node, 16 inside a
# socket and 32 across, eth0 on node 5
run "$NUMAVM" shape nps4
check "shape nps4: 2 sockets, 16 CPUs, 8 nodes" eval \
	'grep -qx "sockets 2" <<<"$OUT" && grep -qx "cpus 16" <<<"$OUT" && [ "$(grep -c "^node " <<<"$OUT")" -eq 8 ]'
check "shape nps4: node 5 is cpus 10-11 on socket 1, eth0 on node 5" eval \
	'grep -qx "node 5 socket 1 cpus 10-11 mem 256" <<<"$OUT" && grep -qx "nic eth0 node 5" <<<"$OUT"'
check "shape nps4: an L3 per node (8), sockets 0-7 and 8-15" eval \
	'[ "$(grep -c "^l3 " <<<"$OUT")" -eq 8 ] && grep -qx "l3 5 cpus 10-11" <<<"$OUT" && grep -qx "socket 1 cpus 8-15" <<<"$OUT"'
check "shape nps4: SLIT row 5 is 32 x4, 16, 10, 16, 16" grep -qx "slit 5 32 32 32 32 16 10 16 16" <<<"$OUT"
run "$NUMAVM" shape 2s1n
check "shape 2s1n: 2 nodes of 4 CPUs, 4 L3 of 2, SLIT 21" eval \
	'grep -qx "node 1 socket 1 cpus 4-7 mem 512" <<<"$OUT" && [ "$(grep -c "^l3 " <<<"$OUT")" -eq 4 ] && grep -qx "slit 0 10 21" <<<"$OUT"'
# devices: eth0 on node 1, eth1 on node 0, rxe on both, GPUs on 1 then 0
run "$NUMAVM" shape devices
check "shape devices: 2 nodes of 2 CPUs, eth0 on 1 and eth1 on 0 with rxe, GPUs on node 1 then node 0" eval \
	'grep -qx "node 1 socket 1 cpus 2-3 mem 384" <<<"$OUT" && grep -qx "nic eth0 node 1" <<<"$OUT" && grep -qx "nic eth1 node 0" <<<"$OUT" &&
	 [ "$(grep "^rxe " <<<"$OUT" | tr "\n" " ")" = "rxe eth0 rxe eth1 " ] && [ "$(grep "^gpu " <<<"$OUT" | tr "\n" " ")" = "gpu node 1 gpu node 0 " ]'
# check and checkfault: eth1's root port capped by link=2.5x1 in the latter
run "$NUMAVM" shape check
check "shape check: 2 nodes of 2 CPUs and 6 GiB, eth0 on node 0, eth1 on node 1, no link cap" eval \
	'grep -qx "node 1 socket 1 cpus 2-3 mem 6144" <<<"$OUT" && grep -qx "nic eth0 node 0" <<<"$OUT" && grep -qx "nic eth1 node 1" <<<"$OUT"'
run "$NUMAVM" shape checkfault
check "shape checkfault: node 1 at 4 GiB, eth1's link 2.5x1" eval \
	'grep -qx "node 1 socket 1 cpus 2-3 mem 4096" <<<"$OUT" && grep -qx "nic eth1 node 1 link 2.5x1" <<<"$OUT" &&
	 grep -qx "node 0 socket 0 cpus 0-1 mem 6144" <<<"$OUT"'
run "$NUMAVM" shape memnodes
check "shape memnodes: nodes 2 and 3 without CPUs or socket, 13 from their own socket" eval \
	'grep -qx "node 2 socket - cpus - mem 256" <<<"$OUT" && grep -qx "node 3 socket - cpus - mem 256" <<<"$OUT" &&
	 grep -qx "slit 2 13 23 10 23" <<<"$OUT" && grep -qx "cpus 4" <<<"$OUT"'
# intel2s: 2 sockets of 2 cores x 2 threads, numbered as Intel firmware
# does: the packages alternate, a core's second thread 4 CPUs on
run "$NUMAVM" shape intel2s
check "shape intel2s: 8 CPUs, 2 threads a core, numbering interleave" eval \
	'grep -qx "cpus 8" <<<"$OUT" && grep -qx "threads 2" <<<"$OUT" && grep -qx "numbering interleave" <<<"$OUT"'
check "shape intel2s: node 0 and socket 0 are cpus 0,2,4,6, node 1 and socket 1 are 1,3,5,7" eval \
	'grep -qx "node 0 socket 0 cpus 0,2,4,6 mem 512" <<<"$OUT" && grep -qx "node 1 socket 1 cpus 1,3,5,7 mem 512" <<<"$OUT" &&
	 grep -qx "socket 1 cpus 1,3,5,7" <<<"$OUT"'
check "shape intel2s: cores 0,4 and 2,6 on socket 0, 1,5 and 3,7 on socket 1" \
	[ "$(grep "^core " <<<"$OUT" | tr "\n" ";")" = "core 0 0 cpus 0,4;core 0 1 cpus 2,6;core 1 0 cpus 1,5;core 1 1 cpus 3,7;" ]
run "$NUMAVM" shape 2s1n
check "shape 2s1n: threads 1, numbering linear, no core lines" eval \
	'grep -qx "threads 1" <<<"$OUT" && grep -qx "numbering linear" <<<"$OUT" && ! grep -q "^core " <<<"$OUT"'

# broken shape files: each names its line and problem
tmp=$NP_NUMAVM_DIR
bad_shape() { # what, expected message (regex), file body
	want=$2
	printf '%s\n' "$3" >"$tmp/bad.shape"
	run "$NUMAVM" shape "$tmp/bad.shape"
	check "bad shape ($1): exit 1, '$2'" eval '[ "$RC" -eq 1 ] && grep -Eq "$want" <<<"$ERR" && [ -z "$OUT" ]'
	grep -Eq "$want" <<<"$ERR" || diag "rc=$RC err=$ERR"
}
ok2='node 0 socket=0 cpus=2 mem=128M
node 1 socket=1 cpus=2 mem=128M'
bad_shape "unknown keyword" "line 2: unknown keyword 'cores'" $'sockets 2\ncores 4'
bad_shape "a link of no PCIe speed" "line 3: nic eth0: link=3x1: link= takes SPEEDxWIDTH" \
	$'sockets 1\nnode 0 socket=0 cpus=2 mem=128M\nnic eth0 node=0 link=3x1'
bad_shape "a link of no PCIe width" "line 3: gpu node=0: link=8x3: link= takes" $'sockets 1\nnode 0 socket=0 cpus=2 mem=128M\ngpu node=0 link=8x3'
bad_shape "a nic with two links" "usage: nic NAME node=N \\[link=" $'sockets 1\nnode 0 socket=0 cpus=2 mem=128M\nnic eth0 node=0 link=8x4 link=8x4'
bad_shape "no sockets line" "no 'sockets' line" "$ok2"
bad_shape "nodes out of order" "line 2: node 0 expected next" $'sockets 1\nnode 1 socket=0 cpus=2 mem=128M'
bad_shape "cpus without socket" "line 2: node 0: a node with cpus needs socket=" $'sockets 1\nnode 0 cpus=2 mem=128M'
bad_shape "a memory-only node with a socket" "memory-only node has no socket" $'sockets 1\nnode 0 socket=0 cpus=2 mem=128M\nnode 1 socket=0 mem=128M'
bad_shape "too little memory" "mem= of at least 64M" $'sockets 1\nnode 0 socket=0 cpus=2 mem=32M'
bad_shape "a size that is not one" "mem=lots: not a size" $'sockets 1\nnode 0 socket=0 cpus=2 mem=lots'
bad_shape "an octal-looking number" "cpus=08: not a number" $'sockets 1\nnode 0 socket=0 cpus=08 mem=128M'
bad_shape "unequal sockets" "socket 1 has 4 cpus, socket 0 has 2" $'sockets 2\nnode 0 socket=0 cpus=2 mem=128M\nnode 1 socket=1 cpus=4 mem=128M'
bad_shape "a socket without CPUs" "socket 1 has no cpus" $'sockets 2\nnode 0 socket=0 cpus=2 mem=128M'
bad_shape "a SLIT row short" "slit row 1: 1 distances for 2 nodes" $'sockets 2\n'"$ok2"$'\nslit 10 20\nslit 20'
bad_shape "a SLIT of the wrong size" "slit: 1 rows for 2 nodes" $'sockets 2\n'"$ok2"$'\nslit 10 20'
bad_shape "a SLIT not symmetric" "not symmetric" $'sockets 2\n'"$ok2"$'\nslit 10 20\nslit 21 10'
bad_shape "a SLIT diagonal not 10" "distance 1-1 must be 10" $'sockets 2\n'"$ok2"$'\nslit 10 20\nslit 20 11'
bad_shape "a SLIT distance below 10" "'9' is not a distance" $'sockets 2\n'"$ok2"$'\nslit 10 9\nslit 9 10'
bad_shape "several nodes per socket without l3" "several nodes per socket need an 'l3 N' line" \
	$'sockets 1\nnode 0 socket=0 cpus=2 mem=128M\nnode 1 socket=0 cpus=2 mem=128M'
bad_shape "an L3 that does not divide a node" "not a multiple of l3 4" \
	$'sockets 1\nl3 4\nnode 0 socket=0 cpus=2 mem=128M\nnode 1 socket=0 cpus=6 mem=128M'
bad_shape "an L3 of one core" "l3 1: an L3 of one core" $'sockets 1\nl3 1\nnode 0 socket=0 cpus=2 mem=128M'
bad_shape "a NIC on a missing node" "nic eth0: node 3 does not exist" $'sockets 2\n'"$ok2"$'\nnic eth0 node=3'
bad_shape "a NIC name that is not one" "usage: nic NAME node=N" $'sockets 2\n'"$ok2"$'\nnic eth0/x node=1'
bad_shape "a GPU on a missing node" "gpu: node 2 does not exist" $'sockets 2\n'"$ok2"$'\ngpu node=2'
bad_shape "a GPU line without node=" "usage: gpu node=N" $'sockets 2\n'"$ok2"$'\ngpu 1'
bad_shape "rxe twice on one NIC" "rxe eth0: given twice" $'sockets 2\n'"$ok2"$'\nnic eth0 node=1\nrxe eth0\nrxe eth0'
bad_shape "rxe on a NIC the shape lacks" "rxe eth1: the shape has no nic eth1" $'sockets 2\n'"$ok2"$'\nnic eth0 node=1\nrxe eth1'
bad_shape "threads out of range" "line 2: threads takes a number 1-4" $'sockets 2\nthreads 5\n'"$ok2"
bad_shape "threads that do not divide a socket" "threads 3 does not divide the 2 cpus" $'sockets 2\nthreads 3\n'"$ok2"
bad_shape "an unknown numbering" "line 2: numbering takes linear or interleave" $'sockets 2\nnumbering intel\n'"$ok2"
bad_shape "numbering interleave with an l3 line" "numbering interleave: no l3 line" \
	$'sockets 1\nl3 2\nnumbering interleave\nnode 0 socket=0 cpus=4 mem=128M'

# bad use, refused before any VM starts
run "$NUMAVM" shape nosuch
check "an unknown shape names the shipped ones" eval '[ "$RC" -eq 1 ] && grep -q "unknown shape .nosuch. (shipped: " <<<"$ERR"'
run "$NUMAVM" up --shape 2s1n --rxe eth0
check "up --rxe eth0 on a shape without eth0: refused" eval '[ "$RC" -eq 1 ] && grep -q "the shape has no nic eth0" <<<"$ERR"'
run "$NUMAVM" up --rxe 'eth0;x'
check "up --rxe with a bad device name: refused" eval '[ "$RC" -eq 1 ] && grep -q "not a network device name" <<<"$ERR"'
# --keep goes on the guest's kernel command line and is held by its root:
# a planted symlink, a name that reads as another argument, a directory
# of another user's are each refused, naming the reason
kd=$(mktemp -d /tmp/numavm-keep-test.XXXXXX)
mkdir "$kd/numavm.self=x" "$kd/theirs"
ln -s "$kd/numavm.self=x" "$kd/link"
chown nobody "$kd/theirs"
run "$NUMAVM" run --keep "$kd/link" -c true
check "run --keep through a symlink: refused, naming it" \
	eval '[ "$RC" -eq 1 ] && grep -q "link reaches a symlink" <<<"$ERR"'
run "$NUMAVM" run --keep "$kd/numavm.self=x" -c true
check "run --keep of a path with '=': refused (plain characters only)" \
	eval '[ "$RC" -eq 1 ] && grep -q "has characters other than" <<<"$ERR"'
run "$NUMAVM" up --keep "$kd/theirs"
check "up --keep of a directory of nobody's: refused" \
	eval '[ "$RC" -eq 1 ] && grep -q "theirs is not root.s" <<<"$ERR"'
rm -rf "$kd"
run "$NUMAVM" run --timeout soon -c true
check "run --timeout soon: refused" eval '[ "$RC" -eq 1 ] && grep -q "not a number of seconds" <<<"$ERR"'
run "$NUMAVM" run
check "run without a script: refused" eval '[ "$RC" -ne 0 ] && grep -q "which script" <<<"$ERR"'
run "$NUMAVM" run "$tmp/none.sh"
check "run with a missing script: refused" eval '[ "$RC" -eq 1 ] && grep -q "cannot read" <<<"$ERR"'
run "$NUMAVM" up --collect "$tmp/x"
check "up --collect: refused (an option of run)" eval '[ "$RC" -eq 1 ] && grep -q "options of run" <<<"$ERR"'
run "$NUMAVM" frobnicate
check "an unknown command: refused with the usage" eval '[ "$RC" -ne 0 ] && grep -q "unknown command" <<<"$ERR" && grep -q usage <<<"$ERR"'
check "nothing was started: no qemu pid file" [ ! -e "$NP_NUMAVM_DIR/qemu.pid" ]
run "$NUMAVM" status
check "status with nothing up: 'down', exit 3" eval '[ "$RC" -eq 3 ] && [ "$OUT" = down ]'
done_testing
