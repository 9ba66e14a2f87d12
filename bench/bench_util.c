/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench_util.c - files, commands, time, statistics and parsing for
 * run/report/accept.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <numaplan.h>
#include "bench_util.h"

int np_mkdirs(const char *path, np_error_t *err)
{
	char buf[PATH_MAX];
	size_t i, n = strlen(path);

	if (n == 0 || n >= sizeof(buf))
		return np_error_set(err, -ENAMETOOLONG, "bad directory name '%s'", path);
	memcpy(buf, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return np_error_set(err, -errno, "cannot create directory %s: %s", buf, strerror(errno));
		buf[i] = path[i];
	}
	return 0;
}

int np_write_file(const char *path, const char *text, bool exec, np_error_t *err)
{
	FILE *f = fopen(path, "w");
	int e;

	if (!f)
		return np_error_set(err, -errno, "cannot write %s: %s", path, strerror(errno));
	fputs(text, f);
	if (fclose(f) != 0) {
		e = errno;
		return np_error_set(err, -e, "cannot write %s: %s", path, strerror(e));
	}
	if (exec)
		chmod(path, 0755);
	return 0;
}

int np_write_sb(const char *path, np_sb_t *b, bool exec, np_error_t *err)
{
	int rc;

	if (b->oom)
		rc = np_error_set(err, -ENOMEM, "out of memory");
	else
		rc = np_write_file(path, b->s ? b->s : "", exec, err);
	np_sb_free(b);
	return rc;
}

bool np_file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

char *np_abspath(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	if (strcmp(path, ".") == 0)
		return strdup(cwd);
	return np_strdup_printf("%s/%s", cwd, path[0] == '.' && path[1] == '/' ? path + 2 : path);
}

char *np_cmd_output(const char *shell_cmd, int *status)
{
	FILE *f = popen(shell_cmd, "r");
	np_sb_t b;
	int st;

	if (!f)
		return NULL;
	np_sb_init(&b);
	np_sb_add(&b, "");
	np_sb_add_stream(&b, f);
	st = pclose(f);
	if (status)
		*status = st;
	return np_sb_take(&b);
}

char *np_cmd_firstline(const char *shell_cmd)
{
	char *cmd = np_strdup_printf("%s 2>&1", shell_cmd);
	char line[512];
	FILE *f;
	char *res = NULL;
	size_t n;

	if (!cmd)
		return NULL;
	f = popen(cmd, "r");
	free(cmd);
	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		n = strlen(line);
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		res = strdup(line);
	}
	while (fgets(line, sizeof(line), f))
		;
	if (pclose(f) != 0) {
		free(res);
		res = NULL;
	}
	return res;
}

void np_time_iso(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void np_time_compact(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y%m%d-%H%M%S", &tm);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void np_stats_compute(double *v, unsigned n, np_stats_t *out)
{
	double sum = 0;
	unsigned i;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	out->n = n;
	out->min = v[0];
	out->max = v[n - 1];
	out->mean = sum / n;
	out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double np_stats_mad(const double *v, unsigned n, double median)
{
	double *d = n ? malloc(n * sizeof(double)) : NULL;
	np_stats_t st;
	unsigned i;

	if (!d)
		return 0;
	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - median);
	np_stats_compute(d, n, &st);
	free(d);
	return st.median;
}

void np_stats_others(const double *v, unsigned n, unsigned skip, double *med, double *mad)
{
	double *tmp = n > 1 ? malloc((n - 1) * sizeof(double)) : NULL;
	unsigned k, m = 0;
	np_stats_t st;

	*med = *mad = NAN;
	if (!tmp)
		return;
	for (k = 0; k < n; k++)
		if (k != skip)
			tmp[m++] = v[k];
	np_stats_compute(tmp, m, &st);
	*med = st.median;
	*mad = np_stats_mad(tmp, m, st.median);
	free(tmp);
}

typedef struct ranked {
	double v;
	unsigned i;     /* where it came from */
} ranked_t;

static int cmp_rank(const void *a, const void *b)
{
	const ranked_t *x = a, *y = b;

	return (x->v > y->v) - (x->v < y->v);
}

/* The r-th smallest of a sorted array without its element at p. */
static double nth_without(const ranked_t *s, unsigned r, unsigned p)
{
	return s[r < p ? r : r + 1].v;
}

static double median_without(const ranked_t *s, unsigned n, unsigned p)
{
	unsigned m = n - 1;

	return m % 2 ? nth_without(s, m / 2, p) : (nth_without(s, m / 2 - 1, p) + nth_without(s, m / 2, p)) / 2;
}

/* np_stats_others for every element at once, in O(n log n): values
 * sorted once, each median without one element read off by rank; the
 * deviations from that median sorted again only when the median changes
 * (at most three times: the element left out lies below, at or above
 * the middle). */
int np_stats_others_all(const double *v, unsigned n, double *med, double *mad)
{
	ranked_t *s, *d;
	unsigned *dpos, k, p;
	double cur = NAN;

	for (k = 0; k < n; k++)
		med[k] = mad[k] = NAN;
	if (n < 2)
		return 0;
	s = malloc(n * sizeof(*s));
	d = malloc(n * sizeof(*d));
	dpos = malloc(n * sizeof(*dpos));
	if (!s || !d || !dpos) {
		free(s);
		free(d);
		free(dpos);
		return -ENOMEM;
	}
	for (k = 0; k < n; k++)
		s[k] = (ranked_t){ v[k], k };
	qsort(s, n, sizeof(*s), cmp_rank);
	for (p = 0; p < n; p++) {
		double om = median_without(s, n, p);
		if (!(om == cur)) {
			cur = om;
			for (k = 0; k < n; k++)
				d[k] = (ranked_t){ fabs(s[k].v - om), k };
			qsort(d, n, sizeof(*d), cmp_rank);
			for (k = 0; k < n; k++)
				dpos[d[k].i] = k;
		}
		med[s[p].i] = om;
		mad[s[p].i] = median_without(d, n, dpos[p]);
	}
	free(s);
	free(d);
	free(dpos);
	return 0;
}

char *np_cpulist_plus(const char *cpulist)
{
	np_cpuset_t *s = np_cpuset_new();
	np_sb_t b;
	int i;

	if (!s)
		return NULL;
	if (np_cpuset_parse(s, cpulist) < 0) {
		np_cpuset_free(s);
		return NULL;
	}
	np_sb_init(&b);
	np_sb_add(&b, "");
	for (i = np_cpuset_first(s); i >= 0; i = np_cpuset_next(s, i))
		np_sb_printf(&b, "%s%d", b.len ? "+" : "", i);
	np_cpuset_free(s);
	return np_sb_take(&b);
}

double np_rep_stat(json_t *exp, const char *metric, const char *stat)
{
	json_t *m = json_object_get(json_object_get(exp, "stats"), metric);
	json_t *v = m ? json_object_get(m, stat) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

bool np_node_outlier(double v, double med, double omed, double omad, unsigned n, bool higher, double pct,
                     double mad_z, double *dev_pct, double *z)
{
	double d = v - med, od = v - omed;
	bool worse = higher ? d < 0 : d > 0;

	*dev_pct = med != 0 ? 100.0 * d / med : NAN;
	/* with two nodes both are as far from their median: no telling which */
	*z = n < 3 ? NAN : omad > 0 ? od / (1.4826 * omad) : od == 0 ? 0 : od > 0 ? INFINITY : -INFINITY;
	if (!worse || !isfinite(*dev_pct) || fabs(*dev_pct) <= pct)
		return false;
	return n < 3 || mad_z <= 0 || (higher ? *z < -mad_z : *z > mad_z);
}
