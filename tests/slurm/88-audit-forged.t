#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan audit against a job owner who means to fool it (issue "An
# audit a job's owner cannot fool", items 3 to 5), each case a task of
# the job doing what the issue says a user did:
#   a forger     writes a record of its node and a bare "{" into the
#                collector's standard output (/proc/PID/fd/1): the audit
#                said "0 task(s) ... 0 deviation(s)", exit 0; it must
#                fail, exit 2, and print nothing of the audit
#   a stopper    SIGSTOPs the collector on its own node: the audit waited
#                forever; it must end after --timeout, name that node
#                (and only it) as not answering, exit 2, and leave no
#                collector behind
#   a liar       re-binds itself and execs with SLURM_PROCID and
#                NUMAPLAN_GPUS rewritten to a terminal title sequence,
#                DEL, a C1 control, a letter past ASCII and a newline
#                followed by a forged "(match)" line (item 1): its rank
#                and plan must be the plugin's record, the rewrite an
#                env-changed deviation shown escaped on its own line, and
#                --json in ASCII that reads back as it was
#   nobody       (a job of the user nobody) tries to open the collector's
#                output: refused, the collector is not dumpable
# Each expectation follows from the rule (numaplan-audit(1), DESCRIPTION,
# OUTPUT, SECURITY), not from an earlier run's output.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/slurm-lib.sh"
need_vcluster
need_tool taskset
need_tool pgrep
[ "$(sinfo -h -N -o %N | sort -u | wc -l)" -ge 2 ] || skip_all "needs a 2-node vcluster"
read -r -a pus <<<"$(machine_pus)"
[ ${#pus[@]} -ge 2 ] || skip_all "needs 2 PUs"
mapfile -t nodes < <(sinfo -h -N -o %N | sort -u)
plugstack ''

tmp=$(mktemp -d /tmp/np-audit-forged.XXXXXX) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }
chmod 0755 "$tmp"
jobs=
cleanup() { scancel --quiet $jobs 2>/dev/null; rm -rf "$tmp"; plugstack_reset; }
trap cleanup EXIT

# collectors PID...: the pids of this node's numaplan audit --collect
# processes (every node of the vcluster sees every node's processes: the
# node is the one its environment says)
cat >"$tmp/collectors.sh" <<'EOF'
collectors() {
	local p
	for p in $(pgrep -x numaplan); do
		tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | grep -q -- ' --collect ' || continue
		tr '\0' '\n' </proc/$p/environ 2>/dev/null | grep -qx "SLURMD_NODENAME=$SLURMD_NODENAME" || continue
		echo "$p"
	done
}
EOF

# ---- a forger: a record of its node, then a bare "{", into each
# collector's standard output (a collector's once), for 300 s
cat >"$tmp/forger.sh" <<EOF
#!/bin/bash
source $tmp/collectors.sh
rec='{"node":"'"\$SLURMD_NODENAME"'","numa":{},"processes":[],"errors":[],"unreported":0,"ports":[]}'
done_=
for i in \$(seq 15000); do
	for p in \$(collectors); do
		case " \$done_ " in *" \$p "*) continue;; esac
		printf '%s\n{' "\$rec" 2>/dev/null >/proc/\$p/fd/1 && done_="\$done_ \$p" && echo "\$p" >>$tmp/forged.\$SLURMD_NODENAME
	done
	sleep 0.02
done
EOF
chmod 0755 "$tmp/forger.sh"
job=$(sbatch --parsable -N2 --ntasks-per-node=1 -o /dev/null --wrap "srun $tmp/forger.sh")
jobs="$jobs $job"
check "the forger's job is submitted" [ -n "$job" ]
for i in $(seq 60); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 1; done
# the forgers must see the collectors while they run (2 s, --traffic):
# on a loaded machine a collector may be over before its forger looked,
# so the audit is made again until both forgers wrote, what this is about
for i in $(seq 5); do
	rm -f "$tmp"/forged.*
	run numaplan audit "$job" --traffic 2
	[ "$(cat "$tmp"/forged.* 2>/dev/null | wc -l)" -ge 2 ] && break
done
check "the forgers wrote into both nodes' collectors" [ "$(cat "$tmp"/forged.* 2>/dev/null | wc -l)" -ge 2 ]
check "a forged record and a bare '{': exit 2, not 0" [ "$RC" -eq 2 ]
check "... each node's output is said not to be one record" \
	eval '[ "$(grep -cE "task [01] of the audit step: its output is not one node.s record" <<<"$ERR")" -eq 2 ]'
