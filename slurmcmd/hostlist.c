/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostlist.c - Slurm host lists ("n[1-4,7],gpu[01-02]") to node names,
 * without Slurm: `run --dry-run` on a machine with no Slurm still knows how
 * many nodes a --nodelist names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "slurmcmd/slurmcmd.h"
#include "common/text.h"

/* A list far beyond any partition is a typo, not a cluster. */
#define MAX_HOSTS 1000000u

typedef struct hl {
	char **v;
	unsigned n, cap;
} hl_t;

static int add(hl_t *h, const char *name, np_error_t *err)
{
	if (h->n >= MAX_HOSTS)
		return np_error_set(err, -E2BIG, "host list names more than %u nodes", MAX_HOSTS);
	if (h->n == h->cap) {
		unsigned nc = h->cap ? 2 * h->cap : 16;
		char **nv = realloc(h->v, nc * sizeof(char *));
		if (!nv)
			return np_error_set(err, -ENOMEM, "out of memory");
		h->v = nv;
		h->cap = nc;
	}
	if (!(h->v[h->n] = strdup(name)))
		return np_error_set(err, -ENOMEM, "out of memory");
	h->n++;
	return 0;
}

/* Expand the first [...] of one item (prefix done), then the rest of it. */
static int expand(hl_t *h, const char *done, const char *rest, const char *whole, np_error_t *err)
{
	const char *open = strchr(rest, '['), *close, *p;
	int rc;

	if (!open) {
		char *name = np_strdup_printf("%s%s", done, rest);
		if (!name)
			return np_error_set(err, -ENOMEM, "out of memory");
		if (strchr(rest, ']'))
			rc = np_error_set(err, -EINVAL, "host list '%s': ']' without '['", whole);
		else
			rc = add(h, name, err);
		free(name);
		return rc;
	}
	if (!(close = strchr(open, ']')) || memchr(open + 1, '[', (size_t)(close - open - 1)))
		return np_error_set(err, -EINVAL, "host list '%s': unbalanced brackets", whole);
	for (p = open + 1; p < close;) {
		const char *q = p, *dash = NULL;
		unsigned long lo, hi, i;
		size_t width;
		char *end;

		while (q < close && *q != ',')
			q++;
		for (const char *x = p; x < q; x++)
			if (*x == '-')
				dash = x;
		if (q == p || (dash && (dash == p || dash + 1 == q)))
			return np_error_set(err, -EINVAL, "host list '%s': empty range", whole);
		for (const char *x = p; x < q; x++)
			if ((*x < '0' || *x > '9') && x != dash)
				return np_error_set(err, -EINVAL, "host list '%s': '%.*s' is not a range of numbers",
				                    whole, (int)(q - p), p);
		lo = strtoul(p, &end, 10);
		hi = dash ? strtoul(dash + 1, &end, 10) : lo;
		width = (size_t)((dash ? dash : q) - p);  /* "01-12" keeps two digits */
		if (hi < lo || hi - lo >= MAX_HOSTS)
			return np_error_set(err, -EINVAL, "host list '%s': bad range '%.*s'", whole, (int)(q - p), p);
		for (i = lo; i <= hi; i++) {
			char *d = np_strdup_printf("%s%.*s%0*lu", done, (int)(open - rest), rest, (int)width, i);
			if (!d)
				return np_error_set(err, -ENOMEM, "out of memory");
			rc = expand(h, d, close + 1, whole, err);
			free(d);
			if (rc < 0)
				return rc;
		}
		p = q < close ? q + 1 : q;
	}
	return 0;
}

int np_hostlist_expand(const char *list, char ***names, unsigned *n, np_error_t *err)
{
	hl_t h = { 0 };
	const char *p = list;
	int rc = 0;

	*names = NULL;
	*n = 0;
	if (!list || !*list)
		return np_error_set(err, -EINVAL, "empty host list");
	while (*p && rc == 0) {
		const char *q = p;
		int depth = 0;
		char *item;

		/* an item ends at a comma outside brackets */
		while (*q && (depth || *q != ',')) {
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
			q++;
		}
		if (q == p || depth)
			rc = np_error_set(err, -EINVAL, "host list '%s': %s", list, depth ? "unbalanced brackets"
			                  : "empty name");
		else if (!(item = strndup(p, (size_t)(q - p))))
			rc = np_error_set(err, -ENOMEM, "out of memory");
		else {
			rc = expand(&h, "", item, list, err);
			free(item);
		}
		p = *q ? q + 1 : q;
		if (rc == 0 && *q && !*p)
			rc = np_error_set(err, -EINVAL, "host list '%s': empty name", list);
	}
	if (rc < 0) {
		np_strv_free(h.v, h.n);
		return rc;
	}
	*names = h.v;
	*n = h.n;
	return 0;
}
