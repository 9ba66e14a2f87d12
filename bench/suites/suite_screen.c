/*
 * suite_screen.c - screening every node of a partition or node list.
 *
 * Each node runs, on its own and at the same time as the others, single-
 * node HPL with every core, STREAM on each of its NUMA nodes and the
 * intra-node latency matrix of its NUMA nodes; with --pairs, OSU bandwidth between pairs of
 * nodes shows a degraded link.  The nodes are then judged against each
 * other: a node stands out by the median and MAD of the nodes (the core's
 * rule, --outlier and --outlier-mad), a node that fails a kernel's check
 * is listed as failed and never compared (strict_nodes), and the report
 * has a table per node and each figure over the nodes.
 *
 * Launch: one job of N nodes whose experiments run as node sets (one srun
 * per node, side by side), or for more than --array-above nodes a job
 * array of one-node tasks, each screening the node it lands on.
 */
#define _GNU_SOURCE /* strverscmp */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/hostlist.h"
#include "suites/hpl_size.h"
#include "bench_util.h"
#include "suites/suite.h"
#include "report/svg.h"

extern const np_suite_t np_suite_screen, np_suite_hpl, np_suite_stream, np_suite_osu;

typedef struct screen_opts {
	unsigned hpl_n;             /* 0: from mem_fraction of a node's memory */
	unsigned nb;
	double mem_fraction;
	unsigned stream_size;       /* 0: the kernel's default */
	const char *osu_max;        /* node pairs' largest message */
	unsigned iterations;
	unsigned pairs;             /* rounds of node pairs; 0: none */
	unsigned array_above;       /* a job array above this many nodes; 0: never */
	unsigned concurrency;       /* runs at once in one job; 0: all */
} screen_opts_t;

#define O(field) offsetof(screen_opts_t, field)
static const np_optdef_t options[] = {
	{ .name = "hpl-n", .kind = NP_OPT_UINT, .off = O(hpl_n), .arg = "N",
	  .help = "HPL matrix order on each node (default: from --mem-fraction)", .min = 1,
	  .want = "the matrix order N, a positive integer" },
	{ .name = "nb", .kind = NP_OPT_UINT, .off = O(nb), .arg = "NB", .help = "HPL block size",
	  .dflt = "192", .min = 1, .want = "a positive integer" },
	{ .name = "mem-fraction", .kind = NP_OPT_DOUBLE, .off = O(mem_fraction), .arg = "F",
	  .help = "fraction of a node's memory for its HPL matrix", .dflt = "0.1", .max = 1,
	  .want = "a number in (0, 1]" },
	{ .name = "stream-size", .kind = NP_OPT_UINT, .off = O(stream_size), .arg = "E",
	  .help = "STREAM array elements", .min = 1, .want = "a number of array elements" },
	{ .name = "osu-max", .kind = NP_OPT_STR, .off = O(osu_max), .arg = "BYTES",
	  .help = "largest message of the node-pair bandwidth test" },
	{ .name = "iterations", .kind = NP_OPT_UINT, .off = O(iterations), .arg = "N",
	  .help = "OSU iterations per message size (latency: 10000 by default)", .min = 1,
	  .want = "a positive integer" },
	{ .name = "pairs", .kind = NP_OPT_UINT, .off = O(pairs), .arg = "K",
	  .help = "K rounds of OSU bw between node pairs", .min = 1, .max = 1000,
	  .want = "a number of rounds from 1 to 1000" },
	{ .name = "array-above", .kind = NP_OPT_UINT, .off = O(array_above), .arg = "N",
	  .help = "a job array of one-node tasks above N nodes (0: never)", .dflt = "128",
	  .want = "a number of nodes (0: never)" },
	{ .name = "node-concurrency", .kind = NP_OPT_UINT, .off = O(concurrency), .arg = "K",
	  .help = "in one job, at most K nodes (or pairs) at once (0: all)", .dflt = "0",
	  .want = "a number (0: all at once)" },
	{ .name = NULL },
};
#undef O

/* ---- the nodes ----------------------------------------------------------- */

