#!/bin/bash
# mutate-topologies.sh - a small, reproducible corpus of damaged hwloc XML.
#
#   tests/xml/mutate-topologies.sh OUTDIR [COUNT [SEED]]   (default 60, 8)
#
# Writes COUNT files OUTDIR/mut-NNN.xml, each a real topology of
# tests/topologies with one to three mutations, aimed where hwloc's XML
# import is fragile: bitmaps (",x00000001" in a complete_nodeset aborts
# hwloc 2.9 in hwloc_bitmap_sscanf), indexes and sizes, object types,
# distance matrices, and the nesting itself (lines dropped, doubled,
# swapped, the file cut short).  The same COUNT and SEED give the same
# files everywhere: the random numbers are a Park-Miller generator in awk
# (exact in awk's doubles), not awk's own rand(), which differs between
# awk implementations.  Prints one line per file: NAME SOURCE MUTATIONS.
set -u
src_dir=$(cd "$(dirname "$0")/../topologies" && pwd)
out=${1:?usage: $0 OUTDIR [COUNT [SEED]]}
count=${2:-60}
seed=${3:-8}
case "$count$seed" in *[!0-9]*) echo "$0: COUNT and SEED are numbers" >&2; exit 2;; esac
mkdir -p "$out" || exit 1

# Small ones, with PCI and OS devices, NUMA distances and several packages.
sources=(
	intel-wsm-2s-mlx4-3m2070-hp-sl390s.xml
	intel-snb2650-2s-mlx5-k40-conan.xml
	arm-nvidia-gh200-grace-1numa.xml
	cisco-ucs-2s-3usnic-manyvfs.xml
	intel-clx6230-2s-snc2-4numa-memsidecache.xml
)
for s in "${sources[@]}"; do
	[ -r "$src_dir/$s" ] || { echo "$0: missing $src_dir/$s" >&2; exit 1; }
done

state=$seed
for ((i = 0; i < count; i++)); do
	name=$(printf 'mut-%03d.xml' "$i")
	src=${sources[$((i % ${#sources[@]}))]}
	# one awk per file; the generator's state goes from one to the next
	r=$(awk -v seed="$state" -v outfile="$out/$name" '
	function rnd(n) {       # 0 .. n-1
		st = (st * 16807) % 2147483647
		return int(st / 2147483647 * n)
	}
	function pick(list,   a, n) { n = split(list, a, "|"); return a[rnd(n) + 1] }
	# replace the value of one attribute of line k (if it has one)
	function set_attr(k, names, values,   n, a, j, name, re, v) {
		n = split(names, a, "|")
		for (j = 0; j < n; j++) {
			name = a[(rnd(n) + j) % n + 1]
			re = " " name "=\"[^\"]*\""
			if (match(line[k], re)) {
				v = pick(values)
				line[k] = substr(line[k], 1, RSTART - 1) " " name "=\"" v "\"" substr(line[k], RSTART + RLENGTH)
				return name "=" v
			}
		}
		return ""
	}
	# a line with this attribute, from a random start
	function find(attr,   s, j, k) {
		s = rnd(nl) + 1
		for (j = 0; j < nl; j++) {
			k = (s + j - 1) % nl + 1
			if (index(line[k], " " attr "=\""))
				return k
		}
		return 0
	}
	{ line[NR] = $0 }
	END {
		st = seed + 0
		if (st <= 0) st = 1
		nl = NR
		bitmaps = "cpuset|complete_cpuset|allowed_cpuset|nodeset|complete_nodeset|allowed_nodeset"
		badbits = ",x00000001|,0x00000001|0x|x|,,|0xffffffff,,0x1|0x00000001,|0xg|-1|0xffffffffffffffffffff|0x00000001,0x00000002,,0x00000004|0xf...f|0xffffffff,0xffffffff,0xffffffff,0xffffffff,0xffffffff,0xffffffff,0xffffffff,0xffffffff,0x00000001"
		numbers = "os_index|gp_index|depth|cache_size|cache_linesize|cache_associativity|local_memory|size|count|nbobjs|kind"
		badnums = "-1|4294967295|4294967296|99999999999999999999|abc|0x10||1e9|-2147483648"
		types = "Machine|Package|NUMANode|Core|PU|L3Cache|L1iCache|Group|Die|MemCache|Misc|Bridge|PCIDev|OSDev|Bogus|"
		nmut = 1 + rnd(3)
		what = ""
		for (m = 0; m < nmut; m++) {
			op = rnd(10); d = ""
			if (op <= 2) {                  # a bitmap
				k = find("cpuset")
				if (!k) k = find("nodeset")
				if (k) d = set_attr(k, bitmaps, badbits)
			} else if (op == 3) {           # a number
				k = rnd(nl) + 1
				d = set_attr(k, numbers, badnums)
			} else if (op == 4) {           # a type
				k = find("type")
				if (k) d = set_attr(k, "type", types)
			} else if (op == 5) {           # distances and their values
				k = find("value")
				if (k) d = set_attr(k, "value|nbobjs|relative_depth|kind|indexing", badnums "|0|10|")
			} else if (op == 6 && nl > 3) { # drop a line
				k = rnd(nl - 2) + 2
				d = "drop:" k
				for (j = k; j < nl; j++) line[j] = line[j + 1]
				nl--
			} else if (op == 7) {           # double a line
				k = rnd(nl - 1) + 2
				d = "dup:" k
				for (j = nl; j >= k; j--) line[j + 1] = line[j]
				nl++
			} else if (op == 8 && nl > 3) { # swap two lines
				k = rnd(nl - 2) + 2; j = rnd(nl - 2) + 2
				t = line[k]; line[k] = line[j]; line[j] = t
				d = "swap:" k "," j
			} else if (nl > 4) {            # cut the file short
				nl = nl - 1 - rnd(nl / 2)
				d = "cut:" nl
			}
			if (d != "") what = what (what == "" ? "" : " ") d
		}
		for (k = 1; k <= nl; k++) print line[k] > outfile
		close(outfile)
		print st, what
	}' "$src_dir/$src") || exit 1
	state=${r%% *}
	echo "$name $src ${r#* }"
done
