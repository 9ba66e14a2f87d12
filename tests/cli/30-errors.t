#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every error: non-zero exit, a message that says what is wrong, nothing on stdout.
source "$(dirname "$0")/../tap.sh"
EPYC=$TOPO/amd-epyc7551-2s-nps4-8numa-mlx5.xml

expect_error() { # what, regex for stderr, command...
	local what=$1 re=$2; shift 2
	run "$@"
	if [ "$RC" -eq 2 ] && [ -z "$OUT" ] && grep -Eq -- "$re" <<<"$ERR"; then
		ok "$what"
	else
		notok "$what (rc=$RC stdout='${OUT:0:80}' stderr='${ERR:0:200}')"
	fi
}

expect_error "too many tasks: both numbers, exit 2" '65 tasks.*only 64' \
	numaplan plan --topology "$EPYC" -n 65 -p compact
expect_error "tasks x cpus-per-task over the cores" '17 tasks x 4 cpus.*68.*only 64' \
	numaplan plan --topology "$EPYC" -n 17 -c 4 -p spread
expect_error "unknown policy lists the valid ones" "unknown policy 'fastest'.*none, compact, spread, numa, socket, l3, hca-near" \
	numaplan plan --topology "$EPYC" -n 2 -p fastest
expect_error "unreadable XML names the file and the reason" "/no/such/file.xml.*No such file" \
	numaplan plan --topology /no/such/file.xml -n 2 -p compact
tmp=$(mktemp) || { echo "Bail out! cannot make a scratch file or directory"; exit 1; }; echo "not xml at all" >"$tmp"
expect_error "non-XML file named" "$tmp" numaplan plan --topology "$tmp" -n 2 -p compact
printf '<?xml version="1.0"?>\n<topology version="2.0"><object type="Machine"' >"$tmp"
expect_error "truncated hwloc XML named with hwloc's reason" "$tmp.*(hwloc|invalid)" \
	numaplan topo --topology "$tmp"
rm -f "$tmp"
expect_error "unknown format lists the valid ones" "unknown format 'yaml'.*table, json, ompi, ompi4, slurm, mpich, numactl" \
	numaplan plan --topology "$EPYC" -n 2 -p compact -f yaml
expect_error "garbage --ntasks" "--ntasks: '4x' is not a number" numaplan plan --topology "$EPYC" -n 4x -p compact
expect_error "zero --ntasks" "--ntasks: '0' is out of range" numaplan plan --topology "$EPYC" -n 0 -p compact
expect_error "missing --ntasks" "--ntasks N is required" numaplan plan --topology "$EPYC" -p compact
expect_error "bad --mem" "unknown --mem 'fast'" numaplan plan --topology "$EPYC" -n 1 -p compact --mem fast
expect_error "--hca not on the node" "HCA 'mlx5_7' is not on this node.*mlx5_0" \
	numaplan plan --topology "$EPYC" -n 1 -p hca-near --hca mlx5_7
expect_error "--no-fallback without an HCA" "no HCA" \
	numaplan plan --topology "$TOPO/amd-epyc7763-2s-milan-cpuonly-from-cpuid.xml" -n 1 -p hca-near --no-fallback
expect_error "bad --cpuset" "invalid CPU list '3-1'" numaplan plan --topology "$EPYC" --cpuset 3-1 -n 1 -p compact
expect_error "--cpuset outside the machine" "no CPU in the allowed set" numaplan plan --topology "$EPYC" --cpuset 900 -n 1 -p compact
expect_error "unknown option" "unknown option '--fast'" numaplan plan --fast -n 1 -p compact
expect_error "unknown command" "unknown command 'plna'" numaplan plna
# --hca: empty is empty, not "no HCA on this node"
expect_error "--hca '' says it is empty" "is empty" numaplan plan --topology "$EPYC" -n 1 -p hca-near --hca ''
check "--hca '': no 'no HCA' message" eval '! grep -q "no HCA" <<<"$ERR"'
for v in 'mlx5_0,' ',mlx5_0' 'mlx5_0,,mlx5_0'; do
	expect_error "--hca '$v': an empty name" "'$v'.*an empty name" \
		numaplan plan --topology "$EPYC" -n 1 -p hca-near --hca "$v"
