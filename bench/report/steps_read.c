/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * steps_read.c - reading the plugin's step records and summing them.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "report/steps.h"

/* Prometheus' histogram bounds for the plugin's time per step and node:
 * a cached topology plans in milliseconds, a live discovery takes tenths
 * of seconds, and a second or more is a node to look at */
const char *const np_steps_outcome_names[NP_STEPS_OUTCOMES] = {
	"planned", "fallback", "refused", "respected", "error", "none"
};

const double np_steps_bucket_le[NP_STEPS_BUCKETS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5
};

int np_steps_since(const char *text, time_t now, time_t *out, np_error_t *err)
{
	struct tm tm = { 0 };
	unsigned long n;
	char *end;
	const char *rest;

	if (!text || !*text)
		return np_error_set(err, -EINVAL, "--since: empty");
	if (isdigit((unsigned char)text[0]) && (n = strtoul(text, &end, 10), end != text) &&
	    end[0] && !end[1] && strchr("smhd", end[0])) {
		unsigned long mul = end[0] == 's' ? 1 : end[0] == 'm' ? 60 : end[0] == 'h' ? 3600 : 86400;

		if (n > 100ul * 365 * 86400 / mul)
			return np_error_set(err, -EINVAL, "--since %s: too far back", text);
		*out = now - (time_t)(n * mul);
		return 0;
	}
	rest = strptime(text, "%Y-%m-%d", &tm);
	if (rest && *rest)
		rest = strptime(text, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!rest || *rest)
		return np_error_set(err, -EINVAL, "--since %s: a duration (24h, 7d, 30m, 90s) or a UTC "
				    "date (2026-12-01, 2026-12-01T10:00:00Z)", text);
	*out = timegm(&tm);
	return 0;
}

static np_steps_count_t *count_in(np_steps_count_t **v, unsigned *n, const char *partition,
                                  const char *policy, const char *outcome, const char *reason)
{
	np_steps_count_t *c;

#define SAME(a, b) ((!(a) && !(b)) || ((a) && (b) && !strcmp((a), (b))))
	for (unsigned i = 0; i < *n; i++) {
		c = &(*v)[i];
		if (SAME(c->partition, partition) && SAME(c->policy, policy) &&
		    SAME(c->outcome, outcome) && SAME(c->reason, reason))
			return c;
	}
#undef SAME
	if (!(c = realloc(*v, (*n + 1) * sizeof(**v))))
		return NULL;
	*v = c;
	c = &c[(*n)++];
	memset(c, 0, sizeof(*c));
	c->partition = partition ? strdup(partition) : NULL;
	c->policy = policy ? strdup(policy) : NULL;
	c->outcome = outcome ? strdup(outcome) : NULL;
	c->reason = reason ? strdup(reason) : NULL;
	return c;
}

static const char *str_of(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

/* The job.step pairs seen, for the count of distinct steps */
typedef struct seen {
	unsigned long long *v;
	size_t n, cap;
} seen_t;

static bool seen_add(seen_t *s, unsigned job, unsigned step)
{
	unsigned long long key = (unsigned long long)job << 32 | step;

	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == key)
			return false;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 256;
		unsigned long long *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return false;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = key;
	return true;
}

static void add_slow(np_steps_sum_t *s, unsigned job, unsigned step, const char *node, double sec)
{
	unsigned i = s->nslow;
	const unsigned max = sizeof(s->slow) / sizeof(s->slow[0]);

	if (i == max && sec <= s->slow[max - 1].seconds)
		return;
	if (i == max) {
		free(s->slow[--i].node);
	} else {
		s->nslow++;
	}
	while (i > 0 && s->slow[i - 1].seconds < sec) {
		s->slow[i] = s->slow[i - 1];
		i--;
	}
	s->slow[i] = (np_steps_slow_t){ job, step, strdup(node), sec };
}

/* The record's day, counted under its outcome (an unknown one is none of
 * the columns, still a record) */
static int count_day(np_steps_sum_t *s, time_t when, const char *outcome)
{
	time_t day = when - when % 86400;
	unsigned i, k;

	for (i = 0; i < s->ndays && s->days[i].day < day; i++)
		;
	if (i == s->ndays || s->days[i].day != day) {
		np_steps_day_t *more = realloc(s->days, (s->ndays + 1) * sizeof(*more));

		if (!more)
			return -ENOMEM;
		s->days = more;
		memmove(&s->days[i + 1], &s->days[i], (s->ndays - i) * sizeof(*more));
		memset(&s->days[i], 0, sizeof(*more));
		s->days[i].day = day;
		s->ndays++;
	}
	for (k = 0; k < NP_STEPS_OUTCOMES; k++)
		if (!strcmp(outcome, np_steps_outcome_names[k]))
			s->days[i].n[k]++;
	return 0;
}

