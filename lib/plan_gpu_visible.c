/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_gpu_visible.c - gpu-near's "every GPU visible, own first": each
 * rank of a host lists every GPU its host's ranks use, its own first.
 *
 * Isolating a rank to its own GPU breaks what needs the others in the same
 * process's view: CUDA IPC handles and peer access between ranks' GPUs,
 * NCCL's intra-node P2P and NVLink paths (open-mpi/ompi#11949,
 * NVIDIA/nccl#1066).  With its own GPU first, device 0 is still the
 * rank's, so a program that takes device 0 keeps its placement.  Made on
 * the finished values, whatever numbering they use (a GPU's index, its
 * compute partitions), so the rule stays the planner's one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "plan_internal.h"

/* The variables whose values are lists of device indexes (plan_env.c) */
static const char *const visible_vars[] = {
	"CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK",
};

typedef struct entries {
	char **v;
	unsigned n;
} entries_t;

static void entries_free(entries_t *e)
{
	for (unsigned i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	e->v = NULL;
	e->n = 0;
}

static bool has(const entries_t *e, const char *s, size_t len)
{
	for (unsigned i = 0; i < e->n; i++)
		if (strlen(e->v[i]) == len && !strncmp(e->v[i], s, len))
			return true;
	return false;
}

/* Add the comma-separated entries of value not yet in e. */
static int add_entries(entries_t *e, const char *value)
{
	for (const char *p = value; *p;) {
		size_t len = strcspn(p, ",");

		if (len && !has(e, p, len)) {
			char **grown = realloc(e->v, (e->n + 1) * sizeof(char *));

			if (!grown)
				return -ENOMEM;
			e->v = grown;
			if (!(e->v[e->n] = strndup(p, len)))
				return -ENOMEM;
			e->n++;
		}
		p += len;
		p += *p == ',';
	}
	return 0;
}

/* index order: 2 before 10, and 0.1 (a Level Zero tile) after 0 */
static int cmp_index(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The rank's own entries, then the other GPUs in index order. */
static int own_first(np_rank_t *r, const char *name, const entries_t *all)
{
	const char *own = np_rank_getenv(r, name);
	entries_t mine = { 0 };
	np_sb_t b;
	char *value;
	int rc;

	if (!own)
		return 0;
	if ((rc = add_entries(&mine, own)) < 0) {
		entries_free(&mine);
		return rc;
	}
	np_sb_init(&b);
	np_sb_add(&b, own);
	for (unsigned i = 0; i < all->n; i++)
		if (!has(&mine, all->v[i], strlen(all->v[i]))) {
			np_sb_add(&b, ",");
			np_sb_add(&b, all->v[i]);
		}
	entries_free(&mine);
	if (!(value = np_sb_take(&b)))
		return -ENOMEM;
	rc = np_rank_setenv(r, name, value);
	free(value);
	return rc;
}

int np_gpus_visible_all(np_rank_t *ranks, unsigned nlocal)
{
	int rc = 0;

	for (unsigned v = 0; v < sizeof(visible_vars) / sizeof(visible_vars[0]) && rc == 0; v++) {
		entries_t all = { 0 };

		for (unsigned i = 0; i < nlocal && rc == 0; i++) {
			const char *val = np_rank_getenv(&ranks[i], visible_vars[v]);

			if (val)
				rc = add_entries(&all, val);
		}
		if (rc == 0 && all.n)
			qsort(all.v, all.n, sizeof(char *), cmp_index);
		for (unsigned i = 0; i < nlocal && rc == 0; i++)
			rc = own_first(&ranks[i], visible_vars[v], &all);
		entries_free(&all);
	}
	return rc;
}
