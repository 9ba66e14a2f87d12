/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c - strict number parsing (parse.h) */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"

int np_scan_u64(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int range = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			range = 1;
		else
			v = v * 10 + d;
	}
	*p = s;
	if (range || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int np_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int rc;

	if (!s)
		return -EINVAL;
	rc = np_scan_u64(&s, UINT64_MAX, &v);
	if (rc == -EINVAL || (rc == 0 && *s) || (rc == -ERANGE && *s))
		return -EINVAL;
	if (rc < 0 || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int np_parse_uint(const char *s, unsigned min, unsigned max, unsigned *out)
{
	uint64_t v = 0;
	int rc = np_parse_u64(s, min, max, &v);

	if (rc == 0)
		*out = (unsigned)v;
	return rc;
}

int np_parse_index_list(const char *s, unsigned max, unsigned **out, unsigned *n, char *why,
                        size_t len)
{
	unsigned *v, count = 1;
	char tok[32];
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (why && len)
		why[0] = '\0';
	if (!s)
		return -EINVAL;
	if (!*s)
		return 0;
	for (const char *p = s; *p; p++)
		count += *p == ',';
	if (!(v = calloc(count, sizeof(*v))))
		return -ENOMEM;
	for (const char *p = s;; p++) {
		size_t k = strcspn(p, ",");
		unsigned x = 0;

		if (k == 0 || k >= sizeof(tok)) {
			rc = -EINVAL;
			if (why)
				snprintf(why, len, k ? "an entry of %zu characters" : "an empty entry", k);
			break;
		}
		memcpy(tok, p, k);
		tok[k] = '\0';
		if ((rc = np_parse_uint(tok, 0, max, &x)) < 0) {
			if (why)
				snprintf(why, len, rc == -ERANGE ? "'%s' is past %u" : "'%s' is not an index",
				         tok, max);
			break;
		}
		for (unsigned i = 0; i < *n && rc == 0; i++)
			if (v[i] == x) {
				rc = -EINVAL;
				if (why)
					snprintf(why, len, "'%s' is listed twice", tok);
			}
		if (rc < 0)
			break;
		v[(*n)++] = x;
		p += k;
		if (!*p)
			break;
	}
	if (rc < 0) {
		free(v);
		*n = 0;
		return rc;
	}
	*out = v;
	return 0;
}

int np_parse_int(const char *s, int min, int max, int *out)
{
	bool neg = s && *s == '-' && min < 0;
	uint64_t mag = 0;
	long long v;
	int rc;

	rc = np_parse_u64(s ? s + neg : s, 0, UINT64_MAX, &mag);
	if (rc < 0)
		return rc;
	if (mag > (uint64_t)INT_MAX + 1)
		return -ERANGE;
	v = neg ? -(long long)mag : (long long)mag;
	if (v < min || v > max)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

int np_parse_double(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || (!isfinite(v) && errno != ERANGE))
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static unsigned suffix_shift(char c)
{
	switch (c) {
	case 'k': case 'K': return 10;
	case 'm': case 'M': return 20;
	case 'g': case 'G': return 30;
	case 't': case 'T': return 40;
	default: return 0;
	}
}

int np_parse_bytes(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t whole = 0, v;
	long double frac = 0, scale = 1;
	unsigned shift = 0;
	bool range;
	int rc;

	if (!s)
		return -EINVAL;
	rc = np_scan_u64(&s, UINT64_MAX, &whole);
	if (rc == -EINVAL)
		return rc;
	range = rc == -ERANGE;
	if (*s == '.') {
		if (!isdigit((unsigned char)*++s))
			return -EINVAL;
		for (; isdigit((unsigned char)*s); s++)
			frac += (*s - '0') / (scale *= 10);
	}
	if ((shift = suffix_shift(*s)) != 0) {
		s++;
		if (*s == 'i' && s[1] == 'B')
			s++;
	}
	if (*s == 'B')
		s++;
	if (*s)
		return -EINVAL;
	if (range || (shift && whole > UINT64_MAX >> shift))
		return -ERANGE;
	v = (whole << shift) + (uint64_t)(frac * (long double)((uint64_t)1 << shift));
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

/* ---- with a message naming the option ------------------------------------ */

static int not_a(int rc, const char *opt, const char *s, const char *what, np_error_t *err)
{
	return np_error_set(err, rc, "%s: '%s' is not %s", opt, s ? s : "", what);
}

static int arg_u64(int rc, const char *opt, const char *s, uint64_t min, uint64_t max,
                   const char *what, const char *unit, np_error_t *err)
{
	if (rc == -ERANGE)
		return np_error_set(err, rc, "%s: '%s' is out of range (%llu to %llu%s)", opt, s,
		                    (unsigned long long)min, (unsigned long long)max, unit);
	return rc < 0 ? not_a(rc, opt, s, what, err) : 0;
}

int np_arg_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
               np_error_t *err)
{
	return arg_u64(np_parse_u64(s, min, max, out), opt, s, min, max, "a number", "", err);
}

int np_arg_uint(const char *opt, const char *s, unsigned min, unsigned max, unsigned *out,
                np_error_t *err)
{
	return arg_u64(np_parse_uint(s, min, max, out), opt, s, min, max, "a number", "", err);
}

int np_arg_bytes(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                 np_error_t *err)
{
	return arg_u64(np_parse_bytes(s, min, max, out), opt, s, min, max,
	               "a byte count (e.g. 4096, 64K, 4M, 1G)", " bytes", err);
}

int np_arg_int(const char *opt, const char *s, int min, int max, int *out, np_error_t *err)
{
	int rc = np_parse_int(s, min, max, out);

	if (rc == -ERANGE)
		return np_error_set(err, rc, "%s: '%s' is out of range (%d to %d)", opt, s, min, max);
	return rc < 0 ? not_a(rc, opt, s, min < 0 ? "an integer" : "a number", err) : 0;
}

int np_arg_double(const char *opt, const char *s, double min, double max, double *out,
                  np_error_t *err)
{
	int rc = np_parse_double(s, min, max, out);

	if (rc == -ERANGE)
		return np_error_set(err, rc, "%s: '%s' is out of range (%g to %g)", opt, s, min, max);
	return rc < 0 ? not_a(rc, opt, s, "a finite number", err) : 0;
}
