/*
 * optable.c - typed option values from tables (optable.h).
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/optable.h"
#include "bench_util.h"

#define AT(base, d, type) ((type *)((char *)(base) + (d)->off))
#define CAT(base, d, type) ((const type *)((const char *)(base) + (d)->off))

static int bad(np_error_t *err, const char *opt, const char *val, const char *want)
{
	return np_error_set(err, -EINVAL, "bad value '%s' for %s: %s", val, opt, want);
}

static bool in_choices(const char *choices, const char *val)
{
	size_t n = strlen(val);
	const char *p = choices;

	while (p && *p) {
		const char *e = strchr(p, '|');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (n && l == n && strncmp(p, val, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

/* The one place bench/ reads a policy's name: the message names the
 * value and every valid one. */
static int set_policy(np_policy_t *out, const char *opt, const char *val, np_error_t *err)
{
	if (np_policy_parse(val, out) < 0)
		return np_error_set(err, -EINVAL, "%s: unknown policy '%s' (valid: %s)", opt, val,
		                    np_policy_list());
	return 0;
}

static int set_policies(np_policies_t *out, const char *opt, const char *val, np_error_t *err)
{
	np_policies_t l = { 0 };
	const char *p = val, *e;

	do {
		char name[32];
		size_t n;

		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || n >= sizeof(name))
			return np_error_set(err, -EINVAL, "bad value '%s' for %s: policy names separated by commas "
			                    "(valid: %s)", val, opt, np_policy_list());
		memcpy(name, p, n);
		name[n] = '\0';
		if (set_policy(&l.v[l.n], opt, name, err) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < l.n; i++)
			if (l.v[i] == l.v[l.n])
				return np_error_set(err, -EINVAL, "bad value '%s' for %s: the policy '%s' is given twice",
				                    val, opt, name);
		l.n++;
		p = e + 1;
	} while (e);
	*out = l;
	return 0;
}

int np_opt_set(const np_optdef_t *d, void *base, const char *opt, const char *val, np_error_t *err)
{
	const char *want = d->want ? d->want : "see numaplan run --help";
	uint64_t b;
	unsigned u;
	double x;

	switch (d->kind) {
	case NP_OPT_FLAG:
		*AT(base, d, bool) = true;
		return 0;
	case NP_OPT_STR:
		break;
	case NP_OPT_UINT:
		if (np_parse_uint(val, (unsigned)d->min, d->max > 0 ? (unsigned)d->max : UINT_MAX, &u) < 0)
			return bad(err, opt, val, want);
		*AT(base, d, unsigned) = u;
		return 0;
	case NP_OPT_DOUBLE:
		if (np_parse_double(val, -DBL_MAX, DBL_MAX, &x) < 0 || x <= d->min || (d->max > 0 && x > d->max))
			return bad(err, opt, val, want);
		if (d->check && d->check(opt, val, err) < 0)
			return -EINVAL;
		*AT(base, d, double) = x;
		return 0;
	case NP_OPT_BYTES:
		if (np_parse_bytes(val, 1, UINT64_MAX, &b) < 0)
			return bad(err, opt, val, want);
		*AT(base, d, unsigned long long) = b;
		return 0;
	case NP_OPT_CHOICE:
		if (!in_choices(d->choices, val))
			return bad(err, opt, val, want);
		break;
	case NP_OPT_POLICY:
		return set_policy(AT(base, d, np_policy_t), opt, val, err);
	case NP_OPT_POLICIES:
		return set_policies(AT(base, d, np_policies_t), opt, val, err);
	case NP_OPT_LIST: {
		np_optlist_t *l = AT(base, d, np_optlist_t);
		const char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
		if (!nv)
			return np_error_set(err, -ENOMEM, "out of memory");
		l->v = nv;
		l->v[l->n++] = val;
		return 0;
	}
	}
	if (d->check && d->check(opt, val, err) < 0)
		return -EINVAL;
	*AT(base, d, const char *) = val;
	return 0;
}

