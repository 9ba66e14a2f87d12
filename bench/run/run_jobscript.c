/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_jobscript.c - the one script that runs every experiment of a run:
 * the template run/jobscript.sh (its shell functions and the order of its
 * parts), filled with this run's #SBATCH lines, settings and steps.
 *
 * The same script serves sbatch and --inline (srun steps with --cpu-bind
 * masks or --numa-plan) and, generated with NP_MODE=local, runs the same
 * steps with mpiexec.mpich -bind-to user:... and numactl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "common/escape.h"
#include "outdir.h"
#include "run/suite.h"
#include "run/template.h"

/* Text from the user (the command line, a topology file's name, a
 * command in an experiment's description) in a comment line of the
 * script: escaped, so that a newline in it cannot end the comment and
 * start a line the shell runs. */
static void add_comment_text(np_sb_t *b, const char *s)
{
	size_t n = NP_ESCAPED_SIZE(strlen(s));
	char *t = malloc(n);

	if (!t) {
		b->oom = true;
		return;
	}
	np_sb_add(b, np_escape(t, n, s));
	free(t);
}

/* The CPUs of each node as planned (the node type's), for np_binding. */
static void node_cpus(np_sb_t *b, const np_run_ctx_t *c)
{
	unsigned i, k;

	np_sb_add(b, "np_node_cpus() {\n\tcase $1 in\n");
	for (i = 0; i < c->ntypes; i++) {
		if (!c->types[i].nnodes)
			continue;
		np_sb_add(b, "\t");
		for (k = 0; k < c->types[i].nnodes; k++) {
			np_sb_add(b, k ? "|" : "");
			np_sb_shq(b, c->types[i].nodes[k]);
		}
		np_sb_printf(b, ") echo %u;;\n", np_cpuset_count(c->types[i].topo->complete));
	}
	np_sb_printf(b, "\t*) echo %u;;\n\tesac\n}\n", np_cpuset_count(c->topo->complete));
}

static void env_part(np_sb_t *b, const np_exp_t *e, bool bound)
{
	np_sb_printf(b, "env OMP_NUM_THREADS=%u ", e->threads);
	if (bound && e->threads > 1)
		np_sb_add(b, "OMP_PLACES=cores OMP_PROC_BIND=close ");
}

/* --local: the CPUs of a step are its ranks' (the plan's), for its %sys
 * and for telling its CPUs from the others (np_stat). */
static int step_cpus(np_sb_t *b, const np_exp_t *e)
{
	np_cpuset_t *all = np_cpuset_new(), *one = np_cpuset_new();
	char *list = NULL;
	unsigned i;
	int rc = all && one ? 0 : -ENOMEM;

	for (i = 0; rc == 0 && i < e->nrank_cpus; i++)
		if (np_cpuset_parse(one, e->rank_cpus[i]) == 0)
			rc = np_cpuset_or(all, one);
	if (rc == 0 && !np_cpuset_iszero(all)) {
		if (!(list = np_cpuset_format(all)))
			rc = -ENOMEM;
		else
			np_sb_printf(b, "NP_STEP_CPUS=%s ", list);
	}
	free(list);
	np_cpuset_free(all);
	np_cpuset_free(one);
	return rc;
}

static int local_launch(np_sb_t *b, const np_exp_t *e)
{
	unsigned i;
	bool bound = e->nrank_cpus > 0;

	if (!e->mpi) {
		if (e->workdir) {
			np_sb_add(b, "env -C ");
			np_sb_shq(b, e->workdir);
			np_sb_add(b, " ");
		}
		env_part(b, e, bound);
		if (bound || e->mems) {
			np_sb_add(b, "numactl ");
			if (bound)
				np_sb_printf(b, "--physcpubind=%s ", e->rank_cpus[0]);
			if (e->mems)
				np_sb_printf(b, "--membind=%s ", e->mems);
		}
		np_sb_add(b, e->cmd);
		return 0;
	}
	np_sb_printf(b, "mpiexec.mpich -n %u ", e->ntasks);
	if (e->workdir) {
		np_sb_add(b, "-wdir ");
		np_sb_shq(b, e->workdir);
		np_sb_add(b, " ");
	}
	if (bound) {
		np_sb_add(b, "-bind-to user:");
		for (i = 0; i < e->nrank_cpus; i++) {
			char *plus = np_cpulist_plus(e->rank_cpus[i]);
			if (!plus)
				return -EINVAL;
			np_sb_printf(b, "%s%s", i ? "," : "", plus);
			free(plus);
		}
		np_sb_add(b, " ");
	}
	np_sb_printf(b, "-genv OMP_NUM_THREADS %u ", e->threads);
	np_sb_add(b, e->cmd);
	return 0;
}

