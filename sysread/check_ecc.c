/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_ecc.c - ecc: the error counts of each memory controller, as the
 * kernel's EDAC driver keeps them since boot.
 *
 *   ROOT/devices/system/edac/mc/mcN/ce_count   corrected errors
 *   ROOT/devices/system/edac/mc/mcN/ue_count   uncorrected errors
 *   ROOT/devices/system/edac/mc/mcN/mc_name    "Skylake Socket#0 IMC#0"
 *
 * An uncorrected error is a failure; corrected ones are a warning, a DIMM
 * that may fail next (a count that climbs between two checks is the sign).
 * Without EDAC (no driver for the platform, a guest) nothing is counted,
 * and that is recorded too: a node whose peers count and it does not is
 * one to look at.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/escape.h"
#include "sysread/check_kinds.h"

#define MC_DIR "devices/system/edac/mc"
#define MC_MAX 1024

/* A count file: 0, or the unknown finding added and -1. */
static int count(np_check_ctx_t *x, unsigned mc, const char *obj, const char *file, uint64_t *v)
{
	char rel[96], buf[32];
	int rc;

	snprintf(rel, sizeof(rel), MC_DIR "/mc%u/%s", mc, file);
	rc = np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf));
	if (rc == 0 && np_parse_u64(buf, 0, UINT64_MAX, v) == 0)
		return 0;
	np_check_unknown(x, NP_CHECK_ECC, obj, rel, rc, buf);
	return -1;
}

static void controller(np_check_ctx_t *x, unsigned mc)
{
	char obj[16], rel[96], name[64], safe[NP_ESCAPED_SIZE(64)], found[64], detail[256];
	uint64_t ce, ue;
	np_check_severity_t sev = NP_CHECK_INFO;
	const char *want = NULL;

	snprintf(obj, sizeof(obj), "mc%u", mc);
	if (count(x, mc, obj, "ce_count", &ce) < 0 || count(x, mc, obj, "ue_count", &ue) < 0)
		return;
	snprintf(rel, sizeof(rel), MC_DIR "/mc%u/mc_name", mc);
	if (np_kfile_line_at(x->rootfd, rel, 0, name, sizeof(name)) < 0)
		name[0] = '\0';
	snprintf(found, sizeof(found), "%llu corrected, %llu uncorrected", (unsigned long long)ce,
	         (unsigned long long)ue);
	if (ue) {
		sev = NP_CHECK_FAIL;
		want = "0 uncorrected";
	} else if (ce) {
		sev = NP_CHECK_WARN;
		want = "0 corrected";
	}
	snprintf(detail, sizeof(detail), "%s%s%s since boot (edac-util -v; ras-mc-ctl --error-count)",
	         name[0] ? np_escape(safe, sizeof(safe), name) : "", name[0] ? ": " : "",
	         sev == NP_CHECK_INFO ? "no error" : "errors");
	np_check_add(x, NP_CHECK_ECC, sev, obj, found, want, (double)ce, detail);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	return x < y ? -1 : x > y;
}

void np_check_ecc(np_check_ctx_t *x)
{
	DIR *d = np_kfile_opendir_at(x->rootfd, MC_DIR);
	unsigned *mcs, n = 0;
	struct dirent *e;

	if (!d) {
		np_check_add(x, NP_CHECK_ECC, NP_CHECK_INFO, "edac", "not present", NULL, NAN,
		             "no EDAC driver (" MC_DIR " missing): memory errors are not counted here");
		return;
	}
	if (!(mcs = malloc(MC_MAX * sizeof(*mcs)))) {
		closedir(d);
		x->oom = true;
		return;
	}
	while ((e = readdir(d)) && n < MC_MAX) {
		unsigned v;
		/* "mc0", not "mc00" */
		if (!strncmp(e->d_name, "mc", 2) && (e->d_name[2] != '0' || !e->d_name[3]) &&
		    np_parse_uint(e->d_name + 2, 0, MC_MAX - 1, &v) == 0)
			mcs[n++] = v;
	}
	closedir(d);
	qsort(mcs, n, sizeof(*mcs), cmp_uint);
	if (!n)
		np_check_add(x, NP_CHECK_ECC, NP_CHECK_INFO, "edac", "no memory controller", NULL, NAN,
		             "EDAC is loaded and lists no memory controller (" MC_DIR ")");
	for (unsigned i = 0; i < n && !x->oom; i++)
		controller(x, mcs[i]);
	free(mcs);
}