/* Node states of sinfo's short form that can run a job now (a trailing
 * flag such as '*', not responding, makes a node unusable too). */
static bool usable_state(const char *st)
{
	static const char *const ok[] = { "idle", "mix", "alloc", "comp" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strcmp(st, ok[i]) == 0)
			return true;
	return false;
}

/* The partition's nodes (the default partition's without --partition),
 * usable or not: those that cannot run a job go to skipped {node: state}. */
static int partition_nodes(const np_run_opts_t *o, char ***names, unsigned *n, json_t *skipped,
                           np_error_t *err)
{
	char *sinfo = np_which("sinfo"), *out, *cmd, *p;
	np_sb_t b;
	int st = -1;

	*names = NULL;
	*n = 0;
	if (!sinfo)
		return np_error_set(err, -EINVAL, "screen: which nodes? sinfo is not available to list %s%s: "
		                    "give --nodes or --nodelist", o->partition ? "partition " : "the default partition",
		                    o->partition ? o->partition : "");
	free(sinfo);
	np_sb_init(&b);
	np_sb_add(&b, "sinfo -h -N -o '%N %t %P'");
	if (o->partition) {
		np_sb_add(&b, " -p ");
		np_sb_shq(&b, o->partition);
	}
	np_sb_add(&b, " 2>/dev/null");
	cmd = np_sb_take(&b);
	out = cmd ? np_cmd_output(cmd, &st) : NULL;
	free(cmd);
	if (!out || st != 0) {
		free(out);
		return np_error_set(err, -EIO, "screen: sinfo could not list the nodes (is the controller up?); "
		                    "give --nodes or --nodelist");
	}
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n")) {
		char node[256], state[64], part[256];
		size_t l;
		char **nv;
		if (sscanf(p, "%255s %63s %255s", node, state, part) != 3)
			continue;
		l = strlen(part);
		/* without --partition: the default one, marked with a '*' */
		if (!o->partition && (l == 0 || part[l - 1] != '*'))
			continue;
		if (!usable_state(state)) {
			json_object_set_new(skipped, node, json_string(state));
			continue;
		}
		if ((nv = realloc(*names, (*n + 1) * sizeof(char *))) == NULL || !(nv[*n] = strdup(node))) {
			*names = nv ? nv : *names;
			np_strv_free(*names, *n);
			free(out);
			return np_error_set(err, -ENOMEM, "out of memory");
		}
		*names = nv;
		(*n)++;
	}
	free(out);
	if (*n == 0)
		return np_error_set(err, -EINVAL, "screen: %s%s has no node that can run a job (%zu down, drained "
		                    "or otherwise unusable)", o->partition ? "partition " : "the default partition",
		                    o->partition ? o->partition : "", json_object_size(skipped));
	return 0;
}

/* How many nodes, and their names when known: 1 with --local, --nodes (of
 * --nodelist or the partition), else every usable node of the partition. */
static int screen_nodes(np_run_ctx_t *c, unsigned *nodes, json_t *names_out, json_t *skipped, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char **names = NULL;
	unsigned n = 0, i;
	int rc = 0;

	*nodes = 1;
	if (o->mode == NP_MODE_LOCAL)
		return 0;
	if (o->nodelist)
		rc = np_hostlist_expand(o->nodelist, &names, &n, err);
	else if (!o->nodes)
		rc = partition_nodes(o, &names, &n, skipped, err);
	if (rc < 0)
		return rc;
	*nodes = o->nodes ? o->nodes : n;
	/* --nodes N of a longer list: which N Slurm picks is not known here */
	if (n == *nodes)
		for (i = 0; i < n; i++)
			json_array_append_new(names_out, json_string(names[i]));
	np_strv_free(names, n);
	return 0;
}

/* ---- experiments --------------------------------------------------------- */

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
	np_exp_t *e = cmd ? np_exp_new(g->c, np_suite_screen.name, kernel, name, group) : NULL;

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

