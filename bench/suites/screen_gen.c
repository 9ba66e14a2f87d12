/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * screen_gen.c - the screen's experiments: each node runs, on its own and
 * at the same time as the others, numaplan check (its hardware and
 * settings), then single-node HPL with every core, STREAM
 * on each of its NUMA nodes and the intra-node latency matrix of its NUMA
 * nodes; with --pairs, OSU bandwidth between pairs of nodes.
 *
 * Launch: one job of N nodes whose experiments run as node sets (one srun
 * per node, side by side), or for more than --array-above nodes a job
 * array of one-node tasks, each screening the node it lands on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "suites/hpl_size.h"
#include "suites/screen.h"

typedef struct gen {
	np_run_ctx_t *c;
	const screen_opts_t *so;
	unsigned nodes;             /* nodes of each experiment: N, or 1 */
	char *sets;                 /* "0 1 ... N-1", or NULL (one node) */
	json_t *facts;              /* what the first experiment records of the screen */
} gen_t;

/* An experiment every node runs on its own: ranks x threads per node. */
static np_exp_t *node_exp(gen_t *g, const char *kernel, const char *name, const char *group,
                          unsigned ranks, unsigned threads, bool mpi, char *cmd, np_error_t *err)
{
	np_exp_t *e = cmd ? np_exp_new(g->c, NP_SCREEN_NAME, kernel, name, group) : NULL;

	if (!e) {
		free(cmd);
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	e->nodes = g->nodes;
	e->ntasks = g->nodes * ranks;
	e->threads = threads;
	e->mpi = mpi;
	e->per_node = true;
	e->cmd = cmd;
	e->sets_parallel = g->so->concurrency;
	if (g->sets && !(e->sets = strdup(g->sets))) {
		np_error_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	if (g->facts) {
		json_object_update(e->params, g->facts);
		json_decref(g->facts);
		g->facts = NULL;
	}
	return e;
}

/* numaplan check on every node, first: a node's faults explain its
 * figures, and take milliseconds.  --site: the adapters where the node's
 * numaplan plugin reads them.  Exit 1 is a finding, not a failure: the
 * findings are the result; 2 (numaplan missing, bad input) fails. */
static int add_check(gen_t *g, np_error_t *err)
{
	np_exp_t *e = node_exp(g, "screen-check", "screen.check", "check", 1, 1, false,
	                       strdup("bash -c 'numaplan check --json --site; [ $? -le 1 ]'"), err);

	if (!e)
		return err->code;
	e->desc = strdup("numaplan check on each node: PCIe links, memory balance, CPUs, ports, ECC, settings");
	return e->desc ? 0 : np_error_set(err, -ENOMEM, "out of memory");
}

static int add_hpl(gen_t *g, np_error_t *err)
{
	np_run_ctx_t *c = g->c;
	unsigned ranks = c->topo->ncores, nb = g->so->nb;
	unsigned long n = g->so->hpl_n;
	unsigned long long mem = 0;
	np_exp_t *e;

	if (!ranks)
		return 0;
	if (!n) {
		if (!(mem = np_node_memory(c->topo)))
			return np_error_set(err, -EINVAL, "screen: the node's memory is unknown: give --hpl-n N");
		n = np_hpl_n_from_memory(mem, g->so->mem_fraction, nb);
	}
	/* numaplan-hpl picks the grid (P <= Q, as square as the ranks allow) */
	e = node_exp(g, "screen-hpl", "screen.hpl", "hpl", ranks, 1, true,
	             np_strdup_printf("numaplan-hpl -N %lu --nb %u --json", n, nb), err);
	if (!e)
		return err->code;
	e->desc = np_strdup_printf("HPL on each node: %u ranks (compact), N=%lu NB=%u", ranks, n, nb);
	json_object_set_new(e->params, "n", json_integer((json_int_t)n));
	json_object_set_new(e->params, "nb", json_integer(nb));
	json_object_set_new(e->params, "rpeak_gflops", json_real(c->rpeak.gflops));
	if (mem)
		json_object_set_new(e->params, "memory_per_node", json_integer((json_int_t)mem));
	return e->desc ? np_exp_plan(c, e, NP_POLICY_COMPACT, ranks, 1, err) : np_error_set(err, -ENOMEM, "out of memory");
}

static int add_stream(gen_t *g, np_error_t *err)
{
	const np_topo_t *t = g->c->topo;
	unsigned i;

	for (i = 0; i < t->nnuma; i++) {
		unsigned ncores = 0;
		char *cpus = np_run_core_cpus(t, t->numa[i].cpus, &ncores), name[64];
		np_sb_t b;
		np_exp_t *e;

		if (!cpus)
			continue;       /* a NUMA node without CPUs: memory only */
		np_sb_init(&b);
		np_sb_printf(&b, "numaplan-stream --json --threads %u", ncores);
		if (g->so->stream_size)
			np_sb_printf(&b, " --size %u", g->so->stream_size);
		snprintf(name, sizeof(name), "screen.stream.numa%u", t->numa[i].os_index);
		e = node_exp(g, "screen-stream", name, "stream", 1, ncores, false, np_sb_take(&b), err);
		if (!e || np_exp_set_cpus(e, 1, (const char *const[]){ cpus }) < 0) {
			free(cpus);
			return e ? np_error_set(err, -ENOMEM, "out of memory") : err->code;
		}
		free(cpus);
		e->policy = strdup("numa-domain");
		e->mems = np_strdup_printf("%u", t->numa[i].os_index);
		e->desc = np_strdup_printf("STREAM on NUMA node %u of each node (%u cores, its memory)",
		                           t->numa[i].os_index, ncores);
		json_object_set_new(e->params, "numa", json_integer(t->numa[i].os_index));
		json_object_set_new(e->params, "cores", json_integer(ncores));
		if (!e->policy || !e->mems || !e->desc)
			return np_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

/* The k-th core (its first PU) of a NUMA node, or -1. */
static int numa_core(const np_topo_t *t, unsigned numa, unsigned k)
{
	np_cpuset_t *s = np_cpuset_new();
	char *cpus = np_run_core_cpus(t, t->numa[numa].cpus, NULL);
	int pu = -1;

	if (s && cpus && np_cpuset_parse(s, cpus) == 0)
		for (pu = np_cpuset_first(s); pu >= 0 && k; k--)
			pu = np_cpuset_next(s, pu);
	np_cpuset_free(s);
	free(cpus);
	return pu;
}

static int add_latency(gen_t *g, unsigned na, int a, unsigned nb, int b, np_error_t *err)
{
	const np_topo_t *t = g->c->topo;
	char name[96], ca[16], cb[16];
	np_sb_t s;
	np_exp_t *e;

	if (a < 0 || b < 0)
		return 0;
	np_sb_init(&s);
	/* the 8-byte figure only, with the data checked, over 10000 round
	 * trips by default: some milliseconds on a healthy node, long enough
	 * that a node slowed now and then shows it */
	np_sb_printf(&s, "numaplan-osu latency -m 8:8 -c --json -i %u", g->so->iterations ? g->so->iterations : 10000);
	snprintf(name, sizeof(name), "screen.lat.numa%u-numa%u", t->numa[na].os_index, t->numa[nb].os_index);
	e = node_exp(g, "screen-osu", name, "latency", 2, 1, true, np_sb_take(&s), err);
	if (!e)
		return err->code;
	snprintf(ca, sizeof(ca), "%d", a);
	snprintf(cb, sizeof(cb), "%d", b);
	e->policy = strdup("explicit");
	e->desc = np_strdup_printf("8-byte latency inside each node, PU %d (NUMA %u) to PU %d (NUMA %u)", a,
	                           t->numa[na].os_index, b, t->numa[nb].os_index);
	json_object_set_new(e->params, "test", json_string("latency"));
	json_object_set_new(e->params, "numa_a", json_integer(t->numa[na].os_index));
	json_object_set_new(e->params, "numa_b", json_integer(t->numa[nb].os_index));
	if (np_exp_set_cpus(e, 2, (const char *const[]){ ca, cb }) < 0 || !e->policy || !e->desc)
		return np_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

/* The latency matrix: between the first cores of every two NUMA nodes
 * with CPUs, and between the first two cores of each (its diagonal):
 * n (n + 1) / 2 runs for n NUMA nodes, 36 on an 8-NUMA node, each some
 * milliseconds and a step.  A slow link between two domains shows in its
 * own cell, which a row from the first domain alone would miss; a slow
 * domain on its diagonal and in its row. */
static int add_latency_matrix(gen_t *g, np_error_t *err)
{
	const np_topo_t *t = g->c->topo;
	unsigned i, j;
	int rc = 0;

	for (i = 0; i < t->nnuma && !rc; i++) {
		if (numa_core(t, i, 0) < 0)
			continue;
		rc = add_latency(g, i, numa_core(t, i, 0), i, numa_core(t, i, 1), err);
		for (j = i + 1; j < t->nnuma && !rc; j++)
			rc = add_latency(g, i, numa_core(t, i, 0), j, numa_core(t, j, 0), err);
	}
	return rc;
}

/* Round r (0-based) of a round-robin schedule of n nodes (the circle
 * method): every node in one pair (one sits out when n is odd), and over
 * rounds 0 .. n-2 (n even) every two nodes meet once.  Sets "a,b c,d". */
static char *pair_round(unsigned n, unsigned r)
{
	unsigned m = n + n % 2, k;
	unsigned *arr = malloc(m * sizeof(unsigned));
	np_sb_t b;

	if (!arr)
		return NULL;
	arr[0] = 0;
	for (k = 1; k < m; k++)
		arr[k] = 1 + (k - 1 + r) % (m - 1);
	np_sb_init(&b);
	np_sb_add(&b, "");
	for (k = 0; k < m / 2; k++) {
		unsigned a = arr[k], c = arr[m - 1 - k];
		if (a >= n || c >= n)
			continue;       /* the bye of an odd count */
		np_sb_printf(&b, "%s%u,%u", b.len ? " " : "", a < c ? a : c, a < c ? c : a);
	}
	free(arr);
	return np_sb_take(&b);
}

/* A core near the network: the first of the adapter's NUMA node
 * (hca-local), else the node's first. */
static int net_core(const np_topo_t *t)
{
	np_domains_t d;

	np_run_domains(t, &d);
	if (d.hca_local >= 0 && numa_core(t, (unsigned)d.hca_local, 0) >= 0)
		return numa_core(t, (unsigned)d.hca_local, 0);
	return t->ncores ? (int)t->cores[0].pus[0] : -1;
}

static int add_pairs(gen_t *g, unsigned nodes, np_error_t *err)
{
	unsigned r, rounds = g->so->pairs;
	int pu = net_core(g->c->topo);
	char cpu[16], name[64];

	if (!rounds)
		return 0;
	if (nodes < 2 || !g->sets)
		return np_error_set(err, -EINVAL, "screen: --pairs needs one job of 2 nodes or more (%s)",
		                    nodes < 2 ? "one node here" : "a job array gives each task one node; "
		                    "raise --array-above");
	if (rounds > nodes - 1 + nodes % 2)
		return np_error_set(err, -EINVAL, "screen: --pairs %u: %u nodes make %u rounds of different pairs", rounds,
		                    nodes, nodes - 1 + nodes % 2);
	snprintf(cpu, sizeof(cpu), "%d", pu);
	for (r = 0; r < rounds; r++) {
		np_sb_t s;
		np_exp_t *e;
		char *sets = pair_round(nodes, r);

		np_sb_init(&s);
		np_sb_add(&s, "numaplan-osu bw -c --json");
		if (g->so->osu_max) {
			np_sb_add(&s, " -m ");
			np_sb_shq(&s, g->so->osu_max);
		}
		if (g->so->iterations)
			np_sb_printf(&s, " -i %u", g->so->iterations);
		snprintf(name, sizeof(name), "screen.bw.round%u", r + 1);
		e = node_exp(g, "screen-osu", name, "pairs", 1, 1, true, np_sb_take(&s), err);
		if (!e || !sets) {
			free(sets);
			return e ? np_error_set(err, -ENOMEM, "out of memory") : err->code;
		}
		free(e->sets);
		e->sets = sets;
		e->policy = strdup("explicit");
		e->desc = np_strdup_printf("OSU bw between pairs of nodes, round %u (PU %d of each)", r + 1, pu);
		json_object_set_new(e->params, "test", json_string("bw"));
		json_object_set_new(e->params, "round", json_integer(r + 1));
		if (np_exp_set_cpus(e, 1, (const char *const[]){ cpu }) < 0 || !e->policy || !e->desc)
			return np_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int np_screen_generate(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	/* the hook of the suite being run: its options are screen's */
	const screen_opts_t *so = np_suite_opts(o, o->suite);
	json_t *names = json_array(), *skipped = json_object();
	gen_t g = { .c = c, .so = so };
	unsigned nodes, i;
	int rc;

	if ((rc = np_screen_nodes(c, &nodes, names, skipped, err)) < 0)
		goto out;
	c->whole_nodes = true;      /* a node is screened whole, or not at all */
	if (o->mode != NP_MODE_LOCAL && so->array_above && nodes > so->array_above && !o->nodelist)
		c->array_tasks = nodes; /* each task screens the node it gets */
	g.nodes = o->mode == NP_MODE_LOCAL || c->array_tasks ? 1 : nodes;
	if (g.nodes > 1 || (o->mode != NP_MODE_LOCAL && !c->array_tasks)) {
		np_sb_t b;
		np_sb_init(&b);
		np_sb_add(&b, "");
		for (i = 0; i < g.nodes; i++)
			np_sb_printf(&b, "%s%u", i ? " " : "", i);
		if (!(g.sets = np_sb_take(&b))) {
			rc = np_error_set(err, -ENOMEM, "out of memory");
			goto out;
		}
	}
	/* what the analysis needs to know of the whole screen */
	g.facts = json_pack("{s:i, s:s, s:O, s:O}", "screen_nodes_count", (int)nodes, "launch",
	                    c->array_tasks ? "array" : o->mode == NP_MODE_LOCAL ? "local" : "job",
	                    "screen_nodes", names, "unusable_nodes", skipped);
	if ((rc = add_check(&g, err)) == 0 && (rc = add_hpl(&g, err)) == 0 && (rc = add_stream(&g, err)) == 0 &&
	    (rc = add_latency_matrix(&g, err)) == 0)
		rc = add_pairs(&g, nodes, err);
out:
	json_decref(g.facts);
	free(g.sets);
	json_decref(names);
	json_decref(skipped);
	return rc;
}
