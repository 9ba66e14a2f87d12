#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Spack recipe, without Spack (spack-check.py: stand-in spack modules):
# the recipe in the sources, and the one `make spack-recipe` writes for the
# tarball, whose version and sha256 must be the tarball's.
source "$(dirname "$0")/../tap.sh"
source "$(dirname "$0")/pkg-lib.sh"
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit 0; }

sc="$NP_SRCDIR/tests/pkg/spack-check.py"
conf=(--configure-ac "$NP_SRCDIR/configure.ac" --configure "$NP_SRCDIR/configure")
# prefix each TAP description with which recipe it is about
tap_of() { # label command...
	local label=$1; shift
	"$@" | sed -E "s/^(not )?ok [0-9]+ - /&$label: /" | grep -E '^(not )?ok |^#'
	return "${PIPESTATUS[0]}"
}
renumber() { awk '/^(not )?ok [0-9]+/ { sub(/ok [0-9]+/, "ok " ++n) } { print }'; }

out=$({
	tap_of source python3 "$sc" --recipe "$NP_SRCDIR/contrib/spack/package.py" "${conf[@]}"
	if need_tarball; then
		repo=$NP_BUILDDIR/spack-repo/spack_repo/numaplan_local
		if make -C "$NP_BUILDDIR" spack-recipe >"$PKGDIR/spack-recipe.log" 2>&1 &&
		   [ -f "$repo/packages/numaplan/package.py" ]; then
			echo "ok 1 - make spack-recipe writes $repo/packages/numaplan/package.py"
			grep -q '^ *namespace: numaplan_local' "$repo/repo.yaml" && grep -q '^ *api: v2' "$repo/repo.yaml" &&
				echo "ok 1 - its repo.yaml: namespace numaplan_local, package API v2" ||
				echo "not ok 1 - its repo.yaml: namespace numaplan_local, package API v2"
			tap_of "make spack-recipe" python3 "$sc" --recipe "$repo/packages/numaplan/package.py" \
				"${conf[@]}" --tarball "$TARBALL"
		else
			echo "not ok 1 - make spack-recipe (see $PKGDIR/spack-recipe.log)"
		fi
	else
		echo "not ok 1 - no tarball: make dist failed (see $PKGDIR/dist.log)"
	fi
} | renumber)
echo "$out"
echo "1..$(grep -cE '^(not )?ok ' <<<"$out")"
! grep -q '^not ok' <<<"$out"
