/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * steps.h - the step records the plugin keeps (one JSON line per step and
 * node, DIR/steps-YYYY-MM-DD.jsonl and its rotated .1, numaplan-spank(8)
 * record=), read and summed for `numaplan steps` and `numaplan report
 * --steps`.
 */
#ifndef NP_STEPS_H
#define NP_STEPS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include <numaplan.h>

/* The default record= of the plugin */
#define NP_STEPS_DIR_DEFAULT "/var/lib/numaplan/steps"

typedef struct np_steps_filter {
	time_t since;                   /* 0: every record */
	const char *partition, *user;   /* NULL: any */
} np_steps_filter_t;

/* One count under a key (a partition/policy/outcome triple, a reason) */
typedef struct np_steps_count {
	char *partition, *policy, *outcome; /* policy and outcome NULL for a reason */
	char *reason;
	unsigned long n;
} np_steps_count_t;

/* A slow step, for the list of the slowest */
typedef struct np_steps_slow {
	unsigned job, step;
	char *node;
	double seconds;
} np_steps_slow_t;

/* The outcomes a record may have (numaplan-steps(1)), in this order */
#define NP_STEPS_OUTCOMES 6
extern const char *const np_steps_outcome_names[NP_STEPS_OUTCOMES];

/* One UTC day's records by outcome */
typedef struct np_steps_day {
	time_t day;                     /* its midnight */
	unsigned long n[NP_STEPS_OUTCOMES];
} np_steps_day_t;

/* The upper bounds of numaplan_plugin_seconds' buckets */
#define NP_STEPS_BUCKETS 10
extern const double np_steps_bucket_le[NP_STEPS_BUCKETS];

typedef struct np_steps_sum {
	unsigned long records;          /* step records (one per step and node) */
	unsigned long steps;            /* distinct job.step */
	unsigned long bad_lines;        /* lines that were no record */
	unsigned files;
	np_steps_count_t *outcomes;     /* by partition, policy applied, outcome */
	unsigned noutcomes;
	np_steps_count_t *reasons;      /* fallbacks by reason */
	unsigned nreasons;
	np_steps_count_t *nodes;        /* fallbacks by node (reason = node) */
	unsigned nnodes;
	unsigned long refusals;         /* records of refused steps */
	unsigned long verify_failed;    /* tasks whose binding did not verify */
	unsigned long verify_unknown;   /* tasks that did not report */
	unsigned long buckets[NP_STEPS_BUCKETS]; /* cumulative, as Prometheus has them */
	double seconds_sum;
	np_steps_slow_t slow[5];        /* the slowest, slowest first */
	unsigned nslow;
	time_t first, last;             /* the records' times */
	np_steps_day_t *days;           /* in order, days with no record left out */
	unsigned ndays;
} np_steps_sum_t;

/* "24h", "7d", "30m", "90s" before now, or a UTC date "2026-12-01" or
 * "2026-12-01T10:00:00Z"; -EINVAL with a message otherwise */
int np_steps_since(const char *text, time_t now, time_t *out, np_error_t *err);

/* Read every record file of dir (those of days before f->since's are not
 * opened) and sum the records that pass f; the counts come sorted, the
 * most first (ties by name).  -ENOENT when dir is not
 * there; a line that is no record is counted, not an error. */
int np_steps_read(const char *dir, const np_steps_filter_t *f, np_steps_sum_t *s, np_error_t *err);
void np_steps_sum_free(np_steps_sum_t *s);

/* The summary as text, JSON, or Prometheus' text exposition format */
void np_steps_print_text(FILE *out, const char *dir, const np_steps_sum_t *s);
int np_steps_print_json(FILE *out, const char *dir, const np_steps_sum_t *s);
void np_steps_print_prometheus(FILE *out, const np_steps_sum_t *s);

#endif /* NP_STEPS_H */
