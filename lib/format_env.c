/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * format_env.c - each rank's planned environment (np_rank_t.env: GPUs,
 * adapters, OpenMP) in the forms the launcher formats carry it: Open MPI's
 * -x per app context, hydra's -env per executable (or -genv), env(1)
 * words for numactl lines and srun, and srun's --multi-prog file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "format_internal.h"

static bool skipped(const np_env_skip_t *skip, const char *name)
{
	for (unsigned i = 0; skip && i < skip->n; i++)
		if (!strcmp(skip->names[i], name))
			return true;
	return false;
}

static unsigned carried(const np_rank_t *r, const np_env_skip_t *skip)
{
	unsigned n = 0;

	for (unsigned i = 0; r->bound && i < r->nenv; i++)
		n += !skipped(skip, r->env[i].name);
	return n;
}

bool np_env_any(const np_plan_t *p, const np_env_skip_t *skip)
{
	for (unsigned i = 0; i < p->nranks; i++)
		if (carried(&p->ranks[i], skip))
			return true;
	return false;
}

/* Every rank the same variables with the same values: one global form
 * gives them all, and the launcher lines stay as short as before. */
bool np_env_uniform(const np_plan_t *p, const np_env_skip_t *skip)
{
	const np_rank_t *a = &p->ranks[0];

	for (unsigned i = 1; i < p->nranks; i++) {
		const np_rank_t *b = &p->ranks[i];

		if (carried(a, skip) != carried(b, skip))
			return false;
		for (unsigned k = 0; a->bound && k < a->nenv; k++) {
			const char *v;

			if (skipped(skip, a->env[k].name))
				continue;
			if (!(v = np_rank_getenv(b, a->env[k].name)) || strcmp(v, a->env[k].value))
				return false;
		}
	}
	return true;
}

/* srun's --multi-prog reader is not a shell: it takes single quotes and
 * backslashes as a shell does, but reads %t and %o (and drops any other
 * %X) outside quotes.  Anything beyond the plain characters is quoted. */
static void mp_quote(np_sb_t *b, const char *s)
{
	np_sb_shq_with(b, s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@");
}

int np_env_write(FILE *f, const np_rank_t *r, np_env_style_t style, const np_env_skip_t *skip)
{
	np_sb_t b;
	char *text;

	np_sb_init(&b);
	for (unsigned i = 0; r->bound && i < r->nenv; i++) {
		const np_env_t *e = &r->env[i];
		char *pair;

		if (skipped(skip, e->name))
			continue;
		if (!(pair = np_strdup_printf("%s=%s", e->name, e->value))) {
			np_sb_free(&b);
			return -ENOMEM;
		}
		switch (style) {
		case NP_ENV_OMPI:
			np_sb_add(&b, " -x ");
			np_sb_shq(&b, pair);
			break;
		case NP_ENV_HYDRA:
		case NP_ENV_HYDRA_GLOBAL:
			np_sb_add(&b, style == NP_ENV_HYDRA ? " -env " : " -genv ");
			np_sb_add(&b, e->name);
			np_sb_add(&b, " ");
			np_sb_shq(&b, e->value);
			break;
		case NP_ENV_WORDS:
			np_sb_add(&b, " ");
			np_sb_shq(&b, pair);
			break;
		case NP_ENV_MULTI_PROG:
			np_sb_add(&b, " ");
			mp_quote(&b, pair);
			break;
		}
		free(pair);
	}
	if (!(text = np_sb_take(&b)))
		return -ENOMEM;
	fputs(text, f);
	free(text);
	return 0;
}