check "... the job is said not audited" grep -q "job $job was not audited" <<<"$ERR"
check "... and nothing of an audit is printed (no '0 task(s) ... 0 deviation(s)')" [ -z "$OUT" ]
run numaplan audit "$job" --traffic 2 --json
check "--json: exit 2, no JSON" eval '[ "$RC" -eq 2 ] && [ -z "$OUT" ]'
scancel "$job"

# ---- a stopper: SIGSTOP to its own node's collector
cat >"$tmp/stopper.sh" <<EOF
#!/bin/bash
source $tmp/collectors.sh
echo "\$SLURMD_NODENAME" >$tmp/stopper.node
for i in \$(seq 15000); do
	for p in \$(collectors); do kill -STOP \$p 2>/dev/null && echo "\$p" >>$tmp/stopped; done
	sleep 0.02
done
EOF
chmod 0755 "$tmp/stopper.sh"
rm -f "$tmp/stopper.node" "$tmp/stopped"
job=$(sbatch --parsable -N2 --ntasks-per-node=1 -o /dev/null --wrap "srun -N1 -n1 $tmp/stopper.sh")
jobs="$jobs $job"
for i in $(seq 60); do [ -s "$tmp/stopper.node" ] && break; sleep 1; done
stopped_node=$(cat "$tmp/stopper.node" 2>/dev/null)
other=$(printf '%s\n' "${nodes[@]}" | grep -vx "$stopped_node" | head -1)
check "the stopper runs on one node ($stopped_node), the other is $other" \
	eval '[ -n "$stopped_node" ] && [ -n "$other" ]'
# the collector counts traffic for 2 s, time for the stopper to find
# it; the limit is --timeout's 3 s beyond those 2 (numaplan-audit(1))
for i in $(seq 5); do
	rm -f "$tmp/stopped"
	t0=$SECONDS
	run numaplan audit "$job" --timeout 3 --traffic 2
	took=$((SECONDS - t0))
	[ -s "$tmp/stopped" ] && break
done
check "the stopper stopped its node's collector" [ -s "$tmp/stopped" ]
check "a stopped collector: exit 2" [ "$RC" -eq 2 ]
# 5 s, then at most the 15 s srun has to end the step
check "... after the time limit, not forever (${took} s, at most 5 + 15 + 10)" [ "$took" -le 30 ]
check "... names $stopped_node as not answering within 5 s" \
	grep -qx "numaplan audit: node $stopped_node did not answer within 5 s" <<<"$ERR"
check "... and only it" eval '! grep -q "node $other " <<<"$ERR"'
check "... prints nothing of an audit" [ -z "$OUT" ]
gone=no
for i in $(seq 30); do
	left=
	for p in $(cat "$tmp/stopped" 2>/dev/null); do [ -d /proc/$p ] && left="$left $p"; done
	[ -s "$tmp/stopped" ] && [ -z "$left" ] && ! squeue -h -s -j "$job" -o %j | grep -qx numaplan && {
		gone=yes
		break
	}
	sleep 1
done
check "... and the audit step is gone, the stopped collector with it" [ $gone = yes ]
scancel "$job"

# ---- a liar: rank 1 re-binds itself (a row of the table), then execs
# with SLURM_PROCID and NUMAPLAN_GPUS rewritten to control bytes and a
# forged line.  Its rank and plan are the plugin's record of the task,
# not what it says; what it wrote is shown, escaped, as what it changed.
cat >"$tmp/liar.sh" <<EOF
#!/bin/bash
mine=\$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
other=\$(( mine == ${pus[0]} ? ${pus[1]} : ${pus[0]} ))
[ "\$SLURM_PROCID" = 1 ] || exec sleep 300
evil=\$(printf '1\033]0;owned\007\177\302\205\303\251\n  %s step 0 rank 0: nic planned mlx5_0:1, open mlx5_0 (match); gpu planned -, open none (-)' "\$SLURMD_NODENAME")
printf '%s' "\$evil" >$tmp/evil
echo "\$SLURMD_NODENAME" >$tmp/liar.node
taskset -pc \$other \$\$ >/dev/null
exec env SLURM_PROCID="\$evil" NUMAPLAN_GPUS="\$evil" sleep 300
EOF
chmod 0755 "$tmp/liar.sh"
rm -f "$tmp/evil"
job=$(sbatch --parsable -N1 -n2 -o /dev/null --wrap "srun -n2 --numa-plan=compact $tmp/liar.sh")
jobs="$jobs $job"
for i in $(seq 60); do
	run numaplan audit "$job" --traffic 0
	[ -s "$tmp/evil" ] && grep -q "; 2 deviation(s)" <<<"$OUT" && break
	sleep 1
