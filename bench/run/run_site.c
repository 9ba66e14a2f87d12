/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_site.c - a placement policy the site enforces, found before the job
 * is submitted.
 *
 * Under the numaplan plugin's `enforce`, every step gets the site's
 * default policy whatever srun is asked (--cpu-bind masks, --numa-plan):
 * experiments planned with another policy would run elsewhere than their
 * plan and their figures be of another placement.  numaplan run asks the
 * plugin for the site's rules (srun --numa-plan=help) and decides per
 * experiment:
 *   - planned with the enforced policy: the step binds through the plugin
 *     (-c THREADS --numa-plan=POLICY), which is what the site does anyway;
 *   - planned with another policy, or unbound: refused before submission,
 *     unless --if-enforced run, which runs them as generated; their runs
 *     are then marked misplaced where the kernels' records differ.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/run.h"
#include "bench_util.h"
#include "slurmcmd/slurmcmd.h"

/* The value after "  KEY ... : " on a line of the help text, or NULL. */
static char *field(const char *text, const char *key)
{
	const char *p = text;
	size_t kl = strlen(key);

	while (p && *p) {
		const char *s = p + strspn(p, " ");
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (strncmp(s, key, kl) == 0 && (s[kl] == ' ' || s[kl] == ':')) {
			const char *c = memchr(s, ':', len - (size_t)(s - p));
			if (c) {
				c += 1 + strspn(c + 1, " ");
				return strndup(c, len - (size_t)(c - p));
			}
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

int np_site_rules_parse(const char *help, char **enforced, np_error_t *err)
{
	char *enf = field(help, "enforced"), *def = field(help, "default policy");
	int rc = 0;

	*enforced = NULL;
	if (!enf || !def) {
		rc = np_error_set(err, -EINVAL, "the plugin's --numa-plan=help names no default policy or enforcement");
	} else if (strncmp(enf, "yes", 3) == 0) {
		np_policy_t p;
		size_t n = strcspn(def, " (");
		def[n] = '\0';
		if (np_policy_parse(def, &p) < 0)
			rc = np_error_set(err, -EINVAL, "the plugin enforces an unknown policy '%s'", def);
		else if (!(*enforced = strdup(def)))
			rc = np_error_set(err, -ENOMEM, "out of memory");
	}
	free(enf);
	free(def);
	return rc;
}

/* Whether the experiment's plan is what the enforced policy gives. */
static bool follows(const np_exp_t *e, const char *policy)
{
	return e->nrank_cpus > 0 && strcmp(np_exp_plugin_policy(e), policy) == 0;
}

int np_site_policy_apply(np_run_ctx_t *c, const char *enforced, np_error_t *err)
{
	unsigned i, n = 0;
	np_sb_t b;

	free(c->enforced);
	c->enforced = NULL;
	if (!enforced)
		return 0;
	if (!(c->enforced = strdup(enforced)))
		return np_error_set(err, -ENOMEM, "out of memory");
	np_sb_init(&b);
	np_sb_add(&b, "");
	for (i = 0; i < c->exps.n; i++) {
		const np_exp_t *e = c->exps.v[i];
		if (follows(e, enforced))
			continue;
		if (n < 6)
			np_sb_printf(&b, "%s%s (%s)", n ? ", " : "", e->name,
			             e->nrank_cpus ? np_exp_plugin_policy(e) : "unbound");
		n++;
	}
	if (n > 6)
		np_sb_printf(&b, " and %u more", n - 6);
	c->enforced_others = n;
	if (n && c->opts->if_enforced != NP_IFENF_RUN) {
		int rc = np_error_set(err, -EPERM, "this cluster enforces the placement policy '%s' on every step "
		                      "(srun --numa-plan=help: enforced: yes), whatever numaplan binds: %u of %u "
		                      "experiments are planned otherwise and would not run where planned: %s.  Nothing "
		                      "was submitted.  Use a partition without enforcement (--partition), or "
		                      "--if-enforced run to run anyway (runs not placed as planned are then marked "
		                      "misplaced)", enforced, n, c->exps.n, b.s ? b.s : "?");
		np_sb_free(&b);
		return rc;
	}
	np_sb_free(&b);
	return 0;
}

bool np_site_binds(const np_run_ctx_t *c, const np_exp_t *e)
{
	return c->enforced && follows(e, c->enforced);
}
