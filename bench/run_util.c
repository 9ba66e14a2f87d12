/*
 * run_util.c - strings, files and statistics for run/report/accept.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "numaplan.h"
#include "run_util.h"

void np_sb_init(np_sb_t *b)
{
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

void np_sb_free(np_sb_t *b)
{
	free(b->s);
	np_sb_init(b);
}

static bool sb_grow(np_sb_t *b, size_t extra)
{
	size_t want;
	char *n;

	if (b->oom)
		return false;
	want = b->len + extra + 1;
	if (want <= b->cap)
		return true;
	if (want < 2 * b->cap)
		want = 2 * b->cap;
	if (want < 64)
		want = 64;
	n = realloc(b->s, want);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = want;
	return true;
}

void np_sb_addn(np_sb_t *b, const char *s, size_t n)
{
	if (!sb_grow(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void np_sb_add(np_sb_t *b, const char *s)
{
	np_sb_addn(b, s, strlen(s));
}

static void sb_vprintf(np_sb_t *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || !sb_grow(b, (size_t)n))
		return;
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void np_sb_printf(np_sb_t *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(b, fmt, ap);
	va_end(ap);
}

void np_sb_shq(np_sb_t *b, const char *s)
{
	const char *p;
	bool safe = *s != '\0';

	for (p = s; *p && safe; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@", *p))
			safe = false;
	if (safe) {
		np_sb_add(b, s);
		return;
	}
	np_sb_add(b, "'");
	for (p = s; *p; p++) {
		if (*p == '\'')
			np_sb_add(b, "'\\''");
		else
			np_sb_addn(b, p, 1);
	}
	np_sb_add(b, "'");
}

char *np_sb_take(np_sb_t *b)
{
	char *s;

	if (b->oom) {
		np_sb_free(b);
		return NULL;
	}
	s = b->s ? b->s : strdup("");
	np_sb_init(b);
	return s;
}

char *np_strdup_printf(const char *fmt, ...)
{
	np_sb_t b;
	va_list ap;

	np_sb_init(&b);
	va_start(ap, fmt);
	sb_vprintf(&b, fmt, ap);
	va_end(ap);
	return np_sb_take(&b);
}

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

char *np_read_file(const char *path, size_t *len, np_error_t *err)
{
	FILE *f = fopen(path, "r");
	np_sb_t b;
	char buf[8192];
	size_t n;

	if (!f) {
		np_error_set(err, -errno, "cannot read %s: %s", path, strerror(errno));
		return NULL;
	}
	np_sb_init(&b);
	np_sb_add(&b, "");
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		np_sb_addn(&b, buf, n);
	fclose(f);
	if (len)
		*len = b.len;
	if (b.oom)
		np_error_set(err, -ENOMEM, "out of memory reading %s", path);
	return np_sb_take(&b);
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

char *np_which(const char *name)
{
	const char *path = getenv("PATH");
	const char *p, *e;
	char *cand;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? strdup(name) : NULL;
	if (!path)
		path = "/usr/bin:/bin";
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		cand = np_strdup_printf("%.*s/%s", (int)(e - p), e == p ? "." : p, name);
		if (cand && access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
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

bool np_parse_uint(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > UINT_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

bool np_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool np_parse_size(const char *s, unsigned long long *out)
{
	char *end;
	double v;
	double mul = 1;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return false;
	switch (*end) {
	case 'k': case 'K': mul = 1024.0; end++; break;
	case 'm': case 'M': mul = 1024.0 * 1024; end++; break;
	case 'g': case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
	case 't': case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end == 'i' || *end == 'B')
		end++;
	if (*end == 'B')
		end++;
	if (*end)
		return false;
	*out = (unsigned long long)(v * mul);
	return true;
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

int np_cpulist_count(const char *cpulist)
{
	np_cpuset_t *s = np_cpuset_new();
	int n = -1;

	if (!s)
		return -1;
	if (np_cpuset_parse(s, cpulist) == 0)
		n = (int)np_cpuset_count(s);
	np_cpuset_free(s);
	return n;
}

const char *np_json_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

double np_json_real(json_t *o, const char *key)
{
	json_t *x = json_object_get(o, key);

	return json_is_number(x) ? json_number_value(x) : NAN;
}

bool np_json_num(json_t *o, const char *key, double *out)
{
	double v = np_json_real(o, key);

	if (!isfinite(v))
		return false;
	*out = v;
	return true;
}

bool np_json_streq(json_t *o, const char *key, const char *s)
{
	const char *v = json_string_value(json_object_get(o, key));

	return v && s && strcmp(v, s) == 0;
}
