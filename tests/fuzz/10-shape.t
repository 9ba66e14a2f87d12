#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The structural fuzz (issue 22): fuzz/fuzz_shape, the libFuzzer target of
# fuzz_topo.c (load, plan with every policy, every format, restricted and
# not) with fuzz_shape_mutator.c, which renames object types, duplicates
# levels and permutes os_index, cpusets and sibling order.  Built with
# clang under ASan and UBSan, run for a bounded time (NP_FUZZ_TIME, 60 s)
# from the stored corpus and the crafted shape files of tests/xml.
#
# Fails on any crash, sanitizer report, leak or timeout the run finds
# (kept in the log), and on a run that fuzzed nothing past the parser:
# some inputs must load and plan, some must be refused for their shape.
# NP_FUZZ_SEED (default 22) makes a run repeatable.
source "$(dirname "$0")/../tap.sh"
time=${NP_FUZZ_TIME:-60}
seed=${NP_FUZZ_SEED:-22}
tmp=$(mktemp -d) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; trap 'rm -rf "$tmp"' EXIT
log=$NP_BUILDDIR/tests/fuzz/fuzz_shape.log

if ! command -v clang >/dev/null; then
	notok "clang not found: apt-get install clang libclang-rt-14-dev (contrib/bootstrap installs them)"
	done_testing; exit 1
fi
make -C "$NP_BUILDDIR/lib" numaplan-topo-check >"$tmp/build.log" 2>&1 &&
	make -C "$NP_BUILDDIR/tests" fuzz/fuzz_shape >>"$tmp/build.log" 2>&1
rc=$?
check "fuzz/fuzz_shape builds with clang -fsanitize=fuzzer,address,undefined" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { sed 's/^/# /' "$tmp/build.log" | tail -20; done_testing; exit 1; }
fuzz=$NP_BUILDDIR/tests/fuzz/fuzz_shape

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS=suppressions=$NP_SRCDIR/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export NP_FUZZ_STATS=1
mkdir -p "$tmp/seed" "$tmp/work"
cp "$NP_SRCDIR"/tests/fuzz/corpus/* "$NP_SRCDIR"/tests/xml/shape-*.xml "$tmp/seed/"

# The crafted files once each: before the shape check, the first of them
# made the planner write past its package counts (ASan:
# heap-buffer-overflow in index_cells).
for f in "$NP_SRCDIR"/tests/xml/shape-*.xml; do
	"$fuzz" "$f" >"$tmp/one.log" 2>&1
	rc=$?
	check "$(basename "$f") through load, plans and formats: no sanitizer report (rc=$rc)" \
		eval '[ $rc -eq 0 ] && ! grep -q "ERROR: AddressSanitizer\|runtime error:" "$tmp/one.log"'
	[ $rc -eq 0 ] || grep -E "ERROR|SUMMARY|#[0-9] " "$tmp/one.log" | head -12 | sed 's/^/# /'
done

"$fuzz" -seed="$seed" -max_total_time="$time" -timeout=60 -rss_limit_mb=4096 -max_len=65536 \
	-dict="$NP_SRCDIR/tests/fuzz/hwloc-xml.dict" -artifact_prefix="$tmp/" -print_final_stats=1 \
	"$tmp/work" "$tmp/seed" >"$log" 2>&1
rc=$?
artifacts=$(cd "$tmp" && ls -d crash-* leak-* timeout-* oom-* 2>/dev/null | tr '\n' ' ')
check "structural fuzz for ${time}s (seed $seed): no crash, report, leak or timeout (rc=$rc) ${artifacts}" \
	eval '[ $rc -eq 0 ] && [ -z "$artifacts" ]'
if [ $rc -ne 0 ] || [ -n "$artifacts" ]; then
	grep -E "ERROR|SUMMARY|#[0-9]+ 0x" "$log" | head -20 | sed 's/^/# /'
	for a in $artifacts; do cp "$tmp/$a" "$NP_BUILDDIR/tests/fuzz/" && diag "kept $NP_BUILDDIR/tests/fuzz/$a"; done
fi
stats=$(grep '^fuzz_topo stats:' "$log" | tail -1)
diag "$stats (log: $log)"
read -r inputs loaded planned refused < <(sed -E 's/.*inputs ([0-9]+) loaded ([0-9]+) planned ([0-9]+) shape_refused ([0-9]+).*/\1 \2 \3 \4/' <<<"$stats")
check "the run reached the planner: inputs loaded ($loaded) and planned ($planned)" \
	eval '[ "${loaded:-0}" -gt 0 ] && [ "${planned:-0}" -gt 0 ]'
check "the mutator made shapes the loader refuses (${refused:-0} of ${inputs:-0} inputs)" \
	[ "${refused:-0}" -gt 0 ]
done_testing
