/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bars.c - the bar plots the suites draw of their own experiments
 * (np_bars_t in tables/table.h), for the HTML report.
 */
#include <math.h>

#include "tables/table.h"
#include "tables/svg.h"
#include "run/suite.h"

void np_report_bars(np_sb_t *b, json_t *res, const np_bars_t *spec)
{
	const char *labels[256];
	double vals[256];
	unsigned n = 0;
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		if (n == 256)
			break;
		if (!np_suite_has(spec->suite, e) || (spec->kernel && !np_json_streq(e, "kernel", spec->kernel)) ||
		    (spec->group && !np_json_streq(e, "group", spec->group)))
			continue;
		labels[n] = np_json_str(e, "name");
		if (spec->derived)
			vals[n] = np_json_real(json_object_get(e, "derived"), spec->metric);
		else
			vals[n] = np_rep_stat(e, spec->metric, "median");
		/* a derived figure is defined for some experiments only (an
		 * efficiency for N > 1 nodes): the others get no bar */
		if (spec->derived && !isfinite(vals[n]))
			continue;
		n++;
	}
	if (!n)
		return;
	np_sb_add(b, "<figure>\n");
	np_svg_bars(b, spec->title, spec->ylabel, labels, vals, n, spec->ref, spec->reflabel);
	np_sb_add(b, "</figure>\n");
}
