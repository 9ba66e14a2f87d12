/*
 * kcommon_parse.c - strict number parsing for the kernels' command lines.
 *
 * strtoul() happily accepts " -3" (as a huge number), "12abc" and "" — all
 * of which must be refused with a message naming the option and value.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kcommon.h"

static int bad(struct np_k_err *err, const char *opt, const char *s,
               const char *what)
{
	return np_k_err_set(err, -EINVAL, "%s: '%s' is not %s", opt, s, what);
}

/* Digits only, so signs, blanks and hex are refused before strtoull. */
static int digits_u64(const char *opt, const char *s, const char **end,
                      uint64_t *out, struct np_k_err *err)
{
	unsigned long long v;
	char *e;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return bad(err, opt, s ? s : "", "a non-negative integer");
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno == ERANGE)
		return np_k_err_set(err, -ERANGE, "%s: '%s' is too large",
		                    opt, s);
	*end = e;
	*out = (uint64_t)v;
	return 0;
}

static int range_u64(const char *opt, const char *s, uint64_t v,
                     uint64_t min, uint64_t max, struct np_k_err *err)
{
	if (v < min || v > max)
		return np_k_err_set(err, -ERANGE,
		                    "%s: '%s' is out of range (%llu to %llu)", opt,
		                    s, (unsigned long long)min,
		                    (unsigned long long)max);
	return 0;
}

int np_k_parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
                   uint64_t *out, struct np_k_err *err)
{
	const char *end = NULL;   /* -O3 cannot see digits_u64 set them */
	uint64_t v = 0;
	int rc = digits_u64(opt, s, &end, &v, err);

	if (rc < 0)
		return rc;
	if (*end != '\0')
		return bad(err, opt, s, "a non-negative integer");
	rc = range_u64(opt, s, v, min, max, err);
	if (rc < 0)
		return rc;
	*out = v;
	return 0;
}

int np_k_parse_int(const char *opt, const char *s, int min, int max,
                   int *out, struct np_k_err *err)
{
	const char *p = s;
	uint64_t mag = 0;
	const char *end = NULL;
	long long v;
	int neg = 0, rc;

	if (p != NULL && *p == '-' && min < 0) {
		neg = 1;
		p++;
	}
	rc = digits_u64(opt, p, &end, &mag, err);
	if (rc == -ERANGE)
		return np_k_err_set(err, -ERANGE, "%s: '%s' is out of range "
		                    "(%d to %d)", opt, s, min, max);
	if (rc < 0 || *end != '\0')
		return bad(err, opt, s ? s : "",
		           min < 0 ? "an integer" : "a non-negative integer");
	if (mag > (uint64_t)1 << 40)
		return np_k_err_set(err, -ERANGE, "%s: '%s' is out of range "
		                    "(%d to %d)", opt, s, min, max);
	v = neg ? -(long long)mag : (long long)mag;
	if (v < min || v > max)
		return np_k_err_set(err, -ERANGE, "%s: '%s' is out of range "
		                    "(%d to %d)", opt, s, min, max);
	*out = (int)v;
	return 0;
}

int np_k_parse_double(const char *opt, const char *s, double min, double max,
                      double *out, struct np_k_err *err)
{
	char *e;
	double v;

	if (s == NULL || s[0] == '\0' || isspace((unsigned char)s[0]))
		return bad(err, opt, s ? s : "", "a number");
	errno = 0;
	v = strtod(s, &e);
	if (*e != '\0' || e == s || !isfinite(v))
		return bad(err, opt, s, "a finite number");
	if (errno == ERANGE || v < min || v > max)
		return np_k_err_set(err, -ERANGE, "%s: '%s' is out of range "
		                    "(%g to %g)", opt, s, min, max);
	*out = v;
	return 0;
}

int np_k_parse_bytes(const char *opt, const char *s, uint64_t min,
                     uint64_t max, uint64_t *out, struct np_k_err *err)
{
	const char *end = NULL;
	uint64_t v = 0, mult = 1;
	int rc = digits_u64(opt, s, &end, &v, err);

	if (rc == -EINVAL)
		return bad(err, opt, s ? s : "", "a byte count (e.g. 4096, 64K, 4M)");
	if (rc < 0)
		return rc;
	if (*end != '\0') {
		switch (*end) {
		case 'k': case 'K': mult = (uint64_t)1 << 10; break;
		case 'm': case 'M': mult = (uint64_t)1 << 20; break;
		case 'g': case 'G': mult = (uint64_t)1 << 30; break;
		default:
			return bad(err, opt, s, "a byte count (e.g. 4096, 64K, 4M)");
		}
		if (end[1] != '\0')
			return bad(err, opt, s, "a byte count (e.g. 4096, 64K, 4M)");
	}
	if (v != 0 && v > UINT64_MAX / mult)
		return np_k_err_set(err, -ERANGE, "%s: '%s' is too large", opt, s);
	v *= mult;
	rc = range_u64(opt, s, v, min, max, err);
	if (rc < 0)
		return rc;
	*out = v;
	return 0;
}
