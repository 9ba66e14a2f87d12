/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_cpus.c - cpu-offline: CPUs the machine has that are not online.
 *
 *   ROOT/devices/system/cpu/present   "0-127" (else possible)
 *   ROOT/devices/system/cpu/online    "0-125"
 *   ROOT/devices/system/cpu/smt/control  "off" when SMT is switched off
 *
 * Present, not possible: possible counts the hotplug slots firmware
 * declares (a guest's maxcpus, spare sockets), which hold no CPU.  With
 * SMT off, the sibling threads are offline by design: as many offline
 * CPUs as one, three or seven per online one are what SMT off leaves, and
 * the settings finding "smt" records the choice for comparing nodes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sysread/check_kinds.h"

#define CPU_DIR "devices/system/cpu/"

/* A cpulist file into s: 0, or the unknown finding added and -1. */
static int read_list(np_check_ctx_t *x, const char *rel, np_cpuset_t *s, bool report)
{
	char buf[4096];
	int rc = np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf));

	if (rc == 0 && np_cpuset_parse(s, buf) == 0 && !np_cpuset_iszero(s))
		return 0;
	if (report)
		np_check_unknown(x, NP_CHECK_CPU_OFFLINE, "CPUs", rel, rc, buf);
	return -1;
}

static bool smt_off(np_check_ctx_t *x)
{
	char buf[32];

	return np_kfile_line_at(x->rootfd, CPU_DIR "smt/control", 0, buf, sizeof(buf)) == 0 &&
	       (!strcmp(buf, "off") || !strcmp(buf, "forceoff"));
}

void np_check_cpus(np_check_ctx_t *x)
{
	np_cpuset_t *present = np_cpuset_new(), *online = np_cpuset_new();
	char obj[4096 + 8], detail[256];
	unsigned noff, non;
	char *list = NULL;

	if (!present || !online) {
		x->oom = true;
		goto out;
	}
	if (read_list(x, CPU_DIR "present", present, false) < 0 &&
	    read_list(x, CPU_DIR "possible", present, true) < 0)
		goto out;
	if (read_list(x, CPU_DIR "online", online, true) < 0)
		goto out;
	if (np_cpuset_andnot(present, online) < 0) {
		x->oom = true;
		goto out;
	}
	if (!(noff = np_cpuset_count(present)))
		goto out;
	non = np_cpuset_count(online);
	if (!(list = np_cpuset_format(present))) {
		x->oom = true;
		goto out;
	}
	snprintf(obj, sizeof(obj), "CPU%s %s", noff > 1 ? "s" : "", list);
	if (smt_off(x) && noff % non == 0 && (noff / non == 1 || noff / non == 3 || noff / non == 7)) {
		snprintf(detail, sizeof(detail), "%u offline, as SMT off leaves %u thread(s) of each core "
		         "(smt/control)", noff, noff / non);
		np_check_add(x, NP_CHECK_CPU_OFFLINE, NP_CHECK_INFO, obj, "offline", NULL, noff, detail);
	} else {
		snprintf(detail, sizeof(detail), "%u of %u present CPUs offline (lscpu; %sonline)", noff,
		         noff + non, CPU_DIR);
		np_check_add(x, NP_CHECK_CPU_OFFLINE, NP_CHECK_FAIL, obj, "offline", "online", noff, detail);
	}
out:
	free(list);
	np_cpuset_free(present);
	np_cpuset_free(online);
}
