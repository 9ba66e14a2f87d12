#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Load: 200 sequential and 20 concurrent steps (--overlap, one allocation)
# with the plugin binding every task; no step may fail, every task must be
# bound as planned.  Also checks the nodes are healthy afterwards.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
dir=$(mktemp -d /tmp/numaplan-load.XXXXXX); chmod 0755 "$dir"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
plugstack ''
: "${NP_LOAD_SEQ:=200}" "${NP_LOAD_PAR:=20}"

# Each step's tasks check their own binding: the affinity the kernel
# reports equals NUMAPLAN_CPUS, and exit non-zero otherwise.
cat >"$dir/check.sh" <<'EOF'
#!/bin/bash
aff=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
[ "$NUMAPLAN_POLICY" = compact ] && [ -n "$NUMAPLAN_CPUS" ] && [ "$aff" = "$NUMAPLAN_CPUS" ]
EOF
chmod 0755 "$dir/check.sh"

cat >"$dir/seq.sh" <<EOF
#!/bin/bash
fail=0
for i in \$(seq 1 $NP_LOAD_SEQ); do
	srun -n2 --numa-plan=compact $dir/check.sh || fail=\$((fail + 1))
done
echo "sequential failures: \$fail"
EOF
run timeout 900 salloc -N1 -n2 bash "$dir/seq.sh"
check "$NP_LOAD_SEQ sequential steps: salloc exits 0" [ "$RC" -eq 0 ]
check "$NP_LOAD_SEQ sequential steps: none failed" grep -q "^sequential failures: 0$" <<<"$OUT"

cat >"$dir/par.sh" <<EOF
#!/bin/bash
pids=()
for i in \$(seq 1 $NP_LOAD_PAR); do
	srun --overlap -n1 --numa-plan=compact numaplan-probe --json >$dir/par.\$i 2>$dir/par.\$i.err &
	pids+=(\$!)
done
fail=0
for p in "\${pids[@]}"; do wait "\$p" || fail=\$((fail + 1)); done
echo "concurrent failures: \$fail"
EOF
run timeout 900 salloc -N1 -n2 bash "$dir/par.sh"
check "$NP_LOAD_PAR concurrent steps: none failed" grep -q "^concurrent failures: 0$" <<<"$OUT"
bound=$(cat "$dir"/par.[0-9]* 2>/dev/null | grep '^{' | jq -r 'select(.env.NUMAPLAN_POLICY == "compact" and .cpus == .env.NUMAPLAN_CPUS) | .rank' | wc -l)
check "$NP_LOAD_PAR concurrent steps: every task bound as planned ($bound)" [ "$bound" -eq "$NP_LOAD_PAR" ]
check "the nodes are healthy afterwards" nodes_alive

done_testing
