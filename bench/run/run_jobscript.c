/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_jobscript.c - the one script that runs every experiment of a run.
 *
 * The same script serves sbatch and --inline (srun steps with --cpu-bind
 * masks or --numa-plan) and, generated with NP_MODE=local, runs the same
 * steps with mpiexec.mpich -bind-to user:... and numactl.  Each step
 * records its exit status, wall time and the /proc/stat CPU counters of
 * every node it used before and after, next to its raw output.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "outdir.h"
#include "suites/suite.h"

static const char prelude[] =
"set -u\n"
"cd \"$NP_OUT\" || exit 2\n"
"mkdir -p raw\n"
"# the node states numaplan run kept of an earlier job are not this one's\n"
"rm -f raw/node_states.txt\n"
"[ \"$NP_ARRAY\" = 1 ] || : >progress.log\n"
"NP_FAILED=0\n"
"NP_NODE=${SLURMD_NODENAME:-$(hostname -s)}\n"
"# CPU time of every node of a step, before and after it: the system\n"
"# share of the step's CPUs next to each result, and how busy the node's\n"
"# other CPUs were meanwhile (contention).  Lines: WHEN NODE cpu ... (the\n"
"# machine), WHEN NODE allowed LIST (the CPUs a step has there: the job's,\n"
"# or with --local the plan's, NP_STEP_CPUS), WHEN NODE cpuN ... (each CPU).\n"
"np_stat() { # file nodes[@nodelist] when\n"
"\tlocal n=${2%%@*} w= line='h=${1:-${SLURMD_NODENAME:-$(hostname -s)}}; printf \"%s %s allowed %s\\n\" \"$0\" \"$h\" \"${2:-$(sed -n \"s/^Cpus_allowed_list:[[:space:]]*//p\" /proc/self/status)}\"; while read -r l; do case $l in cpu*) printf \"%s %s %s\\n\" \"$0\" \"$h\" \"$l\";; *) break;; esac; done </proc/stat'\n"
"\t[ \"$n\" = \"$2\" ] || w=--nodelist=${2#*@}\n"
"\tif [ \"$NP_MODE\" = local ]; then\n"
"\t\tbash -c \"$line\" \"$3\" \"$NP_NODE\" \"${NP_STEP_CPUS:-}\" >>\"$1\"\n"
"\telse\n"
"\t\tsrun --overlap -N \"$n\" -n \"$n\" $w --ntasks-per-node=1 --cpu-bind=none \\\n"
"\t\t\tbash -c \"$line\" \"$3\" >>\"$1\" 2>/dev/null\n"
"\tfi\n"
"}\n"
"# Which machine each node is and which CPUs the job has there: the\n"
"# kernel's boot id (one per running kernel: nodes that show the same one\n"
"# are one machine) and the CPUs a step may use.  Nodes of one machine\n"
"# with CPUs in common shared them (results.json, shared_cpus).\n"
"np_hosts() { # nodes\n"
"\tlocal line='printf \"%s %s %s\\n\" \"${SLURMD_NODENAME:-$(hostname -s)}\" \"$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo -)\" \"$(sed -n \"s/^Cpus_allowed_list:[[:space:]]*//p\" /proc/self/status)\"'\n"
"\tif [ \"$NP_MODE\" = local ]; then\n"
"\t\tbash -c \"$line\" >>raw/hosts.txt\n"
"\telse\n"
"\t\tsrun --overlap -N \"$1\" -n \"$1\" --ntasks-per-node=1 --cpu-bind=none bash -c \"$line\" >>raw/hosts.txt 2>/dev/null\n"
"\tfi\n"
"}\n"
"# Independent runs side by side, one per set of nodes (sets of indexes\n"
"# into the node list $6, or the job's, \"0 1\" or \"0,1 2,3\"), at most $4\n"
"# at once (0: all), $5 ranks per node: each set has its own output and\n"
"# exit status, LABEL being its node names joined by '+'.\n"
"np_sets() { # name rep sets parallel ranks-per-node nodelist -- srun options and command...\n"
"\tlocal name=$1 rep=$2 sets=$3 par=$4 rpn=$5 list=${6:-$SLURM_JOB_NODELIST} set i hosts label n running=0 rc=0 f\n"
"\tlocal -a all\n"
"\tshift 7\n"
"\tmapfile -t all < <(scontrol show hostnames \"$list\")\n"
"\tfor set in $sets; do\n"
"\t\thosts= label= n=0\n"
"\t\tfor i in ${set//,/ }; do\n"
"\t\t\t[ -n \"${all[$i]:-}\" ] || continue 2  # beyond the nodes there are\n"
"\t\t\thosts=$hosts${hosts:+,}${all[$i]}; label=$label${label:++}${all[$i]}; n=$((n + 1))\n"
"\t\tdone\n"
"\t\t# resubmitted to finish a run: a set that succeeded is not redone\n"
"\t\tgrep -qx 'rc=0' \"raw/$name.r$rep.$label.rc\" 2>/dev/null && continue\n"
"\t\tif [ \"$par\" -gt 0 ] && [ \"$running\" -ge \"$par\" ]; then wait -n; running=$((running - 1)); fi\n"
"\t\t{\n"
"\t\t\tlocal try r\n"
"\t\t\t# a step that never started (no output: the controller restarting,\n"
"\t\t\t# a node not answering) is tried once more before it counts\n"
"\t\t\tfor try in 1 2; do\n"
"\t\t\t\tsrun -N \"$n\" -n $((n * rpn)) -w \"$hosts\" --output=\"raw/$name.r$rep.$label.out\" \\\n"
"\t\t\t\t\t--error=\"raw/$name.r$rep.$label.err\" \"$@\"\n"
"\t\t\t\tr=$?\n"
"\t\t\t\t{ [ \"$r\" -eq 0 ] || [ -e \"raw/$name.r$rep.$label.out\" ]; } && break\n"
"\t\t\t\tsleep 5\n"
"\t\t\tdone\n"
"\t\t\t# cut short by the job's cancelling (Ctrl-C, scancel): no result,\n"
"\t\t\t# not a failure of the node (numaplan reads 'rc=cancelled' so).\n"
"\t\t\t# While its steps are killed a cancelled job shows COMPLETING\n"
"\t\t\t# (a flag Slurm names before the state), and this script still\n"
"\t\t\t# running means the job is being ended under it (a time limit\n"
"\t\t\t# too): a step that failed then was cut short (seen: exit 143,\n"
"\t\t\t# 168 on Ctrl-C)\n"
"\t\t\tif [ \"$r\" -ne 0 ] && [ \"$NP_MODE\" != local ] &&\n"
"\t\t\t   squeue -h -j \"${SLURM_JOB_ID:-0}\" -o %T 2>/dev/null | grep -Eq 'CANCELLED|COMPLETING'; then r=cancelled; fi\n"
"\t\t\tprintf 'rc=%s\\n' \"$r\" >\"raw/$name.r$rep.$label.rc\"\n"
"\t\t} &\n"
"\t\trunning=$((running + 1))\n"
"\tdone\n"
"\twait\n"
"\tfor f in \"raw/$name.r$rep.\"*.rc; do\n"
"\t\tgrep -qx 'rc=0' \"$f\" 2>/dev/null || rc=1\n"
"\tdone\n"
"\treturn $rc\n"
"}\n"
"np_step() { # index name rep nodes[@nodelist] -- command...\n"
"\tlocal idx=$1 name=$2 rep=$3 nodes=$4 base=raw/$2.r$3 t0 t1 rc rcf=raw/$2.r$3.rc log=raw/$2.r$3.srun.log on=\n"
"\tshift 5\n"
"\t# the tasks of a job array run the same steps, each on its node\n"
"\tif [ \"$NP_ARRAY\" = 1 ]; then rcf=$base.$NP_NODE.rc log=$base.$NP_NODE.srun.log on=\" on $NP_NODE\"; fi\n"
"\t# resubmitted to finish a run: a step that succeeded is not redone\n"
"\tif grep -q '^rc=0 ' \"$rcf\" 2>/dev/null; then\n"
"\t\tprintf '%s/%s %s rep %s exit 0 done before%s\\n' \"$idx\" \"$NP_NSTEPS\" \"$name\" \"$rep\" \"$on\" | tee -a progress.log\n"
"\t\treturn 0\n"
"\tfi\n"
"\tnp_stat \"$base.stat\" \"$nodes\" before\n"
"\tt0=$(date +%s.%N)\n"
"\tif [ \"$NP_MODE\" = local ]; then\n"
"\t\t\"$@\" >\"$base.$NP_NODE.out\" 2>\"$base.$NP_NODE.err\"\n"
"\telse\n"
"\t\t\"$@\" >\"$log\" 2>&1\n"
"\tfi\n"
"\trc=$?\n"
"\t[ \"$rc\" -eq 0 ] || NP_FAILED=$((NP_FAILED + 1))\n"
"\tt1=$(date +%s.%N)\n"
"\tnp_stat \"$base.stat\" \"$nodes\" after\n"
"\tif [ -n \"${NP_POST:-}\" ]; then eval \"$NP_POST\"; fi\n"
"\tprintf 'rc=%s start=%s end=%s\\n' \"$rc\" \"$t0\" \"$t1\" >\"$rcf\"\n"
"\tprintf '%s/%s %s rep %s exit %s %ss%s\\n' \"$idx\" \"$NP_NSTEPS\" \"$name\" \"$rep\" \"$rc\" \\\n"
"\t\t\"$(awk -v a=\"$t0\" -v b=\"$t1\" 'BEGIN { printf \"%.2f\", b - a }')\" \"$on\" | tee -a progress.log\n"
"}\n";

