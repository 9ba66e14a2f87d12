/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * run_topology.c - which topology `numaplan run` plans on.
 *
 * The compute nodes are not the host numaplan runs on (a login node), so
 * under Slurm the nodes are asked: a probe (a short job, or a first step
 * of the allocation with --inline) runs `numaplan topo --site` on every
 * node, which exports the topology the node's numaplan plugin plans on
 * (the plugin's topology= file, else live discovery) with its fingerprint.
 * Nodes of one fingerprint form a node type, planned once.  --topology
 * FILE and --local name the topology themselves; a dry run has no nodes to
 * ask and plans on this machine, saying so loudly.  The submitting host's
 * topology is never used without a word.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"
#include "outdir.h"
#include "run/suite.h"

static char *host_name(void)
{
	char h[256] = "";

	if (gethostname(h, sizeof(h) - 1) != 0)
		snprintf(h, sizeof(h), "?");
	return strdup(h);
}

static np_node_type_t *add_type(np_run_ctx_t *c)
{
	np_node_type_t *v = realloc(c->types, (c->ntypes + 1) * sizeof(*v));

	if (!v)
		return NULL;
	c->types = v;
	memset(&v[c->ntypes], 0, sizeof(v[0]));
	return &v[c->ntypes++];
}

void np_node_types_free(np_run_ctx_t *c)
{
	unsigned i, k;

	for (i = 0; i < c->ntypes; i++) {
		np_node_type_t *t = &c->types[i];
		free(t->name);
		free(t->xml);
		free(t->source);
		for (k = 0; k < t->nnodes; k++)
			free(t->nodes[k]);
		free(t->nodes);
		np_topo_free(t->topo);
	}
	free(c->types);
	c->types = NULL;
	c->ntypes = 0;
	c->topo = NULL;
	json_decref(c->probe_jobs);
	c->probe_jobs = NULL;
}

/* A probed node's file is the whole node: the probe ran in a step of one
 * CPU, which its file marks as the only allowed one, while the run plans
 * for jobs with every CPU (whole nodes; np_binding checks what a job got). */
static int load(np_run_ctx_t *c, np_node_type_t *t, bool whole, np_error_t *err)
{
	np_load_opts_t lo = { .xml_path = t->xml, .restrict_cpus = c->opts->cpuset,
	                      .flags = whole ? NP_LOAD_WHOLE_MACHINE : 0 };
	int rc = np_topo_load(&t->topo, &lo, err);

	if (rc == 0)
		np_topo_fingerprint(t->topo, t->fingerprint);
	return rc;
}

/* ---- the probe ---------------------------------------------------------- */

/* On every node: the topology its numaplan plugin plans on, with the
 * fingerprint and where it came from; lstopo's live view when numaplan is
 * not in the job's PATH (or fails there, an older release).  And the
 * first CPU's block of /proc/cpuinfo: Rpeak's clock and FLOP/cycle are
 * the compute node's, which an XML does not carry. */
static const char probe_cmd[] =
"n=${SLURMD_NODENAME:-$(hostname -s)}\n"
"sed '/^$/q' /proc/cpuinfo >\"topology/$n.cpuinfo\" 2>/dev/null\n"
"if ! numaplan topo --site --export-xml \"topology/$n.xml\" --fingerprint >\"topology/$n.fp\" 2>\"topology/$n.log\"; then\n"
"\trm -f \"topology/$n.fp\"\n"
"\techo \"numaplan topo: topology: live discovery by lstopo-no-graphics (numaplan topo --site failed or is not in PATH on $n)\" >>\"topology/$n.log\"\n"
"\tlstopo-no-graphics --disallowed --of xml \"topology/$n.xml\" 2>>\"topology/$n.log\"\n"
"fi\n";

static unsigned probe_nodes(const np_run_opts_t *o)
{
	return o->nodes ? o->nodes : o->suite->nodes ? o->suite->nodes : 1;
}

static int write_probe(np_run_ctx_t *c, const char *name, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	const char *p = getenv("PATH");
	unsigned i;
	np_sb_t b;
	int rc;

	np_sb_init(&b);
	np_sb_add(&b, "#!/bin/bash\n");
	if (o->mode == NP_MODE_SLURM) {
		np_sb_add(&b, "#SBATCH --job-name=numaplan-probe\n");
		np_sb_printf(&b, "#SBATCH --nodes=%u\n#SBATCH --ntasks-per-node=1\n", probe_nodes(o));
		np_sb_printf(&b, "#SBATCH --output=%s/slurm-probe-%%j.out\n", c->outdir);
		if (o->partition)
			np_sb_printf(&b, "#SBATCH --partition=%s\n", o->partition);
		if (o->nodelist)
			np_sb_printf(&b, "#SBATCH --nodelist=%s\n", o->nodelist);
		np_sb_printf(&b, "#SBATCH --time=%s\n", o->time_limit ? o->time_limit : "5");
		for (i = 0; i < o->sbatch_args.n; i++)
			np_sb_printf(&b, "#SBATCH %s\n", o->sbatch_args.v[i]);
	}
	np_sb_add(&b, "# numaplan run: the topology of every node as its numaplan plugin plans it\n"
	          "# (numaplan topo --site), before any plan is made; see numaplan-run(1), TOPOLOGY.\n");
	np_sb_add(&b, "PATH=");
	np_sb_shq(&b, p ? p : "/usr/bin:/bin");
	np_sb_add(&b, "\nexport PATH\ncd ");
	np_sb_shq(&b, c->outdir);
	np_sb_add(&b, " || exit 2\nmkdir -p topology\nNP_PROBE=");
	np_sb_shq(&b, probe_cmd);
	np_sb_add(&b, "\nsrun -N \"$SLURM_JOB_NUM_NODES\" --ntasks-per-node=1 --overlap --cpu-bind=none "
	          "bash -c \"$NP_PROBE\"\nrc=$?\n"
	          "printf '1/1 topology probe exit %s\\n' \"$rc\" >progress.log\nexit \"$rc\"\n");
	rc = np_outdir_write_sb(c->outfd, c->outdir, name, &b, true, err);
	return rc;
}

static int cmp_nodes(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* The nodes that left topology/NODE.xml, in natural order. */
static char **probed_nodes(const char *dir, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	unsigned cap = 0;

	*n = 0;
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".xml") != 0 || de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			char **nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = strndup(de->d_name, l - 4);
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_nodes);
	return v;
}

