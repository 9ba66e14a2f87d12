/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * table.c - a report's tables as rows of text: what report/report_tables.c
 * and each suite fill, and the markdown and HTML writers print.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tables/table.h"

np_table_t *np_table_new(np_report_t *r, const char *id, const char *title, unsigned ncols, ...)
{
	np_table_t *t;
	va_list ap;
	unsigned i;

	if (r->n == r->cap) {
		unsigned nc = r->cap ? 2 * r->cap : 8;
		np_table_t *nt = realloc(r->t, nc * sizeof(*nt));
		if (!nt)
			return NULL;
		r->t = nt;
		r->cap = nc;
	}
	t = &r->t[r->n++];
	memset(t, 0, sizeof(*t));
	t->id = strdup(id);
	t->title = strdup(title);
	t->ncols = ncols;
	t->cols = calloc(ncols, sizeof(char *));
	va_start(ap, ncols);
	for (i = 0; i < ncols && t->cols; i++)
		t->cols[i] = strdup(va_arg(ap, const char *));
	va_end(ap);
	return t;
}

void np_table_row(np_table_t *t, ...)
{
	char **nc = realloc(t->cells, (size_t)(t->nrows + 1) * t->ncols * sizeof(char *));
	va_list ap;
	unsigned i;

	if (!nc)
		return;
	t->cells = nc;
	va_start(ap, t);
	for (i = 0; i < t->ncols; i++) {
		const char *s = va_arg(ap, const char *);
		nc[t->nrows * t->ncols + i] = strdup(s ? s : "");
	}
	va_end(ap);
	t->nrows++;
}

void np_table_row_v(np_table_t *t, char **v)
{
	char **nc = realloc(t->cells, (size_t)(t->nrows + 1) * t->ncols * sizeof(char *));
	unsigned i;

	if (!nc)
		return;
	t->cells = nc;
	for (i = 0; i < t->ncols; i++)
		nc[t->nrows * t->ncols + i] = strdup(v[i] ? v[i] : "");
	t->nrows++;
}

int np_table_add_cols(np_table_t *t, unsigned n)
{
	char **nc = realloc(t->cols, (t->ncols + n) * sizeof(char *));
	unsigned i;

	if (!nc)
		return -ENOMEM;
	t->cols = nc;
	for (i = 0; i < n; i++)
		nc[t->ncols + i] = NULL;
	t->ncols += n;
	return 0;
}

void np_report_free(np_report_t *r)
{
	unsigned i;

	for (i = 0; i < r->n; i++) {
		np_table_t *t = &r->t[i];
		np_strv_free(t->cols, t->ncols);
		np_strv_free(t->cells, (size_t)t->nrows * t->ncols);
		free(t->id);
		free(t->title);
		free(t->note);
	}
	free(r->t);
	memset(r, 0, sizeof(*r));
}