static int slurm_launch(np_sb_t *b, const np_run_ctx_t *c, const np_exp_t *e, unsigned rep)
{
	unsigned i, per_node = e->ntasks / (e->nodes ? e->nodes : 1);
	bool bound = e->nrank_cpus > 0;

	/* the site enforces this experiment's policy: its plugin binds */
	bool site = bound && np_site_binds(c, e);
	bool masks = bound && c->opts->bind_via == NP_BIND_MASKS && !site;

	if (e->sets) {
		/* np_sets runs one srun per set, with its nodes and outputs */
		np_sb_printf(b, "np_sets %s %u ", e->name, rep);
		np_sb_shq(b, e->sets);
		np_sb_printf(b, " %u %u ", e->sets_parallel, per_node ? per_node : 1);
		np_sb_shq(b, e->nodelist ? e->nodelist : "");
		np_sb_printf(b, " -- --ntasks-per-node=%u ", per_node ? per_node : 1);
	} else {
		/* a masks step takes the whole node (--whole), without -c: a
		 * step of -c 1 holds one CPU even with --whole */
		np_sb_printf(b, "srun -N %u -n %u --ntasks-per-node=%u ", e->nodes, e->ntasks, per_node ? per_node : 1);
	}
	if (!masks)
		np_sb_printf(b, "-c %u ", e->threads);
	if (e->nodelist && !e->sets) {
		np_sb_add(b, "--nodelist=");
		np_sb_shq(b, e->nodelist);
		np_sb_add(b, " ");
	}
	if ((c->opts->bind_via == NP_BIND_PLUGIN && (bound || e->policy)) || site) {
		np_sb_printf(b, "--numa-plan=%s ", np_exp_plugin_policy(e));
	} else if (c->opts->bind_via == NP_BIND_SLURM) {
		/* each task on the cores Slurm gave it, whatever their numbers
		 * on that node: nodes that number their CPUs differently */
		np_sb_add(b, "--cpu-bind=cores ");
	} else if (bound) {
		/* np_binding chose: the masks on whole nodes, for a step that
		 * takes the whole node (else it gets -c CPUs, and srun refuses
		 * a mask outside them), or the plugin */
		np_sb_add(b, "${NP_MASKS:+--whole --cpu-bind=mask_cpu:");
		for (i = 0; i < e->nrank_cpus; i++) {
			np_cpuset_t *s = np_cpuset_new();
			char *hex = NULL;
			if (s && np_cpuset_parse(s, e->rank_cpus[i]) == 0)
				hex = np_cpuset_format_hex(s);
			np_cpuset_free(s);
			if (!hex)
				return -EINVAL;
			np_sb_printf(b, "%s%s", i ? "," : "", hex);
			free(hex);
		}
		np_sb_printf(b, "}${NP_PLUGIN:+-c %u --numa-plan=%s}${NP_NOBIND:+-c %u --cpu-bind=none} ", e->threads,
		             np_exp_plugin_policy(e), e->threads);
	} else {
		np_sb_add(b, "--cpu-bind=none ");
	}
	if (e->mpi)
		np_sb_add(b, "--mpi=\"$NP_SRUN_MPI\" ");
	if (e->workdir) {
		np_sb_add(b, "--chdir=");
		np_sb_shq(b, e->workdir);
		np_sb_add(b, " ");
	}
	if (!e->sets)
		np_sb_printf(b, "--output=raw/%s.r%u.%%N.out --error=raw/%s.r%u.%%N.err ", e->name, rep, e->name, rep);
	if (e->mems)
		np_sb_printf(b, "numactl --membind=%s ", e->mems);
	env_part(b, e, bound);
	np_sb_add(b, e->cmd);
	return 0;
}

static unsigned max_u(unsigned a, unsigned b)
{
	return a > b ? a : b;
}

/* --nodelist of a job planned on probed nodes: the nodes the experiments
 * name (several node types), else the first probed ones; *nodes grows to
 * their count. */
static char *pinned_nodes(const np_run_ctx_t *c, unsigned *nodes)
{
	np_sb_t b;
	unsigned i, k, n = 0;

	np_sb_init(&b);
	np_sb_add(&b, "");
	if (c->ntypes > 1) {
		for (i = 0; i < c->ntypes; i++)
			for (k = 0; k < c->types[i].nnodes; k++) {
				unsigned j;
				bool used = false;
				for (j = 0; j < c->exps.n && !used; j++) {
					const char *l = c->exps.v[j]->nodelist;
					size_t nl = strlen(c->types[i].nodes[k]);
					const char *p = l;
					while (p && (p = strstr(p, c->types[i].nodes[k]))) {
						if ((p == l || p[-1] == ',') && (p[nl] == ',' || p[nl] == '\0'))
							used = true;
						p += nl;
					}
				}
				if (used)
					np_sb_printf(&b, "%s%s", n++ ? "," : "", c->types[i].nodes[k]);
			}
	} else {
		for (k = 0; k < c->types[0].nnodes && k < *nodes; k++)
			np_sb_printf(&b, "%s%s", n++ ? "," : "", c->types[0].nodes[k]);
	}
	if (n > *nodes)
		*nodes = n;
	return np_sb_take(&b);
}

