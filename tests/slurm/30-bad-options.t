#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A bad --numa-plan value, a policy the site does not allow, and a request
# against an enforced policy: srun/sbatch fail before anything starts, with a
# message naming the value and the valid choices, and no task runs.
# help prints the policies and the site's settings and exits 0.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
dir=$(mktemp -d /tmp/numaplan-bad.XXXXXX); chmod 0755 "$dir"
trap 'plugstack_reset; rm -rf "$dir"' EXIT
marker=$dir/ran
POLICIES="none, compact, spread, numa, socket, l3, hca-near"

no_task() { [ ! -e "$marker" ]; }
refused() { # what, expected message regex
	check "$1: non-zero exit" [ "$RC" -ne 0 ]
	check "$1: message" grep -qE -- "$2" <<<"$ERR"
	check "$1: no task ran" no_task
	rm -f "$marker"
}

plugstack 'default=compact allow=none,compact,spread'

srun_ -N1 -n1 --numa-plan=bogus touch "$marker"
refused "srun unknown policy" "numaplan: invalid --numa-plan value 'bogus': unknown policy or modifier 'bogus'.*$POLICIES"
srun_ -N1 -n1 --numa-plan=compact,mem=fast touch "$marker"
refused "srun bad modifier" "invalid --numa-plan value 'compact,mem=fast': unknown memory mode or kind 'mem=fast'.*mem=bind.interleave.none"
srun_ -N1 -n1 --numa-plan=compact,spread touch "$marker"
refused "srun two policies" "a second policy 'spread'"
srun_ -N1 -n1 --numa-plan=numa touch "$marker"
refused "srun disallowed policy" "--numa-plan=numa refused: the policy 'numa' is not allowed on this cluster; valid: none, compact, spread"
srun_ -N1 -n1 --numa-plan=compact,mem=none,mem=interleave touch "$marker"
refused "srun mem= twice" "invalid --numa-plan value 'compact,mem=none,mem=interleave': the modifier 'mem=' is given twice"
srun_ -N1 -n1 --numa-plan=hca-near,hca=mlx5_0,hca=mlx5_1 touch "$marker"
refused "srun hca= twice" "the modifier 'hca=' is given twice"
srun_ -N1 -n1 --numa-plan=compact,verbose,verbose touch "$marker"
refused "srun verbose twice" "the modifier 'verbose' is given twice"
srun_ -N1 -n1 --numa-plan=hca-near,hca= touch "$marker"
refused "srun hca= empty: says so" "'hca=' is empty"
check "srun hca= empty: not 'no HCA on this node'" eval '! grep -q "no HCA" <<<"$ERR"'
SLURM_SPANK__SLURM_SPANK_OPTION_numaplan_numa_plan=socket srun_ -N1 -n1 touch "$marker"
refused "Slurm's SPANK environment variable, disallowed policy" "policy 'socket' is not allowed"

run timeout "$NP_SRUN_TIMEOUT" sbatch -N1 -n1 -o /dev/null --numa-plan=bogus --wrap "touch $marker"
refused "sbatch unknown policy" "invalid --numa-plan value 'bogus'"
check "sbatch submitted nothing" eval '! grep -q "Submitted batch job" <<<"$OUT"'
printf '#!/bin/bash\n#SBATCH -N1 -n1 -o /dev/null\n#SBATCH --numa-plan=l3\ntouch %s\n' "$marker" >"$dir/job.sh"
run timeout "$NP_SRUN_TIMEOUT" sbatch "$dir/job.sh"
refused "#SBATCH disallowed policy" "--numa-plan=l3 refused: .*valid: none, compact, spread"
run timeout "$NP_SRUN_TIMEOUT" salloc -N1 -n1 --numa-plan=hca-near touch "$marker"
refused "salloc disallowed policy" "policy 'hca-near' is not allowed"

plugstack 'default=hca-near enforce'
for v in compact none hca-near,mem=none hca-near,threads; do
	srun_ -N1 -n1 --numa-plan=$v touch "$marker"
	refused "enforced hca-near, srun --numa-plan=$v" "--numa-plan=$v refused: this cluster enforces the policy 'hca-near'.*valid: hca-near\[,verbose\]"
done
run timeout "$NP_SRUN_TIMEOUT" sbatch -N1 -n1 -o /dev/null --numa-plan=none --wrap "touch $marker"
refused "enforced, sbatch --numa-plan=none" "enforces the policy 'hca-near'"
srun_ -N1 -n1 --numa-plan=hca-near,verbose true
check "enforced: asking for the enforced policy with verbose is fine" [ "$RC" -eq 0 ]

srun_ -N1 -n1 --numa-plan=help touch "$marker"
check "help: exit 0" [ "$RC" -eq 0 ]
check "help: lists the policies" eval '(for p in none compact spread numa socket l3 hca-near; do grep -q "^  $p " <<<"$OUT" || exit 1; done)'
check "help: shows the site's settings" \
	eval 'grep -q "default policy *: hca-near" <<<"$OUT" && grep -q "enforced *: yes" <<<"$OUT"'
check "help: nothing ran" no_task
# the Slurm it runs in (22.05.8 of "slurm-wlm 22.05.8"), which it was built for
running=$(srun --version | awk '{ print $2 }')
np_version=$(sed -n 's/^AC_INIT(\[numaplan\], \[\([^]]*\)\].*/\1/p' "$NP_SRCDIR/configure.ac")
check "help: names its version and the Slurm it was built for ($running)" \
	grep -qxE "Plugin: numaplan $np_version( \(package [A-Za-z0-9.+~:_-]+\))?, built for Slurm $running" <<<"$OUT"
run timeout "$NP_SRUN_TIMEOUT" sbatch --numa-plan=help --wrap "touch $marker"
check "sbatch help: exit 0, no job" eval '[ "$RC" -eq 0 ] && ! grep -q "Submitted batch job" <<<"$OUT" && grep -q "hca-near" <<<"$OUT"'

# a broken site configuration: refused with the reason, nothing runs
plugstack 'default=compact bogus=1'
srun_ -N1 -n1 --numa-plan=compact touch "$marker"
refused "invalid plugstack.conf argument" "unknown argument 'bogus=1'"
# an argument given twice is a broken configuration too (not: the last wins)
plugstack 'on_error=fail on_error=warn'
srun_ -N1 -n1 --numa-plan=compact touch "$marker"
refused "plugstack.conf on_error= twice" "plugstack.conf: 'on_error' is given twice \('on_error=fail', then 'on_error=warn'\)"
srun_ -N1 -n1 numaplan-probe --json
check "on_error= twice, optional line: the plugin is off, tasks run unbound, warned" \
	eval '[ "$(pfield 0 .env.NUMAPLAN_POLICY)" = null ] && grep -q "warning: plugstack.conf: .on_error. is given twice" <<<"$ERR"'
# with a required line (as numaplan-spank(8) advises) no step runs at all
conf=$(dirname "$SLURM_CONF")/plugstack.conf
printf 'required %s default=compact on_error=fail on_error=warn\n' "$PLUGIN_SO" >"$conf.tmp" && mv "$conf.tmp" "$conf"
srun_ -N1 -n1 touch "$marker"
refused "required line, on_error= twice: srun refuses the step" "'on_error' is given twice"
run timeout "$NP_SRUN_TIMEOUT" sbatch --wait -N1 -n1 -o /dev/null --wrap "touch $marker"
refused "required line, on_error= twice: sbatch refuses the job" "'on_error' is given twice"
plugstack_reset

done_testing