/* --bind-via masks: srun applies explicit --cpu-bind masks only when the
 * step holds every CPU the masks name, and fails the step otherwise ("CPU
 * binding outside of job step allocation"): the job needs whole nodes and
 * each step takes them (srun --whole).  The job looks at what it got:
 * whole nodes take the masks, partial ones the numaplan plugin's
 * --numa-plan (or no binding without the plugin), with a note. */
static const char binding_check[] =
"np_binding() {\n"
"\tlocal parts=() counts=() c n i=0 host want short=''\n"
"\tIFS=, read -r -a parts <<<\"${SLURM_JOB_CPUS_PER_NODE:-}\"\n"
"\tfor c in \"${parts[@]}\"; do\n"
"\t\tn=1\n"
"\t\tcase $c in *'(x'*) n=${c#*(x}; n=${n%)}; c=${c%%(*};; esac\n"
"\t\twhile [ \"$n\" -gt 0 ]; do counts+=(\"$c\"); n=$((n - 1)); done\n"
"\tdone\n"
"\tfor host in $(scontrol show hostnames \"${SLURM_JOB_NODELIST:-}\" 2>/dev/null); do\n"
"\t\twant=$(np_node_cpus \"$host\")\n"
"\t\t[ \"${counts[$i]:-0}\" -ge \"$want\" ] || short=\"$short $host:${counts[$i]:-0}/$want\"\n"
"\t\ti=$((i + 1))\n"
"\tdone\n"
"\tNP_MASKS= NP_PLUGIN= NP_NOBIND=\n"
"\tif [ \"$i\" -gt 0 ] && [ -z \"$short\" ]; then\n"
"\t\tNP_MASKS=1\n"
"\t\techo 'masks: the job has whole nodes' >raw/binding.txt\n"
"\telif srun --numa-plan=help >/dev/null 2>&1; then\n"
"\t\tNP_PLUGIN=1\n"
"\t\techo \"plugin: partial nodes (CPUs of the job/of the node:${short:- unknown}): explicit masks\" \\\n"
"\t\t\t\"would fail, the numaplan plugin binds (srun --numa-plan)\" >raw/binding.txt\n"
"\telse\n"
"\t\tNP_NOBIND=1\n"
"\t\techo \"none: partial nodes (CPUs of the job/of the node:${short:- unknown}) and no numaplan\" \\\n"
"\t\t\t\"plugin: the steps run unbound\" >raw/binding.txt\n"
"\tfi\n"
"\t[ -n \"$NP_MASKS\" ] || echo \"numaplan: note: binding by $(cat raw/binding.txt)\" >&2\n"
"}\n";

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
			np_sb_printf(b, "# %s: %s\n", e->name, e->desc ? e->desc : "");
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