/* The #SBATCH lines: the job's shape, where its output goes, and that a
 * node's failure neither ends nor restarts the others' work. */
static void sbatch_lines(np_sb_t *b, const np_run_ctx_t *c, bool array, bool whole, unsigned nodes,
                         unsigned cpn, const char *pin)
{
	const np_run_opts_t *o = c->opts;

	np_sb_printf(b, "#SBATCH --job-name=numaplan-%s\n", o->suite->name);
	if (array)
		np_sb_printf(b, "#SBATCH --array=1-%u\n", c->array_tasks);
	np_sb_printf(b, "#SBATCH --nodes=%u\n", array ? 1 : nodes);
	if (o->nodelist && !array)
		/* the user's nodes (the probe asked them) */
		np_sb_printf(b, "#SBATCH --nodelist=%s\n", o->nodelist);
	else if (pin)
		/* the nodes whose topology was probed and planned on */
		np_sb_printf(b, "#SBATCH --nodelist=%s\n", pin);
	np_sb_printf(b, "#SBATCH --ntasks-per-node=%u\n", cpn);
	np_sb_printf(b, "#SBATCH --output=%s/slurm-%s.out\n", c->outdir, array ? "%A_%a" : "%j");
	if (o->partition)
		np_sb_printf(b, "#SBATCH --partition=%s\n", o->partition);
	if (o->time_limit)
		np_sb_printf(b, "#SBATCH --time=%s\n", o->time_limit);
	if (whole)
		np_sb_add(b, "#SBATCH --exclusive\n");
	/* A node that fails must not end the job of every other node
	 * (--no-kill), nor start it again from the beginning over the
	 * results already measured (--no-requeue). */
	np_sb_add(b, "#SBATCH --no-kill\n#SBATCH --no-requeue\n");
	for (unsigned i = 0; i < o->sbatch_args.n; i++)
		np_sb_printf(b, "#SBATCH %s\n", o->sbatch_args.v[i]);
}

/* One np_step line per experiment and repetition.  Repetitions outermost:
 * a drift of the machine during the run spreads over every experiment
 * instead of biasing one. */
static int step_lines(np_sb_t *b, const np_run_ctx_t *c, bool local, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	unsigned idx = 0;
	int rc;

	for (unsigned r = 1; r <= o->repeat; r++) {
		for (unsigned i = 0; i < c->exps.n; i++) {
			const np_exp_t *e = c->exps.v[i];

			idx++;
			np_sb_printf(b, "# %s: ", e->name);
			add_comment_text(b, e->desc ? e->desc : "");
			np_sb_add(b, "\n");
			if (e->keep && e->workdir) {
				np_sb_add(b, "NP_POST=");
				char *post = np_strdup_printf("cp %s/%s raw/%s.r%u.%s 2>/dev/null", e->workdir, e->keep,
				                              e->name, r, e->keep);
				np_sb_shq(b, post ? post : "true");
				free(post);
				np_sb_add(b, " ");
			}
			if (local && e->nrank_cpus && step_cpus(b, e) < 0)
				return np_error_set(err, -ENOMEM, "out of memory");
			np_sb_printf(b, "np_step %u %s %u %u%s%s -- ", idx, e->name, r, e->nodes,
			             e->nodelist ? "@" : "", e->nodelist ? e->nodelist : "");
			rc = local ? local_launch(b, e) : slurm_launch(b, c, e, r);
			if (rc < 0)
				return np_error_set(err, rc, "%s: cannot format the binding", e->name);
			np_sb_add(b, "\n");
		}
	}
	return 0;
}

/* "# Planned on the topology of SOURCE", one line per node type */
static void planned_on(np_sb_t *b, const np_run_ctx_t *c)
{
	for (unsigned i = 0; i < c->ntypes; i++) {
		np_sb_add(b, i ? "\n# Planned on the topology of " : "# Planned on the topology of ");
		add_comment_text(b, c->types[i].source);
	}
}

/* A value of the template without the newline its line ends with */
static char *chomp(np_sb_t *b)
{
	if (b->len && b->s[b->len - 1] == '\n')
		b->s[--b->len] = '\0';
	return b->s ? b->s : (char *)"";
}

