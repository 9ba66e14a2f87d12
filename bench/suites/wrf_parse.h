/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * wrf_parse.h - WRF's rsl.error.0000: per-step timings and completion.
 */
#ifndef NP_WRF_PARSE_H
#define NP_WRF_PARSE_H

#include <stdbool.h>
#include <jansson.h>

#include <numaplan/error.h>

typedef struct np_wrf_step {
	char stamp[24];             /* model time after the step */
	double seconds;             /* elapsed; 0 when overflowed */
	double dt;                  /* simulated seconds of the step; 0 unknown */
	bool overflow;              /* printed as ********** */
	bool radiation;             /* a radiation step */
	bool output;                /* history/restart written just before */
} np_wrf_step_t;

typedef struct np_wrf_result {
	unsigned nsteps;
	np_wrf_step_t *steps;
	unsigned noverflow;
	bool success;               /* "SUCCESS COMPLETE WRF" seen */
	bool adaptive;              /* the (dt=...) form was used */
	bool radiation_from_radt;   /* radiation steps from radt, not a heuristic */
	/* mean seconds per step over every step but the first (overflowed
	 * steps have no time and are left out), and also without the
	 * radiation and output steps */
	double mean_step;
	unsigned n_mean;
	double mean_step_plain;
	unsigned n_plain;
	double elapsed;             /* sum of the known step times */
	double simulated;           /* simulated seconds of those steps */
	double speed;               /* simulated / elapsed; 0 unknown */
} np_wrf_result_t;

/* Parse the text of an rsl.error file for one domain (1 = the parent).
 * radt_minutes > 0 marks radiation steps from the radiation interval;
 * 0 falls back to steps slower than 1.5 x the median.  Errors: -ENODATA
 * when there is no "Timing for main" line for the domain. */
int np_wrf_parse(const char *text, unsigned domain, double radt_minutes,
                 np_wrf_result_t *out, np_error_t *err);
void np_wrf_result_free(np_wrf_result_t *r);
/* radt of the first domain from a namelist.input text; 0 when absent. */
double np_wrf_namelist_radt(const char *namelist);
json_t *np_wrf_result_to_json(const np_wrf_result_t *r);

#endif /* NP_WRF_PARSE_H */
