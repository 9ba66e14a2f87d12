#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# numaplan run writes its files so that a directory someone else prepared
# cannot redirect them (issue 22, item 2): root once overwrote a root-owned
# file through a user's link in -o /tmp/dir.  The directory must be the
# user's own and writable by no one else unless sticky; no link is
# followed; a dangling link counts as a run already there; the default
# name cannot be guessed.  The checks that need another user run as root.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/run-lib.sh"
epyc=$(realpath "$EPYC")
dry() { numaplan run stream --dry-run --topology "$epyc" "$@"; }

run dry -o "$tmp/plain"
check "a new directory: exit 0, job.sh a regular file of mode 0755" \
	eval '[ "$RC" -eq 0 ] && [ -f "$tmp/plain/job.sh" ] && [ ! -L "$tmp/plain/job.sh" ] &&
	      [ "$(stat -c %a "$tmp/plain/job.sh")" = 755 ] && [ -s "$tmp/plain/experiments.json" ]'
check "... no temporary file left behind" eval '[ -z "$(ls -A "$tmp/plain" | grep "^\.")" ]'

# a link where the directory should be: refused, nothing made through it
mkdir "$tmp/elsewhere"
ln -s "$tmp/elsewhere" "$tmp/dirlink"
run dry -o "$tmp/dirlink"
check "-o a symbolic link to a directory: exit 2, refused as a link" \
	eval '[ "$RC" -eq 2 ] && grep -q "symbolic link" <<<"$ERR" && [ -z "$(ls -A "$tmp/elsewhere")" ]'
ln -s "$tmp/nowhere" "$tmp/dangling"
run dry -o "$tmp/dangling"
check "-o a dangling link: exit 2, nothing made where it points" eval '[ "$RC" -eq 2 ] && [ ! -e "$tmp/nowhere" ]'

# our own directory, writable by everyone, not sticky: refused
mkdir -m 0777 "$tmp/open"; chmod 0777 "$tmp/open"
run dry -o "$tmp/open"
check "a directory writable by others (0777): exit 2, nothing written" \
	eval '[ "$RC" -eq 2 ] && grep -q "writable by other users" <<<"$ERR" && [ -z "$(ls -A "$tmp/open")" ]'

# our own sticky directory: others may leave names in it, none is followed
mkdir "$tmp/sticky"; chmod 1777 "$tmp/sticky"
echo secret >"$tmp/victim"; chmod 0600 "$tmp/victim"
ln -s "$tmp/victim" "$tmp/sticky/experiments.json"
run dry -o "$tmp/sticky"
check "a sticky directory of ours with a planted link: the run is written" [ "$RC" -eq 0 ]
check "... the link was replaced, not followed: the file it named is unchanged" \
	eval '[ "$(cat "$tmp/victim")" = secret ] && [ "$(stat -c %a "$tmp/victim")" = 600 ] &&
	      [ -f "$tmp/sticky/experiments.json" ] && [ ! -L "$tmp/sticky/experiments.json" ]'
mkdir "$tmp/sticky2"; chmod 1777 "$tmp/sticky2"
ln -s "$tmp/elsewhere" "$tmp/sticky2/plans"
run dry -o "$tmp/sticky2"
check "a planted link named plans: exit 2, nothing written through it" \
	eval '[ "$RC" -eq 2 ] && [ -z "$(ls -A "$tmp/elsewhere")" ]'

# "already holds a run": a dangling link named job.sh counts
mkdir "$tmp/used"; ln -s "$tmp/victim-new" "$tmp/used/job.sh"
run dry -o "$tmp/used"
check "a dangling job.sh link: 'already holds a run', exit 2, nothing made" \
	eval '[ "$RC" -eq 2 ] && grep -q "already holds a run" <<<"$ERR" && [ ! -e "$tmp/victim-new" ] &&
	      [ ! -e "$tmp/used/experiments.json" ]'

# the default name: made here with a part nobody can guess
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && dry >/dev/null 2>&1 && dry >/dev/null 2>&1)
check "two runs in the same second: two directories numaplan-stream-STAMP-XXXXXX" \
	eval '[ "$(ls "$tmp/cwd" | grep -cE "^numaplan-stream-[0-9]{8}-[0-9]{6}-[A-Za-z0-9]{6}\$")" -eq 2 ]'
private() { # each default directory holds its job script, writable by its owner only
	local d
	for d in "$tmp"/cwd/*; do
		[ -f "$d/job.sh" ] && [ -z "$(find "$d" -maxdepth 0 -perm /022)" ] || return 1
	done
}
check "... each 0755 less the umask at most, with its job script" private

if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	# root and a user's directory in /tmp holding a link to root's file
	u=$(mktemp -d /tmp/np-user-out.XXXXXX); chmod 0755 "$u"; chown nobody "$u"
	echo "root only" >"$tmp/rootfile"; chmod 0600 "$tmp/rootfile"
	ln -s "$tmp/rootfile" "$u/experiments.json"; chown -h nobody "$u/experiments.json"
	run dry -o "$u"
	check "as root, -o a directory owned by another user: exit 2, refused saying so" \
		eval '[ "$RC" -eq 2 ] && grep -q "belongs to another user" <<<"$ERR"'
	check "... root's 0600 file behind the user's link is unchanged" \
		eval '[ "$(cat "$tmp/rootfile")" = "root only" ] && [ "$(stat -c %a "$tmp/rootfile")" = 600 ]'
	check "... and no root-owned file appeared in the user's directory" \
		eval '[ -z "$(find "$u" -mindepth 1 -user root)" ]'
	run numaplan run --collect "$u"
	check "as root, --collect in another user's directory: refused" eval '[ "$RC" -ne 0 ]'
	rm -rf "$u"
else
	skip "as root, a directory owned by another user (not root, or no user nobody)"
fi
done_testing
