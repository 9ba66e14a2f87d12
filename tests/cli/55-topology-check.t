#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Damaged topology files never kill numaplan: hwloc parses a file in a
# checker process first, so a file hwloc aborts on gives exit 2 and one
# message naming the file and the signal.  Files hwloc's own lstopo accepts
# load, including those only libxml2 reads (a comment before <topology>),
# also when this process's hwloc is set to its minimalistic parser.
#
# The reference for every file is lstopo-no-graphics --input (hwloc's own
# tool, same library): whether it dies by a signal, refuses, or loads.
source "$(dirname "$0")/../tap.sh"
XML=$NP_SRCDIR/tests/xml
command -v lstopo-no-graphics >/dev/null || { skip "lstopo-no-graphics (hwloc) not installed"; done_testing; exit 0; }
tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT
# what the vcluster's slurmd runs with (numaplan-spank(8), PERFORMANCE)
MINIMAL=(env HWLOC_LIBXML_IMPORT=0 HWLOC_PLUGINS_BLACKLIST=hwloc_gl,hwloc_opencl,hwloc_xml_libxml)

# lstopo's verdict on a file: "signal N", "refused" or "loads"
reference() {
	timeout 60 lstopo-no-graphics --input "$1" >/dev/null 2>&1
	local rc=$?
	if [ $rc -gt 128 ] && [ $rc -ne 124 ]; then echo "signal $((rc - 128))"
	elif [ $rc -ne 0 ]; then echo refused
	else echo loads; fi
}

# ---- the crafted file: a PU whose complete_nodeset is ",x00000001"
crash=$XML/crash-pu-complete-nodeset.xml
ref=$(reference "$crash")
check "reference: lstopo dies on the crafted file ($ref)" [ "$ref" = "signal 6" ]
for cmd in "topo" "topo --json" "plan -n 2 -p compact" "plan -n 2 -p hca-near -f ompi"; do
	# shellcheck disable=SC2086
	run numaplan $cmd --topology "$crash"
	check "crafted file, numaplan $cmd: exit 2, not a signal (rc=$RC)" [ "$RC" -eq 2 ]
	check "crafted file, numaplan $cmd: nothing on stdout" [ -z "$OUT" ]
	check "crafted file, numaplan $cmd: one line naming the file and the signal" \
		eval '[ "$(wc -l <<<"$ERR")" -eq 1 ] &&
		      grep -qF "cannot load topology file '"'"'$crash'"'"': hwloc crashed reading it (the checking process was killed by signal 6, SIGABRT)" <<<"$ERR"'
done
check "crafted file: the message quotes hwloc's assertion" grep -q "hwloc_bitmap_sscanf: Assertion" <<<"$ERR"
"${MINIMAL[@]}" numaplan topo --topology "$crash" >/dev/null 2>"$tmp/err"; rc=$?
check "crafted file, minimalistic parser: exit 2, same message" \
	eval '[ $rc -eq 2 ] && grep -q "killed by signal 6, SIGABRT" "$tmp/err"'

# ---- what only libxml2 reads: a comment before <topology>, single quotes,
# a byte-order mark, a processing instruction, no line breaks at all
orig=$TOPO/intel-spr8480-2s-snc4-8numa-4h100-4mlx5.xml
{ echo '<?xml version="1.0" encoding="UTF-8"?>'; echo '<!-- node type A, exported by the site -->'; sed 1d "$orig"; } >"$tmp/comment.xml"
sed "0,/<object type=\"Package\" os_index=\"0\"/s//<object type='Package' os_index='0'/" "$orig" >"$tmp/quotes.xml"
{ printf '\xef\xbb\xbf'; cat "$orig"; } >"$tmp/bom.xml"
sed '1a <?site-tool generated="yes"?>' "$orig" >"$tmp/pi.xml"
tr -d '\n' <"$orig" >"$tmp/oneline.xml"
counts() { jq -c '[(.packages | length), (.numa | length), .ncores, .npus, ([.devices[]?.name] | sort)]' 2>/dev/null; }
hcas() { jq -c '[.ranks[].hca]' 2>/dev/null; }
want=$(numaplan topo --json --topology "$orig" | counts)
want_hcas=$(numaplan plan --topology "$orig" -n 4 -p hca-near -f json | hcas)
# (INDEX.md's counts; the devices are its OpenFabrics and network OS
# devices as hwloc-info --filter osdev:all lists them, sorted)
check "reference counts of the original ($want), HCAs of 4 hca-near ranks ($want_hcas)" \
	eval '[ "$want" = "[2,8,112,224,[\"eno8303\",\"eno8403\",\"hsi0\",\"ibp218s0\",\"ibp94s0\",\"ibs2f1\",\"mlx5_0\",\"mlx5_1\",\"mlx5_2\",\"mlx5_3\"]]" ] && [ "$want_hcas" != "" ]'
