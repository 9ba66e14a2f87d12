#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every man page formats without a groff warning, and no tracked text file
# carries a control byte (a "\f" typed into a generator once put form feeds
# into numaplan-vcluster(8), rendered as "10.77.IIR.0/24").
source "$(dirname "$0")/../tap.sh"

S=$NP_SRCDIR
for p in "$S"/man/*.[1-8]; do
	# a page whose first line is '\" t has tables: man(1) runs tbl for it,
	# and so must this (groff 1.23, Debian 13's, warns about a table tbl
	# did not see; 1.22 said nothing)
	t=; case $(head -n1 "$p") in "'\\\" t"*) t=-t;; esac
	w=$(LC_ALL=C.UTF-8 groff -man $t -ww -z "$p" 2>&1)
	check "$(basename "$p") formats without a warning${w:+ ($w)}" test -z "$w"
done
# the vcluster page's per-cluster names: the digit in italics, nothing stray
txt=$(LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$S/man/numaplan-vcluster.8" 2>/dev/null)
check "numaplan-vcluster(8) renders the network as 10.77.I.0/24" grep -qF '10.77.I.0/24' <<<"$txt"
check "numaplan-vcluster(8) renders the ports as 6827+10I and 6828+10I" \
	grep -qE '6827\+10I and 6828\+10I' <<<"$txt"
if git -C "$S" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	bad=$(cd "$S" && git ls-files -z -- man include lib common plugin cli bench kernels contrib tests \
		':!tests/topologies' ':!tests/xml' ':!tests/fuzz/corpus' ':!tests/run/data' |
		xargs -0 grep -lIP '[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]' 2>/dev/null)
	check "no source, man or script file holds a control byte${bad:+ ($bad)}" test -z "$bad"
else
	skip "not a git checkout: the control-byte scan needs git ls-files"
fi
done_testing
