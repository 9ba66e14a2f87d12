/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_metrics.c - the units and labels of the figures of results.json:
 * from the suite that names a figure, else from the figure's name.
 */
#include <string.h>

#include "run/suite.h"

static const np_metric_t *metric_find(const char *m)
{
	unsigned i, k;

	for (i = 0; m && np_suites[i]; i++)
		for (k = 0; np_suites[i]->metrics && np_suites[i]->metrics[k].name; k++)
			if (strcmp(np_suites[i]->metrics[k].name, m) == 0)
				return &np_suites[i]->metrics[k];
	return NULL;
}

/* Figures without an entry in a suite follow the naming convention. */
const char *np_metric_unit(const char *m)
{
	const np_metric_t *d = metric_find(m);
	size_t n = m ? strlen(m) : 0;

	if (d)
		return d->unit;
	if (n > 5 && strcmp(m + n - 5, "_mbps") == 0)
		return "MB/s";
	if (n > 3 && strcmp(m + n - 3, "_us") == 0)
		return "us";
	if (n > 2 && strcmp(m + n - 2, "_s") == 0)
		return "s";
	if (n > 4 && strcmp(m + n - 4, "_pct") == 0)
		return "%";
	if (n && strcmp(m, "seconds") == 0)
		return "s";
	return "";
}

const char *np_metric_label(const char *m)
{
	const np_metric_t *d = metric_find(m);

	return d && d->label ? d->label : m ? m : "";
}