int np_opt_defaults(const np_optdef_t *defs, void *base, np_error_t *err)
{
	char opt[64];
	int rc;

	for (; defs && defs->name; defs++) {
		if (!defs->dflt)
			continue;
		snprintf(opt, sizeof(opt), "--%s", defs->name);
		if ((rc = np_opt_set(defs, base, opt, defs->dflt, err)) < 0)
			return rc;
	}
	return 0;
}

void np_opt_release(const np_optdef_t *defs, void *base)
{
	for (; defs && defs->name; defs++)
		if (defs->kind == NP_OPT_LIST) {
			np_optlist_t *l = AT(base, defs, np_optlist_t);
			free(l->v);
			l->v = NULL;
			l->n = 0;
		}
}

const np_optdef_t *np_opt_find(const np_optdef_t *defs, const char *name)
{
	for (; defs && defs->name; defs++)
		if (strcmp(defs->name, name) == 0)
			return defs;
	return NULL;
}

void np_opt_usage(FILE *f, const np_optdef_t *defs)
{
	for (; defs && defs->name; defs++) {
		char head[64], key[8] = "    ";
		if (defs->key)
			snprintf(key, sizeof(key), "-%c, ", defs->key);
		snprintf(head, sizeof(head), "%s--%s%s%s", key, defs->name, defs->arg ? " " : "",
		         defs->arg ? defs->arg : "");
		fprintf(f, "  %-28s %s", head, defs->help ? defs->help : "");
		if (defs->dflt)
			fprintf(f, " (default %s)", defs->dflt);
		fputc('\n', f);
	}
}

json_t *np_opt_to_json(const np_optdef_t *d, const void *base)
{
	const np_policies_t *l;
	const char *s;
	np_sb_t b;

	switch (d->kind) {
	case NP_OPT_FLAG:
		return json_boolean(*CAT(base, d, bool));
	case NP_OPT_UINT:
		return json_integer(*CAT(base, d, unsigned));
	case NP_OPT_DOUBLE:
		return json_real(*CAT(base, d, double));
	case NP_OPT_BYTES:
		return json_integer((json_int_t)*CAT(base, d, unsigned long long));
	case NP_OPT_STR:
	case NP_OPT_CHOICE:
		s = *CAT(base, d, const char *);
		return s ? json_string(s) : json_null();
	case NP_OPT_POLICY:
		return json_string(np_policy_name(*CAT(base, d, np_policy_t)));
	case NP_OPT_POLICIES:
		l = CAT(base, d, np_policies_t);
		np_sb_init(&b);
		for (unsigned i = 0; i < l->n; i++)
			np_sb_printf(&b, "%s%s", i ? "," : "", np_policy_name(l->v[i]));
		s = np_sb_take(&b);
		{
			json_t *j = s ? json_string(s) : json_null();

			free((char *)s);
			return j;
		}
	case NP_OPT_LIST:
		break;
	}
	return json_null();
}

bool np_opt_from_json(const np_optdef_t *d, void *base, json_t *v)
{
	char text[64], opt[64];
	np_error_t err;

	snprintf(opt, sizeof(opt), "--%s", d->name);
	if (d->kind == NP_OPT_FLAG) {
		if (json_is_boolean(v))
			*AT(base, d, bool) = json_is_true(v);
		return json_is_boolean(v);
	}
	if (d->kind == NP_OPT_LIST)
		return false;
	if (json_is_string(v))
		return np_opt_set(d, base, opt, json_string_value(v), &err) == 0;
	if (json_is_integer(v))
		snprintf(text, sizeof(text), "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v) && isfinite(json_real_value(v)))
		snprintf(text, sizeof(text), "%.17g", json_real_value(v));
	else
		return false;
	/* a STR or CHOICE value must outlive this call: only strings are */
	if (d->kind == NP_OPT_STR || d->kind == NP_OPT_CHOICE)
		return false;
	return np_opt_set(d, base, opt, text, &err) == 0;
}

void np_opt_key(const np_optdef_t *d, char *buf, size_t n)
{
	size_t i;

	snprintf(buf, n, "%s", d->name);
	for (i = 0; buf[i]; i++)
		if (buf[i] == '-')
			buf[i] = '_';
}
