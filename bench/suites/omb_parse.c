/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * omb_parse.c - OMB's columns.  The header line ("# Size" and the column
 * names, separated by runs of two or more spaces as OMB pads them) says
 * what each number of a row is; OMB releases differ in their columns
 * (5.x: one, 7.x: optional min/max/iterations, tail percentiles,
 * validation) but never in this layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites/omb_parse.h"

enum col { C_OTHER, C_VALUE, C_RATE, C_MIN, C_MAX, C_VALID };

#define MAXCOL 16

/* Column names of a header line after "# Size": split at 2+ spaces. */
static unsigned header(const char *line, enum col *cols)
{
	const char *p = line + strspn(line, "# ");
	unsigned n = 0;

	p += strlen("Size");
	while (*p && *p != '\n' && n < MAXCOL) {
		const char *end;
		size_t len;
		char name[64];

		p += strspn(p, " \t");
		if (!*p || *p == '\n')
			break;
		for (end = p; *end && *end != '\n' && !(end[0] == ' ' && (end[1] == ' ' || end[1] == '\t'));
		     end++)
			;
		len = (size_t)(end - p);
		snprintf(name, sizeof(name), "%.*s", (int)(len < sizeof(name) ? len : sizeof(name) - 1), p);
		if (strstr(name, "Min Latency"))
			cols[n] = C_MIN;
		else if (strstr(name, "Max Latency"))
			cols[n] = C_MAX;
		else if (strstr(name, "Messages/s"))
			cols[n] = C_RATE;
		else if (strstr(name, "Validation"))
			cols[n] = C_VALID;
		else if (strstr(name, "Tail") || strstr(name, "Iterations") || strstr(name, "Transmit"))
			cols[n] = C_OTHER;
		else if (strstr(name, "Latency") || strstr(name, "MB/s") || strstr(name, "Bandwidth"))
			cols[n] = C_VALUE;
		else
			cols[n] = C_OTHER;
		n++;
		p = end;
	}
	return n;
}

int np_omb_parse(const char *text, np_omb_result_t *r)
{
	enum col cols[MAXCOL];
	unsigned ncols = 0;
	bool have_header = false;
	const char *line;

	memset(r, 0, sizeof(*r));
	r->points = json_array();
	for (line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *p = line;
		char *end;
		unsigned long long size;
		json_t *pt;
		unsigned k;
		bool value = false;

		if (strncmp(line, "DATA VALIDATION ERROR", 21) == 0) {
			r->validation_error = true;
			continue;
		}
		if (line[0] == '#') {
			const char *t = line + strspn(line, "# ");
			if (strncmp(t, "OSU ", 4) == 0 && !r->title[0])
				snprintf(r->title, sizeof(r->title), "%.*s", (int)strcspn(t, "\n"), t);
			else if (strncmp(t, "Size", 4) == 0) {
				ncols = header(line, cols);
				have_header = true;
				for (k = 0; k < ncols; k++)
					r->has_validation |= cols[k] == C_VALID;
			}
			continue;
		}
		if (!have_header || *p < '0' || *p > '9')
			continue;
		size = strtoull(p, &end, 10);
		if (end == p || (*end != ' ' && *end != '\t'))
			continue;
		pt = json_pack("{s:I}", "size", (json_int_t)size);
		p = end;
		for (k = 0; k < ncols; k++) {
			double v;
			p += strspn(p, " \t");
			if (!*p || *p == '\n')
				break;
			if (cols[k] == C_VALID) {
				if (strncmp(p, "Fail", 4) == 0)
					r->failed++;
				p += strcspn(p, " \t\n");
				continue;
			}
			v = strtod(p, &end);
			if (end == p)
				break;
			p = end;
			if (cols[k] == C_VALUE && !value) {
				json_object_set_new(pt, "value", json_real(v));
				value = true;
			} else if (cols[k] == C_RATE) {
				json_object_set_new(pt, "rate", json_real(v));
			} else if (cols[k] == C_MIN) {
				json_object_set_new(pt, "min", json_real(v));
			} else if (cols[k] == C_MAX) {
				json_object_set_new(pt, "max", json_real(v));
			}
		}
		if (value)
			json_array_append_new(r->points, pt);
		else
			json_decref(pt);
	}
	return json_array_size(r->points) ? 0 : -1;
}

void np_omb_result_free(np_omb_result_t *r)
{
	json_decref(r->points);
	memset(r, 0, sizeof(*r));
}
