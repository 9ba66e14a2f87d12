/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * optparse.c - the walk over a command line (optparse.h): which word is
 * an option, which its value, which an operand; every option found in
 * every table that declares it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/optparse.h"
#include "common/escape.h"
#include "common/text.h"

typedef struct walk {
	const char *cmd;
	const np_opttable_t *tables;
	unsigned ntables;
	np_optargs_t *a;
	np_error_t *err;
} walk_t;

static int oom(walk_t *w)
{
	return np_error_set(w->err, -ENOMEM, "out of memory");
}

static int unknown(walk_t *w, const char *word)
{
	char safe[NP_ESCAPED_SIZE(64)];

	return np_error_set(w->err, -EINVAL, "unknown option '%s' (see numaplan %s --help)",
	                    np_escape(safe, sizeof(safe), word), w->cmd);
}

/* The option called name[0..len), exactly or by a unique prefix; NULL
 * with err set when there is none or several. */
static const np_optdef_t *find_long(walk_t *w, const char *word, const char *name, size_t len)
{
	const np_optdef_t *d, *hit = NULL, *other = NULL;
	unsigned t;

	for (t = 0; t < w->ntables; t++)
		for (d = w->tables[t].defs; d && d->name; d++) {
			if (strncmp(d->name, name, len) != 0)
				continue;
			if (d->name[len] == '\0')
				return d;
			if (!hit)
				hit = d;
			else if (strcmp(hit->name, d->name) != 0 && !other)
				other = d;
		}
	if (hit && other) {
		char safe[NP_ESCAPED_SIZE(64)];
		np_error_set(w->err, -EINVAL, "option '%s' is ambiguous (--%s, --%s, ...)",
		             np_escape(safe, sizeof(safe), word), hit->name, other->name);
		return NULL;
	}
	if (!hit)
		unknown(w, word);
	return hit;
}

static const np_optdef_t *find_short(walk_t *w, char key)
{
	const np_optdef_t *d;
	unsigned t;

	for (t = 0; t < w->ntables; t++)
		for (d = w->tables[t].defs; d && d->name; d++)
			if (d->key == key)
				return d;
	return NULL;
}

static bool takes_value(const np_optdef_t *d)
{
	return d->kind != NP_OPT_FLAG && d->kind != NP_OPT_CONST;
}

/* A CONST option given after another of its field with another value. */
static int check_exclusive(walk_t *w, unsigned t, const np_optdef_t *d)
{
	const np_optdef_t *e;
	unsigned g;

	if (d->kind != NP_OPT_CONST)
		return 0;
	for (g = 0; g < w->a->ngiven; g++) {
		e = np_opt_find(w->tables[t].defs, w->a->given[g]->name);
		if (e && e->kind == NP_OPT_CONST && e->off == d->off && e->ival != d->ival)
			return np_error_set(w->err, -EINVAL, "--%s and --%s exclude each other", e->name, d->name);
	}
	return 0;
}

static int note_given(walk_t *w, const np_optdef_t *d)
{
	const np_optdef_t **v;
	unsigned g;

	for (g = 0; g < w->a->ngiven; g++)
		if (strcmp(w->a->given[g]->name, d->name) == 0)
			return 0;
	if (!(v = realloc(w->a->given, (w->a->ngiven + 1) * sizeof(*v))))
		return oom(w);
	w->a->given = v;
	v[w->a->ngiven++] = d;
	return 0;
}

/* Set the option named like d in every table that declares it. */
static int apply(walk_t *w, const np_optdef_t *d, const char *val)
{
	char opt[80];
	unsigned t;
	int rc;

	snprintf(opt, sizeof(opt), "--%s", d->name);
	for (t = 0; t < w->ntables; t++) {
		const np_optdef_t *e = np_opt_find(w->tables[t].defs, d->name);
		if (!e)
			continue;
		if ((rc = check_exclusive(w, t, e)) < 0 || (rc = np_opt_set(e, w->tables[t].base, opt, val, w->err)) < 0)
			return rc;
	}
	if ((rc = note_given(w, d)) < 0)
		return rc;
	return d->flags & NP_OPTF_STOP ? 1 : 0;
}

static int missing(walk_t *w, const char *typed)
{
	char safe[NP_ESCAPED_SIZE(64)];

	return np_error_set(w->err, -EINVAL, "option %s needs a value", np_escape(safe, sizeof(safe), typed));
}

/* --name, --name=value or --name value; *i moves past what it used. */
static int long_option(walk_t *w, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	char typed[80];
	const np_optdef_t *d;

	/* messages name the option as typed, without its value */
	snprintf(typed, sizeof(typed), "--%.*s", (int)len, name);
	if (!(d = find_long(w, typed, name, len)))
		return -EINVAL;
	if (!takes_value(d)) {
		if (eq)
			return np_error_set(w->err, -EINVAL, "option --%s takes no value", d->name);
		return apply(w, d, NULL);
	}
	if (eq)
		return apply(w, d, eq + 1);
	if (*i + 1 >= argc || strcmp(argv[*i + 1], "--") == 0) {
		snprintf(typed, sizeof(typed), "--%s", d->name);
		return missing(w, typed);
	}
	return apply(w, d, argv[++*i]);
}

/* -k, -kVALUE, -k VALUE, -abc (flags together). */
static int short_options(walk_t *w, int argc, char **argv, int *i)
{
	const char *p = argv[*i] + 1;
	int rc;

	for (; *p; p++) {
		const np_optdef_t *d = find_short(w, *p);
		char typed[3] = { '-', *p, '\0' };
		if (!d)
			return unknown(w, typed);
		if (!takes_value(d)) {
			if ((rc = apply(w, d, NULL)) != 0)
				return rc;
			continue;
		}
		if (p[1])
			return apply(w, d, p + 1);
		if (*i + 1 >= argc || strcmp(argv[*i + 1], "--") == 0)
			return missing(w, typed);
		return apply(w, d, argv[++*i]);
	}
	return 0;
}

int np_opt_parse(const char *cmd, const np_opttable_t *tables, unsigned ntables, int argc, char **argv,
                 np_optargs_t *a, np_error_t *err)
{
	walk_t w = { cmd, tables, ntables, a, err };
	int i, rc = 0;

	memset(a, 0, sizeof(*a));
	if (argc > 0 && !(a->operands = calloc((size_t)argc, sizeof(char *))))
		return oom(&w);
	for (i = 1; i < argc && rc == 0; i++) {
		const char *word = argv[i];
		if (strcmp(word, "--") == 0) {
			a->dashdash = true;
			a->rest = argv + i + 1;
			a->nrest = (unsigned)(argc - i - 1);
			break;
		}
		if (word[0] != '-' || word[1] == '\0')
			a->operands[a->noperands++] = argv[i];
		else if (word[1] == '-')
			rc = long_option(&w, argc, argv, &i);
		else
			rc = short_options(&w, argc, argv, &i);
	}
	return rc;
}

void np_optargs_free(np_optargs_t *a)
{
	free(a->operands);
	free(a->given);
	memset(a, 0, sizeof(*a));
}

bool np_opt_given(const np_optargs_t *a, const char *name)
{
	unsigned g;

	for (g = 0; g < a->ngiven; g++)
		if (strcmp(a->given[g]->name, name) == 0)
			return true;
	return false;
}