static int generate(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	const screen_opts_t *so = np_suite_opts(o, &np_suite_screen);
	json_t *names = json_array(), *skipped = json_object();
	gen_t g = { .c = c, .so = so };
	unsigned nodes, i;
	int rc;

	if ((rc = screen_nodes(c, &nodes, names, skipped, err)) < 0)
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
	if ((rc = add_hpl(&g, err)) == 0 && (rc = add_stream(&g, err)) == 0 && (rc = add_latency_matrix(&g, err)) == 0)
		rc = add_pairs(&g, nodes, err);
out:
	json_decref(g.facts);
	free(g.sets);
	json_decref(names);
	json_decref(skipped);
	return rc;
}

/* ---- outputs ------------------------------------------------------------- */

static int parse(const np_run_ctx_t *c, const np_exp_t *e, np_kout_t *k)
{
	int rc;

	if (strcmp(e->kernel, "screen-stream") == 0)
		return np_suite_stream.parse(c, e, k);
	if (strcmp(e->kernel, "screen-osu") == 0)
		return np_suite_osu.parse(c, e, k);
	rc = np_suite_hpl.parse(c, e, k);
	/* efficiency of one node, whatever the job's node count */
	if (rc == 0 && c->rpeak.gflops > 0 && json_is_number(json_object_get(k->values, "gflops")))
		json_object_set_new(k->values, "efficiency",
		                    json_real(json_number_value(json_object_get(k->values, "gflops")) / c->rpeak.gflops));
	return rc;
}

static const char *primary(const np_exp_t *e, bool *higher)
{
	if (strcmp(e->kernel, "screen-hpl") == 0) {
		*higher = true;
		return "gflops";
	}
	if (strcmp(e->kernel, "screen-stream") == 0) {
		*higher = true;
		return "triad_mbps";
	}
	*higher = !np_json_streq(e->params, "test", "latency");
	return *higher ? "bw_max_mbps" : "lat_8B_us";
}

/* ---- judging the nodes ---------------------------------------------------- */

/* One column of the node table and one plot: a figure per node from one
 * experiment, or the worst of a group relative to each experiment's median
 * of the nodes (STREAM domains, latency pairs), or the best pair. */
typedef struct figure {
	const char *id, *title, *unit, *group;
	bool relative;              /* worst of the group, / the median */
} figure_t;

static const figure_t figures[] = {
	{ "hpl_gflops", "HPL GFLOPS", "GFLOPS", "hpl", false },
	{ "stream_worst", "STREAM Triad, worst NUMA node, / median of the nodes", "", "stream", true },
	{ "latency_worst", "8-byte latency, worst pair, / median of the nodes", "", "latency", true },
	{ "bw_best_mbps", "OSU bandwidth, best pair", "MB/s", "pairs", false },
};

static void node_finding(json_t *nodes, const char *node, const char *what, bool failed)
{
	json_t *n = json_object_get(nodes, node);

	if (!n) {
		n = json_pack("{s:s, s:[], s:{}}", "status", "ok", "findings", "figures");
		json_object_set_new(nodes, node, n);
	}
	if (what)
		json_array_append_new(json_object_get(n, "findings"), json_string(what));
	if (failed)
		json_object_set_new(n, "status", json_string("failed"));
	else if (what && !np_json_streq(n, "status", "failed"))
		json_object_set_new(n, "status", json_string("outlier"));
}

static void node_figure(json_t *nodes, const char *node, const char *fig, double v)
{
	node_finding(nodes, node, NULL, false);
	json_object_set_new(json_object_get(json_object_get(nodes, node), "figures"), fig, json_real(v));
}

/* Node pairs to nodes: a node's figure is its best pair (a healthy node
 * has one when its partners differ), a node failed when every pair of it
 * failed, and it stands out by the core's rule over those best figures. */
