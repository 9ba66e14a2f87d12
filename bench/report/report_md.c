/*
 * report_md.c - the report as GitHub-flavoured markdown tables.
 */
#include <string.h>

#include "report/report.h"

static void cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", f);
		else if (*s == '\n')
			fputc(' ', f);
		else
			fputc(*s, f);
	}
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
	if (t->note)
		fprintf(f, "\n%s\n", t->note);
	fputc('\n', f);
}

void np_report_md_tables(FILE *f, const np_report_t *r, const char *hashes)
{
	unsigned i;

	for (i = 0; i < r->n; i++) {
		fprintf(f, "%s %s\n\n", hashes, r->t[i].title);
		np_report_md_table(f, &r->t[i]);
	}
}

int np_report_md(FILE *f, json_t *res, const np_report_t *r)
{
	fprintf(f, "# numaplan %s report\n\n", np_json_str(res, "suite"));
	np_report_md_tables(f, r, "##");
	return ferror(f) ? -5 : 0;
}
