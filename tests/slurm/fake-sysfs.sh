#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# fake-sysfs.sh TOPOLOGY.xml DIR - a sysfs tree for the adapters of an hwloc
# XML, for plugstack's sysfs=DIR: what the kernel of a node with those
# adapters would show, so that an emulated node's port states are read
# live, through the plugin's own code path, and can be changed under a
# running cluster.
#   DIR/class/infiniband/DEV/ports/N/state       "4: ACTIVE" (from PortNState)
#   DIR/class/infiniband/DEV/ports/N/link_layer  PortNLinkLayer, else Ethernet
#                                                for a LID of 0, else InfiniBand
#   DIR/class/infiniband/DEV/ports/N/lid         PortNLID when recorded
#   DIR/class/net/IF/operstate                   "up"
# A port whose state the XML does not record gets no state file (unknown).
# The devices are read with hwloc's own tool, not with numaplan.  Files are
# root's and 0644, directories 0755, as the plugin requires.  For the
# plugin's sysfs=, DIR's parents must be root's alone too, up to / (it is
# walked as topology= is): make DIR under slurm-lib.sh's root_tmpdir, not
# under /tmp.
#
#   fake-sysfs.sh set DIR DEV PORT STATE   e.g. set DIR mlx5_0 1 DOWN
#   fake-sysfs.sh link DIR IF OPERSTATE    e.g. link DIR eth0 down
set -eu

state_text() { # number -> the kernel's "N: NAME"
	case $1 in
	1) echo "1: DOWN";; 2) echo "2: INIT";; 3) echo "3: ARMED";; 4) echo "4: ACTIVE";;
	5) echo "5: ACTIVE_DEFER";; *) echo "$1: NOP";;
	esac
}
state_number() { # DOWN|INIT|ARMED|ACTIVE -> number
	case $1 in DOWN) echo 1;; INIT) echo 2;; ARMED) echo 3;; ACTIVE) echo 4;;
	*) echo "fake-sysfs.sh: unknown state $1" >&2; exit 2;; esac
}
put() { # file text
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1.tmp"
	chmod 0644 "$1.tmp"
	mv "$1.tmp" "$1"
}

case ${1:-} in
set)
	[ $# -eq 5 ] || { echo "usage: fake-sysfs.sh set DIR DEV PORT STATE" >&2; exit 2; }
	put "$2/class/infiniband/$3/ports/$4/state" "$(state_text "$(state_number "$5")")"
	exit 0;;
link)
	[ $# -eq 4 ] || { echo "usage: fake-sysfs.sh link DIR IF OPERSTATE" >&2; exit 2; }
	put "$2/class/net/$3/operstate" "$4"
	exit 0;;
esac

xml=${1:?usage: fake-sysfs.sh TOPOLOGY.xml DIR}
dir=${2:?usage: fake-sysfs.sh TOPOLOGY.xml DIR}
umask 022
mkdir -p "$dir/class/infiniband" "$dir/class/net"
# hwloc-info prints one block per OS device: "<Type> L#n", then
# " full type = ...", " name = ...", " info PortNState = ..."
hwloc-info --input "$xml" --input-format xml --filter osdev:all -v osdev:all 2>/dev/null |
awk '
	function layer(p) {
		if (p in link) return link[p]
		return (p in lid && lid[p] ~ /^0x0+$/) ? "Ethernet" : "InfiniBand"
	}
	function flush() {
		if (name == "") return
		if (type == "OpenFabrics") {
			for (p in state) print "ib", name, p, state[p], layer(p), (p in lid ? lid[p] : "")
			for (p in lid) if (!(p in state)) print "ib", name, p, "", layer(p), lid[p]
		} else if (type == "Network") {
			print "net", name
		}
		name = ""; type = ""; delete state; delete link; delete lid
	}
	/^[A-Za-z].* L#[0-9]+$/ { flush() }
	/^ full type = / { type = $4 }
	/^ name = / { name = $3 }
	/^ info Port[0-9]+State = / { p = $2; sub(/^Port/, "", p); sub(/State$/, "", p); state[p] = $4 }
	/^ info Port[0-9]+LinkLayer = / { p = $2; sub(/^Port/, "", p); sub(/LinkLayer$/, "", p); link[p] = $4 }
	/^ info Port[0-9]+LID = / { p = $2; sub(/^Port/, "", p); sub(/LID$/, "", p); lid[p] = $4 }
	END { flush() }
' | while read -r kind name port st link lid; do
	case $name in *[!A-Za-z0-9_.-]*|'') continue;; esac   # never a path out of DIR
	if [ "$kind" = ib ]; then
		d=$dir/class/infiniband/$name/ports/$port
		mkdir -p "$d"
		[ -n "$st" ] && put "$d/state" "$(state_text "$st")"
		put "$d/link_layer" "$link"
		[ -n "$lid" ] && put "$d/lid" "$lid"
	else
		put "$dir/class/net/$name/operstate" up
	fi
done
chmod -R go-w "$dir"
