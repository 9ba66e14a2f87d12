/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_md.c - the report as GitHub-flavoured markdown tables.
 */
#include <string.h>

#include "report/report.h"

/* Text of results.json (names, commands, nodes' answers): no control
 * byte reaches the terminal, no '|' or newline breaks the table. */
static void cell(FILE *f, const char *s)
{
	size_t n;

	for (; *s; s += n ? n : 1) {
		if ((n = np_fput_control(f, s, "\n")) != 0)
			continue;
		if (*s == '|')
			fputs("\\|", f);
		else
			fputc(*s == '\n' ? ' ' : *s, f);
	}
}

static void line(FILE *f, const char *s)
{
	np_fputs_visible(f, s, NULL);
}

void np_report_md_table(FILE *f, const np_table_t *t)
{
	unsigned j, k;

	fputc('|', f);
	for (j = 0; j < t->ncols; j++) {
		fputc(' ', f);
		cell(f, t->cols[j]);
		fputs(" |", f);
	}
	fputs("\n|", f);
	for (j = 0; j < t->ncols; j++)
		fputs(j == 0 ? " --- |" : " ---: |", f);
	fputc('\n', f);
	for (k = 0; k < t->nrows; k++) {
		fputc('|', f);
		for (j = 0; j < t->ncols; j++) {
			fputc(' ', f);
			cell(f, t->cells[k * t->ncols + j]);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
	if (t->note) {
		fputc('\n', f);
		np_fputs_visible(f, t->note, "\n");
		fputc('\n', f);
	}
	fputc('\n', f);
}

void np_report_md_tables(FILE *f, const np_report_t *r, const char *hashes)
{
	unsigned i;

	for (i = 0; i < r->n; i++) {
		fprintf(f, "%s ", hashes);
		line(f, r->t[i].title);
		fputs("\n\n", f);
		np_report_md_table(f, &r->t[i]);
	}
}

int np_report_md(FILE *f, json_t *res, const np_report_t *r)
{
	fputs("# numaplan ", f);
	line(f, np_json_str(res, "suite"));
	fputs(" report\n\n", f);
	np_report_md_tables(f, r, "##");
	return ferror(f) ? -5 : 0;
}