static int add_record(np_steps_sum_t *s, json_t *r, const np_steps_filter_t *f, seen_t *seen)
{
	const char *partition = str_of(r, "partition"), *user = str_of(r, "user");
	const char *node = str_of(r, "node");
	json_t *falls = json_object_get(r, "fallbacks"), *verify = json_object_get(r, "verify");
	json_t *fb;
	np_steps_count_t *c;
	struct tm tm = { 0 };
	const char *rest;
	time_t when;
	double sec;
	unsigned job, step;
	size_t i;

	if (!json_is_integer(json_object_get(r, "job")) || !json_is_string(json_object_get(r, "time")) ||
	    !json_is_string(json_object_get(r, "outcome")))
		return -EINVAL;
	rest = strptime(str_of(r, "time"), "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!rest || *rest)
		return -EINVAL;
	when = timegm(&tm);
	if ((f->since && when < f->since) || (f->partition && strcmp(f->partition, partition)) ||
	    (f->user && strcmp(f->user, user)))
		return 0;
	job = (unsigned)json_integer_value(json_object_get(r, "job"));
	step = (unsigned)json_integer_value(json_object_get(r, "step"));
	s->records++;
	if (seen_add(seen, job, step))
		s->steps++;
	if (!s->first || when < s->first)
		s->first = when;
	if (when > s->last)
		s->last = when;
	if (!(c = count_in(&s->outcomes, &s->noutcomes, partition, str_of(r, "policy"),
			   str_of(r, "outcome"), NULL)))
		return -ENOMEM;
	c->n++;
	if (count_day(s, when, str_of(r, "outcome")) < 0)
		return -ENOMEM;
	json_array_foreach(falls, i, fb) {
		np_steps_count_t *by_node;

		if (!(c = count_in(&s->reasons, &s->nreasons, NULL, NULL, NULL, str_of(fb, "reason"))) ||
		    !(by_node = count_in(&s->nodes, &s->nnodes, NULL, NULL, NULL, node)))
			return -ENOMEM;
		c->n++;
		by_node->n++;
	}
	s->refusals += json_is_true(json_object_get(r, "refused"));
	s->verify_failed += (unsigned long)json_integer_value(json_object_get(verify, "failed"));
	s->verify_unknown += (unsigned long)json_integer_value(json_object_get(verify, "unknown"));
	sec = json_number_value(json_object_get(r, "plugin_seconds"));
	if (sec < 0)
		sec = 0;
	s->seconds_sum += sec;
	for (unsigned b = 0; b < NP_STEPS_BUCKETS; b++)
		s->buckets[b] += sec <= np_steps_bucket_le[b];
	add_slow(s, job, step, node, sec);
	return 0;
}

/* "steps-YYYY-MM-DD.jsonl" or its ".1": the day, else -1 */
static time_t file_day(const char *name)
{
	struct tm tm = { 0 };
	const char *rest;

	if (strncmp(name, "steps-", 6) != 0 || !(rest = strptime(name + 6, "%Y-%m-%d", &tm)) ||
	    (strcmp(rest, ".jsonl") && strcmp(rest, ".jsonl.1")))
		return -1;
	return timegm(&tm);
}

static int read_file(const char *dir, const char *name, const np_steps_filter_t *f,
                     np_steps_sum_t *s, seen_t *seen, np_error_t *err)
{
	char path[4096], *line = NULL;
	size_t cap = 0;
	ssize_t len;
	FILE *in;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(in = fopen(path, "re")))
		return np_error_set(err, -errno, "%s: %s", path, strerror(errno));
	s->files++;
	while ((len = getline(&line, &cap, in)) > 0) {
		json_t *r = json_loadb(line, (size_t)len, 0, NULL);

		rc = json_is_object(r) ? add_record(s, r, f, seen) : -EINVAL;
		json_decref(r);
		if (rc == -ENOMEM)
			break;
		if (rc < 0)
			s->bad_lines++;
		rc = 0;
	}
	free(line);
	fclose(in);
	return rc == -ENOMEM ? np_error_set(err, rc, "out of memory") : 0;
}

static int str_cmp(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* the most first; ties in the order of their names, so that every
 * output lists them alike */
static int by_count(const void *a, const void *b)
{
	const np_steps_count_t *x = a, *y = b;
	int c;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	if ((c = str_cmp(x->partition, y->partition)) || (c = str_cmp(x->policy, y->policy)) ||
	    (c = str_cmp(x->outcome, y->outcome)))
		return c;
	return str_cmp(x->reason, y->reason);
}

int np_steps_read(const char *dir, const np_steps_filter_t *f, np_steps_sum_t *s, np_error_t *err)
{
	struct dirent **names = NULL;
	seen_t seen = { 0 };
	int n, rc = 0;

	memset(s, 0, sizeof(*s));
	if ((n = scandir(dir, &names, NULL, alphasort)) < 0)
		return np_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	for (int i = 0; i < n; i++) {
		time_t day = file_day(names[i]->d_name);

		/* a day's file holds that day's records: one before the
		 * cut-off's day has none to show */
		if (rc == 0 && day >= 0 && (!f->since || day + 86400 > f->since))
			rc = read_file(dir, names[i]->d_name, f, s, &seen, err);
		free(names[i]);
	}
	free(names);
	free(seen.v);
	if (s->noutcomes > 1)
		qsort(s->outcomes, s->noutcomes, sizeof(*s->outcomes), by_count);
	if (s->nreasons > 1)
		qsort(s->reasons, s->nreasons, sizeof(*s->reasons), by_count);
	if (s->nnodes > 1)
		qsort(s->nodes, s->nnodes, sizeof(*s->nodes), by_count);
	return rc;
}

static void free_counts(np_steps_count_t *v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(v[i].partition);
		free(v[i].policy);
		free(v[i].outcome);
		free(v[i].reason);
	}
	free(v);
}

void np_steps_sum_free(np_steps_sum_t *s)
{
	free_counts(s->outcomes, s->noutcomes);
	free_counts(s->reasons, s->nreasons);
	free_counts(s->nodes, s->nnodes);
	for (unsigned i = 0; i < s->nslow; i++)
		free(s->slow[i].node);
	free(s->days);
	memset(s, 0, sizeof(*s));
}
