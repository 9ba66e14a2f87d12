/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * plan_spread.c - spread: ranks shared out top down, as hwloc-distrib,
 * OpenMP's proc_bind(spread) and Slurm's socket-cyclic distribution do.
 *
 * The ranks are divided among the packages, each package's share among
 * its NUMA nodes, each node's share among its L3 domains: each time as
 * evenly as the free slots allow.  Equal domains get shares that differ by
 * at most one, and the larger shares go to evenly spaced domains (the rule
 * of hwloc_distrib(), so 2 ranks on a package of 4 NUMA nodes use nodes 0
 * and 2, not 0 and 1).  A domain never gets more ranks than it has room
 * for; what its children cannot hold whole is placed in the domain itself.
 *
 * The order of the ranks is round robin at every level: rank r goes to
 * the next package that still has ranks to receive, inside it to the next
 * NUMA node, and so on, so consecutive ranks alternate between packages,
 * then between the NUMA nodes of a package, then between L3 domains.
 *
 * With --threads the slots are PUs, and a fourth level spreads them over
 * the cores of an L3 domain.  Shares then go first to cores nobody uses
 * yet, and only the ranks left over to second hardware threads, so no
 * core holds two ranks while another core of the node is idle.
 *
 * Cost: the tree has at most 1 + 4 x cells nodes; each rank walks it
 * once, in O(1) per level amortised, and takes its slots from one cell.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"

typedef struct sp_node {
	unsigned first, ncells;     /* its cells: a run of the pool's sorted cells */
	unsigned child, nchild;     /* its children: a run of nodes */
	unsigned cap;               /* ranks it can hold whole */
	unsigned fresh;             /* of those, ranks on cores nobody uses yet */
	unsigned share;             /* ranks it receives */
	unsigned left;              /* of those, still to hand out */
	unsigned self;              /* ranks its children cannot hold, placed in it */
	unsigned act, nact, cur;    /* round robin: entries act .. act + nact of the queue */
} sp_node_t;

typedef struct sp_tree {
	sp_node_t *node;
	unsigned nnodes;
	unsigned *queue;            /* child node indexes, or the node's own index for "self" */
} sp_tree_t;

/* Does cell b start a new domain after cell a, at this level?  Levels:
 * 1 package, 2 NUMA node, 3 L3 domain, 4 core (per-core cells only). */
static int splits(const np_cell_t *a, const np_cell_t *b, int level)
{
	if (a->package != b->package)
		return 1;
	if (level >= 2 && a->numa != b->numa)
		return 1;
	if (level >= 3 && a->l3 != b->l3)
		return 1;
	return level >= 4;
}

static int build_tree(sp_tree_t *tr, const np_pool_t *pool, unsigned cpt)
{
	int levels = pool->ncells && pool->cells[0].core >= 0 ? 4 : 3;
	unsigned max = 1 + (unsigned)levels * pool->ncells, lo = 0, hi = 1;

	tr->node = calloc(max, sizeof(*tr->node));
	tr->queue = calloc(2 * max, sizeof(unsigned));
	if (!tr->node || !tr->queue)
		return -ENOMEM;
	tr->node[0].ncells = pool->ncells;
	tr->nnodes = 1;
	/* Breadth first, so the children of a node are a run of nodes. */
	for (int level = 1; level <= levels; level++) {
		for (unsigned i = lo; i < hi; i++) {
			sp_node_t *n = &tr->node[i];

			n->child = tr->nnodes;
			for (unsigned c = n->first; c < n->first + n->ncells; c++) {
				if (c == n->first || splits(&pool->cells[c - 1], &pool->cells[c], level)) {
					tr->node[tr->nnodes].first = c;
					tr->nnodes++;
				}
				tr->node[tr->nnodes - 1].ncells++;
			}
			n->nchild = tr->nnodes - n->child;
		}
		lo = hi;
		hi = tr->nnodes;
	}
	/* Bottom up: room for whole ranks, and how much of it is on cores
	 * nobody uses yet (every bit of it without per-core cells). */
	for (unsigned i = tr->nnodes; i-- > 0;) {
		sp_node_t *n = &tr->node[i];
		unsigned long long free_slots = 0, fresh = 0;

		for (unsigned c = n->first; c < n->first + n->ncells; c++)
			free_slots += np_pool_cell_free(pool, c);
		n->cap = (unsigned)(free_slots / cpt > UINT32_MAX ? UINT32_MAX : free_slots / cpt);
		if (levels < 4) {
			n->fresh = n->cap;
		} else if (n->nchild == 0) {
			const np_cell_t *c = &pool->cells[n->first];

			n->fresh = c->level == 0 && c->pos == 0 && n->cap > 0;
		} else {
			for (unsigned k = 0; k < n->nchild; k++)
				fresh += tr->node[n->child + k].fresh;
			n->fresh = (unsigned)(fresh < n->cap ? fresh : n->cap);
		}
	}
	return 0;
}

/* Room of a child in this round: first the untouched cores, then the rest. */
static unsigned room(const sp_node_t *c, int round)
{
	return round == 0 ? c->fresh : c->cap - c->fresh;
}

