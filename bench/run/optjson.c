/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optjson.c - option values to and from run.json (optjson.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "run/optjson.h"

#define CAT(base, d, type) ((const type *)((const char *)(base) + (d)->off))

json_t *np_opt_to_json(const np_optdef_t *d, const void *base)
{
	const char *s;
	char name[64];

	switch (d->kind) {
	case NP_OPT_FLAG:
		return json_boolean(*CAT(base, d, bool));
	case NP_OPT_UINT:
		return json_integer(*CAT(base, d, unsigned));
	case NP_OPT_DOUBLE:
		return json_real(*CAT(base, d, double));
	case NP_OPT_BYTES:
		return json_integer((json_int_t)*CAT(base, d, unsigned long long));
	case NP_OPT_CONST:
		return json_integer(*CAT(base, d, int));
	case NP_OPT_ENUM:
		s = np_opt_choice(d, *CAT(base, d, int), name, sizeof(name));
		return s ? json_string(s) : json_null();
	case NP_OPT_STR:
	case NP_OPT_CHOICE:
		s = *CAT(base, d, const char *);
		return s ? json_string(s) : json_null();
	case NP_OPT_CUSTOM:
		return d->format(CAT(base, d, char), name, sizeof(name)) == 0 ? json_string(name) : json_null();
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
			*(bool *)((char *)base + d->off) = json_is_true(v);
		return json_is_boolean(v);
	}
	if (d->kind == NP_OPT_LIST || d->kind == NP_OPT_CONST)
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