int np_jobscript_write(np_run_ctx_t *c, const char *name, unsigned *nsteps, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	bool local = o->mode == NP_MODE_LOCAL;
	unsigned i, nodes = 1, cpn = 1, total;
	bool array = !local && c->array_tasks > 0;
	bool masks = !local && o->bind_via == NP_BIND_MASKS;
	/* an array task is one node, and two tasks must never share one */
	bool whole = o->exclusive || c->whole_nodes || array || (masks && !o->shared);
	char *pin = NULL, num[4][24];
	const char *path = getenv("PATH");
	/* the parts of the script, filled into the template by name */
	enum { SBATCH, COMMAND, PLANNED, OUT, PATHV, SETUP, BINDING, STEPS, NPARTS };
	np_sb_t part[NPARTS], b;
	int rc = 0;

	total = c->exps.n * o->repeat;
	for (i = 0; i < c->exps.n; i++) {
		const np_exp_t *e = c->exps.v[i];
		unsigned per = e->ntasks / (e->nodes ? e->nodes : 1);
		nodes = max_u(nodes, e->nodes);
		cpn = max_u(cpn, (per ? per : 1) * e->threads);
	}
	if (c->pin_nodes && !array)
		pin = pinned_nodes(c, &nodes);
	for (i = 0; i < NPARTS; i++)
		np_sb_init(&part[i]);
	if (!local)
		sbatch_lines(&part[SBATCH], c, array, whole, nodes, cpn, pin);
	free(pin);
	add_comment_text(&part[COMMAND], o->cmdline ? o->cmdline : "numaplan run");
	planned_on(&part[PLANNED], c);
	np_sb_shq(&part[OUT], c->outdir);
	np_sb_shq(&part[PATHV], path ? path : "/usr/bin:/bin");
	if (o->job_setup) {
		np_sb_add(&part[SETUP], "# --job-setup: the site's environment (MPI stack, modules)\n");
		np_sb_add(&part[SETUP], o->job_setup);
		np_sb_add(&part[SETUP], "\n");
	}
	if (masks) {
		node_cpus(&part[BINDING], c);
		np_sb_add(&part[BINDING], "np_binding\n");
	}
	rc = step_lines(&part[STEPS], c, local, err);
	snprintf(num[0], sizeof(num[0]), "%u", c->exps.n);
	snprintf(num[1], sizeof(num[1]), "%u", o->repeat);
	snprintf(num[2], sizeof(num[2]), "%u", total);
	snprintf(num[3], sizeof(num[3]), "%u", local || array ? 1 : nodes);
	const np_tfield_t f[] = {
		{ "SBATCH", chomp(&part[SBATCH]) },
		{ "COMMAND", chomp(&part[COMMAND]) },
		{ "PLANNED_ON", chomp(&part[PLANNED]) },
		{ "BIND_VIA_NOTE", !local && masks ? (whole ?
		  "# --bind-via masks: explicit masks need whole nodes, so the job asks for them (--exclusive);\n"
		  "# on partial nodes the steps fall back to the numaplan plugin (np_binding)." :
		  "# --bind-via masks with --shared: explicit masks need whole nodes; on partial nodes\n"
		  "# the steps fall back to the numaplan plugin (np_binding).") : NULL },
		{ "EXPERIMENTS", num[0] },
		{ "REPEAT", num[1] },
		{ "OUT", chomp(&part[OUT]) },
		{ "MODE", local ? "local" : "slurm" },
		{ "NSTEPS", num[2] },
		{ "ARRAY", array ? "1" : "0" },
		{ "SRUN_MPI", o->srun_mpi ? o->srun_mpi : "pmi2" },
		{ "PATH", chomp(&part[PATHV]) },
		{ "JOB_SETUP", chomp(&part[SETUP]) },
		{ "BINDING", chomp(&part[BINDING]) },
		{ "NODES", num[3] },
		{ "STEPS", chomp(&part[STEPS]) },
	};
	np_sb_init(&b);
	for (i = 0; i < NPARTS; i++)
		if (part[i].oom && rc == 0)
			rc = np_error_set(err, -ENOMEM, "out of memory");
	if (rc == 0)
		rc = np_template_fill(&b, np_jobscript_template, f, sizeof(f) / sizeof(f[0]), err);
	for (i = 0; i < NPARTS; i++)
		np_sb_free(&part[i]);
	if (rc < 0) {
		np_sb_free(&b);
		return rc;
	}
	rc = np_outdir_write_sb(c->outfd, c->outdir, name, &b, true, err);
	/* the follower counts the steps of every task of an array */
	if (nsteps)
		*nsteps = total * (array ? c->array_tasks : 1);
	return rc;
}
