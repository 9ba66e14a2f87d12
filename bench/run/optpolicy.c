/*
 * optpolicy.c - policy options of `numaplan run` (--policy, compare's
 * --policies): the one place bench/ reads a policy's name, as the option
 * parser's NP_OPT_PARSED callbacks, with a message naming the value and
 * every valid policy.  Apart from run_options.c, which knows the suites,
 * so that a suite's table can use them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"

static int set_policy(np_policy_t *out, const char *opt, const char *val, np_error_t *err)
{
	if (np_policy_parse(val, out) < 0)
		return np_error_set(err, -EINVAL, "%s: unknown policy '%s' (valid: %s)", opt, val,
		                    np_policy_list());
	return 0;
}

int np_opt_policy_parse(void *field, const char *opt, const char *val, np_error_t *err)
{
	return set_policy(field, opt, val, err);
}

char *np_opt_policy_format(const void *field)
{
	return strdup(np_policy_name(*(const np_policy_t *)field));
}

int np_opt_policies_parse(void *field, const char *opt, const char *val, np_error_t *err)
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
		if (l.n == NP_POLICY_COUNT)
			return np_error_set(err, -EINVAL, "bad value '%s' for %s: more policies than there are", val, opt);
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
	*(np_policies_t *)field = l;
	return 0;
}

char *np_opt_policies_format(const void *field)
{
	const np_policies_t *l = field;
	np_sb_t b;

	np_sb_init(&b);
	np_sb_add(&b, "");
	for (unsigned i = 0; i < l->n; i++)
		np_sb_printf(&b, "%s%s", i ? "," : "", np_policy_name(l->v[i]));
	return np_sb_take(&b);
}
