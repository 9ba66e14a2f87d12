/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memkind_names.c - the kinds of memory a NUMA node can be, as users name
 * them (mem=hbm) and as the formats print them, and the memory choice
 * front ends take (MODE, KIND or MODE:KIND).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <numaplan/plan.h>
#include <numaplan/topo.h>

/* Printed names are hwloc's subtypes, so `numaplan topo` says what lstopo
 * says. */
static const char *const kind_names[NP_MEMKIND_COUNT] = {
	[NP_MEMKIND_UNKNOWN] = "unknown",
	[NP_MEMKIND_DRAM] = "DRAM",
	[NP_MEMKIND_HBM] = "HBM",
	[NP_MEMKIND_CXL] = "CXL",
	[NP_MEMKIND_GPU] = "GPUMemory",
	[NP_MEMKIND_NVM] = "NVM",
};

static const struct {
	const char *word;
	np_memkind_t kind;
} kind_words[] = {
	{ "dram", NP_MEMKIND_DRAM }, { "ddr", NP_MEMKIND_DRAM },
	{ "hbm", NP_MEMKIND_HBM }, { "mcdram", NP_MEMKIND_HBM },
	{ "cxl", NP_MEMKIND_CXL },
	{ "gpu", NP_MEMKIND_GPU }, { "gpumemory", NP_MEMKIND_GPU },
	{ "nvm", NP_MEMKIND_NVM },
};

#define KIND_WORDS "dram (ddr), hbm (mcdram), cxl, gpu, nvm"

const char *np_memkind_name(np_memkind_t k)
{
	return (unsigned)k < NP_MEMKIND_COUNT ? kind_names[k] : "?";
}

int np_memkind_parse(const char *name, np_memkind_t *out)
{
	for (size_t i = 0; name && i < sizeof(kind_words) / sizeof(kind_words[0]); i++)
		if (!strcasecmp(name, kind_words[i].word)) {
			*out = kind_words[i].kind;
			return 0;
		}
	return -EINVAL;
}

int np_mem_spec_parse(const char *spec, np_mem_t *mode, np_memkind_t *kind, np_error_t *err)
{
	const char *colon = spec ? strchr(spec, ':') : NULL;
	char head[32];

	if (!spec || !*spec)
		return np_error_set(err, -EINVAL, "empty (valid: %s; a memory kind: %s; or MODE:KIND)",
		                    np_mem_list(), KIND_WORDS);
	if (!colon) {
		if (np_mem_parse(spec, mode) == 0) {
			*kind = NP_MEMKIND_UNKNOWN;
			return 0;
		}
		if (np_memkind_parse(spec, kind) == 0) {
			*mode = NP_MEM_BIND;
			return 0;
		}
		return np_error_set(err, -EINVAL, "not a memory mode or kind (valid: %s; a memory kind: %s; "
		                    "or MODE:KIND)", np_mem_list(), KIND_WORDS);
	}
	if ((size_t)(colon - spec) < sizeof(head)) {
		memcpy(head, spec, (size_t)(colon - spec));
		head[colon - spec] = '\0';
	} else {
		head[0] = '\0';
	}
	if (np_mem_parse(head, mode) < 0 || *mode == NP_MEM_NONE)
		return np_error_set(err, -EINVAL, "before ':' must be bind or interleave");
	if (np_memkind_parse(colon + 1, kind) < 0)
		return np_error_set(err, -EINVAL, "unknown memory kind '%s' (valid: %s)", colon + 1,
		                    KIND_WORDS);
	return 0;
}