static unsigned long long sum_min(const sp_tree_t *tr, const sp_node_t *n, int round, unsigned q)
{
	unsigned long long s = 0;

	for (unsigned k = 0; k < n->nchild; k++) {
		unsigned c = room(&tr->node[n->child + k], round);

		s += c < q ? c : q;
	}
	return s;
}

/* Add up to want ranks to the children's shares, as evenly as their room
 * allows: water-filling to the level q where the ranks run out, then the
 * r ranks left over to r of the m children with room above q, evenly
 * spaced among them.  Returns the ranks given. */
static unsigned long long fill(sp_tree_t *tr, sp_node_t *n, unsigned long long want, int round)
{
	unsigned long long total = sum_min(tr, n, round, UINT32_MAX), r, m = 0, j = 0;
	unsigned q = 0, qhi = 0;

	if (total <= want) {
		for (unsigned k = 0; k < n->nchild; k++)
			tr->node[n->child + k].share += room(&tr->node[n->child + k], round);
		return total;
	}
	for (unsigned k = 0; k < n->nchild; k++)
		if (room(&tr->node[n->child + k], round) > qhi)
			qhi = room(&tr->node[n->child + k], round);
	/* largest q with sum_min(q) <= want; sum_min(qhi) > want */
	while (q + 1 < qhi) {
		unsigned mid = q + (qhi - q) / 2;

		if (sum_min(tr, n, round, mid) <= want)
			q = mid;
		else
			qhi = mid;
	}
	r = want - sum_min(tr, n, round, q);
	for (unsigned k = 0; k < n->nchild; k++)
		m += room(&tr->node[n->child + k], round) > q;
	for (unsigned k = 0; k < n->nchild; k++) {
		sp_node_t *c = &tr->node[n->child + k];
		unsigned rc = room(c, round);

		c->share += rc < q ? rc : q;
		if (rc > q) {
			c->share += (unsigned)(((j + 1) * r + m - 1) / m - (j * r + m - 1) / m);
			j++;
		}
	}
	return want;
}

/* A node's share among its children: on untouched cores first, then on
 * the second hardware threads; what the children cannot hold whole is
 * placed in the node itself. */
static void split(sp_tree_t *tr, sp_node_t *n)
{
	unsigned long long given = fill(tr, n, n->share, 0);

	if (given < n->share)
		given += fill(tr, n, n->share - given, 1);
	n->self = n->share - (unsigned)given;
}

/* Queue each node's round robin: children with ranks, then itself. */
static void fill_queues(sp_tree_t *tr)
{
	unsigned at = 0;

	for (unsigned i = 0; i < tr->nnodes; i++) {
		sp_node_t *n = &tr->node[i];

		if (n->nchild)
			split(tr, n);
		else
			n->self = n->share;
		n->left = n->share;
		n->act = at;
		for (unsigned k = 0; k < n->nchild; k++)
			if (tr->node[n->child + k].share)
				tr->queue[at++] = n->child + k;
		if (n->self)
			tr->queue[at++] = i;
		n->nact = at - n->act;
		n->cur = 0;
	}
}

/* The next entry of node i's round robin, dropping it once it is served. */
static unsigned next_entry(sp_tree_t *tr, unsigned i)
{
	sp_node_t *n = &tr->node[i];
	unsigned *q = tr->queue + n->act, e = q[n->cur];
	unsigned *left = e == i ? &n->self : &tr->node[e].left;

	if (--*left == 0) {
		memmove(q + n->cur, q + n->cur + 1, (n->nact - n->cur - 1) * sizeof(unsigned));
		n->nact--;
	} else {
		n->cur++;
	}
	if (n->cur >= n->nact)
		n->cur = 0;
	return e;
}

int np_place_spread(np_pool_t *pool, np_rank_t *ranks, unsigned nlocal, unsigned cpt)
{
	sp_tree_t tr = { 0 };
	unsigned *target = malloc((nlocal ? nlocal : 1) * sizeof(unsigned));
	int rc = -ENOMEM;

	if (!target || build_tree(&tr, pool, cpt) < 0)
		goto out;
	tr.node[0].share = nlocal;
	fill_queues(&tr);
	for (unsigned r = 0; r < nlocal; r++) {
		unsigned i = 0, e;

		while ((e = next_entry(&tr, i)) != i)
			i = e;
		target[r] = i;
	}
	/* Ranks bound for one cell first: a rank placed in a wider domain
	 * (its cells too small for it) must not take their slots. */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned r = 0; r < nlocal; r++) {
			const sp_node_t *n = &tr.node[target[r]];
			unsigned got;

			if ((n->nchild == 0) != (pass == 0))
				continue;
			got = np_pool_take_cells(pool, n->first, n->ncells, cpt, ranks[r].cpus);
			if (got < cpt)
				np_pool_take(pool, NP_SCOPE_ALL, -1, cpt - got, ranks[r].cpus);
		}
	rc = 0;
out:
	free(target);
	free(tr.node);
	free(tr.queue);
	return rc;
}