for f in comment quotes bom pi oneline; do
	check "reference: lstopo loads $f.xml" [ "$(reference "$tmp/$f.xml")" = loads ]
	check "reference: hwloc's minimalistic parser refuses $f.xml" \
		eval '! "${MINIMAL[@]}" lstopo-no-graphics --input "$tmp/$f.xml" >/dev/null 2>&1'
	run numaplan topo --json --topology "$tmp/$f.xml"
	check "$f.xml loads: the same node as the original" eval '[ "$RC" -eq 0 ] && [ "$(counts <<<"$OUT")" = "$want" ]'
	run "${MINIMAL[@]}" numaplan topo --json --topology "$tmp/$f.xml"
	check "$f.xml, minimalistic parser set: loads (hwloc's re-export), the same node" \
		eval '[ "$RC" -eq 0 ] && [ "$(counts <<<"$OUT")" = "$want" ]'
	run "${MINIMAL[@]}" numaplan plan --topology "$tmp/$f.xml" -n 4 -p hca-near -f json
	check "$f.xml, minimalistic parser set: plans like the original" \
		eval '[ "$RC" -eq 0 ] && [ "$(hcas <<<"$OUT")" = "$want_hcas" ]'
done

# ---- a corpus of damaged real topologies
bash "$XML/mutate-topologies.sh" "$tmp/mut" 60 8 >"$tmp/mut.list" || { notok "generating the corpus"; done_testing; exit 1; }
n=0; deaths=0; crashers=0; loads=0
for f in "$tmp"/mut/*.xml; do
	n=$((n + 1)); name=$(basename "$f")
	ref=$(reference "$f")
	bad=
	for cmd in "topo --json" "plan -n 5 -p spread -f ompi" "plan -n 3 -p hca-near -f slurm" \
	           "plan -n 2 -p numa -f numactl"; do
		# shellcheck disable=SC2086
		run numaplan $cmd --topology "$f"
		if [ "$RC" -gt 2 ]; then
			deaths=$((deaths + 1)); bad="$bad [$cmd: rc=$RC]"
		fi
		case $ref in
		signal*) [ "$RC" -eq 2 ] && grep -q "hwloc crashed reading it (the checking process was killed by ${ref}," <<<"$ERR" ||
				bad="$bad [$cmd: rc=$RC, not the crash message: ${ERR:0:120}]";;
		loads) ! grep -q "hwloc rejected\|hwloc crashed" <<<"$ERR" ||
				bad="$bad [$cmd: lstopo loads it, numaplan: ${ERR:0:120}]";;
		refused) [ "$RC" -eq 2 ] && grep -q "cannot load topology file '$f'" <<<"$ERR" ||
				bad="$bad [$cmd: rc=$RC: ${ERR:0:120}]";;
		esac
	done
	case $ref in signal*) crashers=$((crashers + 1));; loads) loads=$((loads + 1));; esac
	[ -z "$bad" ] || notok "$name ($(grep "^$name " "$tmp/mut.list" | cut -d' ' -f2-)): $bad"
done
diag "$n damaged files: lstopo dies on $crashers, loads $loads"
check "the corpus has files that kill hwloc ($crashers) and files it loads ($loads)" \
	eval '[ "$crashers" -ge 3 ] && [ "$loads" -ge 3 ]'
check "zero deaths by signal over $n files x 4 commands" [ "$deaths" -eq 0 ]

# The crashers again with the minimalistic parser set (the checker's second
# and third runs)
for f in "$tmp"/mut/*.xml; do
	case $(reference "$f") in signal*) ;; *) continue;; esac
	"${MINIMAL[@]}" numaplan topo --topology "$f" >/dev/null 2>"$tmp/err"; rc=$?
	check "$(basename "$f"), minimalistic parser: exit 2 with the crash message" \
		eval '[ $rc -eq 2 ] && grep -q "hwloc crashed" "$tmp/err"'
done
done_testing