static void judge_pairs(json_t *exps, json_t *nodes, json_t *flags)
{
	json_t *best = json_object(), *pairs = json_object(), *nfail = json_object(), *e, *rule = NULL, *v;
	const char *label, *node;
	double *vals = NULL, med, mad;
	unsigned n = 0;
	size_t i;

	json_array_foreach(exps, i, e) {
		if (!np_suite_has(&np_suite_screen, e) || !np_json_streq(e, "group", "pairs"))
			continue;
		rule = json_object_get(e, "outlier_rule");
		json_object_foreach(json_object_get(e, "per_node"), label, v) {
			char *two = strdup(label), *plus = two ? strchr(two, '+') : NULL;
			if (!plus) {
				free(two);
				continue;
			}
			*plus = '\0';
			for (const char *m = two; m; m = m == two ? plus + 1 : NULL) {
				json_t *b = json_object_get(best, m);
				json_object_set_new(pairs, m, json_integer(json_integer_value(json_object_get(pairs, m)) + 1));
				if (!b || json_real_value(v) > json_real_value(b))
					json_object_set_new(best, m, json_real(json_real_value(v)));
			}
			free(two);
		}
		json_object_foreach(json_object_get(e, "failed_nodes"), label, v) {
			char *two = strdup(label), *plus = two ? strchr(two, '+') : NULL;
			if (plus)
				*plus = '\0';
			for (const char *m = two; m; m = plus && m == two ? plus + 1 : NULL)
				if (!json_object_get(nfail, m))
					json_object_set_new(nfail, m, json_string(json_string_value(v)));
			free(two);
		}
	}
	/* a node with no pair that passed failed */
	json_object_foreach(nfail, node, v)
		if (!json_object_get(best, node)) {
			char *w = np_strdup_printf("failed every node-pair bandwidth test: %s", json_string_value(v));
			node_finding(nodes, node, w, true);
			free(w);
		}
	vals = malloc((json_object_size(best) + 1) * sizeof(double));
	json_object_foreach(best, node, v) {
		node_figure(nodes, node, "bw_best_mbps", json_real_value(v));
		if (vals)
			vals[n++] = json_real_value(v);
	}
	if (vals && n >= 2 && rule) {
		np_stats_t st;
		double *tmp = malloc(n * sizeof(double));
		unsigned idx = 0;
		if (tmp) {
			memcpy(tmp, vals, n * sizeof(double));
			np_stats_compute(tmp, n, &st);
			med = st.median;
			mad = np_stats_mad(vals, n, med);
			free(tmp);
			json_object_set_new(flags, "median", json_real(med));
			json_object_set_new(flags, "mad", json_real(mad));
			json_object_set_new(flags, "n", json_integer(n));
			json_object_foreach(best, node, v) {
				double dev, z, omed, omad;
				np_stats_others(vals, n, idx++, &omed, &omad);
				if (np_node_outlier(json_real_value(v), med, omed, omad, n, true, np_json_real(rule, "pct"),
				                    np_json_real(rule, "mad_z"), &dev, &z)) {
					char *w = np_strdup_printf("bandwidth %.0f%% below the median in each of its %lld pair(s)",
					                           fabs(dev), (long long)json_integer_value(json_object_get(pairs, node)));
					node_finding(nodes, node, w, false);
					free(w);
				}
			}
		}
	}
	free(vals);
	json_decref(best);
	json_decref(pairs);
	json_decref(nfail);
}

static int by_name(const void *a, const void *b)
{
	/* n2 before n10 */
	return strverscmp(*(const char *const *)a, *(const char *const *)b);
}

/* The node names in natural order, for the table and the plots. */
static json_t *node_order(json_t *nodes)
{
	size_t n = json_object_size(nodes), i = 0;
	const char **v = calloc(n + 1, sizeof(char *)), *node;
	json_t *order = json_array(), *x;

	json_object_foreach(nodes, node, x)
		if (v)
			v[i++] = node;
	if (v)
		qsort(v, n, sizeof(char *), by_name);
	for (i = 0; v && i < n; i++)
		json_array_append_new(order, json_string(v[i]));
	free(v);
	return order;
}

/* summary.screen.latency_matrix: per node type ("" when there is one),
 * the 8-byte latency of every pair of NUMA nodes, the median of the nodes
 * that passed (null where no pair ran or none passed), symmetric. */
static int cmp_int(const void *a, const void *b)
{
	json_int_t x = *(const json_int_t *)a, y = *(const json_int_t *)b;

	return x < y ? -1 : x > y;
}

