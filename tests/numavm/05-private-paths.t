#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A tree under a path the guest covers with its own tmpfs (/tmp here; a
# checkout in /root is the same case) is still seen in the guest: numavm
# keeps the directory it was booted from, as it keeps a source tree or
# NP_BUILDDIR there.  The guest reads the host's file there, cannot write
# to it (the host's root is read-only in the guest), and its own /tmp is
# still a writable tmpfs that does not show the host's other files.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/check-lib.sh"
need_numavm
NUMAVM="$NP_SRCDIR/contrib/numavm/numavm"

dir=$(mktemp -d /tmp/numavm-keep.XXXXXX)
other=$(mktemp /tmp/numavm-other.XXXXXX)
trap 'rm -rf "$dir" "$other"' EXIT
token=$RANDOM$RANDOM
echo "$token" >"$dir/marker"

guest='cat marker; echo ro=$(touch marker 2>/dev/null && echo no || echo yes);
echo other=$(test -e '"$other"' && echo seen || echo hidden);
echo tmp=$(mktemp /tmp/x.XXXXXX >/dev/null && echo writable)'
run bash -c 'cd "$1" && timeout 600 "$2" run --shape 2s1n --no-slurm -c "$3"' _ "$dir" "$NUMAVM" "$guest"
check "numavm run from $dir (under /tmp): exit 0" [ "$RC" -eq 0 ] || diag "$ERR"
read_back=$(sed -n 1p <<<"$OUT")
check "the guest reads the host's file in the directory it was booted from" [ "$read_back" = "$token" ]
check "the kept directory is read-only in the guest (the file is there, touch fails)" \
	eval '[ "$read_back" = "$token" ] && grep -qx "ro=yes" <<<"$OUT"'
check "the rest of /tmp is the guest's own: another host file there is not seen" grep -qx "other=hidden" <<<"$OUT"
check "the guest's /tmp is writable" grep -qx "tmp=writable" <<<"$OUT"
check "the host's file is unchanged" [ "$(cat "$dir/marker")" = "$token" ]
done_testing
