/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_settings.c - settings: what a node is set to that its peers should
 * be set to alike.  Each is a value (NP_CHECK_INFO) for comparing nodes;
 * only a governor that differs between the CPUs of one node is a fault
 * here (a half-applied tuning).
 *
 *   smt       ROOT/devices/system/cpu/smt/control         "on", "off", ...
 *   thp       ROOT/kernel/mm/transparent_hugepage/enabled "always [madvise] never"
 *   governor  ROOT/devices/system/cpu/cpuN/cpufreq/scaling_governor, online CPUs
 *   boost     ROOT/devices/system/cpu/cpufreq/boost (acpi-cpufreq, amd-pstate)
 *             or ROOT/devices/system/cpu/intel_pstate/no_turbo (inverted)
 *   nps       the topology's NUMA nodes with CPUs per package (AMD's NPS,
 *             Intel's SNC): firmware settings the kernel shows no file of
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "sysread/check_kinds.h"

#define CPU_DIR "devices/system/cpu/"
#define GOV_MAX 8

static void setting(np_check_ctx_t *x, const char *obj, const char *found, double value, const char *detail)
{
	np_check_add(x, NP_CHECK_SETTINGS, NP_CHECK_INFO, obj, found, NULL, value, detail);
}

/* A word of lower-case letters, digits, '-' and '_': what these files
 * hold; anything else is a malformed file. */
static bool word(const char *s)
{
	return *s && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(s);
}

static void smt(np_check_ctx_t *x)
{
	static const char rel[] = CPU_DIR "smt/control";
	char buf[32];
	int rc = np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf));

	if (rc == 0 && word(buf))
		setting(x, "smt", buf, NAN, "lscpu: Thread(s) per core");
	else
		np_check_unknown(x, NP_CHECK_SETTINGS, "smt", rel, rc, buf);
}

/* "always [madvise] never": the bracketed word */
static void thp(np_check_ctx_t *x)
{
	static const char rel[] = "kernel/mm/transparent_hugepage/enabled";
	char buf[128], val[32];
	const char *a;
	int rc = np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf)), n = 0;

	if (rc == 0 && (a = strchr(buf, '[')) && sscanf(a, "[%31[a-z]]%n", val, &n) == 1 && n > 0 &&
	    !strchr(a + n, '['))
		setting(x, "thp", val, NAN, "cat /sys/kernel/mm/transparent_hugepage/enabled");
	else
		np_check_unknown(x, NP_CHECK_SETTINGS, "thp", rel, rc, buf);
}

typedef struct gov {
	char name[32];
	np_cpuset_t *cpus;
} gov_t;

static void governor(np_check_ctx_t *x)
{
	gov_t g[GOV_MAX] = { 0 };
	np_cpuset_t *online = np_cpuset_new();
	unsigned ng = 0, nfound = 0, i;
	char buf[4096], rel[96];
	int cpu, rc;
	np_sb_t b;

	if (!online) {
		x->oom = true;
		return;
	}
	if (np_kfile_line_at(x->rootfd, CPU_DIR "online", 0, buf, sizeof(buf)) < 0 || np_cpuset_parse(online, buf) < 0) {
		np_cpuset_free(online);
		return;         /* cpu-offline has said why */
	}
	for (cpu = np_cpuset_first(online); cpu >= 0; cpu = np_cpuset_next(online, cpu)) {
		snprintf(rel, sizeof(rel), CPU_DIR "cpu%d/cpufreq/scaling_governor", cpu);
		rc = np_kfile_line_at(x->rootfd, rel, 0, buf, sizeof(buf));
		if (rc == -ENOENT)
			continue;
		if (rc < 0 || !word(buf) || strlen(buf) >= sizeof(g[0].name)) {
			np_check_unknown(x, NP_CHECK_SETTINGS, "governor", rel, rc, buf);
			goto out;
		}
		nfound++;
		for (i = 0; i < ng && strcmp(g[i].name, buf); i++)
			;
		if (i == ng && ng == GOV_MAX)
			continue;
		if (i == ng) {
			np_strcut(g[ng].name, sizeof(g[ng].name), buf);
			if (!(g[ng++].cpus = np_cpuset_new())) {
				x->oom = true;
				goto out;
			}
		}
		if (np_cpuset_set(g[i].cpus, (unsigned)cpu) < 0) {
			x->oom = true;
			goto out;
		}
	}
	if (!nfound) {
		setting(x, "governor", "none", NAN, "no cpufreq driver: the firmware or the hypervisor sets the "
		        "frequency (cpupower frequency-info)");
		goto out;
	}
	if (ng == 1) {
		setting(x, "governor", g[0].name, NAN, "cpupower frequency-info");
		goto out;
	}
	np_sb_init(&b);
	for (i = 0; i < ng; i++) {
		char *l = np_cpuset_format(g[i].cpus);
		np_sb_printf(&b, "%s%s on %s", i ? ", " : "", g[i].name, l ? l : "?");
		free(l);
	}
	if (b.oom) {
		x->oom = true;
	} else {
		snprintf(buf, sizeof(buf), "%s", b.s);
		np_check_add(x, NP_CHECK_SETTINGS, NP_CHECK_WARN, "governor", buf, "one governor on every CPU", NAN,
		             "the CPUs of the node run different frequency governors (cpupower -c all "
		             "frequency-info)");
	}
	np_sb_free(&b);
out:
	for (i = 0; i < ng; i++)
		np_cpuset_free(g[i].cpus);
	np_cpuset_free(online);
}

