/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optpolicy.c - policy-valued options (optpolicy.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "run/optpolicy.h"

int np_opt_policy_parse(void *dst, const char *opt, const char *val, np_error_t *err)
{
	if (np_policy_parse(val, (np_policy_t *)dst) < 0)
		return np_error_set(err, -EINVAL, "%s: unknown policy '%s' (valid: %s)", opt, val, np_policy_list());
	return 0;
}

int np_opt_policy_format(const void *src, char *buf, size_t n)
{
	return snprintf(buf, n, "%s", np_policy_name(*(const np_policy_t *)src)) < (int)n ? 0 : -1;
}

int np_opt_policies_parse(void *dst, const char *opt, const char *val, np_error_t *err)
{
	np_policies_t l = { 0 };
	const char *p = val, *e;

	do {
		char name[32];
		size_t n;

		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0 || n >= sizeof(name) || l.n >= NP_POLICY_COUNT)
			return np_error_set(err, -EINVAL, "bad value '%s' for %s: policy names separated by commas "
			                    "(valid: %s)", val, opt, np_policy_list());
		memcpy(name, p, n);
		name[n] = '\0';
		if (np_opt_policy_parse(&l.v[l.n], opt, name, err) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < l.n; i++)
			if (l.v[i] == l.v[l.n])
				return np_error_set(err, -EINVAL, "bad value '%s' for %s: the policy '%s' is given twice",
				                    val, opt, name);
		l.n++;
		p = e + 1;
	} while (e);
	*(np_policies_t *)dst = l;
	return 0;
}

int np_opt_policies_format(const void *src, char *buf, size_t n)
{
	const np_policies_t *l = src;
	size_t k = 0;

	if (n)
		buf[0] = '\0';
	for (unsigned i = 0; i < l->n; i++) {
		int w = snprintf(buf + k, n - k, "%s%s", i ? "," : "", np_policy_name(l->v[i]));
		if (w < 0 || (size_t)w >= n - k)
			return -1;
		k += (size_t)w;
	}
	return 0;
}
