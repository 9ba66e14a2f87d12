#!/bin/bash
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
tmp=$(mktemp); echo "not xml at all" >"$tmp"
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
expect_error "unknown option" "unknown or incomplete option '--fast'" numaplan plan --fast -n 1 -p compact
expect_error "unknown command" "unknown command 'plna'" numaplan plna
run numaplan plan --topology "$EPYC" -n 130 -p compact --overcommit -f json
check "--overcommit accepts more tasks than cores" test "$RC" -eq 0 -a "$(jq .overcommitted <<<"$OUT")" = true
done_testing
