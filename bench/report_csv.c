/*
 * report_csv.c - one row per experiment and metric (RFC 4180 quoting), for
 * spreadsheets: the same statistics as results.json, flattened.
 */
#include <math.h>
#include <string.h>

#include "report.h"

static void field(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputs(last ? "\r\n" : ",", f);
}

static void num(FILE *f, double v, bool last)
{
	if (isfinite(v))
		fprintf(f, "%.10g", v);
	fputs(last ? "\r\n" : ",", f);
}
/* The columns that say which experiment a row belongs to. */
static void experiment_columns(FILE *f, json_t *e, json_t *pl)
{
	field(f, np_json_str(e, "suite"), false);
	field(f, np_json_str(e, "name"), false);
	field(f, np_json_str(e, "kernel"), false);
	field(f, np_json_str(e, "group"), false);
	field(f, np_json_str(pl, "description"), false);
	field(f, np_json_str(pl, "policy"), false);
	num(f, (double)json_integer_value(json_object_get(e, "nodes")), false);
	num(f, (double)json_integer_value(json_object_get(e, "ntasks")), false);
	num(f, (double)json_integer_value(json_object_get(e, "threads")), false);
	field(f, np_json_str(e, "status"), false);
	num(f, (double)json_integer_value(json_object_get(e, "runs_ok")), false);
	num(f, (double)json_integer_value(json_object_get(e, "runs_total")), false);
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
			field(f, k, false);
			field(f, np_json_str(v, "unit"), false);
			num(f, (double)json_integer_value(json_object_get(v, "n")), false);
			num(f, json_number_value(json_object_get(v, "min")), false);
			num(f, json_number_value(json_object_get(v, "median")), false);
			num(f, json_number_value(json_object_get(v, "mean")), false);
			num(f, json_number_value(json_object_get(v, "max")), true);
		}
		der = json_object_get(e, "derived");
		json_object_foreach(der, k, v) {
			experiment_columns(f, e, pl);
			field(f, k, false);
			field(f, "", false);
			num(f, 1, false);
			num(f, json_number_value(v), false);
			num(f, json_number_value(v), false);
			num(f, json_number_value(v), false);
			num(f, json_number_value(v), true);
		}
	}
	return ferror(f) ? -5 : 0;
}
