/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wrf_parse.c - step timings from WRF's rsl.error.0000.
 *
 * The lines this reads (WRF writes the time with F10.5, so a step longer
 * than 9999.99999 s prints as ten asterisks):
 *   Timing for main: time 2019-11-26_12:00:12 on domain   1:    2.12000 elapsed seconds
 *   Timing for main (dt= 10.00): time 2020-12-09_00:00:10 on domain   1:   21.61837 elapsed seconds
 *   Timing for Writing wrfout_d01_2019-11-26_12:00:00 for domain        1:    0.41000 elapsed seconds
 *   d01 2019-11-26_18:00:00 wrf: SUCCESS COMPLETE WRF
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "suites/wrf_parse.h"

/* WRF time stamps are in the model calendar; seconds since an epoch are
 * only ever subtracted, so timegm on the fields is enough. */
static bool stamp_seconds(const char *s, double *out)
{
	struct tm tm;
	int y, mo, d, h, mi, se;

	if (sscanf(s, "%d-%d-%d_%d:%d:%d", &y, &mo, &d, &h, &mi, &se) != 6)
		return false;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	*out = (double)timegm(&tm);
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One "Timing for main" line; false when the line is not one for domain. */
static bool parse_main(const char *line, unsigned domain, np_wrf_step_t *st, bool *adaptive)
{
	const char *p = line + strlen("Timing for main");
	unsigned dom;
	char val[32];

	memset(st, 0, sizeof(*st));
	if (strncmp(p, " (dt=", 5) == 0) {
		st->dt = strtod(p + 5, NULL);
		*adaptive = true;
		p = strchr(p, ')');
		if (!p)
			return false;
		p++;
	}
	if (*p != ':')
		return false;
	if (sscanf(p, ": time %23s on domain %u: %31s elapsed", st->stamp, &dom, val) != 3)
		return false;
	if (dom != domain)
		return false;
	if (val[0] == '*') {
		st->overflow = true;
	} else {
		char *end;
		st->seconds = strtod(val, &end);
		if (end == val)
			return false;
	}
	return true;
}

double np_wrf_namelist_radt(const char *nl)
{
	const char *p = nl;

	while (p && (p = strstr(p, "radt")) != NULL) {
		const char *q = p + 4;
		if ((p == nl || !isalnum((unsigned char)p[-1])) && !isalnum((unsigned char)*q) && *q != '_') {
			while (*q == ' ' || *q == '\t')
				q++;
			if (*q == '=')
				return strtod(q + 1, NULL);
		}
		p = q;
	}
	return 0;
}

/* The log's lines, once: the domain's main steps, each marked when a history
 * write for the domain came just before it.  r is freed on failure. */
static int read_steps(const char *text, unsigned domain, np_wrf_result_t *r, np_error_t *err)
{
	const char *line = text, *nl;
	unsigned cap = 0;
	bool pending_output = false;
	char buf[512];

	for (; line && *line; line = nl ? nl + 1 : NULL) {
		size_t n;
		nl = strchr(line, '\n');
		n = nl ? (size_t)(nl - line) : strlen(line);
		if (n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (strstr(buf, "SUCCESS COMPLETE WRF"))
			r->success = true;
		if (strncmp(buf, "Timing for Writing", 18) == 0) {
			unsigned dom;
			const char *d = strstr(buf, "for domain");
			if (d && sscanf(d, "for domain %u", &dom) == 1 && dom == domain)
				pending_output = true;
			continue;
		}
		if (strncmp(buf, "Timing for main", 15) != 0)
			continue;
		if (r->nsteps == cap) {
			unsigned nc = cap ? 2 * cap : 64;
			np_wrf_step_t *ns = realloc(r->steps, nc * sizeof(*ns));
			if (!ns) {
				np_wrf_result_free(r);
				return np_error_set(err, -ENOMEM, "out of memory");
			}
			r->steps = ns;
			cap = nc;
		}
		if (!parse_main(buf, domain, &r->steps[r->nsteps], &r->adaptive))
			continue;
		r->steps[r->nsteps].output = pending_output;
		pending_output = false;
		r->nsteps++;
	}
	return 0;
}

/* The model time the run began at, which radiation steps count from; a fixed
 * time step's dt is only in the stamps, so it is filled in first. */
static double run_start(np_wrf_result_t *r)
{
	double start = 0, first_stamp = 0;
	unsigned i;

	/* Fixed time step: dt from consecutive stamps. */
	if (!r->adaptive && r->nsteps >= 2) {
		double a, b;
		if (stamp_seconds(r->steps[0].stamp, &a) && stamp_seconds(r->steps[1].stamp, &b) && b > a)
			for (i = 0; i < r->nsteps; i++)
				r->steps[i].dt = b - a;
	}
	if (r->nsteps && stamp_seconds(r->steps[0].stamp, &first_stamp))
		start = first_stamp - r->steps[0].dt;
	return start;
}

/* Radiation steps are slow, so plain-step means leave them out: from radt
 * when the namelist gave it, else the steps over 1.5 x the median.  r is
 * freed on failure. */
static int mark_radiation(np_wrf_result_t *r, double radt, double start, np_error_t *err)
{
	unsigned i;

	if (radt > 0) {
		/* WRF calls radiation on the steps that begin at a multiple of
		 * radt minutes from the start of the run. */
		double t0 = start;
		r->radiation_from_radt = true;
		for (i = 0; i < r->nsteps; i++) {
			double end, begin;
			if (!stamp_seconds(r->steps[i].stamp, &end))
				continue;
			begin = end - r->steps[i].dt - t0;
			if (r->steps[i].dt > 0 && fmod(begin + 0.5, radt * 60.0) < 1.0)
				r->steps[i].radiation = true;
		}
	} else if (r->nsteps > 2) {
		double *v = malloc(r->nsteps * sizeof(double));
		unsigned k = 0;
		double med;
		if (!v) {
			np_wrf_result_free(r);
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		for (i = 1; i < r->nsteps; i++)
			if (!r->steps[i].overflow)
				v[k++] = r->steps[i].seconds;
		if (k) {
			qsort(v, k, sizeof(*v), cmp_double);
			med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
			for (i = 1; i < r->nsteps; i++)
				if (!r->steps[i].overflow && !r->steps[i].output && r->steps[i].seconds > 1.5 * med)
					r->steps[i].radiation = true;
		}
		free(v);
	}
	return 0;
}

/* The run's figures; the first step (start-up) is left out of the means and
 * overflowed steps have no time to add. */
static void sum_steps(np_wrf_result_t *r)
{
	double sum_dt = 0;
	unsigned i;

	for (i = 0; i < r->nsteps; i++) {
		const np_wrf_step_t *s = &r->steps[i];
		if (s->overflow) {
			r->noverflow++;
			continue;
		}
		r->elapsed += s->seconds;
		sum_dt += s->dt;
		if (i == 0)
			continue;
		r->mean_step += s->seconds;
		r->n_mean++;
		if (!s->radiation && !s->output) {
			r->mean_step_plain += s->seconds;
			r->n_plain++;
		}
	}
	if (r->n_mean)
		r->mean_step /= r->n_mean;
	if (r->n_plain)
		r->mean_step_plain /= r->n_plain;
	r->simulated = sum_dt;
	if (r->elapsed > 0 && sum_dt > 0)
		r->speed = sum_dt / r->elapsed;
}

int np_wrf_parse(const char *text, unsigned domain, double radt, np_wrf_result_t *r, np_error_t *err)
{
	double start;
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = read_steps(text, domain, r, err)) < 0)
		return rc;
	if (r->nsteps == 0)
		return np_error_set(err, -ENODATA, "no 'Timing for main' line for domain %u", domain);
	start = run_start(r);
	if ((rc = mark_radiation(r, radt, start, err)) < 0)
		return rc;
	sum_steps(r);
	return 0;
}

void np_wrf_result_free(np_wrf_result_t *r)
{
	free(r->steps);
	memset(r, 0, sizeof(*r));
}

json_t *np_wrf_result_to_json(const np_wrf_result_t *r)
{
	json_t *o = json_object();
	unsigned nrad = 0, nout = 0, i;

	for (i = 0; i < r->nsteps; i++) {
		nrad += r->steps[i].radiation;
		nout += r->steps[i].output;
	}
	json_object_set_new(o, "steps", json_integer(r->nsteps));
	json_object_set_new(o, "overflow_steps", json_integer(r->noverflow));
	json_object_set_new(o, "radiation_steps", json_integer(nrad));
	json_object_set_new(o, "output_steps", json_integer(nout));
	json_object_set_new(o, "radiation_from", json_string(r->radiation_from_radt ? "radt" : "1.5 x median"));
	json_object_set_new(o, "adaptive", json_boolean(r->adaptive));
	json_object_set_new(o, "success", json_boolean(r->success));
	json_object_set_new(o, "mean_step_s", json_real(r->mean_step));
	json_object_set_new(o, "mean_step_plain_s", json_real(r->mean_step_plain));
	json_object_set_new(o, "elapsed_s", json_real(r->elapsed));
	json_object_set_new(o, "simulated_s", json_real(r->simulated));
	json_object_set_new(o, "speed", json_real(r->speed));
	if (r->nsteps)
		json_object_set_new(o, "last_time", json_string(r->steps[r->nsteps - 1].stamp));
	return o;
}
