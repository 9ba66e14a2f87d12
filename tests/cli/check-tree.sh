# SPDX-License-Identifier: BSD-3-Clause
# check-tree.sh - sourced: functions that write a sysfs tree file by file,
# with what the kernel writes in each (Documentation/ABI/testing/
# sysfs-bus-pci, sysfs-class-infiniband), for numaplan check --sysfs and
# plugstack's sysfs=.  Files are 0644, directories 0755.
#
#   tree_pci ROOT PATH CLASS VENDOR [CUR_GTS CUR_W MAX_GTS MAX_W]
#       a PCI function at ROOT/devices/PATH (components from the host
#       bridge: pci0000:00/0000:00:01.1/0000:41:00.0), linked from
#       ROOT/bus/pci/devices/BDF as the kernel links it; its link when given
#   tree_ib ROOT DEV MODEL FW PORT STATE RATE
#       an OpenFabrics adapter's hca_type and fw_ver, and one port's state
#       ("4: ACTIVE") and rate ("200 Gb/sec (4X HDR)")
#   tree_put ROOT REL TEXT
#       any other file

tree_put() {
	mkdir -p "$(dirname "$1/$2")"
	printf '%s\n' "$3" >"$1/$2"
	chmod 0644 "$1/$2"
}

tree_pci() {
	local root=$1 path=$2 bdf=${2##*/}
	tree_put "$root" "devices/$path/class" "$3"
	tree_put "$root" "devices/$path/vendor" "$4"
	tree_put "$root" "devices/$path/device" 0x1234
	mkdir -p "$root/bus/pci/devices"
	ln -sfn "../../../devices/$path" "$root/bus/pci/devices/$bdf"
	[ $# -ge 8 ] || return 0
	tree_put "$root" "devices/$path/current_link_speed" "$5 GT/s PCIe"
	tree_put "$root" "devices/$path/current_link_width" "$6"
	tree_put "$root" "devices/$path/max_link_speed" "$7 GT/s PCIe"
	tree_put "$root" "devices/$path/max_link_width" "$8"
}

tree_ib() {
	local root=$1 d=class/infiniband/$2
	tree_put "$root" "$d/hca_type" "$3"
	tree_put "$root" "$d/fw_ver" "$4"
	tree_put "$root" "$d/ports/$5/state" "$6"
	tree_put "$root" "$d/ports/$5/link_layer" InfiniBand
	tree_put "$root" "$d/ports/$5/rate" "$7"
}
