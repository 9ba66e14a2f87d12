/* SPDX-License-Identifier: BSD-3-Clause */
/* template.c - filling a template's @@NAME@@ fields (template.h) */
#define _GNU_SOURCE   /* memmem */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "run/template.h"

static const np_tfield_t *field(const np_tfield_t *f, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(f[i].name) == len && memcmp(f[i].name, name, len) == 0)
			return &f[i];
	return NULL;
}

/* One line (without its newline) into out; *empty_field when it was one
 * field alone whose value is empty. */
static int fill_line(np_sb_t *out, const char *line, size_t len, const np_tfield_t *f, size_t nf,
                     bool *empty_field, np_error_t *err)
{
	const char *p = line, *end = line + len;
	unsigned fields = 0;
	bool text = false;

	*empty_field = false;
	while (p < end) {
		const char *open = memmem(p, (size_t)(end - p), "@@", 2), *close;
		const np_tfield_t *hit;

		if (!open) {
			np_sb_addn(out, p, (size_t)(end - p));
			text = true;
			break;
		}
		if (open > p)
			text = true;
		np_sb_addn(out, p, (size_t)(open - p));
		close = memmem(open + 2, (size_t)(end - open - 2), "@@", 2);
		if (!close)
			return np_error_set(err, -EINVAL, "template: '@@' without its closing '@@': %.*s",
			                    (int)(len > 80 ? 80 : len), line);
		hit = field(f, nf, open + 2, (size_t)(close - open - 2));
		if (!hit)
			return np_error_set(err, -EINVAL, "template: no value for @@%.*s@@",
			                    (int)(close - open - 2 > 60 ? 60 : close - open - 2), open + 2);
		if (hit->value && *hit->value) {
			np_sb_add(out, hit->value);
			text = true;
		}
		fields++;
		p = close + 2;
	}
	*empty_field = fields == 1 && !text;
	return 0;
}

int np_template_fill(np_sb_t *out, const char *tmpl, const np_tfield_t *fields, size_t nfields,
                     np_error_t *err)
{
	const char *line = tmpl;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t mark = out->len;
		bool drop;
		int rc;

		if (!(len >= 2 && line[0] == '#' && line[1] == '%')) {
			if ((rc = fill_line(out, line, len, fields, nfields, &drop, err)) < 0)
				return rc;
			if (drop) {
				out->len = mark;
				if (out->s)
					out->s[mark] = '\0';
			} else if (nl) {
				np_sb_add(out, "\n");
			}
		}
		line += len + (nl ? 1 : 0);
	}
	return out->oom ? np_error_set(err, -ENOMEM, "out of memory") : 0;
}