static json_t *latency_matrix(json_t *exps)
{
	json_t *by_type = json_object(), *e, *out = json_array(), *cells;
	const char *type;
	size_t i;

	json_array_foreach(exps, i, e) {
		const char *name = np_json_str(e, "name"), *at = strchr(name, '@');
		json_t *p = json_object_get(e, "params"), *m;
		char key[64];
		if (!np_suite_has(&np_suite_screen, e) || !np_json_streq(e, "group", "latency") ||
		    !json_is_integer(json_object_get(p, "numa_a")) || !json_is_integer(json_object_get(p, "numa_b")))
			continue;
		if (!(m = json_object_get(by_type, at ? at + 1 : ""))) {
			m = json_object();
			json_object_set_new(by_type, at ? at + 1 : "", m);
		}
		snprintf(key, sizeof(key), "%lld-%lld", (long long)json_integer_value(json_object_get(p, "numa_a")),
		         (long long)json_integer_value(json_object_get(p, "numa_b")));
		json_object_set_new(m, key, isfinite(np_json_real(e, "nodes_median")) ?
		                    json_real(np_json_real(e, "nodes_median")) : json_null());
	}
	json_object_foreach(by_type, type, cells) {
		json_int_t *ids = calloc(2 * json_object_size(cells) + 1, sizeof(json_int_t));
		unsigned n = 0, a, b, k;
		const char *key;
		json_t *v, *numa = json_array(), *rows = json_array();
		if (!ids)
			break;
		/* the NUMA nodes that appear, in order */
		json_object_foreach(cells, key, v) {
			long long x, y;
			if (sscanf(key, "%lld-%lld", &x, &y) != 2)
				continue;
			for (k = 0; k < 2; k++) {
				json_int_t id = k ? y : x;
				unsigned q;
				for (q = 0; q < n && ids[q] != id; q++)
					;
				if (q == n)
					ids[n++] = id;
			}
		}
		qsort(ids, n, sizeof(json_int_t), cmp_int);
		for (a = 0; a < n; a++) {
			json_t *row = json_array();
			json_array_append_new(numa, json_integer(ids[a]));
			for (b = 0; b < n; b++) {
				char k1[64], k2[64];
				snprintf(k1, sizeof(k1), "%lld-%lld", (long long)ids[a], (long long)ids[b]);
				snprintf(k2, sizeof(k2), "%lld-%lld", (long long)ids[b], (long long)ids[a]);
				v = json_object_get(cells, k1) ? json_object_get(cells, k1) : json_object_get(cells, k2);
				json_array_append(row, v ? v : json_null());
			}
			json_array_append_new(rows, row);
		}
		free(ids);
		json_array_append_new(out, json_pack("{s:s, s:o, s:o}", "type", type, "numa", numa, "lat_8B_us", rows));
	}
	json_decref(by_type);
	return out;
}

/* summary.screen: per node its status (ok, outlier, failed), findings and
 * figures; the nodes that were to be screened and were not. */
