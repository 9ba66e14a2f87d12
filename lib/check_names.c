/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * check_names.c - the names of numaplan check's kinds and severities, as
 * its output, results.json and acceptance specs write them.
 */
#include <errno.h>
#include <string.h>

#include <numaplan/check.h>

static const char *const kinds[NP_CHECK_KIND_COUNT] = {
	[NP_CHECK_PCIE_LINK] = "pcie-link",
	[NP_CHECK_MEMORY_BALANCE] = "memory-balance",
	[NP_CHECK_CPU_OFFLINE] = "cpu-offline",
	[NP_CHECK_PORT_RATE] = "port-rate",
	[NP_CHECK_ECC] = "ecc",
	[NP_CHECK_SETTINGS] = "settings",
};

static const char *const severities[NP_CHECK_SEVERITY_COUNT] = {
	[NP_CHECK_INFO] = "info",
	[NP_CHECK_UNKNOWN] = "unknown",
	[NP_CHECK_WARN] = "warn",
	[NP_CHECK_FAIL] = "fail",
};

const char *np_check_kind_name(np_check_kind_t k)
{
	return (unsigned)k < NP_CHECK_KIND_COUNT ? kinds[k] : "?";
}

int np_check_kind_parse(const char *name, np_check_kind_t *out)
{
	for (unsigned k = 0; name && k < NP_CHECK_KIND_COUNT; k++)
		if (!strcmp(name, kinds[k])) {
			*out = (np_check_kind_t)k;
			return 0;
		}
	return -EINVAL;
}

const char *np_check_severity_name(np_check_severity_t s)
{
	return (unsigned)s < NP_CHECK_SEVERITY_COUNT ? severities[s] : "?";
}