int np_jobscript_write(np_run_ctx_t *c, const char *name, unsigned *nsteps, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	bool local = o->mode == NP_MODE_LOCAL;
	unsigned i, nodes = 1, cpn = 1, total;
	bool array = !local && c->array_tasks > 0;
	bool masks = !local && o->bind_via == NP_BIND_MASKS;
	/* an array task is one node, and two tasks must never share one */
	bool whole = o->exclusive || c->whole_nodes || array || (masks && !o->shared);
	char *pin = NULL;
	np_sb_t b;
	int rc;

	total = c->exps.n * o->repeat;
	for (i = 0; i < c->exps.n; i++) {
		const np_exp_t *e = c->exps.v[i];
		unsigned per = e->ntasks / (e->nodes ? e->nodes : 1);
		nodes = max_u(nodes, e->nodes);
		cpn = max_u(cpn, (per ? per : 1) * e->threads);
	}
	if (c->pin_nodes && !array)
		pin = pinned_nodes(c, &nodes);
	np_sb_init(&b);
	np_sb_add(&b, "#!/bin/bash\n");
	if (!local)
		sbatch_lines(&b, c, array, whole, nodes, cpn, pin);
	free(pin);
	np_sb_add(&b, "# Generated by: ");
	np_sb_add(&b, o->cmdline ? o->cmdline : "numaplan run");
	for (i = 0; i < c->ntypes; i++) {
		np_sb_add(&b, "\n# Planned on the topology of ");
		np_sb_add(&b, c->types[i].source);
	}
	if (!local && masks)
		np_sb_add(&b, whole ? "\n# --bind-via masks: explicit masks need whole nodes, so the job asks for them "
		          "(--exclusive);\n# on partial nodes the steps fall back to the numaplan plugin (np_binding)."
		          : "\n# --bind-via masks with --shared: explicit masks need whole nodes; on partial nodes\n"
		          "# the steps fall back to the numaplan plugin (np_binding).");
	np_sb_printf(&b, "\n# %u experiments x %u repetitions; raw outputs in raw/, results by numaplan.\n",
	             c->exps.n, o->repeat);
	np_sb_add(&b, "NP_OUT=");
	np_sb_shq(&b, c->outdir);
	np_sb_printf(&b, "\nNP_MODE=%s\nNP_NSTEPS=%u\nNP_ARRAY=%d\n", local ? "local" : "slurm", total, array);
	np_sb_add(&b, "NP_SRUN_MPI=${NP_SRUN_MPI:-");
	np_sb_add(&b, o->srun_mpi ? o->srun_mpi : "pmi2");
	np_sb_add(&b, "}\n");
	np_sb_add(&b, "PATH=");
	{
		const char *p = getenv("PATH");
		np_sb_shq(&b, p ? p : "/usr/bin:/bin");
	}
	np_sb_add(&b, "\nexport PATH\n");
	if (o->job_setup) {
		np_sb_add(&b, "# --job-setup: the site's environment (MPI stack, modules)\n");
		np_sb_add(&b, o->job_setup);
		np_sb_add(&b, "\n");
	}
	np_sb_add(&b, prelude);
	if (masks) {
		node_cpus(&b, c);
		np_sb_add(&b, binding_check);
		np_sb_add(&b, "np_binding\n");
	}
	np_sb_printf(&b, "np_hosts \"${SLURM_JOB_NUM_NODES:-%u}\"\n\n", local || array ? 1 : nodes);
	if ((rc = step_lines(&b, c, local, err)) < 0) {
		np_sb_free(&b);
		return rc;
	}
	/* A failed step fails the job, so sacct and the follower see it. */
	np_sb_add(&b, "if [ \"$NP_FAILED\" -ne 0 ]; then\n"
	          "\techo \"numaplan: $NP_FAILED of $NP_NSTEPS steps failed\" >&2\n\texit 1\nfi\n"
	          "echo \"numaplan: all $NP_NSTEPS steps done\"\n");
	rc = np_outdir_write_sb(c->outfd, c->outdir, name, &b, true, err);
	/* the follower counts the steps of every task of an array */
	if (nsteps)
		*nsteps = total * (array ? c->array_tasks : 1);
	return rc;
}
