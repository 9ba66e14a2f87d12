/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * suite_registry.c - the table of suites, and the look-ups the core makes
 * in it.
 */
#include <stdlib.h>
#include <string.h>

#include "run/suite.h"

/*
 * Adding a suite NAME is two steps:
 *   1. bench/suites/suite_NAME.c (new): `const np_suite_t np_suite_NAME = {...}`
 *      with its name, its option table over its own struct, its generate
 *      hook, and the kernels it reads with their parse and primary hooks
 *      (see suite.h; suite_himeno.c is a short example);
 *   2. its line `suites/suite_NAME` in NP_SUITES of bench/Makefile.am (the
 *      order is the order of `numaplan run --help`, of results and of
 *      report sections).
 * The build makes suites/suite_list.h of that list, NP_SUITE(NAME) a line,
 * and this file makes the table of it.  Nothing in run, report or accept
 * changes: `numaplan run --help` lists the suite and its options from the
 * tables.  Its tests and a paragraph in SUITES of man/numaplan-run.1 come
 * with it.
 */
#define NP_SUITE(name) extern const np_suite_t np_suite_##name;
#include "suites/suite_list.h"
#undef NP_SUITE

const np_suite_t *const np_suites[] = {
#define NP_SUITE(name) &np_suite_##name,
#include "suites/suite_list.h"
#undef NP_SUITE
	NULL,
};

const np_suite_t *np_suite_find(const char *name)
{
	unsigned i;

	for (i = 0; name && np_suites[i]; i++)
		if (strcmp(np_suites[i]->name, name) == 0)
			return np_suites[i];
	return NULL;
}

const np_suite_t *np_suite_of_kernel(const char *kernel)
{
	unsigned i, k;

	for (i = 0; kernel && np_suites[i]; i++)
		for (k = 0; np_suites[i]->kernels && np_suites[i]->kernels[k]; k++)
			if (strcmp(np_suites[i]->kernels[k], kernel) == 0)
				return np_suites[i];
	return NULL;
}

char *np_suite_names(const char *sep)
{
	np_sb_t b;
	unsigned i;

	np_sb_init(&b);
	np_sb_add(&b, "");
	for (i = 0; np_suites[i]; i++) {
		if (i)
			np_sb_add(&b, sep);
		np_sb_add(&b, np_suites[i]->name);
	}
	return np_sb_take(&b);
}