/* What a node's probe says of its source: the "topology:" line. */
static char *probe_says(const char *dir, const char *node)
{
	char *path = np_strdup_printf("%s/%s.log", dir, node), *t = path ? np_read_file(path, NULL, NULL) : NULL;
	char *line = NULL, *p, *res;

	/* the last word on it: lstopo's note follows numaplan's failure */
	for (p = t; p && (p = strstr(p, "topology: ")); p += 10)
		line = p;
	if (line) {
		line += 10;
		line[strcspn(line, "\n")] = '\0';
	}
	res = strdup(line ? line : "how: unknown (no probe log)");
	free(path);
	free(t);
	return res;
}

static bool read_fp(const char *dir, const char *node, char fp[NP_FINGERPRINT_LEN])
{
	char *p = np_strdup_printf("%s/%s.fp", dir, node), *t = p ? np_read_file(p, NULL, NULL) : NULL;
	bool ok = t && strspn(t, "0123456789abcdef") == NP_FINGERPRINT_LEN - 1;

	if (ok)
		snprintf(fp, NP_FINGERPRINT_LEN, "%.16s", t);
	free(p);
	free(t);
	return ok;
}

/* Group the probed nodes by fingerprint: one type per fingerprint, named
 * by its first node, loaded from that node's file. */