static void derive(json_t *exps, json_t *summary)
{
	json_t *nodes = json_object(), *flags = json_object(), *e, *v, *o, *facts = NULL, *screen, *missing;
	const char *node;
	size_t i, k;

	json_array_foreach(exps, i, e) {
		const char *name = np_json_str(e, "name");
		bool pairs;
		if (!np_suite_has(&np_suite_screen, e))
			continue;
		if (!facts && json_object_get(json_object_get(e, "params"), "screen_nodes"))
			facts = json_object_get(e, "params");
		pairs = np_json_streq(e, "group", "pairs");
		/* every node or pair that ran: a node of its own in the table */
		json_array_foreach(json_object_get(e, "runs"), k, v)
			if (!pairs && !np_json_streq(v, "node", "all"))
				node_finding(nodes, np_json_str(v, "node"), NULL, false);
		if (pairs)
			continue;       /* pairs are judged per node below */
		json_object_foreach(json_object_get(e, "failed_nodes"), node, v) {
			char *w = np_strdup_printf("failed %s: %s", name, json_string_value(v));
			node_finding(nodes, node, w, true);
			free(w);
		}
		json_array_foreach(json_object_get(e, "outliers"), k, o) {
			/* the label run_stats.c wrote (its metric name in results
			 * from before it did) */
			const char *label = json_is_string(json_object_get(o, "label")) ? np_json_str(o, "label") :
			                    np_json_str(o, "metric");
			char *w = np_strdup_printf("%s %.0f%% %s the median (%s)", label,
			                           fabs(np_json_real(o, "deviation_pct")),
			                           np_json_real(o, "deviation_pct") < 0 ? "below" : "above", name);
			node_finding(nodes, np_json_str(o, "node"), w, false);
			free(w);
		}
		/* the table's figures: HPL as measured, the groups as the worst
		 * of each node relative to the median of the nodes */
		json_object_foreach(json_object_get(e, "per_node"), node, v) {
			bool stream = np_json_streq(e, "group", "stream");
			double med = np_json_real(e, "nodes_median"), x = json_real_value(v);
			const char *fig = stream ? "stream_worst" : "latency_worst";
			json_t *w;
			if (np_json_streq(e, "group", "hpl")) {
				node_figure(nodes, node, "hpl_gflops", x);
				continue;
			}
			if (!isfinite(med) || med <= 0)
				continue;
			x /= med;
			node_finding(nodes, node, NULL, false);
			w = json_object_get(json_object_get(json_object_get(nodes, node), "figures"), fig);
			/* worst: the lowest bandwidth, the highest latency */
			if (!w || (stream ? x < json_real_value(w) : x > json_real_value(w)))
				node_figure(nodes, node, fig, x);
		}
	}
	if (!json_object_size(nodes) && !facts) {
		json_decref(nodes);
		json_decref(flags);
		return;
	}
	judge_pairs(exps, nodes, flags);
	/* coverage: the nodes the screen was for that left no result */
	missing = json_array();
	json_array_foreach(json_object_get(facts, "screen_nodes"), i, v)
		if (!json_object_get(nodes, json_string_value(v)))
			json_array_append(missing, v);
	v = json_object_get(facts, "unusable_nodes");
	screen = json_pack("{s:o, s:[], s:[], s:o, s:o, s:o}", "nodes", nodes, "outliers", "failed",
	                   "not_screened", missing, "unusable", v ? json_deep_copy(v) : json_object(), "pairs", flags);
	json_object_foreach(nodes, node, v) {
		if (np_json_streq(v, "status", "failed"))
			json_array_append_new(json_object_get(screen, "failed"), json_string(node));
		else if (np_json_streq(v, "status", "outlier"))
			json_array_append_new(json_object_get(screen, "outliers"), json_string(node));
	}
	json_object_set_new(screen, "order", node_order(nodes));
	json_object_set_new(screen, "latency_matrix", latency_matrix(exps));
	if (facts)
		json_object_set_new(screen, "launch", json_string(np_json_str(facts, "launch")));
	json_object_set_new(summary, "screen", screen);
}

/* ---- report ---------------------------------------------------------------- */

