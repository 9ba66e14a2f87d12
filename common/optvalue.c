/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optvalue.c - typed option values from tables (optparse.h): a value's
 * text checked and stored where its table says, defaults, usage lines.
 */
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/optparse.h"
#include "common/parse.h"
#include "common/text.h"

#define AT(base, d, type) ((type *)((char *)(base) + (d)->off))

/* What a value of d must be, when its table does not say. */
static const char *want_of(const np_optdef_t *d, char *buf, size_t n)
{
	if (d->want)
		return d->want;
	switch (d->kind) {
	case NP_OPT_UINT:
		if (d->max > 0)
			snprintf(buf, n, "an integer from %u to %u", (unsigned)d->min, (unsigned)d->max);
		else
			snprintf(buf, n, "an integer of at least %u", (unsigned)d->min);
		return buf;
	case NP_OPT_DOUBLE:
		return "a number";
	case NP_OPT_BYTES:
		return "a size such as 64G, 512M or 4096";
	case NP_OPT_CHOICE:
	case NP_OPT_ENUM: {
		char name[64];
		size_t k = (size_t)snprintf(buf, n, "one of");
		for (int i = 0; np_opt_choice(d, i, name, sizeof(name)) && k < n; i++)
			k += (size_t)snprintf(buf + k, n - k, "%s %s", i ? "," : "", name);
		return buf;
	}
	default:
		return "see --help";
	}
}

static int bad(np_error_t *err, const np_optdef_t *d, const char *opt, const char *val)
{
	char buf[256];

	return np_error_set(err, -EINVAL, "bad value '%s' for %s: %s", val, opt, want_of(d, buf, sizeof(buf)));
}

/* The index of val in "a|b|c", or -1. */
static int choice_index(const char *choices, const char *val)
{
	size_t n = strlen(val);
	const char *p = choices;
	int i = 0;

	while (p && *p) {
		const char *e = strchr(p, '|');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (n && l == n && strncmp(p, val, n) == 0)
			return i;
		p = e ? e + 1 : NULL;
		i++;
	}
	return -1;
}

const char *np_opt_choice(const np_optdef_t *d, int i, char *buf, size_t n)
{
	const char *p = d->choices;

	for (; p && *p && i > 0; i--)
		p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL;
	if (!p || !*p || i < 0 || n == 0)
		return NULL;
	snprintf(buf, n, "%.*s", (int)(strchr(p, '|') ? (size_t)(strchr(p, '|') - p) : strlen(p)), p);
	return buf;
}

static int set_list(const np_optdef_t *d, void *base, const char *val, np_error_t *err)
{
	np_optlist_t *l = AT(base, d, np_optlist_t);
	const char **nv = realloc(l->v, (l->n + 1) * sizeof(*nv));

	if (!nv)
		return np_error_set(err, -ENOMEM, "out of memory");
	l->v = nv;
	l->v[l->n++] = val;
	return 0;
}

int np_opt_set(const np_optdef_t *d, void *base, const char *opt, const char *val, np_error_t *err)
{
	uint64_t b = 0;
	unsigned u = 0;
	double x = 0;
	int i = 0;

	switch (d->kind) {
	case NP_OPT_FLAG:
		*AT(base, d, bool) = true;
		return 0;
	case NP_OPT_CONST:
		*AT(base, d, int) = d->ival;
		return 0;
	case NP_OPT_LIST:
		if (d->check && d->check(opt, val, err) < 0)
			return -EINVAL;
		return set_list(d, base, val, err);
	case NP_OPT_CUSTOM:
		if (d->check && d->check(opt, val, err) < 0)
			return -EINVAL;
		return d->parse(AT(base, d, char), opt, val, err);
	default:
		break;
	}
	/* the value is checked whole before anything is stored */
	switch (d->kind) {
	case NP_OPT_UINT:
		if (np_parse_uint(val, (unsigned)d->min, d->max > 0 ? (unsigned)d->max : UINT_MAX, &u) < 0)
			return bad(err, d, opt, val);
		break;
	case NP_OPT_DOUBLE:
		if (np_parse_double(val, -DBL_MAX, DBL_MAX, &x) < 0 || x < d->min ||
		    (x == d->min && !(d->flags & NP_OPTF_CLOSED)) || (d->max > 0 && x > d->max))
			return bad(err, d, opt, val);
		break;
	case NP_OPT_BYTES:
		if (np_parse_bytes(val, 1, UINT64_MAX, &b) < 0)
			return bad(err, d, opt, val);
		break;
	case NP_OPT_CHOICE:
	case NP_OPT_ENUM:
		if ((i = choice_index(d->choices, val)) < 0)
			return bad(err, d, opt, val);
		break;
	default:
		break;
	}
	if (d->check && d->check(opt, val, err) < 0)
		return -EINVAL;
	switch (d->kind) {
	case NP_OPT_UINT: *AT(base, d, unsigned) = u; break;
	case NP_OPT_DOUBLE: *AT(base, d, double) = x; break;
	case NP_OPT_BYTES: *AT(base, d, unsigned long long) = b; break;
	case NP_OPT_ENUM: *AT(base, d, int) = i; break;
	default: *AT(base, d, const char *) = val; break;
	}
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
