#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan run records the adapters and GPUs each rank held when it was
# placed (the kernels' placement records), and the report shows them
# against the plan.  This machine has no such device: the run is made in
# a mount namespace whose /dev holds a character device named
# /dev/dri/renderD128, which the shell running numaplan run holds open and
# every kernel it starts inherits, as a rank inherits what its launcher
# held; and a regular file named /dev/kfd, which is no device.  A device
# is its number, not its name (numaplan-audit(1), DEVICES): the node is
# 1,7 (/dev/full's number, which any kernel opens), and the namespace's
# /sys/dev/char says 1,7 is dri/renderD128.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"

run numaplan run stream --local --repeat 1 --size 100000 -o "$tmp/plain"
check "a stream run holding no device" [ "$RC" -eq 0 ]
check "... its kernels record that they hold none" \
	jqt '[.experiments[].runs[].placement[] | select(.thread == 0) | .devices] | all(. == [])' <"$tmp/plain/results.json"
check "... and its runs have no devices record" jqt '[.experiments[].runs[] | has("devices")] | any | not' <"$tmp/plain/results.json"
run numaplan report "$tmp/plain"
check "... nor does the report show a devices table" eval '! grep -q "^## Devices" <<<"$OUT"'

if [ "$(id -u)" -ne 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
	skip "needs root and a mount namespace for a /dev of its own"
	done_testing
	exit 0
fi
run unshare -m --propagation private bash -c '
	set -e
	mount -t tmpfs -o mode=0755 npdevchar /sys/dev/char
	mkdir /sys/dev/char/1:7
	printf "MAJOR=1\nMINOR=7\nDEVNAME=dri/renderD128\n" >/sys/dev/char/1:7/uevent
	mount -t tmpfs -o mode=0755 nprundev /dev
	for d in null:3 zero:5 random:8 urandom:9; do mknod -m 0666 /dev/${d%:*} c 1 ${d#*:}; done
	mkdir /dev/dri /dev/shm
	chmod 1777 /dev/shm
	mknod -m 0666 /dev/dri/renderD128 c 1 7
	: >/dev/kfd
	exec 5</dev/dri/renderD128 6</dev/kfd
	exec numaplan run stream --local --repeat 1 --size 100000 -o "$1"' run "$tmp/held"
check "a stream run holding renderD128" [ "$RC" -eq 0 ]
R=$tmp/held/results.json
check "results.json keeps its schema" schema_ok "$R"
check "every rank's placement record says it held drm:renderD128, and not the file named kfd" \
	jqt '[.experiments[].runs[].placement[] | select(.thread == 0) | .devices] | length > 0 and all(. == ["drm:renderD128"])' <"$R"
check "every run records it used, no GPU planned (stream plans none): not judged" \
	jqt '[.experiments[].runs[] | .devices[] | [.gpu_used, .gpu, .nic_used, .nic]] | length > 0 and
		all(. == ["renderD128", "-", "", "-"])' <"$R"
check "... with no device differences" jqt '[.experiments[].runs[].device_differences] | all(. == 0)' <"$R"
run numaplan report "$tmp/held"
check "the report shows the devices, planned against used" \
	eval 'grep -q "^## Devices: planned against used" <<<"$OUT" &&
		grep -qE "^\| stream\.[a-z0-9.]+ \| 1 \| [^|]+ \| 0 \| - / - \(-\) \| - / renderD128 \(-\) \|$" <<<"$OUT"'
done_testing