static int group(np_run_ctx_t *c, const char *via, np_error_t *err)
{
	char *dir = np_strdup_printf("%s/topology", c->outdir), **nodes;
	unsigned n, i, k;
	int rc = 0;

	if (!dir)
		return np_error_set(err, -ENOMEM, "out of memory");
	nodes = probed_nodes(dir, &n);
	if (n == 0) {
		rc = np_error_set(err, -EIO, "the topology probe left no topology in %s (see its *.log files "
		                  "and the probe job's output)", dir);
		goto out;
	}
	for (i = 0; i < n && rc == 0; i++) {
		char fp[NP_FINGERPRINT_LEN], *xml = np_strdup_printf("%s/%s.xml", dir, nodes[i]);
		np_node_type_t *t = NULL;
		if (!xml) {
			rc = np_error_set(err, -ENOMEM, "out of memory");
			break;
		}
		if (!read_fp(dir, nodes[i], fp)) {
			/* lstopo's file: its fingerprint is computed here */
			np_load_opts_t lo = { .xml_path = xml, .restrict_cpus = c->opts->cpuset,
			                      .flags = NP_LOAD_WHOLE_MACHINE };
			np_topo_t *tp = NULL;
			if ((rc = np_topo_load(&tp, &lo, err)) < 0) {
				free(xml);
				break;
			}
			np_topo_fingerprint(tp, fp);
			np_topo_free(tp);
		}
		for (k = 0; k < c->ntypes && !t; k++)
			if (strcmp(c->types[k].fingerprint, fp) == 0)
				t = &c->types[k];
		if (!t) {
			char *says = probe_says(dir, nodes[i]);
			if (!(t = add_type(c))) {
				free(says);
				free(xml);
				rc = np_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			t->name = strdup(nodes[i]);
			t->xml = xml;
			xml = NULL;
			t->source = np_strdup_printf("compute node %s via %s: %s", nodes[i], via, says);
			free(says);
			if ((rc = load(c, t, true, err)) < 0)
				break;
			/* a file that reads back with another fingerprint is
			 * grouped by the node's own */
			snprintf(t->fingerprint, sizeof(t->fingerprint), "%s", fp);
		}
		free(xml);
		{
			char **nv = realloc(t->nodes, (t->nnodes + 1) * sizeof(char *));
			if (!nv) {
				rc = np_error_set(err, -ENOMEM, "out of memory");
				break;
			}
			t->nodes = nv;
			t->nodes[t->nnodes++] = strdup(nodes[i]);
		}
	}
out:
	np_strv_free(nodes, n);
	free(dir);
	return rc;
}

static int probe(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	char *script = np_strdup_printf("%s/probe.sh", c->outdir), *via = NULL;
	int rc;

	if (!script)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = write_probe(c, "probe.sh", err)) < 0)
		goto out;
	if (!o->quiet)
		printf("numaplan run %s: asking the compute nodes for their topology (%s)\n", o->suite->name,
		       o->mode == NP_MODE_SLURM ? "a short probe job" : "a first step of this allocation");
	fflush(stdout);
	if (o->mode == NP_MODE_SLURM) {
		json_t *j;
		c->probe_jobs = json_array();
		rc = np_run_slurm(c, script, 1, c->probe_jobs, err);
		j = json_array_get(c->probe_jobs, 0);
		if (rc < 0) {
			char why[sizeof(err->msg)];
			snprintf(why, sizeof(why), "%s", err->msg);
			np_error_set(err, rc, "the topology probe failed: %s", why);
			goto out;
		}
		via = np_strdup_printf("probe job %s", np_json_str(j, "id"));
	} else {
		char *cmd;
		np_sb_t b;
		if (!getenv("SLURM_JOB_ID")) {
			rc = np_error_set(err, -EINVAL, "--inline runs inside an allocation (salloc or sbatch), "
			                  "but SLURM_JOB_ID is not set; use --local or submit with sbatch");
			goto out;
		}
		np_sb_init(&b);
		np_sb_add(&b, "bash ");
		np_sb_shq(&b, script);
		np_sb_add(&b, " >/dev/null");
		cmd = np_sb_take(&b);
		rc = cmd ? system(cmd) : -1;
		free(cmd);
		if (rc != 0) {
			rc = np_error_set(err, -EIO, "the topology probe step failed (exit %d); see %s/topology/*.log",
			                  WEXITSTATUS(rc), c->outdir);
			goto out;
		}
		via = np_strdup_printf("a step of job %s", getenv("SLURM_JOB_ID"));
	}
	rc = group(c, via ? via : "probe", err);
	c->pin_nodes = rc == 0 && o->mode == NP_MODE_SLURM;
out:
	free(via);
	free(script);
	return rc;
}

/* ---- the choice ----------------------------------------------------------- */