static void boost(np_check_ctx_t *x)
{
	static const char gen[] = CPU_DIR "cpufreq/boost", intel[] = CPU_DIR "intel_pstate/no_turbo";
	char buf[16];
	int rc = np_kfile_line_at(x->rootfd, gen, 0, buf, sizeof(buf));
	const char *rel = gen;
	bool inverted = false;

	if (rc == -ENOENT) {
		rel = intel;
		inverted = true;
		rc = np_kfile_line_at(x->rootfd, intel, 0, buf, sizeof(buf));
	}
	if (rc == -ENOENT)
		setting(x, "boost", "none", NAN, "neither cpufreq/boost nor intel_pstate/no_turbo: no control");
	else if (rc == 0 && (!strcmp(buf, "0") || !strcmp(buf, "1")))
		setting(x, "boost", (buf[0] == '1') != inverted ? "on" : "off", NAN, rel);
	else
		np_check_unknown(x, NP_CHECK_SETTINGS, "boost", rel, rc, buf);
}

/* NUMA nodes with CPUs in each package, as the firmware's NPS or SNC
 * setting made them. */
static void nps(np_check_ctx_t *x)
{
	const np_topo_t *t = x->t;
	const char *m = t->cpu_model ? t->cpu_model : "";
	unsigned first = 0, differ = 0, p;
	char found[64], detail[160];

	if (!t->npackages)
		return;
	for (p = 0; p < t->npackages; p++) {
		unsigned n = 0;
		for (unsigned i = 0; i < t->nnuma; i++)
			n += t->numa[i].package == (int)p && !np_cpuset_iszero(t->numa[i].cpus);
		if (p == 0)
			first = n;
		else if (n != first)
			differ = 1;
	}
	snprintf(detail, sizeof(detail), "NUMA nodes with CPUs per package, %u package(s) (numactl -H)",
	         t->npackages);
	if (differ)
		snprintf(found, sizeof(found), "packages differ");
	else if (!first)
		snprintf(found, sizeof(found), "no NUMA node inside a package");
	else if (strstr(m, "AMD"))
		snprintf(found, sizeof(found), "NPS%u", first);
	else if (strstr(m, "Intel") && first == 1)
		snprintf(found, sizeof(found), "SNC off");
	else if (strstr(m, "Intel"))
		snprintf(found, sizeof(found), "SNC%u", first);
	else
		snprintf(found, sizeof(found), "%u per package", first);
	if (differ)
		np_check_add(x, NP_CHECK_SETTINGS, NP_CHECK_WARN, "nps", found, "the same on every package", NAN, detail);
	else
		setting(x, "nps", found, first, detail);
}

void np_check_settings(np_check_ctx_t *x)
{
	smt(x);
	thp(x);
	governor(x);
	boost(x);
	if (x->t)
		nps(x);
}