done
evil=$(cat "$tmp/evil" 2>/dev/null)
lnode=$(cat "$tmp/liar.node" 2>/dev/null)
check "the liar is audited: 2 deviations (re-bound, its environment changed), exit 1" \
	eval '[ "$RC" -eq 1 ] && [ -n "$evil" ] && grep -q "; 2 deviation(s)" <<<"$OUT"'
check "its rank is the plugin's record of it, 1, not the one it named" \
	eval 'grep -E " re-bound " <<<"$OUT" | grep -qE "^ *$lnode +[0-9]+ +1 "'
# printable ASCII and newlines only: no ESC, BEL, DEL, C1 or other byte
check "text: every byte printable ASCII" eval '[ -z "$(LC_ALL=C tr -d "\n\040-\176" <<<"$OUT")" ]'
forged="  $lnode step 0 rank 0: nic planned mlx5_0:1, open mlx5_0 (match); gpu planned -, open none (-)"
check "text: the forged '(match)' line is not a line of its own" eval '! grep -qxF "$forged" <<<"$OUT"'
# np_escape: \xHH for each control and byte past ASCII, \n for the newline
esc='NUMAPLAN_GPUS=1\x1b]0;owned\x07\x7f\xc2\x85\xc3\xa9\n  '"$lnode"' step 0 rank 0: nic planned'
check "text: what it wrote into NUMAPLAN_GPUS, escaped, in its env-changed row" \
	eval 'grep -E " env-changed " <<<"$OUT" | grep -qF "$esc"'
check "text: no GPU is planned for it: the record has none, whatever it named" \
	eval '! grep -q "gpu planned 0000" <<<"$OUT"'
run numaplan audit "$job" --traffic 0 --json
check "--json: every byte printable ASCII" eval '[ "$RC" -eq 1 ] && [ -z "$(LC_ALL=C tr -d "\n\040-\176" <<<"$OUT")" ]'
ujson='\u001b]0;owned\u0007\u007f\u0085\u00e9'
check "--json: ESC, BEL, DEL, the C1 control and the letter as \\u escapes" grep -qiF "$ujson" <<<"$OUT"
check "--json: what it wrote reads back, as found of its env-changed deviation of rank 1" \
	eval 'jq -e --arg r "NUMAPLAN_GPUS=$evil" "[.deviations[] | select(.found == \$r and .kind == \"env-changed\" and .rank == \"1\")] | length == 1" <<<"$OUT" >/dev/null'
scancel "$job"

# ---- nobody's job: its task cannot open the collector's output
if id nobody >/dev/null 2>&1 && command -v runuser >/dev/null; then
	# (its own collector, by name: once it is not dumpable, nobody reads
	# its environment)
	cat >"$tmp/opener.sh" <<EOF
#!/bin/bash
for i in \$(seq 15000); do
	for p in \$(pgrep -x -u nobody numaplan); do
		if : 2>/dev/null >>/proc/\$p/fd/1; then echo "\$p" >>$tmp/opened; else echo "\$p" >>$tmp/refused; fi
	done
	sleep 0.02
done
EOF
	chmod 0755 "$tmp/opener.sh"
	rm -f "$tmp/opened" "$tmp/refused"
	: >"$tmp/opened"; : >"$tmp/refused"; chmod 0666 "$tmp/opened" "$tmp/refused"
	job=$(runuser -u nobody -- env PATH="$PATH" SLURM_CONF="$SLURM_CONF" sbatch --parsable -N1 -n1 -o /dev/null \
		--chdir=/tmp --wrap "srun $tmp/opener.sh")
	jobs="$jobs $job"
	for i in $(seq 60); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 1; done
	sleep 1
	run numaplan audit "$job" --traffic 2
	check "nobody's task is refused the collector's output (the collector is not dumpable)" [ -s "$tmp/refused" ]
	# (in the moment before the collector's prctl it may get in: said)
	[ -s "$tmp/opened" ] && diag "opened before the collector's prctl: $(sort -u "$tmp/opened" | wc -l) time(s)"
	check "... and the audit, into which it wrote nothing, is a clean one (the task counted)" \
		eval '[ "$RC" -le 1 ] && grep -q " 1 task(s)" <<<"$OUT"'
	scancel "$job"
fi
wait_idle
done_testing