static void tables(json_t *res, np_report_t *r)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "screen"), *nodes = json_object_get(s, "nodes");
	json_t *v, *f;
	const char *node;
	np_table_t *t;
	size_t i, k;

	if (!s)
		return;
	t = np_table_new(r, "screen_nodes", "Screen: each node (outlier: stands out from the other nodes, see "
	                 "--outlier; failed: a kernel's check failed, the node is not compared)", 7, "node", "status",
	                 "HPL GFLOPS", "STREAM Triad, worst NUMA node / median", "8-byte latency, worst pair / median",
	                 "bandwidth, best pair MB/s", "findings");
	if (!t)
		return;
	json_array_foreach(json_object_get(s, "order"), k, f) {
		char c[4][32];
		np_sb_t fb;
		node = json_string_value(f);
		v = json_object_get(nodes, node);
		np_sb_init(&fb);
		np_sb_add(&fb, "");
		for (i = 0; i < sizeof(figures) / sizeof(figures[0]); i++)
			np_fmt_num(c[i], sizeof(c[i]), np_json_real(json_object_get(v, "figures"), figures[i].id));
		json_array_foreach(json_object_get(v, "findings"), i, f)
			np_sb_printf(&fb, "%s%s", i ? "; " : "", json_string_value(f));
		np_table_row(t, node, np_json_str(v, "status"), c[0], c[1], c[2], c[3], fb.s ? fb.s : "");
		np_sb_free(&fb);
	}
	t->note = np_strdup_printf("%zu node(s) screened: %zu outlier(s), %zu failed.", json_object_size(nodes),
	                           json_array_size(json_object_get(s, "outliers")),
	                           json_array_size(json_object_get(s, "failed")));
	json_array_foreach(json_object_get(s, "latency_matrix"), k, v) {
		json_t *numa = json_object_get(v, "numa"), *x;
		size_t n = json_array_size(numa), a, b;
		char title[160], id[64];
		snprintf(title, sizeof(title), "Screen: 8-byte latency (us) inside a node%s%s, NUMA node by NUMA node: "
		         "the median of the nodes", *np_json_str(v, "type") ? " of type " : "", np_json_str(v, "type"));
		snprintf(id, sizeof(id), "screen_latency%s%s", *np_json_str(v, "type") ? "_" : "", np_json_str(v, "type"));
		t = np_table_new(r, id, title, 1, "NUMA");
		if (!t || np_table_add_cols(t, (unsigned)n) < 0)
			return;
		json_array_foreach(numa, b, x)
			t->cols[b + 1] = np_strdup_printf("%lld", (long long)json_integer_value(x));
		for (a = 0; a < n; a++) {
			char **row = calloc(n + 1, sizeof(char *)), num[32];
			if (!row)
				return;
			row[0] = np_strdup_printf("%lld", (long long)json_integer_value(json_array_get(numa, a)));
			for (b = 0; b < n; b++) {
				x = json_array_get(json_array_get(json_object_get(v, "lat_8B_us"), a), b);
				np_fmt_num(num, sizeof(num), json_is_number(x) ? json_number_value(x) : NAN);
				row[b + 1] = strdup(json_is_number(x) ? num : "-");
			}
			np_table_row_v(t, row);
			np_strv_free(row, n + 1);
		}
	}
	if (json_array_size(json_object_get(s, "not_screened")) || json_object_size(json_object_get(s, "unusable"))) {
		t = np_table_new(r, "screen_missing", "Screen: nodes not screened", 2, "node", "why");
		json_array_foreach(json_object_get(s, "not_screened"), i, f)
			np_table_row(t, json_string_value(f), "no result (a job array's tasks may land twice on one "
			             "node; screen it again with --nodelist)");
		json_object_foreach(json_object_get(s, "unusable"), node, f) {
			char *w = np_strdup_printf("not usable when the screen was submitted (sinfo state %s)",
			                           json_string_value(f));
			np_table_row(t, node, w);
			free(w);
		}
	}
}

/* The percentage part of the rule as a line: a node beyond it may stand
 * out (the z-score against the other nodes decides, which no one line
 * shows). */
static double limit_of(json_t *e, bool higher, char *label, size_t n)
{
	double med = np_json_real(e, "nodes_median"), pct = np_json_real(json_object_get(e, "outlier_rule"), "pct");

	snprintf(label, n, "%.0f%% %s the median", pct, higher ? "below" : "above");
	return isfinite(med) && isfinite(pct) ? med * (1 + (higher ? -pct : pct) / 100) : NAN;
}

