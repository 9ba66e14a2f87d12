/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_csv.c - one row per experiment and metric (RFC 4180 quoting), for
 * spreadsheets: the same statistics as results.json, flattened.
 */
#include <math.h>
#include <string.h>

#include "report/report.h"

void np_csv_field(FILE *f, const char *s, bool last)
{
	/* line breaks are data inside quotes; other control bytes are not
	 * let through to a terminal or a spreadsheet */
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', f);
		for (size_t n; *s; s += n ? n : 1) {
			if ((n = np_fput_control(f, s, "\n\r")) != 0)
				continue;
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		np_fputs_visible(f, s, NULL);
	}
	fputs(last ? "\r\n" : ",", f);
}

void np_csv_num(FILE *f, double v, bool last)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	fputs(last ? "\r\n" : ",", f);
}

/* The columns that say which experiment a row belongs to. */
static void experiment_columns(FILE *f, json_t *e, json_t *pl)
{
	np_csv_field(f, np_json_str(e, "suite"), false);
	np_csv_field(f, np_json_str(e, "name"), false);
	np_csv_field(f, np_json_str(e, "kernel"), false);
	np_csv_field(f, np_json_str(e, "group"), false);
	np_csv_field(f, np_json_str(pl, "description"), false);
	np_csv_field(f, np_json_str(pl, "policy"), false);
	np_csv_num(f, (double)json_integer_value(json_object_get(e, "nodes")), false);
	np_csv_num(f, (double)json_integer_value(json_object_get(e, "ntasks")), false);
	np_csv_num(f, (double)json_integer_value(json_object_get(e, "threads")), false);
	np_csv_field(f, np_json_str(e, "status"), false);
	np_csv_num(f, (double)json_integer_value(json_object_get(e, "runs_ok")), false);
	np_csv_num(f, (double)json_integer_value(json_object_get(e, "runs_total")), false);
}


int np_report_csv(FILE *f, json_t *res)
{
	json_t *e, *st, *der, *v;
	const char *k;
	size_t i;

	fputs("suite,experiment,kernel,group,placement,policy,nodes,ntasks,threads,status,runs_ok,runs_total,"
	      "metric,unit,n,min,median,mean,max\r\n", f);
	json_array_foreach(json_object_get(res, "experiments"), i, e) {
		json_t *pl = json_object_get(e, "placement");
		st = json_object_get(e, "stats");
		json_object_foreach(st, k, v) {
			experiment_columns(f, e, pl);
			np_csv_field(f, k, false);
			np_csv_field(f, np_json_str(v, "unit"), false);
			np_csv_num(f, (double)json_integer_value(json_object_get(v, "n")), false);
			np_csv_num(f, json_number_value(json_object_get(v, "min")), false);
			np_csv_num(f, json_number_value(json_object_get(v, "median")), false);
			np_csv_num(f, json_number_value(json_object_get(v, "mean")), false);
			np_csv_num(f, json_number_value(json_object_get(v, "max")), true);
		}
		der = json_object_get(e, "derived");
		json_object_foreach(der, k, v) {
			experiment_columns(f, e, pl);
			np_csv_field(f, k, false);
			np_csv_field(f, "", false);
			np_csv_num(f, 1, false);
			np_csv_num(f, json_number_value(v), false);
			np_csv_num(f, json_number_value(v), false);
			np_csv_num(f, json_number_value(v), false);
			np_csv_num(f, json_number_value(v), true);
		}
	}
	return ferror(f) ? -5 : 0;
}