int np_run_topology(np_run_ctx_t *c, np_error_t *err)
{
	const np_run_opts_t *o = c->opts;
	np_node_type_t *t;
	char *host;
	int rc;

	if (!o->topology && o->mode != NP_MODE_LOCAL && !(o->dry_run && !o->plan_only)) {
		if ((rc = probe(c, err)) < 0)
			return rc;
		c->topo = c->types[0].topo;
		return 0;
	}
	if (!(t = add_type(c)) || !(host = host_name()))
		return np_error_set(err, -ENOMEM, "out of memory");
	if (o->topology) {
		t->name = strdup("file");
		t->xml = np_abspath(o->topology);
		t->source = np_strdup_printf("file %s (--topology)", t->xml ? t->xml : o->topology);
	} else if (o->mode == NP_MODE_LOCAL) {
		t->name = strdup("local");
		t->source = np_strdup_printf("local: this machine, %s (--local runs here)", host);
	} else {
		/* a dry run submits nothing, so no node can be asked */
		t->name = strdup("local");
		t->source = np_strdup_printf("local (dry run, stated): this machine, %s; the compute nodes were "
		                             "not asked", host);
		np_opt_print("run %s: note: --dry-run plans on THIS machine's topology (%s), not the compute "
		             "nodes'; give --topology FILE (numaplan topo --export-xml FILE on a compute node) "
		             "or use --plan-only to ask the nodes", o->suite->name, host);
	}
	free(host);
	if (!t->name || !t->source)
		return np_error_set(err, -ENOMEM, "out of memory");
	if ((rc = load(c, t, false, err)) < 0)
		return rc;
	c->topo = t->topo;
	return 0;
}

char *np_node_type_cpuinfo(const np_run_ctx_t *c, const np_node_type_t *t)
{
	char *path, *text;

	if (!t->nnodes || !t->name)
		return NULL;    /* not probed: no compute node to ask */
	path = np_strdup_printf("%s/topology/%s.cpuinfo", c->outdir, t->name);
	text = path ? np_read_file(path, NULL, NULL) : NULL;
	free(path);
	if (text && !*text) {
		free(text);
		text = NULL;
	}
	return text;
}

json_t *np_node_types_json(const np_run_ctx_t *c)
{
	json_t *a = json_array();
	unsigned i, k;

	for (i = 0; i < c->ntypes; i++) {
		const np_node_type_t *t = &c->types[i];
		json_t *nodes = json_array();
		for (k = 0; k < t->nnodes; k++)
			json_array_append_new(nodes, json_string(t->nodes[k]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s?, s:s, s:o, s:i, s:i, s:i}", "name", t->name,
		                      "source", t->source, "file", t->xml, "fingerprint", t->fingerprint,
		                      "nodes", nodes, "numa_nodes", t->topo ? (int)t->topo->nnuma : 0,
		                      "cores", t->topo ? (int)t->topo->ncores : 0,
		                      "pus", t->topo ? (int)np_cpuset_count(t->topo->complete) : 0));
	}
	return a;
}

int np_node_types_restore(np_run_ctx_t *c, json_t *types, const char *topology, np_error_t *err)
{
	json_t *j, *x;
	size_t i, k;
	int rc;

	if (!json_array_size(types)) {
		/* a run directory written before node types: its one topology */
		np_node_type_t *t = add_type(c);
		if (!t)
			return np_error_set(err, -ENOMEM, "out of memory");
		t->name = strdup(topology ? "file" : "local");
		t->xml = topology ? strdup(topology) : NULL;
		t->source = strdup(topology ? topology : "live");
		if ((rc = load(c, t, false, err)) < 0)
			return rc;
		c->topo = t->topo;
		return 0;
	}
	json_array_foreach(types, i, j) {
		np_node_type_t *t = add_type(c);
		const char *f = json_string_value(json_object_get(j, "file"));
		if (!t)
			return np_error_set(err, -ENOMEM, "out of memory");
		t->name = strdup(np_json_str(j, "name"));
		t->source = strdup(np_json_str(j, "source"));
		t->xml = f ? strdup(f) : NULL;
		json_array_foreach(json_object_get(j, "nodes"), k, x) {
			char **nv = realloc(t->nodes, (t->nnodes + 1) * sizeof(char *));
			if (!nv)
				return np_error_set(err, -ENOMEM, "out of memory");
			t->nodes = nv;
			t->nodes[t->nnodes++] = strdup(json_string_value(x) ? json_string_value(x) : "");
		}
		if ((rc = load(c, t, t->nnodes > 0, err)) < 0)
			return rc;
	}
	c->topo = c->types[0].topo;
	return 0;
}