static void plot(np_sb_t *b, json_t *s, const figure_t *fg, double ref, double limit, const char *limlabel)
{
	json_t *nodes = json_object_get(s, "nodes"), *o;
	unsigned n = (unsigned)json_object_size(nodes), i = 0;
	size_t k;
	const char **labels = calloc(n + 1, sizeof(char *));
	double *vals = calloc(n + 1, sizeof(double));
	int *state = calloc(n + 1, sizeof(int));
	bool any = false;
	const char *node;
	json_t *v;

	if (labels && vals && state) {
		json_array_foreach(json_object_get(s, "order"), k, o) {
			if (i == n)
				break;
			node = json_string_value(o);
			v = json_object_get(nodes, node);
			labels[i] = node;
			vals[i] = np_json_real(json_object_get(v, "figures"), fg->id);
			state[i] = np_json_streq(v, "status", "failed") ? 2 : np_json_streq(v, "status", "outlier") ? 1 : 0;
			any |= isfinite(vals[i]);
			i++;
		}
		if (any) {
			np_sb_add(b, "<figure>\n");
			np_svg_nodes(b, fg->title, fg->relative ? "/ median of the nodes" : fg->unit, labels, vals, state, n,
			             ref, fg->relative ? "median" : "median of the nodes", limit, limlabel);
			np_sb_add(b, "</figure>\n");
		}
	}
	free(labels);
	free(vals);
	free(state);
}

static void plots(json_t *res, np_sb_t *b)
{
	json_t *s = json_object_get(json_object_get(res, "summary"), "screen"), *e, *hpl = NULL;
	json_t *pairs = json_object_get(s, "pairs");
	char lim[64];
	double l;
	size_t i;

	if (!s)
		return;
	json_array_foreach(json_object_get(res, "experiments"), i, e)
		if (np_suite_has(&np_suite_screen, e) && np_json_streq(e, "group", "hpl"))
			hpl = e;
	/* one experiment: its real median and limit; the groups: relative */
	l = limit_of(hpl, true, lim, sizeof(lim));
	plot(b, s, &figures[0], np_json_real(hpl, "nodes_median"), l, lim);
	plot(b, s, &figures[1], 1, NAN, NULL);
	plot(b, s, &figures[2], 1, NAN, NULL);
	plot(b, s, &figures[3], np_json_real(pairs, "median"), NAN, NULL);
}

const np_suite_t np_suite_screen = {
	.name = "screen",
	.summary = "every node of a partition or node list: HPL, STREAM per NUMA node, latency; outliers",
	.rpeak = true,
	.kernels = (const char *const[]){ "screen-hpl", "screen-stream", "screen-osu", NULL },
	.programs = (const char *const[]){ "numaplan-hpl", "numaplan-stream", "numaplan-osu", NULL },
	.opts = options,
	.opts_size = sizeof(screen_opts_t),
	.size_opt = "hpl-n",
	.generate = generate,
	.parse = parse,
	.primary = primary,
	.strict_nodes = true,
	.derive = derive,
	.tables = tables,
	.plots = plots,
};

/* ---- nodes Slurm took away during the run ------------------------------- */

/* A node that Slurm shows drained, down or failing when the job ended
 * (raw/node_states.txt: {node: "state: reason"}) is reported failed
 * whatever it measured: a site drains a node it no longer trusts, and a
 * node that stopped answering has not passed.  Its figures stay. */
void np_screen_node_states(json_t *summary, json_t *states)
{
	json_t *screen = json_object_get(summary, "screen"), *nodes, *v, *failed, *outl;
	const char *node;

	if (!screen || !json_object_size(states))
		return;
	nodes = json_object_get(screen, "nodes");
	json_object_foreach(states, node, v) {
		char *w;
		bool asked = json_object_get(nodes, node) != NULL;
		size_t i;
		json_t *n;
		json_array_foreach(json_object_get(screen, "not_screened"), i, n)
			if (json_is_string(n) && strcmp(json_string_value(n), node) == 0)
				asked = true;
		if (!asked)
			continue;
		w = np_strdup_printf("Slurm took the node away during the run: %s", json_string_value(v));
		node_finding(nodes, node, w, true);
		free(w);
	}
	failed = json_array();
	outl = json_array();
	json_object_foreach(nodes, node, v) {
		if (np_json_streq(v, "status", "failed"))
			json_array_append_new(failed, json_string(node));
		else if (np_json_streq(v, "status", "outlier"))
			json_array_append_new(outl, json_string(node));
	}
	json_object_set_new(screen, "failed", failed);
	json_object_set_new(screen, "outliers", outl);
	json_object_set_new(screen, "order", node_order(nodes));
}