done
# --hosts: only plain host names reach launcher lines (hydra's -hosts splits
# at ',' and ':' and has no quoting; the lines are run by a shell)
for h in 'a b' 'n1:4' '$(id)' 'a;b' "a'b" '-n1' $'a\nb' 'a*'; do
	label=${h//$'\n'/\\n}
	expect_error "--hosts '$label' refused, naming it" "--hosts: '.*' is not a host name" \
		numaplan plan --topology "$EPYC" -n 2 -p compact --hosts "n1,$h" -f mpich
done
expect_error "--hosts with an empty name" "--hosts: '' is not a host name" \
	numaplan plan --topology "$EPYC" -n 2 -p compact --hosts "n1,,n2" -f mpich
hosts=$(seq -f 'h%g' 1 1000 | paste -sd,)
expect_error "--format mpich: more hosts than hydra's -hosts takes" "at most 999 hosts, not 1000" \
	numaplan plan --topology "$EPYC" -n 1000 -p compact --hosts "$hosts" -f mpich
run numaplan plan --topology "$EPYC" -n 999 -p compact --overcommit --hosts "${hosts%,h1000}" -f mpich
check "--format mpich: 999 hosts are fine" eval '[ "$RC" -eq 0 ] && grep -q -- "-hosts h1:1,h2:1,.*,h999:1 " <<<"$OUT"'
# a HostName from the XML is held to the same rule in launcher formats
tmpx=$(mktemp)
sed 's|name="HostName" value="[^"]*"|name="HostName" value="x\&#10;touch /tmp/pwned;y"|' "$EPYC" >"$tmpx"
for f in ompi slurm mpich numactl table; do
	expect_error "XML HostName with a newline: --format $f refuses, escaped" \
		"host name 'x\\\\ntouch /tmp/pwned;y' cannot be written" \
		numaplan plan --topology "$tmpx" -n 2 -p compact -f $f
done
run numaplan plan --topology "$tmpx" -n 2 -p compact -f json
check "XML HostName with a newline: json (escaped by JSON) still works" \
	eval '[ "$RC" -eq 0 ] && [ "$(jq -r ".ranks[0].host" <<<"$OUT")" = $'"'"'x\ntouch /tmp/pwned;y'"'"' ]'
rm -f "$tmpx"
# control bytes in messages are escaped: one line, no raw ESC
run numaplan plan --topology "$EPYC" -n 1 -p hca-near --hca $'bo\ngus\e[31m'
check "a newline and ESC in --hca come back escaped on one line" \
	eval '[ "$RC" -eq 2 ] && [ "$(wc -l <<<"$ERR")" -eq 1 ] && grep -qF "'"'"'bo\ngus\x1b[31m'"'"'" <<<"$ERR"'
run numaplan $'plan\e[2J'
check "an unknown command is shown escaped" grep -qF "unknown command 'plan\x1b[2J'" <<<"$ERR"
run numaplan plan --topology $'/no/such\nfile' -n 1 -p compact
check "a file name with a newline is shown escaped" \
	eval '[ "$RC" -eq 2 ] && [ "$(wc -l <<<"$ERR")" -eq 1 ] && grep -qF "/no/such\nfile" <<<"$ERR"'

run numaplan plan --topology "$EPYC" -n 130 -p compact --overcommit -f json
check "--overcommit accepts more tasks than cores" test "$RC" -eq 0 -a "$(jq .overcommitted <<<"$OUT")" = true
# numaplan audit: what is not a job id never reaches Slurm
for j in 'abc' '12;id' '$(id)' '12_' '_3' '1.5' '1234567890123'; do
	expect_error "audit '$j': not a job id" "'.*' is not a job id" numaplan audit "$j"
done
expect_error "audit without a job" "which job\\? numaplan audit JOBID" numaplan audit
expect_error "audit with two jobs" "one job id only" numaplan audit 12 13
expect_error "audit --far-pct 200" "--far-pct: a percentage from 0 to 100" numaplan audit 12 --far-pct 200
expect_error "audit --collect outside the job" "--collect runs inside the job it audits" \
	env -u SLURM_JOB_ID numaplan audit --collect 12
done_testing
